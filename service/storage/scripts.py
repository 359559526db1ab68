"""Every Lua script Parley runs, in one place: what each reads and writes, and its replies.

Each script touches the keys of one game (`KEYS` share the game's hash tag, see `keys`), the
resolve queue's two keys, or one key of a player's, so it runs on one node of a cluster. The
exceptions are the live feeds' (players' feeds and the `parley:live` set): a game's opening and
commit scripts touch them only when the feeds share the store's Redis, never a cluster's
(`Store.feeds_ride`), and APPEND_FEEDS runs on the feeds' own Redis. The store
(`service.storage.store`), the resolve queue (`service.storage.resolve_queue`), the
notification records (`service.storage.notify_records`) and the address records
(`service.storage.address_records`) register them.
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

# KEYS: ready list, drainers zset, the RQ queue's job list; ARGV: job id, now (ms), run TTL
#       (ms), at most this many
# -> {the next game ids, up to the count (the lease renewed; empty: the list is empty),
#     how many jobs wait in the RQ queue}: a drainer that found no game lingers for one only
#     when no job waits behind it
TAKE = """
redis.call('ZADD', KEYS[2], tonumber(ARGV[2]) + tonumber(ARGV[3]), ARGV[1])
local games = {}
for _ = 1, tonumber(ARGV[4]) do
  local gid = redis.call('LPOP', KEYS[1])
  if not gid then break end
  games[#games + 1] = gid
end
return {games, redis.call('LLEN', KEYS[3])}
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

# Lua functions: append an entry that passed every check after the chain head (a new seq),
# noting its nonce and the new chain head (`add_entry`; `write_entry` writes the entry and its
# nonce only, for a caller that writes the chain head with other fields); set the game's
# `scheduled` flag and, with the queue's ready list and drainers zset (`InlineWake`), hand the
# game to a live drainer too (`schedule`, whose reply is ACCEPT_MOVE's `wake`); both
# (`append_entry`, returning ACCEPT_MOVE's {"ok", seq, wake}). Shared by ACCEPT_MOVE,
# ACCEPT_FORESEEN and SETTLE_FORESEEN.
APPEND_ENTRY = ONTO_READY + """
local function write_entry(moves, nonces, seq, nonce, env, hash_b64, at)
  redis.call('XADD', moves, seq .. '-0', 'env', env, 'h', hash_b64, 't', at)
  redis.call('HSET', nonces, nonce, seq)
end
local function add_entry(meta, moves, nonces, nonce, env, hash_b64, at, hash_hex)
  local seq = redis.call('HINCRBY', meta, 'head', 1)
  write_entry(moves, nonces, seq, nonce, env, hash_b64, at)
  redis.call('HSET', meta, 'last_hash', hash_hex)
  return seq
end
local function schedule(scheduled, ready, drainers, now, backlog, gid)
  if not redis.call('SET', scheduled, '1', 'NX', 'EX', 3600) then return '0' end
  if ready and onto_ready(ready, drainers, now, backlog, gid) then return 'queued' end
  return '1'
end
local function append_entry(meta, moves, nonces, scheduled, ready, drainers, nonce, env,
                            hash_b64, at, hash_hex, now, backlog, gid)
  local seq = add_entry(meta, moves, nonces, nonce, env, hash_b64, at, hash_hex)
  return {'ok', tostring(seq), schedule(scheduled, ready, drainers, now, backlog, gid)}
end
"""

# KEYS: meta, moves, nonces, scheduled[, ready list, drainers zset]
# ARGV: step, nonce, envelope (canonical JSON), previous entry hash (hex), entry hash
#       (base64url), accepted_at (Unix seconds), entry hash (hex)[, then `onto_ready`'s: now
#       (ms), backlog, game id]
# -> {"ok", seq, wake} | {"dup", seq} | {"err", code} | {"retry"} | {"packed", seq, code}
# wake: "0" a wake of the game is outstanding (its `scheduled` flag was set); "1" this append
# set the flag: the caller wakes the game; "queued": this append set the flag and, given the
# queue's keys (`InlineWake`), put the game on a live drainer's ready list itself.
# "packed": the nonce's entry is in a history segment (`history_segments`), which a script
# cannot read: the caller compares it, a re-post if the same ("dup"), else {"err", code}.
ACCEPT_MOVE = APPEND_ENTRY + """
local seen = redis.call('HGET', KEYS[3], ARGV[2])
local packed = false
if seen then
  local e = redis.call('XRANGE', KEYS[2], seen .. '-0', seen .. '-0')
  if e[1] and e[1][2][2] == ARGV[3] then return {'dup', seen} end
  packed = not e[1]
end
local function refuse(code)
  if packed then return {'packed', seen, code} end
  return {'err', code}
end
local status = redis.call('HGET', KEYS[1], 'status')
if status ~= 'active' then return refuse('game_not_active') end
if redis.call('HGET', KEYS[1], 'step') ~= ARGV[1] then return refuse('stale_step') end
if seen then return refuse('duplicate_nonce') end
if (redis.call('HGET', KEYS[1], 'last_hash') or '') ~= ARGV[4] then return {'retry'} end
return append_entry(KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], ARGV[2], ARGV[3],
                    ARGV[5], ARGV[6], ARGV[7], ARGV[8], ARGV[9], ARGV[10])
"""

# Lua functions shared by ACCEPT_FORESEEN and SETTLE_FORESEEN, whose KEYS and ARGV begin alike
# (below). `foreseen_check(n, m)`: charge the move's rate limits as the web charges them
# otherwise (`service.web.fastpath.quota.MoveCharges`, with `limits`' INCRBY-then-EXPIRE): each
# address counter first, then each signer counter tested (`charge_signer` charges them once
# the move is appended); then check that the game is where the web process foresaw it: every
# entry applied (`applied` = `head` = the foreseen seq), the last item of `hashes` the foreseen
# state's ("<seq> <digest>": the stored state is the one the move was checked against), the
# step and chain head as expected, the game active, the nonce unused. Returns nil if all holds,
# else the script's reply: {"limit", "address" | "signer"} (nothing appended) or
# {"miss", meta (flat HGETALL), stored state or nil, seq of the nonce or nil}, what
# `Store.accept_contexts` reads, for the usual checks.
# KEYS: meta, moves, nonces, scheduled, state, hashes, metrics, submitted notes, then the
#       address counters and the signer counters, ...
# ARGV: address counters (n), signer counters (m), foreseen `hashes` item, foreseen seq,
#       step, nonce, envelope, previous entry hash (hex), entry hash (base64url), accepted_at,
#       entry hash (hex), the metrics' field (the one counter a move of one round trip adds
#       to: `metrics_records.ONE_TRIP`), now (ms), then (limit, window in s) per counter, ...
FORESEEN_CHECK = APPEND_ENTRY + """
local function charge(i)
  local count = redis.call('INCRBY', KEYS[8 + i], 1)
  if count == 1 then redis.call('EXPIRE', KEYS[8 + i], ARGV[13 + 2 * i]) end
  return count
end
local function charge_signer(n, m)
  for i = n + 1, n + m do charge(i) end
end
local function foreseen_check(n, m)
  local over = false
  for i = 1, n do
    if charge(i) > tonumber(ARGV[12 + 2 * i]) then over = true end
  end
  if over then return {'limit', 'address'} end
  for i = n + 1, n + m do
    if tonumber(redis.call('GET', KEYS[8 + i]) or '0') >= tonumber(ARGV[12 + 2 * i]) then
      return {'limit', 'signer'}
    end
  end
  local meta = redis.call('HMGET', KEYS[1], 'status', 'applied', 'head', 'step', 'last_hash')
  local seen = redis.call('HGET', KEYS[3], ARGV[6])
  if seen or meta[1] ~= 'active' or meta[2] ~= ARGV[4] or meta[3] ~= ARGV[4]
      or meta[4] ~= ARGV[5] or (meta[5] or '') ~= ARGV[8]
      or redis.call('LINDEX', KEYS[6], -1) ~= ARGV[3] then
    return {'miss', redis.call('HGETALL', KEYS[1]), redis.call('GET', KEYS[5]), seen}
  end
  return nil
end
"""

# A move checked by a web process against the state it foresaw (`service.domain.foresight`),
# appended in the move's only round trip if `foreseen_check` passes; the worker applies it.
# KEYS: FORESEEN_CHECK's[, ready list, drainers zset]
# ARGV: FORESEEN_CHECK's[, then `onto_ready`'s: now (ms), backlog, game id]
# -> {"ok", seq, wake} (as ACCEPT_MOVE) | FORESEEN_CHECK's refusals
ACCEPT_FORESEEN = FORESEEN_CHECK + """
local n, m = tonumber(ARGV[1]), tonumber(ARGV[2])
local refused = foreseen_check(n, m)
if refused then return refused end
local wake = 14 + 2 * (n + m)
local reply = append_entry(KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[9 + n + m],
                           KEYS[10 + n + m], ARGV[6], ARGV[7], ARGV[9], ARGV[10], ARGV[11],
                           ARGV[wake], ARGV[wake + 1], ARGV[wake + 2])
charge_signer(n, m)
redis.call('HINCRBY', KEYS[7], ARGV[12], 1)
redis.call('HSETNX', KEYS[8], ARGV[6], ARGV[13])
return reply
"""

# ---- the players' live feeds (service.storage.live) ------------------------------------------

# Lua functions: append entries to players' feeds (capped streams) and announce them all in
# one message on the feeds channel, a line "<feed key> <entry id> <entry>" each, in order; the
# stream process hands them to the open streams without reading the feeds back. `feed_write`
# takes pairs {feed key, entry}; `feed_append` reads its arguments from ARGV[at]: the channel,
# the cap, the TTL (s), then pairs (feed's number after KEYS[base], entry).
FEED_APPEND = """
local function feed_write(items, channel, maxlen, ttl)
  local lines, touched = {}, {}
  for _, item in ipairs(items) do
    local key, entry = item[1], item[2]
    local id = redis.call('XADD', key, 'MAXLEN', '~', maxlen, '*', 'd', entry)
    if not touched[key] then
      touched[key] = true
      redis.call('EXPIRE', key, ttl)
    end
    lines[#lines + 1] = key .. ' ' .. id .. ' ' .. entry
  end
  if #lines > 0 then redis.call('PUBLISH', channel, table.concat(lines, '\\n')) end
end
local function feed_append(base, at)
  local items = {}
  for i = at + 3, #ARGV, 2 do
    items[#items + 1] = {KEYS[base + tonumber(ARGV[i])], ARGV[i + 1]}
  end
  feed_write(items, ARGV[at], ARGV[at + 1], ARGV[at + 2])
end
"""

# KEYS: the players' feeds; ARGV: FEED_APPEND's -> 1
# The feeds' own round trip, where a commit could not carry them (a cluster store: the feeds
# are on the queue's Redis).
APPEND_FEEDS = FEED_APPEND + """
feed_append(0, 1)
return 1
"""

# A Lua function: write a resolution (COMMIT's and SETTLE_FORESEEN's writes, the guard
# checked by the caller). `k`: the keys meta, state, events, draws, rejected, hashes, outbox,
# moves; `fields` (meta), `events`, `draws`, `rejected` (seq -> JSON), `hashes` and `notices`
# decoded; `feeds`: a function appending the live feeds' entries, or nil. Returns COMMIT's
# reply once written: 1, or how far the history is due to be packed.
# Events go onto the `events` list as "<event id> <event>"; a game whose events are still the
# stream of before packing has them moved onto the list first.
# A commit is announced on APPLIED_CHANNEL (fire and forget: a push channel for watchers such
# as the load generator; nothing depends on it being heard).
COMMIT_GAME = FEED_APPEND + """
local function commit_game(k, state, fields, events, draws, rejected, hashes, notices,
                           channel, announce, size, feeds)
  if redis.call('TYPE', k[3]).ok == 'stream' then
    local old = redis.call('XRANGE', k[3], '-', '+')
    redis.call('DEL', k[3])
    for _, e in ipairs(old) do
      redis.call('RPUSH', k[3], string.match(e[1], '^%d+') .. ' ' .. e[2][2])
    end
  end
  -- what the commit needs of the meta as it was, read at once
  local was = redis.call('HMGET', k[1], 'applied', 'events', 'packed_moves', 'packed_events',
                         'packed_hashes')
  local applied = tonumber(was[1] or '0')
  local had_events = redis.call('LLEN', k[3])
  local listed = redis.call('LLEN', k[6])
  redis.call('SET', k[2], state)
  local n = tonumber(fields['events'] or was[2] or '0')
  for _, e in ipairs(events) do
    n = n + 1
    redis.call('RPUSH', k[3], n .. ' ' .. e)
  end
  -- one HSET for every field: one command in the AOF, not one per field
  local flat = {}
  for f, v in pairs(fields) do flat[#flat + 1] = f; flat[#flat + 1] = v end
  flat[#flat + 1] = 'events'
  flat[#flat + 1] = n
  redis.call('HSET', k[1], unpack(flat))
  for _, d in ipairs(draws) do redis.call('RPUSH', k[4], d) end
  for seq, v in pairs(rejected) do redis.call('HSET', k[5], seq, v) end
  for _, h in ipairs(hashes) do redis.call('RPUSH', k[6], h) end
  for _, x in ipairs(notices) do redis.call('RPUSH', k[7], x) end
  redis.call('PUBLISH', channel, announce)
  if feeds then feeds() end
  size = tonumber(size)
  local pm, pe, ph = tonumber(was[3] or '0'), tonumber(was[4] or '0'), tonumber(was[5] or '0')
  local m = applied - applied % size
  local ev, h = pe + had_events - had_events % size, ph + listed - listed % size
  if m <= pm and ev <= pe and h <= ph then return 1 end
  return {m, ev, h}
end
"""

# KEYS: meta, state, events, draws, rejected, hashes, outbox, moves
# ARGV: guard field, guard value, state (stored form), meta fields (JSON object of strings),
#       events (JSON array of strings), draws (JSON array), rejected (JSON object seq -> JSON),
#       hashes (JSON array), notices (JSON array of strings), APPLIED_CHANNEL,
#       "<game id> <applied>", entries per history segment
# -> 1 committed | 0 the guard failed (another worker got there first: nothing written)
#  | committed, and whole segments of the history are due to be packed
#    (`service.storage.history_segments`): {moves, events, hashes}, how many of each are to
#    be packed: what existed before this commit, in whole segments (moves: applied ones
#    only), for HISTORY_DUE to read (the entries themselves would make a move's reply about
#    20 KB each time until they are packed)
# With the live feeds on the same Redis, the commit appends its entries to them too
# (FEED_APPEND): KEYS from the 9th are the feeds, ARGV from the 13th FEED_APPEND's arguments.
COMMIT = COMMIT_GAME + """
if (redis.call('HGET', KEYS[1], ARGV[1]) or '') ~= ARGV[2] then return 0 end
local feeds = nil
if ARGV[13] then feeds = function() feed_append(8, 13) end end
return commit_game({KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8]},
                   ARGV[3], cjson.decode(ARGV[4]), cjson.decode(ARGV[5]),
                   cjson.decode(ARGV[6]), cjson.decode(ARGV[7]), cjson.decode(ARGV[8]),
                   cjson.decode(ARGV[9]), ARGV[10], ARGV[11], ARGV[12], feeds)
"""

# A move checked by a web process against the state it foresaw, appended and applied in the
# move's only round trip (`service.domain.settle`): FORESEEN_CHECK, then the entry appended
# and its resolution written (`commit_game`), which the web process computed as a worker
# would (it draws nothing and does not end the game). The chain head (`head`, `last_hash`)
# goes into the commit's one HSET. The live feeds' entries of every seated player come along;
# only those of players listening now are written. A notice is recorded only where a delivery
# may follow from it (as `service.notify.dispatch` decides): its kind is
# "always" (it schedules a deadline), or its player has webhooks, or it is a "mail" kind and
# the player has an email address. Then the game goes to the notify set and is woken, so
# that a worker dispatches them; else nothing waits for a worker.
# KEYS: FORESEEN_CHECK's (n + m counters), then events, draws, rejected, outbox, the notify
#       set, the live players' zset, ready list, drainers zset, then per seated player: its
#       feed, its record, its webhooks' set
# ARGV: FORESEEN_CHECK's, then from s = 14 + 2 (n + m): state (stored form), meta fields,
#       events, hashes (JSON as for COMMIT), APPLIED_CHANNEL, "<game id> <applied>", entries
#       per history segment, now (s), backlog, game id, the feeds' channel, cap and TTL (s),
#       the seated players (JSON array), their feeds' entries (JSON array of arrays, by seat),
#       the notices (JSON array of [seat + 1, kind, notice])
# -> {"settled", seq, wake (as ACCEPT_MOVE's, "0" when no notice was recorded), COMMIT's
#     reply} | FORESEEN_CHECK's refusals
SETTLE_FORESEEN = FORESEEN_CHECK + COMMIT_GAME + """
local n, m = tonumber(ARGV[1]), tonumber(ARGV[2])
local refused = foreseen_check(n, m)
if refused then return refused end
local c, s = 8 + n + m, 14 + 2 * (n + m)
local seq = tonumber(ARGV[4]) + 1  -- foreseen_check: the chain head is the foreseen seq
write_entry(KEYS[2], KEYS[3], seq, ARGV[6], ARGV[7], ARGV[9], ARGV[10])
charge_signer(n, m)
redis.call('HINCRBY', KEYS[7], ARGV[12], 1)
local players, entries = cjson.decode(ARGV[s + 13]), cjson.decode(ARGV[s + 14])
local function player_key(i, which) return KEYS[c + 8 + 3 * (i - 1) + which] end
local written = {}
for i, pid in ipairs(players) do
  local till = redis.call('ZSCORE', KEYS[c + 6], pid)
  if till and tonumber(till) > tonumber(ARGV[s + 7]) then
    for _, e in ipairs(entries[i]) do written[#written + 1] = {player_key(i, 1), e} end
  end
end
local told = {}
for _, t in ipairs(cjson.decode(ARGV[s + 15])) do
  local i, kind = t[1], t[2]
  if kind == 'always' or redis.call('SCARD', player_key(i, 3)) > 0
      or (kind == 'mail' and (redis.call('HGET', player_key(i, 2), 'email') or '') ~= '') then
    told[#told + 1] = t[3]
  end
end
if #told > 0 then redis.call('SADD', KEYS[c + 5], ARGV[s + 9]) end
local feeds = nil
if #written > 0 then
  feeds = function() feed_write(written, ARGV[s + 10], ARGV[s + 11], ARGV[s + 12]) end
end
local fields = cjson.decode(ARGV[s + 1])
fields['head'], fields['last_hash'] = tostring(seq), ARGV[11]
local due = commit_game({KEYS[1], KEYS[5], KEYS[c + 1], KEYS[c + 2], KEYS[c + 3], KEYS[6],
                         KEYS[c + 4], KEYS[2]},
                        ARGV[s], fields, cjson.decode(ARGV[s + 2]), {}, {},
                        cjson.decode(ARGV[s + 3]), told, ARGV[s + 4], ARGV[s + 5], ARGV[s + 6],
                        feeds)
local wake = '0'
if #told > 0 then
  wake = schedule(KEYS[4], KEYS[c + 7], KEYS[c + 8], ARGV[13], ARGV[s + 8], ARGV[s + 9])
end
return {'settled', tostring(seq), wake, due}
"""

# KEYS: meta, moves, events, hashes
# ARGV: how many moves, events and hashes are to be packed (COMMIT's reply)
# -> {move entries (XRANGE), event items, hash items, moves packed, events packed, hashes
#     packed}: the entries past what is packed now, up to those counts | 0 for a game gone or
#     archived. Read where the packing happens, not in the commit: after a few moves more,
#     or after another process packed them, the counts still name the same entries.
HISTORY_DUE = """
if redis.call('EXISTS', KEYS[1]) == 0 or redis.call('HGET', KEYS[1], 'archived') == '1' then
  return 0
end
local was = redis.call('HMGET', KEYS[1], 'packed_moves', 'packed_events', 'packed_hashes')
local pm, pe, ph = tonumber(was[1] or '0'), tonumber(was[2] or '0'), tonumber(was[3] or '0')
local m, ev, h = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local due = {{}, {}, {}, pm, pe, ph}
if m > pm then due[1] = redis.call('XRANGE', KEYS[2], (pm + 1) .. '-0', m .. '-0') end
if ev > pe then due[2] = redis.call('LRANGE', KEYS[3], 0, ev - pe - 1) end
if h > ph then due[3] = redis.call('LRANGE', KEYS[4], 0, h - ph - 1) end
return due
"""

# KEYS: meta, moves, events, hashes, then the segment lists of moves, events, hashes
# ARGV: entries per segment, then for moves, events and hashes in turn: how many were packed
#       when the segments were made and how many segments follow; then the segments (blobs)
# -> 1, or 0 for a game gone or archived (nothing changed)
# The history's packing (`service.storage.history_segments`): each segment that follows what
# is packed now is pushed onto its list (unless the list holds it already), the count
# advances, and the packed entries leave the move stream (rebuilt from its entries past the
# count: XTRIM would only mark them deleted inside a node still in use) and the lists. One
# script: a reader finds every entry in a segment or where it was, and a second run of it
# changes nothing. A packing that comes late (`service.storage.history_packer`) finds an
# archived game's pointer, or nothing, and leaves it alone.
PACK_HISTORY = """
if redis.call('EXISTS', KEYS[1]) == 0 or redis.call('HGET', KEYS[1], 'archived') == '1' then
  return 0
end
local size = tonumber(ARGV[1])
local at = 8
local function pack(list, field, from, count)
  local packed = tonumber(redis.call('HGET', KEYS[1], field) or '0')
  local before = packed
  for i = 0, count - 1 do
    if from + i * size == packed then
      if redis.call('LLEN', list) == packed / size then redis.call('RPUSH', list, ARGV[at + i]) end
      packed = packed + size
    end
  end
  at = at + count
  if packed > before then redis.call('HSET', KEYS[1], field, packed) end
  return packed, packed - before
end
local function keep_after(stream, last)
  local first = redis.call('XRANGE', stream, '-', '+', 'COUNT', 1)[1]
  if not first or tonumber(string.match(first[1], '^%d+')) > last then return end
  local rest = redis.call('XRANGE', stream, '(' .. last .. '-0', '+')
  redis.call('DEL', stream)
  for _, e in ipairs(rest) do redis.call('XADD', stream, e[1], unpack(e[2])) end
end
keep_after(KEYS[2], (pack(KEYS[5], 'packed_moves', tonumber(ARGV[2]), tonumber(ARGV[3]))))
local _, events = pack(KEYS[6], 'packed_events', tonumber(ARGV[4]), tonumber(ARGV[5]))
if events > 0 then redis.call('LTRIM', KEYS[3], events, -1) end
local _, hashes = pack(KEYS[7], 'packed_hashes', tonumber(ARGV[6]), tonumber(ARGV[7]))
if hashes > 0 then redis.call('LTRIM', KEYS[4], hashes, -1) end
return 1
"""

# KEYS: the part's segment list, moves | events | hashes
# ARGV: first and last segment wanted (list indexes), then for a stream XRANGE's start and
#       end[, count]
# -> {the segments (LRANGE), XRANGE of a stream | the whole list}
# A read of the history (`service.storage.history_segments`), in one script so that no packing
# falls between its two halves. Run on the store's non-decoding client (segments are binary).
HISTORY_READ = """
local blobs = redis.call('LRANGE', KEYS[1], ARGV[1], ARGV[2])
if redis.call('TYPE', KEYS[2]).ok ~= 'stream' then
  return {blobs, redis.call('LRANGE', KEYS[2], 0, -1)}
end
if ARGV[5] then
  return {blobs, redis.call('XRANGE', KEYS[2], ARGV[3], ARGV[4], 'COUNT', ARGV[5])}
end
return {blobs, redis.call('XRANGE', KEYS[2], ARGV[3], ARGV[4])}
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

# KEYS: READ_FOR_RESOLVE's, then scheduled, lock, hashes, and (optional) the live players'
#       zset
# ARGV: READ_FOR_RESOLVE's, then lock token, lock TTL (ms), the `hashes` item of the state the
#       worker kept for this game ("" for none), and with the zset: now (s)
# -> false (another holds the lock) | READ_FOR_RESOLVE's reply, the lock now held with the
#    token; with the zset, a sixth item: the game's players listening now (their feeds are
#    written), so that the commit can carry their entries
# A resolve job's opening: the `scheduled` flag is cleared first (a move accepted from now on
# wakes the game again), then the lock, then the read, atomically. Where the last item of
# `hashes` is the one the worker names, the stored state is the one it kept (the item holds
# the state's digest), and the reply carries "=" (`KEPT_STATE`) instead of the state.
OPEN_FOR_RESOLVE = """
redis.call('DEL', KEYS[6])
if not redis.call('SET', KEYS[7], ARGV[2], 'NX', 'PX', ARGV[3]) then return false end
local function read()
""" + READ_FOR_RESOLVE + """
end
local got = read()
if ARGV[4] ~= '' and got[2] and redis.call('LINDEX', KEYS[8], -1) == ARGV[4] then
  got[2] = '='
end
if KEYS[9] then
  local listening, players = {}, redis.call('HGET', KEYS[1], 'players')
  if players then
    for _, pid in ipairs(cjson.decode(players)) do
      if type(pid) == 'string' then
        local till = redis.call('ZSCORE', KEYS[9], pid)
        if till and tonumber(till) > tonumber(ARGV[5]) then listening[#listening + 1] = pid end
      end
    end
  end
  got[6] = listening
end
return got
"""

# KEYS: meta; ARGV: seat (-1: first free), player, client seed, seats, the signed join
# (JSON; '' for a mail-only player's, who joins without a key)
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
if ARGV[5] ~= '' then redis.call('HSET', KEYS[1], 'join_statement:' .. seat, ARGV[5]) end
local taken = redis.call('HINCRBY', KEYS[1], 'joined', 1)
if taken == n then redis.call('HSET', KEYS[1], 'status', 'full') end
return {'ok', tostring(seat), tostring(taken)}
"""

# KEYS: lock; ARGV: token -> 1 released | 0 not ours
RELEASE_LOCK = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

# ---- the archive of finished games (service.storage.game_records) --------------------------

# KEYS: meta, state, moves, nonces, rejected, events, draws, hashes, secret, outbox, lock, then
#       the segment lists of moves, events, hashes
# -> {meta (flat), state | false, moves (XRANGE), nonces (flat), rejected (flat), events (the
#     list, or XRANGE of a stream not yet a list), draws, hashes, secret (flat), outbox length,
#     lock held (0 | 1), the segments of moves, events, hashes}
# One consistent copy of a whole game: what a finished game's reads and the archive's copy use.
# Run on the store's non-decoding client (the segments are binary).
READ_RECORD = """
local events
if redis.call('TYPE', KEYS[6]).ok == 'stream' then
  events = redis.call('XRANGE', KEYS[6], '-', '+')
else
  events = redis.call('LRANGE', KEYS[6], 0, -1)
end
return {redis.call('HGETALL', KEYS[1]), redis.call('GET', KEYS[2]),
        redis.call('XRANGE', KEYS[3], '-', '+'), redis.call('HGETALL', KEYS[4]),
        redis.call('HGETALL', KEYS[5]), events,
        redis.call('LRANGE', KEYS[7], 0, -1), redis.call('LRANGE', KEYS[8], 0, -1),
        redis.call('HGETALL', KEYS[9]), redis.call('LLEN', KEYS[10]),
        redis.call('EXISTS', KEYS[11]), redis.call('LRANGE', KEYS[12], 0, -1),
        redis.call('LRANGE', KEYS[13], 0, -1), redis.call('LRANGE', KEYS[14], 0, -1)}
"""

# KEYS: meta, lock, outbox, then every other key of the game; ARGV: head, events (as copied)
# -> "ok": every key is gone and the meta hash is the pointer {status: finished, archived: 1}
#  | "archived" (it was already) | "not_finished" | "busy" (locked, or notices not dispatched)
#  | "changed" (head, applied or the event count moved since the copy: copy again)
ARCHIVE_SWAP = """
if redis.call('HGET', KEYS[1], 'archived') == '1' then return 'archived' end
if redis.call('HGET', KEYS[1], 'status') ~= 'finished' then return 'not_finished' end
if redis.call('EXISTS', KEYS[2]) == 1 or redis.call('LLEN', KEYS[3]) > 0 then return 'busy' end
local m = redis.call('HMGET', KEYS[1], 'head', 'applied', 'events')
if (m[1] or '0') ~= ARGV[1] or (m[2] or '0') ~= ARGV[1] or (m[3] or '0') ~= ARGV[2] then
  return 'changed'
end
redis.call('DEL', unpack(KEYS))
redis.call('HSET', KEYS[1], 'status', 'finished', 'archived', '1')
return 'ok'
"""

# ---- notification deliveries ------------------------------------------------------------

# KEYS: the delivery's hash; ARGV: ttl, then field, value, ... -> 1 created | 0 it existed
CREATE_DELIVERY = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
redis.call('EXPIRE', KEYS[1], ARGV[1])
return 1
"""

# ---- players' mail addresses (service.storage.address_records) -------------------------------

# KEYS: the player's hash; ARGV: the new address ('' for none)
# -> the confirmed address it replaces (or nil); the new one waits for confirmation
CHANGE_ADDRESS = """
local old = redis.call('HGET', KEYS[1], 'email')
redis.call('HDEL', KEYS[1], 'email', 'email_pending')
if ARGV[1] ~= '' then redis.call('HSET', KEYS[1], 'email_pending', ARGV[1]) end
return old
"""

# KEYS: the player's hash; ARGV: the address a link confirms
# -> 1 it is the player's confirmed address now (or was already) | 0 it is not theirs any more
CONFIRM_ADDRESS = """
if redis.call('HGET', KEYS[1], 'email_pending') == ARGV[1] then
  redis.call('HSET', KEYS[1], 'email', ARGV[1])
  redis.call('HDEL', KEYS[1], 'email_pending')
  return 1
end
if redis.call('HGET', KEYS[1], 'email') == ARGV[1] then return 1 end
return 0
"""

# KEYS: an address index entry; ARGV: a player id -> 1 the entry named that player and is gone
UNINDEX_ADDRESS = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

# ---- the daily digest's schedule (service.storage.mail_replies) -------------------------------

# KEYS: the digest schedule; ARGV: a player id, now, the lease's end
# -> 1 the player's digest was due and is this caller's to send until the lease's end (its due
#    time moved there: a worker that dies before sending leaves it due again then), else 0
CLAIM_DIGEST = """
local due = redis.call('ZSCORE', KEYS[1], ARGV[1])
if due and tonumber(due) <= tonumber(ARGV[2]) then
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
  return 1
end
return 0
"""

# KEYS: the digest schedule; ARGV: a player id, the lease's end CLAIM_DIGEST set, the next due
#       time -> 1 the next digest is scheduled, 0 the schedule changed meanwhile (the player
#       chose another hour or no digest, or the lease ran out and another worker claimed it)
FINISH_DIGEST = """
local due = redis.call('ZSCORE', KEYS[1], ARGV[1])
if due and tonumber(due) == tonumber(ARGV[2]) then
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
  return 1
end
return 0
"""
