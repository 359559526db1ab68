"""Every Redis key and Lua script of the game store, in one place.

DESIGN.md "Redis layout". All keys of one game share the hash tag `{g:<id>}` so that one game
lives in one Redis Cluster slot and every multi-key script touches one game only. Cross-game
indexes (a player's games, the set of games with pending moves) are updated by separate
single-key commands that the sweep can repair.

Game keys (`game_key(gid, part)`):
- `meta`     hash: ruleset, options, platform options, seats, status, step, to_act, head (last
             accepted seq), applied (last resolved seq), last_hash (receipt chain), events, result
- `state`    string: the engine state as canonical JSON
- `moves`    stream: entry `<seq>-0` with `env` (canonical envelope JSON), `h` (entry hash,
             base64url), `t` (accepted at, Unix seconds); `entries` gives hex and ISO 8601
- `nonces`   hash: nonce -> seq (duplicate nonces, idempotent re-posts)
- `rejected` hash: seq -> {"code", "detail"} (a seq <= applied that is absent here was applied)
- `events`   stream: entry `<n>-0` with `e` = [seq, step, event] (full; redacted on read)
- `draws`    list: every audited draw with its purpose, step and seq
- `hashes`   list: "<seq> <state digest, base64url>" after the start (seq 0) and every applied
             entry; `hashes()` gives hex digests
- `secret`   hash: server_seed, game_seed (hex); never in an API response before the end
- `scheduled` string: set while a resolve job for the game is waiting (no second job)
- `lock`     string: the resolving worker's token (per-game ordering)
- `outbox`   list: notices a commit recorded ({"type", "seat", "step", ...}) until dispatched

Memory (issue 11): a move costs at most twice its envelope. Hence digests in base64url rather
than hex, times as integers, compact event JSON; and streams in nodes of up to 16 KB
(`STREAM_NODE_BYTES`, set on the embedded Redis; Redis's 4 KB default wastes ~10% per entry).
"""

from __future__ import annotations

import base64
import json
import secrets
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import redis

from service.storage.keys import (
    APPLIED_CHANNEL,
    GAMES_KEY,
    NOTIFY_KEY,
    PENDING_KEY,
    game_key,
    key_key,
    open_games_key,
    player_games_key,
    player_key,
    player_keys_key,
    public_key_key,
    token_key,
    tokens_key,
)
from service.storage.scripts import (
    ACCEPT_MOVE,
    COMMIT,
    JOIN,
    OPEN_FOR_RESOLVE,
    READ_FOR_RESOLVE,
    RELEASE_LOCK,
)

if TYPE_CHECKING:
    from service.storage.resolve_queue import InlineWake


#: a Redis command as its words, for a pipeline (`execute_command(*command)`)
Command = tuple[Any, ...]




#: `stream-node-max-bytes` for the embedded Redis (see the module docstring).
STREAM_NODE_BYTES = 16384


def same_server(a: Any, b: Any) -> bool:
    """Whether two clients talk to one Redis database (host and port, or socket, and db): then
    commands of one may ride in the other's pipelines. Never for a cluster client."""
    pools = [getattr(c, "connection_pool", None) for c in (a, b)]
    if any(not isinstance(pool, redis.ConnectionPool) for pool in pools):
        return False
    where = [(pool.connection_class, *(pool.connection_kwargs.get(k)
                                       for k in ("host", "port", "path", "db", "username")))
             for pool in pools]
    return where[0] == where[1]


def now_iso() -> str:
    return iso(int(time.time()))


def iso(seconds: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


def _b64(hex_digest: str) -> str:
    return base64.urlsafe_b64encode(bytes.fromhex(hex_digest)).rstrip(b"=").decode()


def _hex(b64_digest: str) -> str:
    return base64.urlsafe_b64decode(b64_digest + "=" * (-len(b64_digest) % 4)).hex()


def new_id(prefix: str) -> str:
    return f"{prefix}_{secrets.token_urlsafe(9).replace('-', 'x').replace('_', 'y')}"


def _entry(eid: str, stored: dict[str, str]) -> tuple[int, dict[str, str]]:
    """A move-stream entry as readers use it: (seq, {env, h (hex), t (ISO 8601)})."""
    return int(eid.split("-")[0]), {"env": stored["env"], "h": _hex(stored["h"]),
                                     "t": iso(int(stored["t"]))}


#: what a resolve reads (READ_FOR_RESOLVE): meta, state, entries applied+1.. as (seq, fields),
#: how many draws are recorded, the server seed
ResolveRead = tuple[dict[str, str], str | None, list[tuple[int, dict[str, str]]], int, str | None]


def _resolve_keys(gid: str) -> list[str]:
    return [game_key(gid, p) for p in ("meta", "state", "moves", "draws", "secret")]


def _resolve_read(reply: list[Any]) -> ResolveRead:
    flat, state, raw, draws, seed = reply
    meta = dict(zip(flat[::2], flat[1::2], strict=True))
    entries = [_entry(eid, dict(zip(f[::2], f[1::2], strict=True))) for eid, f in raw]
    return meta, state, entries, int(draws), seed


@dataclass
class Commit:
    """One resolution to write (the COMMIT script): guarded by `meta[guard[0]] == guard[1]`."""

    gid: str
    guard: tuple[str, str]
    state: str
    meta: dict[str, str]
    events: list[str]
    draws: list[str]
    rejected: dict[str, str]
    hashes: list[tuple[int, str]]
    notices: list[str]


class Store:
    """The game store on one Redis connection (decoded strings)."""

    def __init__(self, client: redis.Redis) -> None:
        self.r = client
        self._accept = client.register_script(ACCEPT_MOVE)
        self._commit = client.register_script(COMMIT)
        self._join = client.register_script(JOIN)
        self._release = client.register_script(RELEASE_LOCK)
        self._read = client.register_script(READ_FOR_RESOLVE)
        self._open = client.register_script(OPEN_FOR_RESOLVE)
        #: set when the queue lives on this Redis: the accepting script hands the game to a
        #: live drainer itself
        self.inline_wake: InlineWake | None = None

    @classmethod
    def from_url(cls, url: str, cluster: bool = False) -> Store:
        opts: dict[str, Any] = {"decode_responses": True, "socket_timeout": 10,
                                "socket_connect_timeout": 5, "health_check_interval": 30}
        if cluster:
            from redis.cluster import RedisCluster

            return cls(RedisCluster.from_url(url, **opts))
        return cls(redis.Redis.from_url(url, **opts))

    # ---- players, keys, tokens -------------------------------------------------------------

    def claim_public_key(self, public_key: str, key_id: str) -> bool:
        """Reserve a public key for `key_id`; False if it is registered already."""
        return bool(self.r.set(public_key_key(public_key), key_id, nx=True))

    def create_player(self, pid: str, fields: dict[str, str], key_id: str, key: dict[str, str],
                      token_hash: str) -> None:
        pipe = self.r.pipeline(transaction=False)
        pipe.hset(player_key(pid), mapping=fields)
        pipe.hset(key_key(key_id), mapping=key)
        pipe.set(token_key(token_hash), pid)
        pipe.sadd(player_keys_key(pid), key_id)
        pipe.execute()

    def add_key(self, key_id: str, key: dict[str, str]) -> None:
        self.r.hset(key_key(key_id), mapping=key)
        self.r.sadd(player_keys_key(key['player']), key_id)

    def player(self, pid: str) -> dict[str, str] | None:
        data = self.r.hgetall(player_key(pid))
        return data or None

    def update_player(self, pid: str, fields: dict[str, str]) -> None:
        self.r.hset(player_key(pid), mapping=fields)

    def player_keys(self, pid: str) -> list[str]:
        return sorted(self.r.smembers(player_keys_key(pid)))

    def key(self, key_id: str) -> dict[str, str] | None:
        data = self.r.hgetall(key_key(key_id))
        return data or None

    def player_for_token(self, token_hash: str) -> str | None:
        return self.r.get(token_key(token_hash))

    # ---- a player's tokens (the hash -> player key, and the player's index by token id) -----

    def add_token(self, pid: str, token_hash: str) -> None:
        self.r.set(token_key(token_hash), pid)

    def index_token(self, pid: str, tid: str, record: str) -> None:
        self.r.hset(tokens_key(pid), tid, record)

    def token_index(self, pid: str) -> dict[str, str]:
        return self.r.hgetall(tokens_key(pid))

    def token_record(self, pid: str, tid: str) -> str | None:
        return self.r.hget(tokens_key(pid), tid)

    def token_count(self, pid: str) -> int:
        return self.r.hlen(tokens_key(pid))

    def revoke_token(self, pid: str, token_hash: str, tid: str) -> None:
        """The token stops working at once (its hash key goes first), then leaves the index."""
        self.r.delete(token_key(token_hash))
        self.r.hdel(tokens_key(pid), tid)

    # ---- a player's games that have not started (the open-games cap) -------------------------

    def open_game_ids(self, pid: str) -> set[str]:
        return self.r.smembers(open_games_key(pid))

    def holds_open_game(self, pid: str, gid: str) -> bool:
        return bool(self.r.sismember(open_games_key(pid), gid))

    def track_open_game(self, pid: str, gid: str) -> None:
        self.r.sadd(open_games_key(pid), gid)

    def forget_open_game(self, pid: str, gid: str) -> None:
        self.r.srem(open_games_key(pid), gid)

    def game_status(self, gid: str) -> str | None:
        return self.r.hget(game_key(gid, "meta"), "status")

    def index_player_game(self, pid: str, gid: str) -> None:
        self.r.sadd(player_games_key(pid), gid)

    def ping(self) -> bool:
        return bool(self.r.ping())

    def has_state(self, gid: str) -> bool:
        return bool(self.r.exists(game_key(gid, "state")))

    def state_json(self, gid: str) -> str | None:
        return self.r.get(game_key(gid, "state"))

    def nonces(self, gid: str) -> dict[str, str]:
        """nonce -> seq of every envelope the game accepted."""
        return self.r.hgetall(game_key(gid, "nonces"))

    # ---- games ------------------------------------------------------------------------------

    def create_game(self, gid: str, meta: dict[str, str], server_seed_hex: str,
                    creator: str) -> None:
        pipe = self.r.pipeline(transaction=True)
        pipe.hset(game_key(gid, "meta"), mapping=meta)
        pipe.hset(game_key(gid, "secret"), mapping={"server_seed": server_seed_hex})
        pipe.execute()
        self.r.zadd(GAMES_KEY, {gid: time.time()})
        self.r.sadd(player_games_key(creator), gid)

    def meta(self, gid: str) -> dict[str, str]:
        return self.r.hgetall(game_key(gid, "meta"))

    def state(self, gid: str) -> Any:
        """The game's stored state, parsed (None for no such game)."""
        return json.loads(self.r.get(game_key(gid, "state")) or "null")

    def chain_head(self, gid: str) -> str:
        """The hash of the game's last accepted entry ("" before the first)."""
        return self.r.hget(game_key(gid, "meta"), "last_hash") or ""

    def view_context(self, gid: str, token_hash: str | None
                     ) -> tuple[dict[str, str], str | None, str | None]:
        """(meta, state, the token's player) in one round trip: a seat's view per move."""
        pid, [(meta, state)] = self.view_contexts(token_hash, [gid])
        return meta, state, pid

    def view_contexts(self, token_hash: str | None, gids: list[str]
                      ) -> tuple[str | None, list[tuple[dict[str, str], str | None]]]:
        """(the token's player, [(meta, state)] per game) in one round trip."""
        pipe = self.r.pipeline(transaction=False)
        if token_hash is not None:
            pipe.get(token_key(token_hash))
        for gid in gids:
            pipe.hgetall(game_key(gid, "meta"))
            pipe.get(game_key(gid, "state"))
        flat = pipe.execute()
        pid = flat.pop(0) if token_hash is not None else None
        return pid, list(zip(flat[::2], flat[1::2], strict=True))

    def secret(self, gid: str) -> dict[str, str]:
        return self.r.hgetall(game_key(gid, "secret"))

    def set_game_seed(self, gid: str, seed_hex: str) -> None:
        self.r.hset(game_key(gid, "secret"), "game_seed", seed_hex)

    def join(self, gid: str, seat: int, player: str, client_seed: str,
             seats: int) -> tuple[str, int, int]:
        """Take a seat atomically -> ("ok", seat, taken) or ("err" code, -1, 0)."""
        res = self._join(keys=[game_key(gid, "meta")],
                         args=[seat, player, client_seed, seats])
        if res[0] == "err":
            return res[1], -1, 0
        self.r.sadd(player_games_key(player), gid)
        return "ok", int(res[1]), int(res[2])

    def accept(self, gid: str, step: int, nonce: str, envelope: str, prev_hash: str,
               entry_hash: str, accepted_at: int, then: Sequence[Command] = ()) -> list[str]:
        """Append one entry (the ACCEPT_MOVE script), one round trip in all."""
        return self.accept_many([(gid, step, nonce, envelope, prev_hash, entry_hash,
                                  accepted_at)], then)[0]

    def accept_many(self, appends: list[tuple[str, int, str, str, str, str, int]],
                    then: Sequence[Command] = ()) -> list[list[str]]:
        """Append entries (gid, step, nonce, envelope, prev hash, entry hash, accepted at),
        each through the ACCEPT_MOVE script, in one round trip; the scripts' replies in order.
        The commands `then` follow in the same round trip (a move's rate-limit charge).

        The games go into the sweep's pending index first, in the same pipeline: a web
        process that dies after the append leaves the move to the sweep (an entry refused here
        leaves a harmless mark). The script sets the game's `scheduled` flag itself, and with
        `inline_wake` puts the game on a live drainer's ready list too, so an accepted move
        needs no further command unless it must wake its game (ACCEPT_MOVE's `wake`).
        """
        calls = []
        wake = self.inline_wake
        for gid, step, nonce, envelope, prev_hash, entry_hash, accepted_at in appends:
            keys = [game_key(gid, "meta"), game_key(gid, "moves"), game_key(gid, "nonces"),
                    game_key(gid, "scheduled")]
            args = [step, nonce, envelope, prev_hash, _b64(entry_hash), accepted_at, entry_hash]
            if wake is not None:
                keys += wake.keys
                args += wake.args(gid)
            calls.append((keys, args))
        pending = ("SADD", PENDING_KEY, *dict.fromkeys(a[0] for a in appends))
        return self._after(self._accept, calls, first=[pending], then=then)

    def _after(self, script: Any, calls: list[tuple[list[str], list[Any]]],
               first: Sequence[Command] = (), then: Sequence[Command] = ()) -> list[Any]:
        """The commands `first`, the script once per (keys, args), then the commands `then`,
        in one round trip; the scripts' replies.

        EVALSHA by hand: a redis-py Script object in a pipeline costs an extra SCRIPT EXISTS
        round trip on every execute. A script missing (a restarted or flushed Redis) fails
        only its own calls: the script is loaded and just those calls run again, after the
        rest, so no other command of the pipeline runs twice.
        """
        pipe = self.r.pipeline(transaction=False)
        for command in first:
            pipe.execute_command(*command)
        for keys, args in calls:
            pipe.evalsha(script.sha, len(keys), *keys, *args)
        for command in then:
            pipe.execute_command(*command)
        replies = pipe.execute(raise_on_error=False)
        ours = replies[len(first):len(first) + len(calls)]
        missing = [i for i, reply in enumerate(ours)
                   if isinstance(reply, redis.exceptions.NoScriptError)]
        if missing:
            self.r.script_load(script.script)
            again = self.r.pipeline(transaction=False)
            for i in missing:
                keys, args = calls[i]
                again.evalsha(script.sha, len(keys), *keys, *args)
            for i, reply in zip(missing, again.execute(), strict=True):
                ours[i] = reply
            replies = [r for r in replies if not isinstance(r, redis.exceptions.NoScriptError)]
        for reply in replies:
            if isinstance(reply, Exception):
                raise reply
        return ours

    def commit(self, gid: str, guard: tuple[str, str], state: str, meta: dict[str, str],
               events: list[str], draws: list[str], rejected: dict[str, str],
               hashes: list[tuple[int, str]], notices: list[str] = ()) -> bool:
        """Write one resolution atomically if `meta[guard[0]] == guard[1]` (`commit_many`)."""
        return self.commit_many([Commit(gid, guard, state, meta, events, draws, rejected,
                                        hashes, list(notices))])[0]

    def commit_many(self, commits: list[Commit]) -> list[bool]:
        """Write resolutions, each atomically if its guard holds (COMMIT), in one round trip;
        per commit, whether it was written.

        Games with notices are added to the notify set *before* their commits, so a crash
        right after them still leaves the notices found by the sweep (an empty outbox is
        harmless).
        """
        calls = []
        for c in commits:
            keys = [game_key(c.gid, p) for p in ("meta", "state", "events", "draws", "rejected",
                                                 "hashes", "outbox")]
            stored = [f"{seq} {_b64(digest)}" for seq, digest in c.hashes]
            calls.append((keys, [
                c.guard[0], c.guard[1], c.state, json.dumps(c.meta), json.dumps(c.events),
                json.dumps(c.draws), json.dumps(c.rejected), json.dumps(stored),
                json.dumps(c.notices), APPLIED_CHANNEL, f"{c.gid} {c.meta.get('applied', '0')}"]))
        told = list(dict.fromkeys(c.gid for c in commits if c.notices))
        replies = self._after(self._commit, calls,
                              first=[("SADD", NOTIFY_KEY, *told)] if told else ())
        return [bool(reply) for reply in replies]

    def entries(self, gid: str, first: int, last: int) -> list[tuple[int, dict[str, str]]]:
        """Move-stream entries first..last (inclusive) as (seq, fields)."""
        if last < first:
            return []
        raw = self.r.xrange(game_key(gid, "moves"), f"{first}-0", f"{last}-0")
        return [_entry(eid, f) for eid, f in raw]

    def read_for_resolve(self, gid: str, batch: int) -> ResolveRead:
        """(meta, state, entries applied+1.. up to `batch`, draws count, server seed)."""
        return _resolve_read(self._read(keys=_resolve_keys(gid), args=[batch]))

    def open_for_resolve(self, gids: list[str], batch: int, ttl_ms: int
                         ) -> list[tuple[str, ResolveRead] | None]:
        """For each game, in one round trip for all: clear its `scheduled` flag, take its lock
        and read what a resolve needs (OPEN_FOR_RESOLVE). Per game, (lock token, read), or
        None where another holds the lock; release the locks with `release_locks`."""
        tokens = [uuid.uuid4().hex for _ in gids]
        calls = [(_resolve_keys(gid) + [game_key(gid, "scheduled"), game_key(gid, "lock")],
                  [batch, token, ttl_ms]) for gid, token in zip(gids, tokens, strict=True)]
        replies = self._after(self._open, calls)
        return [(token, _resolve_read(reply)) if reply is not None else None
                for token, reply in zip(tokens, replies, strict=True)]

    def release_locks(self, held: list[tuple[str, str]], caught_up: list[str]) -> None:
        """Release the games' locks, (game, token) each, and take the `caught_up` games out of
        the pending index, in one round trip."""
        self._after(self._release, [([game_key(gid, "lock")], [token]) for gid, token in held],
                    then=[("SREM", PENDING_KEY, *caught_up)] if caught_up else ())

    def accept_contexts(self, key_id: str, moves: list[tuple[str, str]],
                        first: Sequence[Command] = ()) -> tuple[
            dict[str, str] | None, list[tuple[dict[str, str], str | None, int | None]],
            list[Any]]:
        """(key, [(meta, state, seq of the nonce)] per (game, nonce), the replies of `first`)
        in one round trip: the web's path per move (or batch). The commands `first` run
        before the reads (a move's rate-limit counters)."""
        pipe = self.r.pipeline(transaction=False)
        for command in first:
            pipe.execute_command(*command)
        pipe.hgetall(key_key(key_id))
        for gid, nonce in moves:
            pipe.hgetall(game_key(gid, "meta"))
            pipe.get(game_key(gid, "state"))
            pipe.hget(game_key(gid, "nonces"), nonce)
        replies = pipe.execute()
        ahead, (key, *flat) = replies[:len(first)], replies[len(first):]
        return key or None, [(meta, state, int(seq) if seq else None)
                             for meta, state, seq in zip(*[iter(flat)] * 3, strict=True)], ahead

    def rejection(self, gid: str, seq: int) -> dict[str, str] | None:
        raw = self.r.hget(game_key(gid, "rejected"), str(seq))
        return json.loads(raw) if raw else None

    def rejections(self, gid: str) -> dict[int, dict[str, str]]:
        return {int(k): json.loads(v) for k, v in self.r.hgetall(game_key(gid, "rejected")).items()}

    def events(self, gid: str, after: int, count: int) -> list[tuple[int, dict[str, Any]]]:
        raw = self.r.xrange(game_key(gid, "events"), f"({after}-0", "+", count=count)
        out = []
        for eid, f in raw:
            seq, step, event = json.loads(f["e"])
            out.append((int(eid.split("-")[0]), {"seq": seq, "step": step, "event": event}))
        return out

    def draws(self, gid: str) -> list[dict[str, Any]]:
        return [json.loads(d) for d in self.r.lrange(game_key(gid, "draws"), 0, -1)]

    def hashes(self, gid: str) -> list[tuple[int, str]]:
        out = []
        for item in self.r.lrange(game_key(gid, "hashes"), 0, -1):
            seq, digest = item.split(" ")
            out.append((int(seq), _hex(digest)))
        return out

    def game_ids(self, offset: int = 0, count: int = 100) -> list[str]:
        return self.r.zrange(GAMES_KEY, offset, offset + count - 1)

    def player_games(self, pid: str) -> list[str]:
        return sorted(self.r.smembers(player_games_key(pid)))

    # ---- scheduling and per-game lock -------------------------------------------------------

    def mark_pending(self, gid: str) -> bool:
        """Record that the game has work; True if no resolve job was waiting (enqueue one)."""
        pipe = self.r.pipeline(transaction=False)
        pipe.sadd(PENDING_KEY, gid)
        pipe.set(game_key(gid, "scheduled"), "1", nx=True, ex=3600)
        return bool(pipe.execute()[1])

    def force_scheduled(self, gid: str) -> None:
        """Set the flag whatever its state: the sweep enqueues a job unconditionally."""
        self.r.set(game_key(gid, "scheduled"), "1", ex=3600)

    def reindex_pending(self, page: int = 1000) -> int:
        """Put every game with unresolved entries back into the pending index; returns how
        many were missing from it.

        The index is updated outside the games' scripts, so a web process that dies between
        the append and scheduling, while a worker that just drained that game removes it from
        the index, can leave a move unindexed. A scan of every game (pipelined reads of
        `applied` and `head`, about 2 s per 100,000 games measured here) closes that window; workers
        run it when they start.
        """
        missing = 0
        offset = 0
        pending = set(self.r.smembers(PENDING_KEY))
        while True:
            gids = self.r.zrange(GAMES_KEY, offset, offset + page - 1)
            if not gids:
                return missing
            pipe = self.r.pipeline(transaction=False)
            for gid in gids:
                pipe.hmget(game_key(gid, "meta"), "applied", "head", "status")
            for gid, (applied, head, status) in zip(gids, pipe.execute(), strict=True):
                stuck = status == "full" or int(applied or 0) < int(head or 0)
                if stuck and gid not in pending:
                    self.r.sadd(PENDING_KEY, gid)
                    missing += 1
            offset += page

    def pending_games(self) -> list[str]:
        return sorted(self.r.smembers(PENDING_KEY))

    def done_pending(self, gid: str) -> None:
        self.r.srem(PENDING_KEY, gid)

    @contextmanager
    def lock(self, gid: str, wait: float, ttl_ms: int = 5_000,
             clear_scheduled: bool = False) -> Iterator[bool]:
        """Hold the game's lock (yields False if not obtained within `wait` seconds).

        The TTL only matters when a holder dies (kill -9): short, so the game waits little.
        A resolve that outlives it commits nothing (guarded by `applied`); a notice flush
        holds the lock for milliseconds.
        """
        token = uuid.uuid4().hex
        key = game_key(gid, "lock")
        deadline = time.monotonic() + wait
        got = False
        if clear_scheduled:  # a resolve job: the flag goes first, in the same round trip
            pipe = self.r.pipeline(transaction=False)
            pipe.delete(game_key(gid, "scheduled"))
            pipe.set(key, token, nx=True, px=ttl_ms)
            got = bool(pipe.execute()[1])
        while not got:
            got = bool(self.r.set(key, token, nx=True, px=ttl_ms))
            if got or time.monotonic() >= deadline:
                break
            time.sleep(0.005)
        try:
            yield got
        finally:
            if got:
                self._release(keys=[key], args=[token])
