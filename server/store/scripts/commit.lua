-- Atomic guarded multi-write for RedisStore.commit (server/store/redis.ts `commitPayload` builds
-- the payload).
--
-- KEYS[1]: the read-lease holders set (readLeases.ts).
-- ARGV[1]: everything else as one msgpack array of strings (one argument rather than one per
--   field: for a block's thousands of writes, the client's per-argument encoding cost more than
--   the rest of the commit). Store keys in it carry the key prefix already. They are not declared
--   in KEYS: only Redis Cluster needs that, and it is not supported (README, Redis).
--   notices channel, notice to publish once the writes are applied ('' = none),
--   announcement channel and message, published after the notice ('' = none; Store.commit's
--   `announce`), guard count G,
--   then per guard:  key, '1', expected bytes   (value must be byte-equal)
--                or  key, '0', ''               (key must be absent)
--   then per op, a code and its fields:
--     's', key, value, ttlMs ('' = no expiry)    SET [PX]
--     'd', value key, counter key, index key     DEL (the three keys of one store key)
--     'i', key, by                               INCRBY
--     'a', key, n, member1 .. memberN            ZADD with score 0
--     'r', key, n, member1 .. memberN            ZREM
-- Returns {0} without writing anything if a guard fails, else, after applying every op and
-- publishing the notice and the announcement, {1, holder1, holder2, ...}: the processes that
-- must hear of the notice ({1} when there is none).

local P = cmsgpack.unpack(ARGV[1])
local nguards = tonumber(P[5])
local a = 6

-- Every guard is checked before the first write: a Lua script cannot roll back.
for i = 1, nguards do
  local current = redis.call('GET', P[a])
  if P[a + 1] == '1' then
    if current ~= P[a + 2] then return {0} end
  elseif current then
    return {0}
  end
  a = a + 3
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
      args[#args + 1] = P[first + j - 1]
    end
    redis.call(command, key, unpack(args))
    done = upto
  end
end

local count = #P
while a <= count do
  local code = P[a]
  if code == 's' then
    if P[a + 3] == '' then
      redis.call('SET', P[a + 1], P[a + 2])
    else
      redis.call('SET', P[a + 1], P[a + 2], 'PX', P[a + 3])
    end
    a = a + 4
  elseif code == 'd' then
    redis.call('DEL', P[a + 1], P[a + 2], P[a + 3])
    a = a + 4
  elseif code == 'i' then
    redis.call('INCRBY', P[a + 1], P[a + 2])
    a = a + 3
  elseif code == 'a' or code == 'r' then
    local n = tonumber(P[a + 2])
    if code == 'a' then
      members('ZADD', P[a + 1], a + 3, n, true)
    else
      members('ZREM', P[a + 1], a + 3, n, false)
    end
    a = a + 3 + n
  else
    return redis.error_reply('ERR commit.lua: unknown op code ' .. tostring(code))
  end
end
-- In the same atomic step as the writes: no reader can see them before the notice is out, and
-- the notice goes out before the announcement.
local result = {1}
if P[2] ~= '' then
  redis.call('PUBLISH', P[1], P[2])
  result = redis.call('SMEMBERS', KEYS[1])
  table.insert(result, 1, 1)
end
if P[3] ~= '' then redis.call('PUBLISH', P[3], P[4]) end
return result
