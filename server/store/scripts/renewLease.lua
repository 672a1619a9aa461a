-- Renews a read lease (server/store/readLeases.ts) in one atomic step: whoever commits after
-- this runs sees the holder in the set; whoever committed before had its notice published
-- before this ping, on the same channel.
-- KEYS[1]: the holders set. ARGV[1]: the holder. ARGV[2]: the notices channel. ARGV[3]: the ping.
redis.call('SADD', KEYS[1], ARGV[1])
redis.call('PUBLISH', ARGV[2], ARGV[3])
return 1
