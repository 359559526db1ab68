"""Worker capacity: how fast the workers resolve a backlog of signed moves, against RQ's own
rate for a backlog of no-op jobs.

`bench.e2e` is bound by the web tier on a 2-core machine (docs/performance.md), so it cannot
show what the pipeline behind it does under load. This benchmark takes the web processes out.
A throwaway system: the bundled Redis and `--workers` `parley worker` processes (no web server).

1. **RQ no-op backlog**: `--jobs` no-op jobs (`bench.noop.noop`, result_ttl 0, like resolve
   jobs) enqueued in one pipeline; jobs finished per second until the queue is empty.
2. **Move backlog**: `--games` Stratego Original games in play in the store. Each round, one
   signed move per game is accepted through the web's own path (`service.domain.accept.submit_move`,
   in this process, before the clock starts); then the clock starts and every game whose
   `scheduled` flag the move set is woken as the web would (`service.storage.resolve_queue.wake`:
   the first
   wake enqueues a resolve job, the others go onto its ready list, more jobs as the list grows
   long), until every game has applied its move (watched on the `parley:applied` channel).
   Moves applied per second, and moves per RQ job.

Target: moves applied/s >= 1.0x the no-op jobs/s: a job must resolve many pending moves (of
several waiting games), not one job per move.
"""

from __future__ import annotations

import random
import tempfile
import time
from pathlib import Path
from typing import Any

import redis
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from rq import Queue

from bench.common import (
    Figure,
    System,
    applied_counts,
    bundled_redis,
    jobs_done,
    main,
    parse_applied,
    subscribe_applied,
)
from bench.games import Player, stratego_in_play
from engines.registry import get_engine
from service.domain.accept import submit_move
from service.storage.resolve_queue import wake
from service.storage.store import Store


def noop_backlog(redis_url: str, jobs: int) -> float:
    """No-op jobs finished per second, `jobs` of them enqueued at once."""
    conn = redis.Redis.from_url(redis_url)
    queue = Queue("parley", connection=conn)
    data = [Queue.prepare_data("bench.noop.noop", result_ttl=0) for _ in range(jobs)]
    before = jobs_done(conn)
    t = time.perf_counter()
    queue.enqueue_many(data)
    while queue.count or queue.started_job_registry.count:
        time.sleep(0.002)
    elapsed = time.perf_counter() - t
    for _ in range(100):  # the workers' counters lag a little behind the queue
        if jobs_done(conn) - before >= jobs:
            break
        time.sleep(0.01)
    return jobs / elapsed


def move_backlog(redis_url: str, store: Store, games: list[tuple[str, list[Player]]],
                 server_key: Any, chooser: random.Random) -> tuple[int, float, int]:
    """One round: a move per game accepted, then the games woken at once; returns
    (moves applied, seconds from the enqueue until all were applied, RQ jobs run)."""
    engine = get_engine("stratego")
    conn = redis.Redis.from_url(redis_url)
    queue = Queue("parley", connection=conn)
    waiting: dict[str, int] = {}
    fresh = []
    # subscribed before the first append: a worker's periodic sweep may resolve a move as soon
    # as it is stored, before this round wakes its game
    pubsub = subscribe_applied(conn)
    for gid, players in games:
        state = store.state(gid)
        if state["phase"] != "play":
            continue
        seat = state["to_act"][0]
        move = chooser.choice(list(engine.legal_moves(state, seat)))
        accepted = submit_move(store, gid, players[seat].envelope(gid, seat, state["step"],
                                                                  move), server_key)
        waiting[gid] = accepted.seq
        if accepted.schedule:
            fresh.append(gid)
    moves = len(waiting)
    before = jobs_done(conn)
    t = time.perf_counter()
    for gid in fresh:
        wake(queue, gid)
    deadline = time.monotonic() + 120
    while waiting and time.monotonic() < deadline:
        msg = pubsub.get_message(timeout=0.5)
        if msg is None:  # quiet for half a second: the games' own counts decide
            _drop_applied(store, waiting)
        if msg is None or msg["type"] != "message":
            continue
        gid, applied = parse_applied(msg["data"])
        if gid in waiting and applied >= waiting[gid]:
            del waiting[gid]
    elapsed = time.perf_counter() - t
    pubsub.close()
    if waiting:
        raise RuntimeError(f"{len(waiting)} moves not applied within 120 s")
    time.sleep(0.2)  # the last job's counter
    return moves, elapsed, jobs_done(conn) - before


def _drop_applied(store: Store, waiting: dict[str, int]) -> None:
    """Forget the moves whose games count them applied (in case a message was missed)."""
    counts = applied_counts(store.r, list(waiting))
    for (gid, seq), applied in zip(list(waiting.items()), counts, strict=True):
        if applied >= seq:
            del waiting[gid]


def run(runs: int | None = None, quick: bool = False, games: int | None = None,
        rounds: int | None = None, workers: int = 2, jobs: int | None = None,
        **_: Any) -> list[Figure]:
    runs = runs or (1 if quick else 3)
    games = games or (100 if quick else 400)
    rounds = rounds or (2 if quick else 4)
    jobs = jobs or games
    noop = Figure(f"drain: RQ no-op backlog jobs/s ({workers} workers)", unit="jobs/s")
    rate = Figure(f"drain: moves applied/s from a backlog ({games} games)", unit="moves/s")
    ratio = Figure("drain: moves applied/s / RQ no-op jobs/s", unit="ratio", op=">=",
                   target=1.0)
    per_job = Figure("drain: moves per RQ job", unit="moves/job")
    server_key = Ed25519PrivateKey.generate()
    for n in range(runs):
        with bundled_redis() as url:
            store = Store.from_url(url)
            system = System(url, Path(tempfile.mkdtemp(prefix="parley-bench-")),
                            web_processes=0, workers=workers).start_workers()
            try:
                time.sleep(1.0)  # workers registered
                in_play = [stratego_in_play(store, server_key) for _ in range(games)]
                noop_rates, move_rates, per = [], [], []
                chooser = random.Random(n)
                for _ in range(rounds):
                    noop_rates.append(noop_backlog(url, jobs))
                    moves, elapsed, done = move_backlog(url, store, in_play, server_key,
                                                        chooser)
                    move_rates.append(moves / elapsed)
                    per.append(moves / done if done else float("nan"))
            finally:
                system.stop()
        noop_rate, move_rate = sum(noop_rates) / rounds, sum(move_rates) / rounds
        noop.samples.append(noop_rate)
        rate.samples.append(move_rate)
        ratio.samples.append(move_rate / noop_rate)
        per_job.samples.append(sum(per) / rounds)
    return [noop, rate, ratio, per_job]


def _extra(p: Any) -> None:
    p.add_argument("--games", type=int, default=None, help="games, one move each per round")
    p.add_argument("--rounds", type=int, default=None, help="rounds per run")
    p.add_argument("--workers", type=int, default=2, help="`parley worker` processes")
    p.add_argument("--jobs", type=int, default=None, help="no-op jobs per backlog")


if __name__ == "__main__":
    raise SystemExit(main(run, __doc__.splitlines()[0], _extra))
