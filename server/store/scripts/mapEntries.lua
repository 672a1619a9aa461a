-- Expiring map read for RedisStore.mapEntries (KEYS and clock as in mapSet.lua): the live
-- entries only, found by expiry time, so expired ones cost nothing to skip.
-- Returns {field1, value1, field2, value2, ...}.

local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)

local fields = redis.call('ZRANGEBYSCORE', KEYS[2], '(' .. string.format('%d', now), '+inf')
local out = {}
-- HMGET in chunks: unpack() of a very long list would overflow the Lua stack.
for i = 1, #fields, 1000 do
  local chunk = { unpack(fields, i, math.min(i + 999, #fields)) }
  local values = redis.call('HMGET', KEYS[1], unpack(chunk))
  for j = 1, #chunk do
    if values[j] then
      out[#out + 1] = chunk[j]
      out[#out + 1] = values[j]
    end
  end
end
return out
