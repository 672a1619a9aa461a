-- Expiring map delete for RedisStore.mapDelete (KEYS and clock as in mapSet.lua).
-- ARGV: field. Returns 1 when a live entry was removed, else 0.

local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)

local expiresAt = redis.call('ZSCORE', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
if expiresAt and tonumber(expiresAt) > now then return 1 end
return 0
