-- Token bucket take for RedisStore.takeTokens: one atomic refill-and-take.
-- Mirrors takeFromBucket in server/store/tokenBucket.ts operation for operation, so that the
-- memory and Redis stores compute the same doubles (see that function for the semantics).
--
-- KEYS[1]: the bucket, a hash {t = tokens (%.17g, round-trips a double), a = epoch ms}.
-- ARGV: capacity, refillPerSec, cost, nowMs ('' = this server's TIME, so that processes on
--       machines with skewed clocks share one clock).
-- Returns {allowed (0|1), tokens left as a string (a Lua number reply would be truncated),
--          retryAfterMs}.

local capacity = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local cost = tonumber(ARGV[3])
local now
if ARGV[4] == '' then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
else
  now = tonumber(ARGV[4])
end

local stored = redis.call('HMGET', KEYS[1], 't', 'a')
local tokens = tonumber(stored[1])
local at = tonumber(stored[2])
if tokens == nil or at == nil then
  tokens = capacity
  at = now
elseif now > at then
  tokens = tokens + ((now - at) * rate) / 1000
  at = now
end
if tokens > capacity then tokens = capacity end

local allowed = 0
local retry = 0
if tokens >= cost then
  tokens = tokens - cost
  allowed = 1
else
  retry = math.ceil(((cost - tokens) * 1000) / rate)
  if retry < 1 then retry = 1 end
end

-- Kept until it would be full again: an absent bucket is a full one.
local ttl = math.ceil(((capacity - tokens) * 1000) / rate)
if ttl < 1 then ttl = 1 end
redis.call('HSET', KEYS[1], 't', string.format('%.17g', tokens), 'a', string.format('%.17g', at))
redis.call('PEXPIRE', KEYS[1], ttl)
return {allowed, string.format('%.17g', tokens), retry}
