"""The counters behind `/metrics`, kept in Redis so that every process counts into the same ones.

Web processes, resolve jobs and notification jobs, on any number of machines, add to one hash
(`METRICS_KEY`) with HINCRBY, and the web app reads it whole when scraped
(`service.web.metrics_route`). Nothing is kept per process, so no total depends on which
process answers the scrape, and a restart loses nothing. A histogram is one field per bucket
(counted alone, not cumulatively) and one for the sum in microseconds: every increment is an
integer, so totals are exact.

The counts of a move ride in round trips that the move makes anyway:
- its append (`accept_commands`, in the accepting pipeline) counts it and notes when it was
  accepted, in milliseconds, in the game's `submitted` hash (nonce -> time);
- the resolve reads the notes with the game (`note_reads`, in the opening pipeline), and the
  one that applies or rejects the move (`Tally`, in the pipeline that releases the games' locks
  after the commit) counts that, observes the latency from the note, and drops the note.
Rarer events pay a round trip of their own (`settle`, `record`): a refused move, an append the
accepting script refused after it was counted, the end of a resolve job, a delivery attempt.
"""

from __future__ import annotations

import calendar
import logging
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import orjson
import redis

from service.storage.keys import (
    GAME_COUNTS_KEY,
    GAME_COUNTS_LOCK_KEY,
    GAMES_KEY,
    METRICS_KEY,
    PENDING_KEY,
    game_key,
    ready_key,
)
from service.storage.store import Command, Store, iso

if TYPE_CHECKING:
    from rq import Queue

log = logging.getLogger(__name__)

#: fields of the metrics hash: a prefix, then the source, code, or channel and outcome
ACCEPTED, APPLIED, REJECTED, REFUSED, DELIVERIES = (
    "accepted:", "applied", "rejected:", "refused:", "delivery:")
#: moves accepted in one round trip against a foreseen state (service/domain/foresight.py)
FORESEEN = "foreseen"
#: of those, moves applied in that same round trip (service/domain/settle.py)
SETTLED = "settled"
#: what a move of one round trip adds to, in one field (one HINCRBY in its script, where the
#: totals it counts in would take five): a foreseen move the worker applies, or a settled one.
#: `counters` adds them to the totals (versions before these fields counted each total
#: directly: both kinds of field add up)
ONE_TRIP = {FORESEEN: "one_trip:foreseen", SETTLED: "one_trip:settled"}
#: where a move came from: the API (a player's signature), or the server (a timeout action,
#: a move made by mail reply)
SOURCES = ("api", "server")
INF = float("inf")


@dataclass(frozen=True)
class Histogram:
    """A histogram's fields: `<name>:<upper bound>` per bucket, `<name>:sum_us`."""

    name: str
    #: upper bounds in seconds, ascending; +Inf follows
    bounds: tuple[float, ...]

    def bucket_field(self, seconds: float) -> str:
        return self._field(next((b for b in self.bounds if seconds <= b), INF))

    def _field(self, bound: float) -> str:
        return f"{self.name}:{'+Inf' if bound == INF else f'{bound:g}'}"

    @property
    def sum_field(self) -> str:
        return f"{self.name}:sum_us"

    def read(self, counts: dict[str, int]) -> tuple[list[tuple[float, int]], float]:
        """(cumulative counts per upper bound, +Inf last; the sum in seconds)."""
        total = 0
        buckets = []
        for bound in (*self.bounds, INF):
            total += counts.get(self._field(bound), 0)
            buckets.append((bound, total))
        return buckets, counts.get(self.sum_field, 0) / 1e6


#: from a move's acceptance (its 202) to the commit that applied or rejected it
MOVE_LATENCY = Histogram("latency", (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0,
                                     10.0, 30.0, 60.0, 300.0))
#: one RQ resolve job, from its start to its end (it drains many games under load)
RESOLVE_JOB = Histogram("job", (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0,
                                10.0, 30.0, 120.0))


# ---- what a move's own round trips carry -------------------------------------------------------

def accept_commands(source: str, moves: Sequence[tuple[str, str]]) -> list[Command]:
    """Commands for the pipeline that appends `moves` ((game, nonce) each), after the accepting
    scripts: count them, and note when each was accepted (the first post's time stays)."""
    if not moves:
        return []
    now_ms = str(int(time.time() * 1000))
    return [("HINCRBY", METRICS_KEY, ACCEPTED + source, len(moves)),
            *(("HSETNX", game_key(gid, "submitted"), nonce, now_ms) for gid, nonce in moves)]


def note_reads(gids: Sequence[str]) -> list[Command]:
    """Commands for the pipeline that opens games for a resolve, after the opening scripts:
    each game's notes (nonce -> ms), to pass to `Tally.resolved`."""
    return [("HGETALL", game_key(gid, "submitted")) for gid in gids]


class Tally:
    """Counts and observations gathered in memory, written with `take` in a pipeline the
    caller sends anyway (or alone, `record`)."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        #: game -> the nonces whose notes its resolves have used (or found stale)
        self.notes: dict[str, set[str]] = {}

    def count(self, field: str, n: int = 1) -> None:
        self.counts[field] += n

    def observe(self, histogram: Histogram, seconds: float) -> None:
        self.counts[histogram.bucket_field(seconds)] += 1
        self.counts[histogram.sum_field] += round(seconds * 1e6)

    def resolved(self, gid: str, entries: Iterable[tuple[int, dict[str, str]]],
                 rejected: dict[str, str], notes: dict[str, str], caught_up: bool,
                 now: float | None = None) -> None:
        """A written commit of `entries` (as `Store.entries` gives them), `rejected` (seq ->
        {"code", "detail"} JSON) of them; `notes` as read with the entries (`note_reads`).

        The latency runs from the move's note (milliseconds), or from its entry's accepted_at
        (whole seconds) where there is none: the note is written just after the append, in
        the same pipeline, so a resolve may read the game in between. A resolve that caught up with
        the stream drops every note it saw: a note whose move is not among its entries is
        stale (an append the accepting script refused after it was noted)."""
        now = time.time() if now is None else now
        used = set()
        for seq, fields in entries:
            refusal = rejected.get(str(seq))
            self.count(APPLIED if refusal is None else REJECTED + orjson.loads(refusal)["code"])
            nonce = orjson.loads(fields["env"])["payload"]["nonce"]
            if nonce in notes:
                since = int(notes[nonce]) / 1000
                used.add(nonce)
            else:
                since = calendar.timegm(time.strptime(fields["t"], "%Y-%m-%dT%H:%M:%SZ"))
            self.observe(MOVE_LATENCY, max(0.0, now - since))
        dropped = notes if caught_up else used
        if dropped:
            self.notes.setdefault(gid, set()).update(dropped)

    def take(self) -> list[Command]:
        """The commands that write the tally, once: it is empty afterwards, so that a pipeline
        sent again after a failure counts nothing twice."""
        commands = [*(("HINCRBY", METRICS_KEY, field, n) for field, n in self.counts.items()
                      if n),
                    *(("HDEL", game_key(gid, "submitted"), *sorted(nonces))
                      for gid, nonces in self.notes.items())]
        self.counts, self.notes = Counter(), {}
        return commands


# ---- rarer events: a round trip of their own ---------------------------------------------------

def record(store: Store, tally: Tally) -> None:
    """Write a tally in one round trip. Counting never fails the work it counts: a Redis error
    here is logged and the counts are lost."""
    commands = tally.take()
    if not commands:
        return
    try:
        pipe = store.r.pipeline(transaction=False)
        for command in commands:
            pipe.execute_command(*command)
        pipe.execute()
    except redis.RedisError as err:
        log.warning("metrics not recorded: %s", err)


def settle(store: Store, refused: Sequence[str] = (),
           unappended: Sequence[tuple[str, str]] = (), repeated: int = 0,
           source: str = "api") -> None:
    """After moves were refused or their appends came to nothing, in one round trip: count the
    refusals by code; uncount `unappended` moves ((game, nonce): counted with
    `accept_commands`, then refused by the accepting script) and drop their notes; uncount
    `repeated` re-posts that raced their first post (the note is the stored move's)."""
    tally = Tally()
    for code in refused:
        tally.count(REFUSED + code)
    if unappended or repeated:
        tally.count(ACCEPTED + source, -len(unappended) - repeated)
    for gid, nonce in unappended:
        tally.notes.setdefault(gid, set()).add(nonce)
    record(store, tally)


def record_job(store: Store, seconds: float) -> None:
    tally = Tally()
    tally.observe(RESOLVE_JOB, seconds)
    record(store, tally)


def record_delivery(store: Store, channel: str, outcome: str) -> None:
    """One delivery attempt's outcome (delivered, retrying, failed, skipped, ...)."""
    tally = Tally()
    tally.count(f"{DELIVERIES}{channel}:{outcome}")
    record(store, tally)


def tally_stored(store: Store, tally: Tally, gid: str, first: int, last: int,
                 caught_up: bool) -> None:
    """`Tally.resolved` for entries first..last of a game, read back from the store with the
    notes (one round trip): for a resolve whose entries the caller does not hold."""
    pipe = store.r.pipeline(transaction=False)
    pipe.xrange(game_key(gid, "moves"), f"{first}-0", f"{last}-0")
    pipe.hmget(game_key(gid, "rejected"), [str(seq) for seq in range(first, last + 1)])
    pipe.hgetall(game_key(gid, "submitted"))
    raw, codes, notes = pipe.execute()
    entries = [(int(eid.split("-")[0]), {**fields, "t": iso(int(fields["t"]))})
               for eid, fields in raw]
    rejected = {str(seq): code for seq, code in zip(range(first, last + 1), codes, strict=True)
                if code is not None}
    tally.resolved(gid, entries, rejected, notes, caught_up)


# ---- what a scrape reads -------------------------------------------------------------------------

def counters(store: Store) -> dict[str, int]:
    """The metrics hash, its `ONE_TRIP` fields added to the totals they count in: a foreseen
    move is accepted from the api; a settled one is also foreseen, applied, and in the
    latency's first bucket (nothing lies between its acceptance and its commit)."""
    counts = {field: int(value) for field, value in store.r.hgetall(METRICS_KEY).items()}
    foreseen, settled = (counts.pop(ONE_TRIP[kind], 0) for kind in (FORESEEN, SETTLED))
    for field, n in ((ACCEPTED + "api", foreseen + settled), (FORESEEN, foreseen + settled),
                     (SETTLED, settled), (APPLIED, settled),
                     (MOVE_LATENCY.bucket_field(0.0), settled)):
        if n:
            counts[field] = counts.get(field, 0) + n
    return counts


def pending_games(store: Store) -> int:
    """Games in the sweep's pending index: they may have moves not yet resolved."""
    return store.r.scard(PENDING_KEY)


def game_counts(store: Store, page: int = 1000) -> Counter[str]:
    """Games by status: those in Redis (open, full, active, finished: every game's status,
    read in pages of `page` with one round trip each; docs/operations.md gives the cost), and
    the games moved to the store's archive of finished games, as "archived"."""
    counts: Counter[str] = Counter()
    if store.archive is not None:
        counts["archived"] = store.archive.count()
    offset = 0
    while True:
        gids = store.r.zrange(GAMES_KEY, offset, offset + page - 1)
        if not gids:
            return counts
        pipe = store.r.pipeline(transaction=False)
        for gid in gids:
            pipe.hget(game_key(gid, "meta"), "status")
        counts.update(status for status in pipe.execute() if status)
        offset += page


def game_counts_kept(store: Store, max_age: float, now: float | None = None) -> Counter[str]:
    """`game_counts`, counted again at most once per `max_age` seconds across every web
    process (0: at every call): a scrape reads one key, and the count, whose cost grows with
    the number of games, runs once a period in one process (the one that takes the lock) while
    the others answer the last one."""
    now = time.time() if now is None else now
    raw = store.r.get(GAME_COUNTS_KEY) if max_age > 0 else None
    kept = orjson.loads(raw) if raw else None
    if kept is not None and now - kept["at"] < max_age:
        return Counter(kept["counts"])
    if kept is not None and not store.r.set(GAME_COUNTS_LOCK_KEY, 1, nx=True, ex=60):
        return Counter(kept["counts"])  # another process is counting: the last count meanwhile
    counts = game_counts(store)
    if max_age > 0:
        store.r.set(GAME_COUNTS_KEY, orjson.dumps({"at": now, "counts": counts}))
        store.r.delete(GAME_COUNTS_LOCK_KEY)
    return counts


def queue_jobs(queue: Queue) -> dict[str, int]:
    """RQ's jobs by state: queued, started, scheduled, failed (read only: RQ's own clean-up of
    its registries is left to RQ)."""
    return {"queued": queue.count,
            "started": queue.started_job_registry.get_job_count(cleanup=False),
            "scheduled": queue.scheduled_job_registry.get_job_count(cleanup=False),
            "failed": queue.failed_job_registry.get_job_count(cleanup=False)}


def ready_games(queue: Queue) -> int:
    """Games woken onto the resolve drainers' ready list, not yet taken."""
    return queue.connection.llen(ready_key(queue.name))


def labelled(counts: dict[str, int], prefix: str) -> dict[str, int]:
    """The fields under `prefix`, by what follows it."""
    return {field[len(prefix):]: n for field, n in counts.items() if field.startswith(prefix)}

