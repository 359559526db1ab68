"""The resolve job: drain one game's pending moves under its lock; and the sweep.

Ordering rests on the move stream, not on RQ (which delivers at least once and not in FIFO
order): a job clears the game's `scheduled` flag *before* it reads the stream, so a move
accepted meanwhile schedules a new job and no wakeup is lost; it then applies entries
`applied + 1 .. head` in order under the game's lock and commits them guarded by `applied`.
"""

from __future__ import annotations

import logging

from service.games import BATCH, load_game, resolve_pending, start_game
from service.queue import enqueue_resolve
from service.store import Store
from workers import context

log = logging.getLogger(__name__)


def resolve_game(gid: str) -> int:
    """RQ job: apply every pending move of one game; returns how many entries it resolved."""
    store = context.store()
    store.clear_scheduled(gid)
    total = 0
    with store.lock(gid, wait=context.config().LOCK_WAIT_SECONDS) as got:
        if not got:
            # another worker holds the game for longer than we waited: make sure a job follows
            log.warning("game %s: lock busy; rescheduling", gid)
            store.force_scheduled(gid)
            enqueue_resolve(context.queue(), gid)
            return 0
        while True:
            done = resolve_pending(store, gid)
            total += done
            if done < BATCH:
                break
    game = load_game(store, gid)
    if game is not None and game.applied >= game.head and game.status != "full":
        store.done_pending(gid)
    return total


def sweep(store: Store, queue: object) -> int:
    """Enqueue a job for every game that may have unresolved work; returns how many.

    Run when a worker starts and periodically: it repairs jobs lost to a crash between the
    accepting script and the enqueue, or a worker killed before it cleared its flag.
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
    return count
