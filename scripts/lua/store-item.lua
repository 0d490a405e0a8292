-- Stores one item and indexes it in a sorted set (producer --sk: one call per item).
-- KEYS[1] the sorted set; KEYS[2] the item key (same slot on a cluster: it carries the set's tag)
-- ARGV[1] TTL seconds; ARGV[2] score (ms since epoch); ARGV[3] 'ref' | 'value'; ARGV[4] the value
local value = ARGV[4]
redis.call('SETEX', KEYS[2], tonumber(ARGV[1]), value)
if ARGV[3] == 'value' then
  redis.call('ZADD', KEYS[1], ARGV[2], value)
else
  redis.call('ZADD', KEYS[1], ARGV[2], KEYS[2])
end
return 1
