"""Clocks: the deadline sweep's time with 10,000 and with 1,000,000 pending deadlines.

A game with a time control schedules each decision's reminder and timeout
(`service.notify.dispatch.schedule_deadline`): a member "<game>|<step>|<kind>" in the
`parley:deadlines` sorted set, scored by its due time, and an RQ job scheduled for that time,
whose id RQ keeps in the queue's ScheduledJobRegistry (the sorted set `rq:scheduled:<queue>`,
scored by the due time in whole seconds). Each tick, RQ's scheduler asks that registry for the
ids due now (`ScheduledJobRegistry.get_jobs_to_schedule`, a ZRANGEBYSCORE from 0 to now with a
LIMIT of 1,000) and enqueues their jobs; the worker's sweep (`workers.notify.sweep`) asks
`dispatch.overdue_deadlines` for the deadlines whose job should have run and did not.

The bundled Redis holds two such stores side by side, in databases 0 and 1: `--small`
(10,000) and `--big` (1,000,000) pending deadlines, each with as many registry entries. They
are synthetic, in the shapes the dispatcher writes (ids like a game's, steps, timeouts): all
but `--due` (100) lie between an hour and 30 days ahead, the `--due` ones a minute in the
past. They are written with ZADD, `BATCH` members a command, a few commands a pipeline. Only
the sorted sets are synthesised: a scheduled job's own hash (`rq:job:<id>`) is read by the
scheduler only once the job is due, so the registry's members are all that a tick scans. One
deadline is then scheduled by the dispatcher itself, in database 2, for the size of a job's
hash.

One sweep is both queries: `dispatch.overdue_deadlines(store)` and the registry's
`get_jobs_to_schedule()`. Sweeps of the two stores alternate (`--repeats` each, after a few
to warm up), each run's sample is the median of its sweeps. Figures: ms per sweep at each
size, and big / small (target < 2.0: the sweep's cost follows the clocks due, not the clocks
pending); the fill's time; bytes per pending deadline (`MEMORY USAGE` of the deadline index,
SAMPLES 0, over its members), per registry entry, per job hash, and the three together. Each
run checks that the sweep found exactly the due deadlines and the due jobs.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass
from typing import Any

import orjson
from rq import Queue
from rq.job import Job
from rq.registry import ScheduledJobRegistry

from bench.common import Figure, bundled_redis, main
from service.config import Config
from service.domain.game_model import Game
from service.notify import dispatch
from service.storage.keys import DEADLINES_KEY
from service.storage.resolve_queue import make_queue
from service.storage.store import Store

#: target: a sweep at `big` pending deadlines takes less than this times one at `small`
RATIO_TARGET = 2.0
#: deadlines due now in every store: what the sweep has to find
DUE = 100
#: members per ZADD, and ZADDs per pipeline, while filling
BATCH = 10_000
PIPELINE = 10
#: how far ahead the pending deadlines lie (seconds): an hour to 30 days
AHEAD = 3600.0
SPREAD = 30 * 86400.0
KINDS = ("timeout", "reminder")


def deadline_member(n: int) -> tuple[str, int, str]:
    """The n-th synthetic deadline's (game id, step, kind): a decision's timeout, then its
    reminder, under ids shaped like a game's."""
    return f"g_{n // 2:012x}", 20 + n // 2 % 7, KINDS[n % 2]


def index_member(gid: str, step: int, kind: str) -> str:
    """Its member in the deadline index, as `dispatch.schedule_deadline` writes it."""
    return f"{gid}|{step}|{kind}"


def job_id(gid: str, step: int, kind: str, at: float) -> str:
    """Its RQ job's id, due at `at`, as `dispatch.schedule_deadline` names it."""
    return f"deadline-{gid}-{step}-{kind}-{int(at)}"


def deadline_at(n: int, count: int, due: int, now: float) -> float:
    """When the n-th of `count` deadlines is due: the first `due` a minute (and n seconds)
    before `now`, the others spread from an hour to 30 days after it."""
    return now - 60 - n if n < due else now + AHEAD + (n - due) * SPREAD / count


@dataclass
class ClockStore:
    """One store of pending deadlines: the game store, and RQ's queue (its registry of
    scheduled jobs)."""

    store: Store
    queue: Queue
    count: int = 0
    due: int = 0
    now: float = 0.0

    @classmethod
    def at(cls, url: str, queue: str | None = None) -> ClockStore:
        return cls(Store.from_url(url), make_queue(url, queue or Config().QUEUE))

    @property
    def registry(self) -> ScheduledJobRegistry:
        return self.queue.scheduled_job_registry

    def expected(self) -> tuple[set[tuple[str, int, str]], set[str]]:
        """What a sweep must find: the due deadlines, and their jobs' ids."""
        due = [deadline_member(n) for n in range(self.due)]
        return set(due), {job_id(*d, deadline_at(n, self.count, self.due, self.now))
                          for n, d in enumerate(due)}


def fill(clocks: ClockStore, count: int, due: int = DUE, now: float | None = None,
         batch: int = BATCH) -> float:
    """`count` pending deadlines (and as many registry entries), the first `due` of them a
    minute overdue and the rest an hour to 30 days ahead; returns the seconds it took."""
    if not 0 <= due <= count:
        raise ValueError(f"due ({due}) must lie between 0 and count ({count})")
    now = time.time() if now is None else now
    r, raw = clocks.store.r, clocks.registry.connection
    key = clocks.registry.key
    t = time.perf_counter()
    pipes = [r.pipeline(transaction=False), raw.pipeline(transaction=False)]
    queued = 0
    for start in range(0, count, batch):
        index: dict[str, float] = {}
        jobs: dict[str, int] = {}
        for n in range(start, min(count, start + batch)):
            at = deadline_at(n, count, due, now)
            member = deadline_member(n)
            index[index_member(*member)] = at
            jobs[job_id(*member, at)] = int(at)  # RQ scores whole seconds
        pipes[0].zadd(DEADLINES_KEY, index)
        pipes[1].zadd(key, jobs)
        queued += 1
        if queued == PIPELINE:
            for pipe in pipes:
                pipe.execute()
            queued = 0
    for pipe in pipes:
        pipe.execute()
    clocks.count, clocks.due, clocks.now = count, due, now
    return time.perf_counter() - t


def sweep(clocks: ClockStore) -> tuple[list[tuple[str, int, str]], list[str]]:
    """One sweep: the overdue deadlines (the worker's sweep) and the job ids due now (RQ's
    scheduler tick)."""
    return dispatch.overdue_deadlines(clocks.store), clocks.registry.get_jobs_to_schedule()


def check(clocks: ClockStore) -> None:
    """Raise unless a sweep finds exactly the due deadlines and the due jobs."""
    overdue, jobs = sweep(clocks)
    want_overdue, want_jobs = clocks.expected()
    if len(overdue) != len(want_overdue) or set(overdue) != want_overdue:
        raise AssertionError(f"the sweep found {len(overdue)} overdue deadlines, "
                             f"{len(set(overdue) & want_overdue)} of the {clocks.due} due")
    if len(jobs) != len(want_jobs) or set(jobs) != want_jobs:
        raise AssertionError(f"RQ's query found {len(jobs)} jobs to schedule, "
                             f"{len(set(jobs) & want_jobs)} of the {clocks.due} due")


def time_sweeps(stores: list[ClockStore], repeats: int, warm: int = 5) -> list[float]:
    """Ms per sweep of each store: the median of `repeats`, the stores taken in turn."""
    samples: list[list[float]] = [[] for _ in stores]
    for n in range(warm + repeats):
        for clocks, out in zip(stores, samples, strict=True):
            t = time.perf_counter()
            sweep(clocks)
            if n >= warm:
                out.append((time.perf_counter() - t) * 1e3)
    return [statistics.median(out) for out in samples]


def schedule_real(clocks: ClockStore, gid: str, step: int, due: float
                  ) -> tuple[list[str], list[str], list[int]]:
    """A decision's deadline scheduled by the dispatcher itself (`dispatch.schedule_deadline`)
    for a game with a time control but no running clock yet (so its timeout only): the deadline
    index's members, the registry's, and the bytes of each job's own hash (`rq:job:<id>`, which
    the synthetic entries leave out)."""
    tc = {"seconds_per_move": 86400, "reminder_fraction": 0.5}
    meta = {"ruleset": "stratego", "options": "{}", "platform": orjson.dumps(
        {"time_control": tc}).decode(), "seats": "2", "status": "active", "step": str(step),
        "to_act": "[0]", "commitment": "", "created_at": "", "creator": ""}
    game = Game.from_meta(gid, meta)
    dispatch.schedule_deadline(clocks.store, clocks.queue, game, step, due)
    raw = clocks.queue.connection
    members = sorted(clocks.store.r.zrange(DEADLINES_KEY, 0, -1))
    jobs = sorted(j.decode() for j in raw.zrange(clocks.registry.key, 0, -1))
    sizes = [raw.memory_usage(Job.key_for(j), samples=0) or 0 for j in jobs]
    return members, jobs, sizes


def bytes_per_entry(clocks: ClockStore) -> tuple[float, float]:
    """Bytes per pending deadline in the index, and per entry in RQ's registry."""
    index = clocks.store.r.memory_usage(DEADLINES_KEY, samples=0) or 0
    registry = clocks.registry.connection.memory_usage(clocks.registry.key, samples=0) or 0
    return index / clocks.count, registry / clocks.count


def run(runs: int | None = None, quick: bool = False, small: int | None = None,
        big: int | None = None, due: int = DUE, repeats: int | None = None,
        **_: Any) -> list[Figure]:
    runs = runs or (1 if quick else 3)
    small = small or 10_000
    big = big or (100_000 if quick else 1_000_000)
    repeats = repeats or (50 if quick else 200)
    at_small = Figure(f"clocks: sweep, {small:,} pending ({due:,} due)", unit="ms")
    at_big = Figure(f"clocks: sweep, {big:,} pending ({due:,} due)", unit="ms")
    ratio = Figure(f"clocks: sweep at {big:,} / at {small:,} pending", unit="ratio", op="<=",
                   target=RATIO_TARGET)
    filled = Figure(f"clocks: fill of {big:,} deadlines and registry entries", unit="s")
    per_deadline = Figure("clocks: bytes per pending deadline (index)", unit="bytes")
    per_job = Figure("clocks: bytes per registry entry (RQ's scheduled jobs)", unit="bytes")
    per_hash = Figure("clocks: bytes per scheduled job's hash (a real one)", unit="bytes")
    per_clock = Figure("clocks: bytes per pending deadline, all told", unit="bytes")
    with bundled_redis() as url:
        base = url.rsplit("/", 1)[0]
        stores = [ClockStore.at(f"{base}/0"), ClockStore.at(f"{base}/1")]
        for n in range(runs):
            for clocks in stores:
                clocks.store.r.flushdb()
            fill(stores[0], small, due)
            filled.samples.append(fill(stores[1], big, due))
            for clocks in stores:
                check(clocks)
            small_ms, big_ms = time_sweeps(stores, repeats)
            at_small.samples.append(small_ms)
            at_big.samples.append(big_ms)
            ratio.samples.append(big_ms / small_ms)
            if n == 0:
                index, registry = bytes_per_entry(stores[1])
                per_deadline.samples.append(index)
                per_job.samples.append(registry)
        real = ClockStore.at(f"{base}/2")
        sizes = schedule_real(real, "g_0123456789ab", 20, time.time() + 86400)[2]
        per_hash.samples.append(statistics.mean(sizes))
        per_clock.samples.append(per_deadline.median + per_job.median + per_hash.median)
    return [at_small, at_big, ratio, filled, per_deadline, per_job, per_hash, per_clock]


def _extra(p: Any) -> None:
    p.add_argument("--small", type=int, default=None, help="pending deadlines (10,000)")
    p.add_argument("--big", type=int, default=None,
                   help="pending deadlines (1,000,000; 100,000 with --quick)")
    p.add_argument("--due", type=int, default=DUE, help="deadlines due now in each store")
    p.add_argument("--repeats", type=int, default=None,
                   help="sweeps of each store per run (200; 50 with --quick)")


if __name__ == "__main__":
    raise SystemExit(main(run, __doc__.splitlines()[0], _extra))
