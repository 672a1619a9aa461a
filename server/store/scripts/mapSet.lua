-- Expiring map set for RedisStore.mapSet: stores one entry and renews its expiry.
--
-- KEYS[1]: the map's values, a hash {field = msgpack bytes}.
-- KEYS[2]: the map's expiry times, a sorted set {field scored by epoch ms, this server's TIME,
--          so that processes on machines with skewed clocks share one clock}.
-- ARGV: field, value bytes, ttlMs.
-- Also drops entries that expired (up to 1000 a call), so the map holds little more than its
-- live entries, and lets both keys expire with the last live entry.

local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)

local dead = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', string.format('%d', now), 'LIMIT', 0, 1000)
if #dead > 0 then
  redis.call('HDEL', KEYS[1], unpack(dead))
  redis.call('ZREM', KEYS[2], unpack(dead))
end

-- string.format: a plain Lua number argument is sent as %.14g, which loses digits.
redis.call('ZADD', KEYS[2], string.format('%d', now + tonumber(ARGV[3])), ARGV[1])
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
local last = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')
local keep = string.format('%d', tonumber(last[2]) - now)
redis.call('PEXPIRE', KEYS[1], keep)
redis.call('PEXPIRE', KEYS[2], keep)
return 1
