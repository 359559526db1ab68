"""A whole game as one record, and the Redis side of moving finished games to the archive.

A `GameRecord` holds every part of a game that its readers need (meta, state, moves, nonces,
rejections, events, draws, hashes, secret), as Redis holds them, and answers the store's game
reads (`entries`, `events`, `draws`, ...) with the same results, through the store's own
converters. It comes from Redis in one atomic read (`read_snapshot`, the READ_RECORD script),
or from the archive (`service.storage.archive`), which keeps exactly its serialized bytes. The
record holds the history whole: what Redis keeps packed in segments (`history_segments`) is put
back into `moves`, `events` and `hashes`, and the state is its canonical JSON, so a record is
the same whether or not its game's history was packed (the meta hash's counts of what is
packed are left out).

Moving a finished game out (docs/operations.md "Archive"; the steps in `workers.archiver`):
the flush that dispatches a game's end notices puts the game into `parley:archive` with the
time it may move (`mark_for_archive`); the archiver copies its record to the archive, checks
the copy, then `swap_to_pointer` deletes every key of the game and leaves the meta hash as the
pointer {status: finished, archived: 1}, in one script on the game's slot, guarded so that a
game still locked, with notices not yet dispatched, or changed since the copy is left alone.
The cross-game indexes follow with single-key commands (`drop_from_indexes`).
"""

from __future__ import annotations

import hashlib
import json
import time
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from service.storage import history_segments as segments
from service.storage.keys import (
    ARCHIVE_KEY,
    GAME_PARTS,
    GAMES_KEY,
    NOTIFY_KEY,
    PENDING_KEY,
    game_key,
    mail_thread_key,
    player_games_key,
)
from service.storage.scripts import ARCHIVE_SWAP, READ_RECORD
from service.storage.state_packing import unpack_state
from service.storage.store import Store, read_entry, read_event, read_hash

if TYPE_CHECKING:
    from rq import Queue

#: the parts of a game its record keeps; the others (`TRANSIENT_PARTS`) mean nothing once a
#: finished game's notices are out
RECORD_PARTS = ("meta", "state", "moves", "nonces", "rejected", "events", "draws", "hashes",
                "secret")
#: parts whose content the record keeps under another part's name (the history's segments)
PACKED_PARTS = tuple(segments.SEGMENT_PARTS.values())
TRANSIENT_PARTS = ("scheduled", "lock", "outbox", "submitted")

#: the field that makes a meta hash the pointer of an archived game
ARCHIVED = "archived"
#: the archive job (RQ), by name: storage does not import the workers
ARCHIVE_FUNC = "workers.archiver.archive_job"
#: how long the players' mail threads of an archived game stay (a late retry joins its thread)
THREAD_GRACE = 86400


def is_archived(meta: dict[str, str]) -> bool:
    """Whether this meta hash is an archived game's pointer."""
    return meta.get(ARCHIVED) == "1"


def _listed(entries: list[segments.StreamEntry]) -> list[list[Any]]:
    return [[eid, fields] for eid, fields in entries]


@dataclass
class GameRecord:
    """Every part of one game (`RECORD_PARTS`), as stored; reads like the store does."""

    gid: str
    parts: dict[str, Any]

    # ---- serialized: what the archive keeps, and its digest -------------------------------

    def to_bytes(self) -> bytes:
        """Canonical JSON (sorted keys, compact): equal records give equal bytes."""
        return json.dumps({"game": self.gid, **self.parts}, sort_keys=True,
                          separators=(",", ":")).encode()

    def digest(self) -> str:
        return hashlib.sha256(self.to_bytes()).hexdigest()

    def compressed(self) -> bytes:
        return zlib.compress(self.to_bytes(), 6)

    @classmethod
    def from_compressed(cls, blob: bytes) -> GameRecord:
        data = json.loads(zlib.decompress(blob))
        gid = data.pop("game")
        return cls(gid, data)

    # ---- the store's game reads, answered from the record ---------------------------------

    def meta(self, gid: str) -> dict[str, str]:
        return dict(self.parts["meta"])

    def state_json(self, gid: str) -> str | None:
        return self.parts["state"]

    def state(self, gid: str) -> Any:
        return json.loads(self.parts["state"] or "null")

    def has_state(self, gid: str) -> bool:
        return self.parts["state"] is not None

    def nonces(self, gid: str) -> dict[str, str]:
        return dict(self.parts["nonces"])

    def secret(self, gid: str) -> dict[str, str]:
        return dict(self.parts["secret"])

    def entries(self, gid: str, first: int, last: int) -> list[tuple[int, dict[str, str]]]:
        entries = (read_entry(eid, fields) for eid, fields in self.parts["moves"])
        return [(seq, fields) for seq, fields in entries if first <= seq <= last]

    def rejection(self, gid: str, seq: int) -> dict[str, str] | None:
        raw = self.parts["rejected"].get(str(seq))
        return json.loads(raw) if raw else None

    def rejections(self, gid: str) -> dict[int, dict[str, str]]:
        return {int(k): json.loads(v) for k, v in self.parts["rejected"].items()}

    def events(self, gid: str, after: int, count: int) -> list[tuple[int, dict[str, Any]]]:
        found = (read_event(eid, fields) for eid, fields in self.parts["events"])
        return [item for item in found if item[0] > after][:count]

    def draws(self, gid: str) -> list[dict[str, Any]]:
        return [json.loads(d) for d in self.parts["draws"]]  # fresh dicts: readers edit them

    def hashes(self, gid: str) -> list[tuple[int, str]]:
        return [read_hash(item) for item in self.parts["hashes"]]

    # ---- who the game belongs to ----------------------------------------------------------

    def players(self) -> list[str]:
        """Everyone whose list of games names it: its creator, who joined, who sat down."""
        return players_of(self.parts["meta"])


def players_of(meta: dict[str, str]) -> list[str]:
    seated = json.loads(meta["players"]) if meta.get("players") else []
    joined = [v for k, v in meta.items() if k.startswith("join:")]
    return sorted({p for p in [meta.get("creator"), *seated, *joined] if p})


# ---- Redis: one game read whole, and the swap to the pointer ---------------------------------

@dataclass
class Snapshot:
    """A game as READ_RECORD found it: its record (None: no such game), whether it is an
    archived game's pointer, and what keeps it from moving to the archive yet."""

    record: GameRecord | None
    archived: bool
    outbox: int
    locked: bool


def read_snapshot(store: Store, gid: str) -> Snapshot:
    """Every part of the game in one atomic read (a script on the game's slot)."""
    keys = [game_key(gid, p) for p in (*RECORD_PARTS, "outbox", "lock", *PACKED_PARTS)]
    *flat, packed_moves, packed_events, packed_hashes = store.raw.eval(READ_RECORD, len(keys),
                                                                       *keys)
    (meta, state, moves, nonces, rejected, events, draws, hashes, secret, outbox,
     locked) = segments.text(flat)
    meta = segments.pairs(meta)
    if not meta or is_archived(meta):
        return Snapshot(None, bool(meta), 0, False)
    parts = {"meta": {k: v for k, v in meta.items() if k not in segments.PACKED_FIELDS},
             "state": unpack_state(state),
             "moves": _listed(segments.merged_moves(packed_moves, moves)),
             "nonces": segments.pairs(nonces), "rejected": segments.pairs(rejected),
             "events": _listed(segments.merged_events(packed_events, events)),
             "draws": draws, "hashes": segments.merged_hashes(packed_hashes, hashes),
             "secret": segments.pairs(secret)}
    return Snapshot(GameRecord(gid, parts), False, int(outbox), bool(locked))


def swap_to_pointer(store: Store, record: GameRecord) -> str:
    """Replace the game's keys with the pointer, atomically, if the game is still as copied
    (ARCHIVE_SWAP's reply: "ok", "archived", "not_finished", "busy" or "changed")."""
    gid = record.gid
    meta = record.parts["meta"]
    first = [game_key(gid, p) for p in ("meta", "lock", "outbox")]
    rest = [game_key(gid, p) for p in GAME_PARTS if p not in ("meta", "lock", "outbox")]
    return store.r.eval(ARCHIVE_SWAP, len(first) + len(rest), *first, *rest,
                        meta.get("head", "0"), meta.get("events", "0"))


def drop_from_indexes(store: Store, gid: str, players: list[str]) -> None:
    """The cross-game indexes forget an archived game (single-key commands: each index lives
    in its own slot); the players' mail threads of it expire. Idempotent."""
    for pid in players:
        store.r.srem(player_games_key(pid), gid)
        store.r.expire(mail_thread_key(pid, gid), THREAD_GRACE)
    store.r.zrem(GAMES_KEY, gid)
    store.r.srem(PENDING_KEY, gid)
    store.r.srem(NOTIFY_KEY, gid)
    store.r.zrem(ARCHIVE_KEY, gid)  # last: until here a crash leaves it to the next sweep


# ---- the games waiting to move (`parley:archive`) ---------------------------------------------

def mark_for_archive(store: Store, gids: list[str], after: float) -> None:
    """The games may move `after` seconds from now (a game already waiting keeps its time).
    Marked before their end notices leave the outbox, so that no crash loses the mark."""
    if gids:
        store.r.zadd(ARCHIVE_KEY, dict.fromkeys(gids, time.time() + after), nx=True)


def enqueue_archive(queue: Queue | None, gids: list[str]) -> None:
    """The games' archive jobs, at once (with no wait; otherwise the sweep moves them)."""
    for gid in gids if queue is not None else ():
        queue.enqueue(ARCHIVE_FUNC, gid, job_id=f"archive-{gid}", job_timeout=120,
                      result_ttl=0, failure_ttl=7 * 86400)


def due_for_archive(store: Store, count: int, now: float | None = None) -> list[str]:
    """Up to `count` games whose time to move has come, the longest waiting first."""
    until = time.time() if now is None else now
    return store.r.zrangebyscore(ARCHIVE_KEY, "-inf", until, start=0, num=count)


def postpone_archive(store: Store, gid: str, delay: float) -> None:
    """Try the game again `delay` seconds from now (its move failed)."""
    store.r.zadd(ARCHIVE_KEY, {gid: time.time() + delay}, xx=True)


def forget_archive(store: Store, gid: str) -> None:
    """The game will not move (it is gone, or was never finished)."""
    store.r.zrem(ARCHIVE_KEY, gid)


def finished_unscheduled(store: Store, page: int = 1000) -> Iterator[str]:
    """Every finished game in the games index that is not archived and not waiting to move
    (games that ended before the archive existed, or whose mark a crash lost)."""
    offset = 0
    while True:
        gids = store.r.zrange(GAMES_KEY, offset, offset + page - 1)
        if not gids:
            return
        pipe = store.r.pipeline(transaction=False)
        for gid in gids:
            pipe.hmget(game_key(gid, "meta"), "status", ARCHIVED)
        for gid, (status, archived) in zip(gids, pipe.execute(), strict=True):
            if status == "finished" and archived != "1" and \
                    store.r.zscore(ARCHIVE_KEY, gid) is None:
                yield gid
        offset += page
