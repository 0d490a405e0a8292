-- Reads the live part of one sorted set in one call (consumer -s script).
-- KEYS[1] the sorted set
-- ARGV[1] cutoff score (ms since epoch): members scored below it have expired
-- ARGV[2] limit: 0 returns every live member oldest first; N > 0 the newest N with their
--         scores (member, score, …), so the newest N across several sets can be merged
-- Returns { cardinality, newest score or false, members }
local card = redis.call('ZCARD', KEYS[1])
local top = redis.call('ZREVRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local members
if tonumber(ARGV[2]) > 0 then
  members = redis.call('ZREVRANGEBYSCORE', KEYS[1], '+inf', ARGV[1], 'WITHSCORES', 'LIMIT', 0, ARGV[2])
else
  members = redis.call('ZRANGEBYSCORE', KEYS[1], ARGV[1], '+inf')
end
return { card, top[2] or false, members }
