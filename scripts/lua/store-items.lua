-- Stores a batch of items and indexes them in one sorted set (producer --ws).
-- KEYS[1]     the sorted set
-- KEYS[2..n]  item keys (on a cluster they carry the sorted set's hash tag: one slot per call)
-- ARGV[1]     TTL of the item keys, seconds
-- ARGV[2]     score (send time, ms since epoch)
-- ARGV[3]     'ref' to index the item key names, 'value' to index the values themselves
-- ARGV[4..]   one value per item key, in KEYS order
local ttl = tonumber(ARGV[1])
local score = ARGV[2]
local byValue = ARGV[3] == 'value'
for i = 2, #KEYS do
  local value = ARGV[i + 2]
  redis.call('SETEX', KEYS[i], ttl, value)
  if byValue then
    redis.call('ZADD', KEYS[1], score, value)
  else
    redis.call('ZADD', KEYS[1], score, KEYS[i])
  end
end
return #KEYS - 1
