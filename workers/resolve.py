"""The resolve job: drain a game's pending moves under its lock, then other waiting games; and
the sweep.

Ordering rests on the move stream, not on RQ (which delivers at least once and not in FIFO
order): a job clears the game's `scheduled` flag *before* it reads the stream, so a move
accepted meanwhile schedules a new job and no wakeup is lost; it then applies entries
`applied + 1 .. head` in order under the game's lock and commits them guarded by `applied`.

Multi-game drain (docs/performance.md). After its own game, a job takes over the resolve jobs
still waiting in the queue (`service.queue.claim_waiting`, oldest first): a claimed job is
removed from the queue atomically before any worker dequeued it, so it never runs, and this job
does exactly what it would have done: clear that game's flag, take its lock, drain it. A game
with a job waiting therefore still gets no second job, and a move accepted after the flag was
cleared schedules a new one. The drain stops after PARLEY_DRAIN_GAMES games or
PARLEY_DRAIN_SECONDS seconds, so one job stays short. Under load one RQ job then resolves the
moves of many games, instead of paying RQ's per-job cost for every move.
"""

from __future__ import annotations

import logging
import os
import time

from service.games import BATCH, load_game, resolve, start_game
from service.queue import claim_waiting, enqueue_resolve
from service.store import Store
from workers import context, notify

log = logging.getLogger(__name__)

#: at most this many further games per job, and no new one after this many seconds
DRAIN_GAMES = int(os.environ.get("PARLEY_DRAIN_GAMES", "64"))
DRAIN_SECONDS = float(os.environ.get("PARLEY_DRAIN_SECONDS", "0.5"))
#: a game's lock expires this long after a worker died holding it (kill -9, lost host). Safe to
#: keep short: a drain that outlives it commits nothing (the commit is guarded by `applied`).
LOCK_TTL_MS = int(os.environ.get("PARLEY_LOCK_TTL_MS", "5000"))


def resolve_game(gid: str) -> int:
    """RQ job: apply every pending move of one game, then of other games whose job is waiting;
    returns how many entries it resolved."""
    deadline = time.monotonic() + DRAIN_SECONDS
    total = drain(gid, wait=context.config().LOCK_WAIT_SECONDS) or 0
    busy: set[str] = set()
    for _ in range(DRAIN_GAMES):
        if time.monotonic() >= deadline:
            break
        other = claim_waiting(context.queue())
        if other is None:
            break
        if other in busy:  # its lock was busy a moment ago: leave it to RQ and stop here
            _reschedule(context.store(), other)
            break
        try:
            done = drain(other, wait=0)
        except Exception:
            # this job now owed that game its drain: hand it back to RQ before failing
            _reschedule(context.store(), other)
            raise
        if done is None:
            busy.add(other)
        else:
            total += done
    return total


def drain(gid: str, wait: float) -> int | None:
    """Resolve one game as its own job would: flag cleared first, then under the game's lock;
    the notices its commits recorded are dispatched before the lock is released.

    Returns how many entries it resolved, or None if the lock stayed busy (a job follows)."""
    store = context.store()
    total = 0
    caught_up = False
    with store.lock(gid, wait=wait, ttl_ms=LOCK_TTL_MS, clear_scheduled=True) as got:
        if not got:
            # another worker holds the game for longer than we waited: make sure a job follows
            if wait > 0:
                log.warning("game %s: lock busy; rescheduling", gid)
            _reschedule(store, gid)
            return None
        game = None
        while True:
            done = resolve(store, gid)
            total += done.count
            game = done.game or game
            if done.count < BATCH:
                caught_up = done.caught_up
                break
        if game is not None:  # the commits recorded what must be told
            notify.flush(store, context.queue(), gid, game=game)
    if caught_up:
        store.done_pending(gid)
    return total


def _reschedule(store: Store, gid: str) -> None:
    store.force_scheduled(gid)
    enqueue_resolve(context.queue(), gid)


def sweep(store: Store, queue: object) -> int:
    """Enqueue a job for every game that may have unresolved work; returns how many.

    Run when a worker starts and periodically: it repairs jobs lost to a crash between the
    accepting script and the enqueue, or a worker killed before it cleared its flag (or while
    it held jobs it had claimed from the queue).
    """
    count = 0
    for gid in store.pending_games():
        game = load_game(store, gid)
        if game is None:
            store.done_pending(gid)
            continue
        if game.status == "full":
            start_game(store, gid)
            game = load_game(store, gid)
        if game is not None and game.applied < game.head:
            store.force_scheduled(gid)
            enqueue_resolve(queue, gid)  # type: ignore[arg-type]
            count += 1
        else:
            store.done_pending(gid)
    if count:
        log.info("sweep: enqueued %d games with pending moves", count)
    notify.sweep(store, queue)
    return count
