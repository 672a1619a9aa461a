-- Atomic guarded multi-write for RedisStore.commit (server/store/redis.ts builds the arguments).
--
-- KEYS[1]: the read-lease holders set (readLeases.ts); then one value key per guard, then the
--       keys of each op in order (del uses three: the value, counter and index key of the same
--       store key).
-- ARGV[1]: the read-lease notices channel; ARGV[2]: the notice to publish once the writes are
--       applied ('' = none); ARGV[3]: number of guards G.
-- Then per guard: '1', expected bytes   (value must be byte-equal)
--             or  '0', ''               (key must be absent)
-- Then per op, a code and its arguments:
--   's', value, ttlMs ('' = no expiry)   SET [PX]
--   'd'                                  DEL value, counter and index key
--   'i', by                              INCRBY
--   'a', n, member1 .. memberN           ZADD with score 0
--   'r', n, member1 .. memberN           ZREM
-- Returns {0} without writing anything if a guard fails, else, after applying every op and
-- publishing the notice, {1, holder1, holder2, ...}: the processes that must hear of it.

local nguards = tonumber(ARGV[3])
local a = 4

-- Every guard is checked before the first write: a Lua script cannot roll back.
for i = 1, nguards do
  local current = redis.call('GET', KEYS[i + 1])
  if ARGV[a] == '1' then
    if current ~= ARGV[a + 1] then return {0} end
  elseif current then
    return {0}
  end
  a = a + 2
end

-- unpack() is bounded by the Lua C stack, so long member lists go in batches.
local BATCH = 500
local function members(command, key, first, n, withScore)
  local done = 0
  while done < n do
    local upto = math.min(n, done + BATCH)
    local args = {}
    for j = done + 1, upto do
      if withScore then args[#args + 1] = '0' end
      args[#args + 1] = ARGV[first + j - 1]
    end
    redis.call(command, key, unpack(args))
    done = upto
  end
end

local k = nguards + 2
while a <= #ARGV do
  local code = ARGV[a]
  if code == 's' then
    if ARGV[a + 2] == '' then
      redis.call('SET', KEYS[k], ARGV[a + 1])
    else
      redis.call('SET', KEYS[k], ARGV[a + 1], 'PX', ARGV[a + 2])
    end
    a = a + 3
    k = k + 1
  elseif code == 'd' then
    redis.call('DEL', KEYS[k], KEYS[k + 1], KEYS[k + 2])
    a = a + 1
    k = k + 3
  elseif code == 'i' then
    redis.call('INCRBY', KEYS[k], ARGV[a + 1])
    a = a + 2
    k = k + 1
  elseif code == 'a' or code == 'r' then
    local n = tonumber(ARGV[a + 1])
    if code == 'a' then
      members('ZADD', KEYS[k], a + 2, n, true)
    else
      members('ZREM', KEYS[k], a + 2, n, false)
    end
    a = a + 2 + n
    k = k + 1
  else
    return redis.error_reply('ERR commit.lua: unknown op code ' .. tostring(code))
  end
end
if ARGV[2] == '' then return {1} end
-- In the same atomic step as the writes: no reader can see them before the notice is out.
redis.call('PUBLISH', ARGV[1], ARGV[2])
local result = redis.call('SMEMBERS', KEYS[1])
table.insert(result, 1, 1)
return result
