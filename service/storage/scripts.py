"""Every Lua script Parley runs, in one place: what each reads and writes, and its replies.

Each script touches the keys of one game (`KEYS` share the game's hash tag, see `keys`) or the
resolve queue's two keys, so it runs on one node of a cluster. The store
(`service.storage.store`), the resolve queue (`service.storage.resolve_queue`) and the
notification records (`service.storage.notify_records`) register them.
"""

# ---- the resolve queue's drainers -----------------------------------------------------------

# A Lua function: put a game onto the ready list if a drainer is live and the list is not too
# long for the drainers there are (true); else (false) the game needs a new job. Shared by WAKE
# and by the store's accepting script, which does this much itself when the queue lives on the
# store's Redis (`InlineWake`).
ONTO_READY = """
local function onto_ready(ready, drainers, now, backlog, gid)
  redis.call('ZREMRANGEBYSCORE', drainers, '-inf', now)
  local live = redis.call('ZCARD', drainers)
  if live > 0 and redis.call('LLEN', ready) < live * tonumber(backlog) then
    redis.call('RPUSH', ready, gid)
    return true
  end
  return false
end
"""

# KEYS: ready list, drainers zset; ARGV: now (ms), start TTL (ms), backlog, then a game id and
#       a job id for each game woken
# -> the (1-based) numbers of the games whose job must be enqueued (its lease is registered);
#    the other games are queued. Each game is decided as if woken alone, one after another.
WAKE = ONTO_READY + """
local jobs = {}
local expires = tonumber(ARGV[1]) + tonumber(ARGV[2])
for i = 4, #ARGV, 2 do
  if not onto_ready(KEYS[1], KEYS[2], ARGV[1], ARGV[3], ARGV[i]) then
    redis.call('ZADD', KEYS[2], expires, ARGV[i + 1])
    jobs[#jobs + 1] = (i - 2) / 2
  end
end
return jobs
"""

# KEYS: ready list, drainers zset; ARGV: job id, now (ms), run TTL (ms), at most this many
# -> the next game ids, up to the count (the lease renewed; empty: the list is empty)
TAKE = """
redis.call('ZADD', KEYS[2], tonumber(ARGV[2]) + tonumber(ARGV[3]), ARGV[1])
local games = {}
for _ = 1, tonumber(ARGV[4]) do
  local gid = redis.call('LPOP', KEYS[1])
  if not gid then break end
  games[#games + 1] = gid
end
return games
"""

# KEYS: ready list, drainers zset; ARGV: job id, now (ms), must stop ("1"/"0"),
#       continuation job id, start TTL (ms)
# -> {"game", id}: not left, the list had this game (only when not forced to stop)
#    {"left", id}: left; games remain and no drainer is live: enqueue the continuation job
#                  for game `id` (taken off the list; the job's lease is registered)
#    {"left", ""}: left
LEAVE = """
local gid = redis.call('LPOP', KEYS[1])
if gid and ARGV[3] == '0' then return {'game', gid} end
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[2])
if not gid then return {'left', ''} end
if redis.call('ZCARD', KEYS[2]) > 0 then
  redis.call('LPUSH', KEYS[1], gid)
  return {'left', ''}
end
redis.call('ZADD', KEYS[2], tonumber(ARGV[2]) + tonumber(ARGV[5]), ARGV[4])
return {'left', gid}
"""

# ---- a game's move stream and state --------------------------------------------------------

# KEYS: meta, moves, nonces, scheduled[, ready list, drainers zset]
# ARGV: step, nonce, envelope (canonical JSON), previous entry hash (hex), entry hash
#       (base64url), accepted_at (Unix seconds), entry hash (hex)[, then `onto_ready`'s: now
#       (ms), backlog, game id]
# -> {"ok", seq, wake} | {"dup", seq} | {"err", code} | {"retry"}
# wake: "0" a wake of the game is outstanding (its `scheduled` flag was set); "1" this append
# set the flag: the caller wakes the game; "queued": this append set the flag and, given the
# queue's keys (`InlineWake`), put the game on a live drainer's ready list itself.
ACCEPT_MOVE = ONTO_READY + """
local seen = redis.call('HGET', KEYS[3], ARGV[2])
if seen then
  local e = redis.call('XRANGE', KEYS[2], seen .. '-0', seen .. '-0')
  if e[1] and e[1][2][2] == ARGV[3] then return {'dup', seen} end
end
local status = redis.call('HGET', KEYS[1], 'status')
if status ~= 'active' then return {'err', 'game_not_active'} end
if redis.call('HGET', KEYS[1], 'step') ~= ARGV[1] then return {'err', 'stale_step'} end
if seen then return {'err', 'duplicate_nonce'} end
if (redis.call('HGET', KEYS[1], 'last_hash') or '') ~= ARGV[4] then return {'retry'} end
local seq = redis.call('HINCRBY', KEYS[1], 'head', 1)
redis.call('XADD', KEYS[2], seq .. '-0', 'env', ARGV[3], 'h', ARGV[5], 't', ARGV[6])
redis.call('HSET', KEYS[3], ARGV[2], seq)
redis.call('HSET', KEYS[1], 'last_hash', ARGV[7])
if not redis.call('SET', KEYS[4], '1', 'NX', 'EX', 3600) then return {'ok', tostring(seq), '0'} end
if KEYS[6] and onto_ready(KEYS[5], KEYS[6], ARGV[8], ARGV[9], ARGV[10]) then
  return {'ok', tostring(seq), 'queued'}
end
return {'ok', tostring(seq), '1'}
"""

# KEYS: meta, state, events, draws, rejected, hashes, outbox
# ARGV: guard field, guard value, state JSON, meta fields (JSON object of strings),
#       events (JSON array of strings), draws (JSON array), rejected (JSON object seq -> JSON),
#       hashes (JSON array), notices (JSON array of strings), APPLIED_CHANNEL,
#       "<game id> <applied>"
# -> 1 committed | 0 the guard failed (another worker got there first: nothing written)
# A commit is announced on APPLIED_CHANNEL (fire and forget: a push channel for watchers such
# as the load generator; nothing depends on it being heard).
COMMIT = """
if (redis.call('HGET', KEYS[1], ARGV[1]) or '') ~= ARGV[2] then return 0 end
redis.call('SET', KEYS[2], ARGV[3])
for k, v in pairs(cjson.decode(ARGV[4])) do redis.call('HSET', KEYS[1], k, v) end
local n = tonumber(redis.call('HGET', KEYS[1], 'events') or '0')
for _, e in ipairs(cjson.decode(ARGV[5])) do
  n = n + 1
  redis.call('XADD', KEYS[3], n .. '-0', 'e', e)
end
redis.call('HSET', KEYS[1], 'events', n)
for _, d in ipairs(cjson.decode(ARGV[6])) do redis.call('RPUSH', KEYS[4], d) end
for k, v in pairs(cjson.decode(ARGV[7])) do redis.call('HSET', KEYS[5], k, v) end
for _, h in ipairs(cjson.decode(ARGV[8])) do redis.call('RPUSH', KEYS[6], h) end
for _, x in ipairs(cjson.decode(ARGV[9])) do redis.call('RPUSH', KEYS[7], x) end
redis.call('PUBLISH', ARGV[10], ARGV[11])
return 1
"""

# KEYS: meta, state, moves, draws, secret; ARGV: at most this many entries
# -> {meta (flat), state | false, entries applied+1.. (XRANGE), draws count, server seed | false}
# Everything a resolve needs, in one round trip (the caller holds the game's lock).
READ_FOR_RESOLVE = """
local meta = redis.call('HGETALL', KEYS[1])
local applied = tonumber(redis.call('HGET', KEYS[1], 'applied') or '0')
local head = tonumber(redis.call('HGET', KEYS[1], 'head') or '0')
local entries = {}
if head > applied then
  local last = math.min(head, applied + tonumber(ARGV[1]))
  entries = redis.call('XRANGE', KEYS[3], (applied + 1) .. '-0', last .. '-0')
end
return {meta, redis.call('GET', KEYS[2]), entries, redis.call('LLEN', KEYS[4]),
        redis.call('HGET', KEYS[5], 'server_seed')}
"""

# KEYS: READ_FOR_RESOLVE's, then scheduled, lock; ARGV: READ_FOR_RESOLVE's, then lock token,
#       lock TTL (ms)
# -> false (another holds the lock) | READ_FOR_RESOLVE's reply, the lock now held with the token
# A resolve job's opening: the `scheduled` flag is cleared first (a move accepted from now on
# wakes the game again), then the lock, then the read, atomically.
OPEN_FOR_RESOLVE = """
redis.call('DEL', KEYS[6])
if not redis.call('SET', KEYS[7], ARGV[2], 'NX', 'PX', ARGV[3]) then return false end
""" + READ_FOR_RESOLVE

# KEYS: meta; ARGV: seat (-1: first free), player, client seed, seats
# -> {"ok", seat, taken} | {"err", code}
JOIN = """
if redis.call('HGET', KEYS[1], 'status') ~= 'open' then return {'err', 'game_not_open'} end
local n = tonumber(ARGV[4])
local seat = tonumber(ARGV[1])
for i = 0, n - 1 do
  if redis.call('HGET', KEYS[1], 'join:' .. i) == ARGV[2] then return {'err', 'already_seated'} end
end
if seat < 0 then
  for i = 0, n - 1 do
    if redis.call('HEXISTS', KEYS[1], 'join:' .. i) == 0 then seat = i break end
  end
  if seat < 0 then return {'err', 'game_full'} end
elseif redis.call('HEXISTS', KEYS[1], 'join:' .. seat) == 1 then
  return {'err', 'seat_taken'}
end
redis.call('HSET', KEYS[1], 'join:' .. seat, ARGV[2], 'client_seed:' .. seat, ARGV[3])
local taken = redis.call('HINCRBY', KEYS[1], 'joined', 1)
if taken == n then redis.call('HSET', KEYS[1], 'status', 'full') end
return {'ok', tostring(seat), tostring(taken)}
"""

# KEYS: lock; ARGV: token -> 1 released | 0 not ours
RELEASE_LOCK = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

# ---- notification deliveries ------------------------------------------------------------

# KEYS: the delivery's hash; ARGV: ttl, then field, value, ... -> 1 created | 0 it existed
CREATE_DELIVERY = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
redis.call('EXPIRE', KEYS[1], ARGV[1])
return 1
"""
