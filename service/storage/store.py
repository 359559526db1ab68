"""Every Redis key and Lua script of the game store, in one place.

DESIGN.md "Redis layout". All keys of one game share the hash tag `{g:<id>}` so that one game
lives in one Redis Cluster slot and every multi-key script touches one game only. Cross-game
indexes (a player's games, the set of games with pending moves) are updated by separate
single-key commands that the sweep can repair.

Game keys (`game_key(gid, part)`):
- `meta`     hash: ruleset, options, platform options, seats, status, step, to_act, head (last
             accepted seq), applied (last resolved seq), last_hash (receipt chain), events, result
- `state`    string: the engine state as canonical JSON, packed from 1 KB on
             (`service.storage.state_packing`: zstd and base64); readers get the JSON
- `moves`    stream: entry `<seq>-0` with `env` (canonical envelope JSON), `h` (entry hash,
             base64url), `t` (accepted at, Unix seconds); `entries` gives hex and ISO 8601.
             Applied entries leave it for `moves:seg`, 16 at a time
- `nonces`   hash: nonce -> seq (duplicate nonces, idempotent re-posts)
- `rejected` hash: seq -> {"code", "detail"} (a seq <= applied that is absent here was applied)
- `events`   list: "<n> <[seq, step, event]>" per event n (full; redacted on read). A game
             stored before issue 34 has a stream (entry `<n>-0`, field `e`), read as it is
             and made a list by the game's next commit
- `draws`    list: every audited draw with its purpose, step and seq
- `hashes`   list: "<seq> <state digest, base64url>" after the start (seq 0) and every applied
             entry; `hashes()` gives hex digests
- `moves:seg`, `events:seg`, `hashes:seg` lists: the history's compressed segments, 16 entries
             of `moves`, `events`, `hashes` each (`service.storage.history_segments`); the
             meta hash counts what is packed (`packed_moves`, `packed_events`, `packed_hashes`)
- `secret`   hash: server_seed, game_seed (hex); never in an API response before the end
- `scheduled` string: set while a resolve job for the game is waiting (no second job)
- `lock`     string: the resolving worker's token (per-game ordering)
- `outbox`   list: notices a commit recorded ({"type", "seat", "step", ...}) until dispatched
- `submitted` hash: nonce -> when the move was accepted (ms), until resolved (/metrics)

A finished game moves to the archive (`service.storage.archive`, docs/operations.md "Archive"):
then its only key is `meta`, reduced to the pointer {status: finished, archived: 1}.

Memory (issue 11): a move costs at most twice its envelope. Hence digests in base64url rather
than hex, times as integers, compact event JSON; and streams in nodes of up to 16 KB
(`STREAM_NODE_BYTES`, set on the embedded Redis; Redis's 4 KB default wastes ~10% per entry).

Memory (issue 34): a live Stratego Original game at move 100 takes 31 KB (74 KB before), so a
million live games fit in a 32 GB cluster. The history is most of a game and is read
rarely: each commit that finds 16 applied entries of the move stream, 16 events or 16 state
hashes behind it (as they were before that commit) has them packed into a zlib segment each
(the COMMIT script returns them, `commit_many` compresses them, PACK_HISTORY swaps them in
atomically), and the game's reads (`entries`, `events`, `hashes`, the whole-game record) merge
segments and the rest into the same answers as before. Events are a list rather than a
stream: Redis gives a stream's newest node 4 KB however few entries it holds, which the
unpacked few would pay on every game. The state, read and written on every move, is packed
with zstd at a fast level (`service.storage.state_packing`). Segments are binary, so they are read
through a second client that does not decode (`raw`: its own pool; a cluster client on a
cluster).
"""

from __future__ import annotations

import functools
import json
import logging
import secrets
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import orjson
import redis

from service.storage import history_segments as segments
from service.storage import live as live_feeds
from service.storage.history_packer import HistoryPacker
from service.storage.hot_line import HotLine
from service.storage.keys import (
    APPLIED_CHANNEL,
    FEEDS_CHANNEL,
    GAMES_KEY,
    LIVE_PLAYERS_KEY,
    LOBBY_KEY,
    METRICS_KEY,
    NOTIFY_KEY,
    PENDING_KEY,
    game_key,
    key_key,
    live_key,
    open_games_key,
    player_games_key,
    player_key,
    player_keys_key,
    player_webhooks_key,
    public_key_key,
    token_key,
    tokens_key,
)
from service.storage.scripts import (
    ACCEPT_FORESEEN,
    ACCEPT_MOVE,
    APPEND_FEEDS,
    COMMIT,
    HISTORY_DUE,
    HISTORY_READ,
    JOIN,
    OPEN_FOR_RESOLVE,
    PACK_HISTORY,
    READ_FOR_RESOLVE,
    RELEASE_LOCK,
    SETTLE_FORESEEN,
)
from service.storage.state_packing import pack_state, unpack_state

if TYPE_CHECKING:
    from service.config import Config
    from service.storage.archive import Archive
    from service.storage.resolve_queue import InlineWake


log = logging.getLogger(__name__)

#: a Redis command as its words, for a pipeline (`execute_command(*command)`)
Command = tuple[Any, ...]


@dataclass(frozen=True)
class OnNode:
    """A command without keys (`WAIT`) sent to the cluster node of `key`, in the pipeline's
    order on that node's connection."""

    key: str
    args: tuple[Any, ...]


class NotReplicated(redis.TimeoutError):
    """A move is stored on its master but not yet on the replicas asked for: not
    acknowledged (a 503, like any Redis away); the same envelope posted again is an
    idempotent re-post that waits again."""




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


#: how every store client connects (decoded strings; a dead server is noticed within seconds)
_CLIENT_OPTIONS: dict[str, Any] = {"decode_responses": True, "socket_timeout": 10,
                                   "socket_connect_timeout": 5, "health_check_interval": 30}
#: the store's second client, for the history's binary segments (`Store.raw`)
_RAW_OPTIONS: dict[str, Any] = {**_CLIENT_OPTIONS, "decode_responses": False}


def raw_twin(client: redis.Redis) -> redis.Redis:
    """A client of the same Redis that does not decode replies, on a pool of its own."""
    pool = client.connection_pool
    kwargs = {**pool.connection_kwargs, "decode_responses": False}
    return redis.Redis(connection_pool=type(pool)(connection_class=pool.connection_class,
                                                  **kwargs))


def feeds_url(config: Config) -> str:
    """The Redis of the players' live feeds: the store's, or the queue's (REDIS_URL) when the
    store is a cluster. One script appends a commit's entries to several players' feeds and
    announces them (`live.append`), which a cluster refuses across slots; a feed is capped and
    expires, so it needs none of the store's guarantees."""
    return config.REDIS_URL if config.STORE_CLUSTER else config.STORE_URL


def now_iso() -> str:
    return iso(int(time.time()))


@functools.lru_cache(maxsize=64)
def iso(seconds: int) -> str:
    """UTC seconds as ISO 8601; kept for the last seconds asked, since every move's receipt
    and entries ask for the present one again."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


def new_id(prefix: str) -> str:
    return f"{prefix}_{secrets.token_urlsafe(9).replace('-', 'x').replace('_', 'y')}"


def _entry(eid: str, stored: dict[str, str]) -> tuple[int, dict[str, str]]:
    """A move-stream entry as readers use it: (seq, {env, h (hex), t (ISO 8601)})."""
    return int(eid.split("-")[0]), {"env": stored["env"], "h": segments.hex_digest(stored["h"]),
                                     "t": iso(int(stored["t"]))}


#: `_entry` for the archive's records (`service.storage.game_records`), which read alike
read_entry = _entry


def read_event(eid: str, stored: dict[str, str]) -> tuple[int, dict[str, Any]]:
    """An event-stream entry as readers use it: (event id, {seq, step, event})."""
    seq, step, event = json.loads(stored["e"])
    return int(eid.split("-")[0]), {"seq": seq, "step": step, "event": event}


def read_hash(item: str) -> tuple[int, str]:
    """A `hashes` item as readers use it: (seq, hex digest)."""
    seq, digest = item.split(" ")
    return int(seq), segments.hex_digest(digest)


#: what a resolve reads (READ_FOR_RESOLVE): meta, state, entries applied+1.. as (seq, fields),
#: how many draws are recorded, the server seed
ResolveRead = tuple[dict[str, str], str | None, list[tuple[int, dict[str, str]]], int, str | None]


def _resolve_keys(gid: str) -> list[str]:
    return [game_key(gid, p) for p in ("meta", "state", "moves", "draws", "secret")]


#: OPEN_FOR_RESOLVE's state where the store holds the state the worker kept
KEPT_STATE = "="


def _resolve_read(reply: list[Any]) -> ResolveRead:
    flat, state, raw, draws, seed = reply
    meta = dict(zip(flat[::2], flat[1::2], strict=True))
    entries = [_entry(eid, dict(zip(f[::2], f[1::2], strict=True))) for eid, f in raw]
    return meta, unpack_state(state), entries, int(draws), seed


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


def _raise_first(replies: list[Any]) -> list[Any]:
    """`replies` (a round trip's, an error reply as its exception in place), once none of
    them is an error; else the first error raised."""
    for reply in replies:
        if isinstance(reply, Exception):
            raise reply
    return replies


class Store:
    """The game store on one Redis connection (decoded strings), and a second one for the
    history's segments (`raw`)."""

    def __init__(self, client: redis.Redis, live: redis.Redis | None = None,
                 raw: Callable[[], redis.Redis] | None = None) -> None:
        self.r = client
        #: makes `raw` when it is first needed (a cluster client connects as it is made)
        self._make_raw = raw or (lambda: raw_twin(client))
        self._raw: redis.Redis | None = None
        self._history_read: Any = None
        self._due = client.register_script(HISTORY_DUE)
        self._pack = client.register_script(PACK_HISTORY)
        #: where the players' live feeds are (`service.storage.live`): the store's own Redis,
        #: or the queue's beside a cluster store (`feeds_url`)
        self.live = client if live is None else live
        #: `live.append`: the feeds' own round trip, where a commit cannot carry them
        self.append_feeds = self.live.register_script(APPEND_FEEDS)
        self._accept = client.register_script(ACCEPT_MOVE)
        #: None on a cluster, where a game's keys and the rate limits' counters are on
        #: different nodes: there a move always reads its context first
        self._foreseen = (client.register_script(ACCEPT_FORESEEN)
                          if isinstance(client, redis.Redis) else None)
        self._settle = (client.register_script(SETTLE_FORESEEN)
                        if isinstance(client, redis.Redis) else None)
        #: the settle script's own connections (one per thread), past redis-py's bookkeeping
        self._hot = HotLine(client) if isinstance(client, redis.Redis) else None
        #: replicas that must hold an appended move before it is acknowledged, and how long
        #: to wait for them (ms): `wait_for_replicas`
        self.replicas_to_ack, self.replica_wait_ms = 0, 1000
        self._commit = client.register_script(COMMIT)
        self._join = client.register_script(JOIN)
        self._release = client.register_script(RELEASE_LOCK)
        self._read = client.register_script(READ_FOR_RESOLVE)
        self._open = client.register_script(OPEN_FOR_RESOLVE)
        #: set when the queue lives on this Redis: the accepting script hands the game to a
        #: live drainer itself
        self.inline_wake: InlineWake | None = None
        #: where finished games go (`service.storage.archive`); set by `from_config`
        self.archive: Archive | None = None
        #: set in web processes (`pack_history_aside`): what a settled move finds due is
        #: packed by a thread of its own, not before the move's answer
        self.history_packer: HistoryPacker | None = None

    def pack_history_aside(self) -> None:
        """Have the history segments that settled moves find due packed on a background
        thread (`service.storage.history_packer`) instead of in the move's request."""
        if self.history_packer is None:
            self.history_packer = HistoryPacker(self._pack_history)

    @classmethod
    def from_url(cls, url: str, cluster: bool = False, live_url: str | None = None) -> Store:
        """The store at `url` (a Redis Cluster's node with `cluster`); its live feeds on
        `live_url` when given, else beside the games."""
        raw: Callable[[], redis.Redis] | None = None
        if cluster:
            from service.storage.cluster_client import cluster_client

            client: redis.Redis = cluster_client(url, **_CLIENT_OPTIONS)
            # made when first needed, maybe after the node in `url` failed: it starts from
            # every node the store's client knows by then
            raw = functools.partial(cluster_client, url, known_from=client, **_RAW_OPTIONS)
        else:
            client = redis.Redis.from_url(url, **_CLIENT_OPTIONS)
        live = redis.Redis.from_url(live_url, **_CLIENT_OPTIONS) if live_url else None
        return cls(client, live, raw)

    @property
    def raw(self) -> redis.Redis:
        """The store's Redis without decoding, on its own pool: for the binary segments."""
        if self._raw is None:
            self._raw = self._make_raw()
        return self._raw

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

    def player_names(self, pids: list[str]) -> list[str | None]:
        """Each player's name (None: no such player), in one round trip: the names of a
        game's seats for the texts a view or an event page writes."""
        return self._answers([("HGET", player_key(pid), "name") for pid in pids]) if pids else []

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
        return unpack_state(self.r.get(game_key(gid, "state")))

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
        self.r.zadd(LOBBY_KEY, {gid: 0})
        self.r.sadd(player_games_key(creator), gid)

    def lobby_ids(self, after: str | None, count: int) -> list[str]:
        """Up to `count` ids of the lobby after the id `after`, in id order."""
        return self.r.zrangebylex(LOBBY_KEY, f"({after}" if after else "-", "+", 0, count)

    def leave_lobby(self, gid: str) -> None:
        self.r.zrem(LOBBY_KEY, gid)

    def meta(self, gid: str) -> dict[str, str]:
        return self.r.hgetall(game_key(gid, "meta"))

    def state(self, gid: str) -> Any:
        """The game's stored state, parsed (None for no such game)."""
        return json.loads(self.state_json(gid) or "null")

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
        flat = self._answers([
            *([("GET", token_key(token_hash))] if token_hash is not None else []),
            *(command for gid in gids for command in (("HGETALL", game_key(gid, "meta")),
                                                        ("GET", game_key(gid, "state"))))])
        pid = flat.pop(0) if token_hash is not None else None
        return pid, [(meta, unpack_state(state))
                     for meta, state in zip(flat[::2], flat[1::2], strict=True)]

    def secret(self, gid: str) -> dict[str, str]:
        return self.r.hgetall(game_key(gid, "secret"))

    def set_game_seed(self, gid: str, seed_hex: str) -> None:
        self.r.hset(game_key(gid, "secret"), "game_seed", seed_hex)

    def join(self, gid: str, seat: int, player: str, client_seed: str,
             seats: int, signed: str = "") -> tuple[str, int, int]:
        """Take a seat atomically -> ("ok", seat, taken) or ("err" code, -1, 0); `signed`, the
        player's signed join (JSON, docs/audit.md §18), is kept with the seat in the same
        script (`join_statement:<seat>`); '' for a mail-only player, who has no key."""
        res = self._join(keys=[game_key(gid, "meta")],
                         args=[seat, player, client_seed, seats, signed])
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
            args = [step, nonce, envelope, prev_hash, segments.b64_digest(entry_hash),
                    accepted_at, entry_hash]
            if wake is not None:
                keys += wake.keys
                args += wake.args(gid)
            calls.append((keys, args))
        games = list(dict.fromkeys(a[0] for a in appends))
        pending = ("SADD", PENDING_KEY, *games)
        acks = self._replica_acks(games)
        acked: list[Any] = []
        replies = self._after(self._accept, calls, first=[pending], then=[*acks, *then],
                              then_replies=acked)
        if acks:
            self._check_acks(games, acked[:len(acks)])
        return [self._packed_repost(append, reply) if reply[0] == "packed" else reply
                for append, reply in zip(appends, replies, strict=True)]

    def wait_for_replicas(self, count: int, wait_ms: int) -> None:
        """Acknowledge an appended move only once `count` replicas of its node hold it (Redis
        `WAIT`, after the append, on the same connection): a master that fails over to such a
        replica loses no acknowledged move. On a cluster store only (docs/operations.md
        "Redis Cluster")."""
        self.replicas_to_ack, self.replica_wait_ms = count, wait_ms

    def _replica_acks(self, games: list[str]) -> list[OnNode]:
        """Per game, a write that always replicates (so a re-post's `WAIT` covers the entry
        stored before) and the `WAIT`, both to the game's node."""
        if not self.replicas_to_ack or self._hot is not None:
            return []
        out = []
        for gid in games:
            meta = game_key(gid, "meta")
            out += [OnNode(meta, ("HINCRBY", meta, "replica_acks", 0)),
                    OnNode(meta, ("WAIT", self.replicas_to_ack, self.replica_wait_ms))]
        return out

    def _check_acks(self, games: list[str], replies: list[Any]) -> None:
        _raise_first(replies)
        short = [gid for gid, held in zip(games, replies[1::2], strict=True)
                 if int(held) < self.replicas_to_ack]
        if short:
            raise NotReplicated(f"games {short}: the move is stored but fewer than "
                                f"{self.replicas_to_ack} replicas hold it yet")

    @property
    def foresees(self) -> bool:
        """Whether a move checked against a foreseen state can be appended in one round
        trip (`accept_foreseen`): on one Redis, not on a cluster."""
        return self._foreseen is not None

    def accept_foreseen(self, row: tuple[str, int, str, str, str, str, int], item: str,
                        seq: int, metrics_field: str,
                        address: Sequence[tuple[str, int, int]] = (),
                        signer: Sequence[tuple[str, int, int]] = ()) -> list[Any]:
        """Append one entry (`row` as for `accept_many`) checked against the state a web
        process foresaw, if the game is where it foresaw it: `seq` applied and nothing after
        it, the last item of `hashes` is `item` (the ACCEPT_FORESEEN script), in one round trip
        with the game's pending mark and the move's rate limits, counters of (key, limit,
        window in seconds): the address's charged first, the signer's tested, then charged
        with the append; counted in the metrics' `metrics_field`. The reply:
        {"ok", seq, wake}, {"limit", which}, or {"miss", meta, state, seq of the nonce}, the
        context `accept_contexts` reads (the state unpacked)."""
        keys, args = self._foreseen_call(row, item, seq, metrics_field, address, signer)
        if self.inline_wake is not None:
            keys += self.inline_wake.keys
            args += self.inline_wake.args(row[0])
        reply = self._after(self._foreseen, [(keys, args)],
                            first=[("SADD", PENDING_KEY, row[0])])[0]
        return self._foreseen_reply(reply)

    @property
    def settles(self) -> bool:
        """Whether a web process may apply a foreseen move itself (`settle_foreseen`): on one
        Redis that also holds the queue and the live feeds (the default deployment)."""
        return (self._settle is not None and self.inline_wake is not None
                and self.feeds_ride)

    def settle_foreseen(self, row: tuple[str, int, str, str, str, str, int], item: str,
                        seq: int, metrics_field: str, commit: Commit, players: list[str],
                        feeds: list[list[str]], notices: list[tuple[int, str, str]],
                        address: Sequence[tuple[str, int, int]] = (),
                        signer: Sequence[tuple[str, int, int]] = ()) -> list[Any]:
        """`accept_foreseen`, and the entry applied at once: `commit` (its resolution, as a
        worker would write it) written in the same script (SETTLE_FORESEEN), with the live
        feeds' entries of the seated `players` (`feeds`, by seat; written for those listening)
        and the commit's notices as (seat, `notices.reach`, notice), recorded where a delivery
        may follow. Counted in the metrics' `metrics_field`. Only where `settles`. The reply:
        {"settled", seq, wake} (wake: ACCEPT_MOVE's, for the notices recorded), or
        `accept_foreseen`'s refusals. History segments the commit found due are packed after
        it (by `history_packer`, if set)."""
        wake = self.inline_wake
        assert self._settle is not None and self._hot is not None and wake is not None
        gid = row[0]
        keys, args = self._foreseen_call(row, item, seq, metrics_field, address, signer)
        keys += [*(game_key(gid, p) for p in ("events", "draws", "rejected", "outbox")),
                 NOTIFY_KEY, LIVE_PLAYERS_KEY, *wake.keys]
        for pid in players:
            keys += [live_key(pid), player_key(pid), player_webhooks_key(pid)]
        stored = [segments.hashes_item(s, digest) for s, digest in commit.hashes]
        _, backlog, _ = wake.args(gid)
        args += [pack_state(commit.state), orjson.dumps(commit.meta), orjson.dumps(commit.events),
                 orjson.dumps(stored), APPLIED_CHANNEL,
                 f"{gid} {commit.meta.get('applied', '0')}", segments.SEGMENT, time.time(),
                 backlog, gid, FEEDS_CHANNEL, live_feeds.FEED_LENGTH, live_feeds.FEED_TTL,
                 orjson.dumps(players),
                 orjson.dumps(feeds),
                 orjson.dumps([[seat + 1, kind, notice] for seat, kind, notice in notices])]
        reply = self._hot.evalsha(self._settle, keys, args)
        if reply[0] != "settled":
            return self._foreseen_reply(reply)
        if isinstance(reply[3], list):
            if self.history_packer is not None:
                self.history_packer.add(gid, reply[3])
            else:
                self._pack_history([(gid, reply[3])])
        return reply[:3]

    def _foreseen_call(self, row: tuple[str, int, str, str, str, str, int], item: str,
                       seq: int, metrics_field: str,
                       address: Sequence[tuple[str, int, int]],
                       signer: Sequence[tuple[str, int, int]]) -> tuple[list[str], list[Any]]:
        """The KEYS and ARGV that ACCEPT_FORESEEN and SETTLE_FORESEEN begin with."""
        gid, step, nonce, envelope, prev_hash, entry_hash, accepted_at = row
        counters = [*address, *signer]
        keys = [*(game_key(gid, p) for p in ("meta", "moves", "nonces", "scheduled", "state",
                                              "hashes")),
                METRICS_KEY, game_key(gid, "submitted"), *(c[0] for c in counters)]
        args: list[Any] = [len(address), len(signer), item, seq, step, nonce, envelope,
                           prev_hash, segments.b64_digest(entry_hash), accepted_at, entry_hash,
                           metrics_field, int(time.time() * 1000)]
        for _, limit, window in counters:
            args += [limit, window]
        return keys, args

    @staticmethod
    def _foreseen_reply(reply: list[Any]) -> list[Any]:
        if reply[0] == "miss":
            flat, state, seen = reply[1:]
            return ["miss", dict(zip(flat[::2], flat[1::2], strict=True)), unpack_state(state),
                    int(seen) if seen else None]
        return reply

    def _packed_repost(self, append: tuple[str, int, str, str, str, str, int],
                       reply: list[str]) -> list[str]:
        """ACCEPT_MOVE's "packed" reply (the nonce's entry is in a history segment) as the
        script would have answered with the entry in the stream: "dup" for the same envelope,
        else its refusal."""
        gid, envelope, (_, seq, code) = append[0], append[3], reply
        stored = self.entries(gid, int(seq), int(seq))
        return ["dup", seq] if stored and stored[0][1]["env"] == envelope else ["err", code]

    def _round_trip(self, commands: Sequence[Command | OnNode]) -> list[Any]:
        """The commands in one round trip, their replies in order, an error reply as its
        exception in place: over the thread's `HotLine` on a standalone Redis, else as a
        redis-py pipeline (a cluster's pipeline routes each command by its key)."""
        if self._hot is not None:
            return self._hot.pipeline(commands)
        pipe = self.r.pipeline(transaction=False)
        for command in commands:
            if isinstance(command, OnNode):
                pipe.execute_command(*command.args,
                                     target_nodes=self.r.get_node_from_key(command.key))
            else:
                pipe.execute_command(*command)
        return pipe.execute(raise_on_error=False)

    def _answers(self, commands: list[Command]) -> list[Any]:
        """`_round_trip`, the first error reply raised."""
        return _raise_first(self._round_trip(commands))

    def _after(self, script: Any, calls: list[tuple[list[str], list[Any]]],
               first: Sequence[Command] = (), then: Sequence[Command] = (),
               then_replies: list[Any] | None = None,
               first_replies: list[Any] | None = None) -> list[Any]:
        """The commands `first`, the script once per (keys, args), then the commands `then`,
        in one round trip; the scripts' replies (those of `first` go to `first_replies`, of
        `then` to `then_replies`).

        EVALSHA by hand: a redis-py Script object in a pipeline costs an extra SCRIPT EXISTS
        round trip on every execute. A script missing (a restarted or flushed Redis) fails
        only its own calls: the script is loaded and just those calls run again, after the
        rest, so no other command of the pipeline runs twice.
        """
        # EVALSHA as a plain command: a cluster pipeline refuses `pipe.evalsha`
        evals = [("EVALSHA", script.sha, len(keys), *keys, *args) for keys, args in calls]
        replies = self._round_trip([*first, *evals, *then])
        ours = replies[len(first):len(first) + len(calls)]
        if first_replies is not None:
            first_replies.extend(replies[:len(first)])
        if then_replies is not None:
            then_replies.extend(replies[len(first) + len(calls):])
        missing = [i for i, reply in enumerate(ours)
                   if isinstance(reply, redis.exceptions.NoScriptError)]
        if missing:
            self.r.script_load(script.script)
            for i, reply in zip(missing, self._answers([evals[i] for i in missing]),
                                strict=True):
                ours[i] = reply
            replies = [r for r in replies if not isinstance(r, redis.exceptions.NoScriptError)]
        _raise_first(replies)
        return ours

    def commit(self, gid: str, guard: tuple[str, str], state: str, meta: dict[str, str],
               events: list[str], draws: list[str], rejected: dict[str, str],
               hashes: list[tuple[int, str]], notices: list[str] = ()) -> bool:
        """Write one resolution atomically if `meta[guard[0]] == guard[1]` (`commit_many`)."""
        return self.commit_many([Commit(gid, guard, state, meta, events, draws, rejected,
                                        hashes, list(notices))])[0]

    @property
    def feeds_ride(self) -> bool:
        """Whether the live feeds share the store's Redis, so that the script opening a game
        reads who listens and its commit appends their entries (COMMIT)."""
        return self.live is self.r

    def commit_many(self, commits: list[Commit], then: Sequence[Command] = (),
                    then_replies: list[Any] | None = None,
                    feeds: Sequence[dict[str, list[str]]] = ()) -> list[bool]:
        """Write resolutions, each atomically if its guard holds (COMMIT), in one round trip;
        per commit, whether it was written. The commands `then` follow in that round trip,
        their replies put in `then_replies` (who listens to the live feeds). `feeds`, when the
        feeds ride (`feeds_ride`): per commit, its live-feed entries (player -> entries),
        appended and announced by the commit itself, so only if it is written.

        Games with notices are added to the notify set *before* their commits, so a crash
        right after them still leaves the notices found by the sweep (an empty outbox is
        harmless).
        """
        calls = []
        for c in commits:
            keys = [game_key(c.gid, p) for p in ("meta", "state", "events", "draws", "rejected",
                                                 "hashes", "outbox", "moves")]
            stored = [segments.hashes_item(seq, digest) for seq, digest in c.hashes]
            calls.append((keys, [
                c.guard[0], c.guard[1], pack_state(c.state), orjson.dumps(c.meta),
                orjson.dumps(c.events), orjson.dumps(c.draws), orjson.dumps(c.rejected),
                orjson.dumps(stored), orjson.dumps(c.notices), APPLIED_CHANNEL,
                f"{c.gid} {c.meta.get('applied', '0')}", segments.SEGMENT]))
        for (keys, args), entries in zip(calls, feeds, strict=False):
            if any(entries.values()):
                feed_keys, feed_args = live_feeds.feed_args(entries)
                keys += feed_keys
                args += feed_args
        told = list(dict.fromkeys(c.gid for c in commits if c.notices))
        replies = self._after(self._commit, calls,
                              first=[("SADD", NOTIFY_KEY, *told)] if told else (),
                              then=then, then_replies=then_replies)
        self._pack_history([(c.gid, reply) for c, reply in zip(commits, replies, strict=True)
                            if isinstance(reply, list)])
        return [bool(reply) for reply in replies]

    def _pack_history(self, due: list[tuple[str, list[Any]]]) -> None:
        """Pack the history segments the commits found due (`history_segments`; COMMIT's
        reply by game), all games in two round trips: their entries read (HISTORY_DUE), then
        packed. Packing only saves memory: a failure is logged, and the game's next commit
        finds the same segments due."""
        if not due:
            return
        parts = ("meta", "moves", "events", "hashes")
        try:
            found = self._after(self._due, [([game_key(gid, p) for p in parts], counts)
                                             for gid, counts in due])
        except redis.RedisError as err:
            log.warning("history of %s not read: %s", ", ".join(g for g, _ in due), err)
            return
        parts += tuple(segments.SEGMENT_PARTS.values())
        calls = []
        for (gid, _), entries in zip(due, found, strict=True):
            if not entries or not any(entries[:3]):  # gone, archived, or packed meanwhile
                continue
            try:
                calls.append(([game_key(gid, p) for p in parts], segments.pack_args(entries)))
            except ValueError as err:  # a damaged entry (fsck reports it): left unpacked
                log.warning("history of %s not packed: %s", gid, err)
        if not calls:
            return
        try:
            self._after(self._pack, calls)
        except redis.RedisError as err:
            log.warning("history of %s not packed: %s", ", ".join(g for g, _ in due), err)

    def _history(self, gid: str, part: str, first_segment: int, last_segment: int,
                 *rest: Any) -> list[Any]:
        """HISTORY_READ of one part: [its segments first..last (list indexes), the stream's
        XRANGE (`rest`: its arguments) or the list]."""
        if self._history_read is None:
            self._history_read = self.raw.register_script(HISTORY_READ)
        keys = [game_key(gid, segments.SEGMENT_PARTS[part]), game_key(gid, part)]
        return self._history_read(keys=keys, args=[first_segment, last_segment, *rest])

    def entries(self, gid: str, first: int, last: int) -> list[tuple[int, dict[str, str]]]:
        """Move-stream entries first..last (inclusive) as (seq, fields), packed or not."""
        if last < first:
            return []
        blobs, rest = self._history(gid, "moves", segments.segment_index(first),
                                    segments.segment_index(last), f"{first}-0", f"{last}-0")
        found = (_entry(eid, f) for eid, f in segments.merged_moves(blobs, rest))
        return [(seq, fields) for seq, fields in found if first <= seq <= last]

    def read_for_resolve(self, gid: str, batch: int) -> ResolveRead:
        """(meta, state, entries applied+1.. up to `batch`, draws count, server seed)."""
        return _resolve_read(self._read(keys=_resolve_keys(gid), args=[batch]))

    def open_for_resolve(self, gids: list[str], batch: int, ttl_ms: int,
                         then: Sequence[Command] = (), then_replies: list[Any] | None = None,
                         kept: Sequence[str] = ()
                         ) -> list[tuple[str, ResolveRead, list[str] | None] | None]:
        """For each game, in one round trip for all: clear its `scheduled` flag, take its lock
        and read what a resolve needs (OPEN_FOR_RESOLVE). Per game, (lock token, read, its
        players listening to their live feeds, or None where the feeds do not ride), or None
        where another holds the lock; release the locks with `release_locks`. The commands
        `then` follow in the same round trip, their replies put in `then_replies` (the moves'
        submit times, for /metrics). `kept`: per game, the `hashes` item of a state the
        caller holds ("" for none); where the stored state is that one, the read carries
        KEPT_STATE in its place."""
        tokens = [uuid.uuid4().hex for _ in gids]
        live_keys, live_args = ([LIVE_PLAYERS_KEY], [time.time()]) if self.feeds_ride else ([], [])
        items = list(kept) or [""] * len(gids)
        calls = [(_resolve_keys(gid) + [game_key(gid, "scheduled"), game_key(gid, "lock"),
                                        game_key(gid, "hashes"), *live_keys],
                  [batch, token, ttl_ms, item, *live_args])
                 for gid, token, item in zip(gids, tokens, items, strict=True)]
        replies = self._after(self._open, calls, then=then, then_replies=then_replies)
        return [(token, _resolve_read(reply[:5]), reply[5] if len(reply) > 5 else None)
                if reply is not None else None
                for token, reply in zip(tokens, replies, strict=True)]

    def release_locks(self, held: list[tuple[str, str]], caught_up: list[str],
                      first: Sequence[Command] = (), first_replies: list[Any] | None = None,
                      then: Sequence[Command] = (), then_replies: list[Any] | None = None
                      ) -> None:
        """Release the games' locks, (game, token) each, and take the `caught_up` games out of
        the pending index, in one round trip. The commands `first` go before the releases
        (the trims of the notices taken), their replies put in `first_replies`; the commands
        `then` follow (the resolved moves' metrics, a drainer's take of its next games), their
        replies put in `then_replies`."""
        removed = [("SREM", PENDING_KEY, *caught_up)] if caught_up else []
        replies: list[Any] = []
        try:
            self._after(self._release,
                        [([game_key(gid, "lock")], [token]) for gid, token in held],
                        first=first, first_replies=first_replies, then=[*removed, *then],
                        then_replies=replies)
        finally:
            if then_replies is not None:
                then_replies.extend(replies[len(removed):])

    def accept_contexts(self, key_id: str, moves: list[tuple[str, str]],
                        first: Sequence[Command] = ()) -> tuple[
            dict[str, str] | None, list[tuple[dict[str, str], str | None, int | None]],
            list[Any]]:
        """(key, [(meta, state, seq of the nonce)] per (game, nonce), the replies of `first`)
        in one round trip: the web's path per move (or batch). The commands `first` run
        before the reads (a move's rate-limit counters)."""
        replies = self._answers([*first, ("HGETALL", key_key(key_id)), *(
            command for gid, nonce in moves for command in (
                ("HGETALL", game_key(gid, "meta")), ("GET", game_key(gid, "state")),
                ("HGET", game_key(gid, "nonces"), nonce)))])
        ahead, (key, *flat) = replies[:len(first)], replies[len(first):]
        return key or None, [(meta, unpack_state(state), int(seq) if seq else None)
                             for meta, state, seq in zip(*[iter(flat)] * 3, strict=True)], ahead

    def rejection(self, gid: str, seq: int) -> dict[str, str] | None:
        raw = self.r.hget(game_key(gid, "rejected"), str(seq))
        return json.loads(raw) if raw else None

    def rejections(self, gid: str) -> dict[int, dict[str, str]]:
        return {int(k): json.loads(v) for k, v in self.r.hgetall(game_key(gid, "rejected")).items()}

    def events(self, gid: str, after: int, count: int) -> list[tuple[int, dict[str, Any]]]:
        """Up to `count` events after event `after`, packed or not."""
        if count <= 0:
            return []
        blobs, rest = self._history(gid, "events", segments.segment_index(after + 1),
                                    segments.segment_index(after + count), f"({after}-0", "+",
                                    count)
        found = (read_event(eid, f) for eid, f in segments.merged_events(blobs, rest))
        return [item for item in found if item[0] > after][:count]

    def draws(self, gid: str) -> list[dict[str, Any]]:
        return [json.loads(d) for d in self.r.lrange(game_key(gid, "draws"), 0, -1)]

    def hashes(self, gid: str) -> list[tuple[int, str]]:
        blobs, rest = self._history(gid, "hashes", 0, -1)
        return [read_hash(item) for item in segments.merged_hashes(blobs, rest)]

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
