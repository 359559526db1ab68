"""The resolve job: drain a game's pending moves under its lock, then the games woken while
it runs; and the sweep.

Ordering rests on the move stream, not on RQ (which delivers at least once and not in FIFO
order): a job clears the game's `scheduled` flag *before* it reads the stream, so a move
accepted meanwhile wakes the game again and no wakeup is lost; it then applies entries
`applied + 1 .. head` in order under the game's lock and commits them guarded by `applied`.

Drainers (`service.storage.resolve_queue`, docs/performance.md). A resolve job is a *drainer* while
it runs:
a game woken meanwhile goes onto the queue's ready list instead of into a new RQ job, and the
job takes the list's games, up to PARLEY_DRAIN_TAKE at a time, and resolves each as its own job
would (flag cleared, lock, drain, notices), with the round trips shared by the games taken
together (`drain_many`). With the list empty, and no other job waiting in the queue, it
lingers up to PARLEY_DRAIN_LINGER seconds for another wake, then leaves
(`service.storage.resolve_queue.leave`, which refuses while games wait). It stops taking games after
PARLEY_DRAIN_SECONDS, so one job stays short; a job then carries on if games are left and no
other drainer is live. Under load one
RQ job resolves the moves of many games.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

from rq import Queue, get_current_job

from service.domain.game import (
    BATCH,
    Resolved,
    load_game,
    plan_resolve,
    resolve,
    start_game,
    write_resolutions,
)
from service.domain.game_model import Resolution
from service.domain.kept_states import Kept
from service.notify import dispatch
from service.storage import metrics_records, notify_records
from service.storage.resolve_queue import (
    leave,
    resolve_job_id,
    take,
    take_command,
    taken,
    wait_ready,
    wake_again,
)
from service.storage.store import KEPT_STATE, Store
from workers import context, notify

log = logging.getLogger(__name__)

#: no new game after this many seconds of draining; how long an idle drainer waits for a wake
DRAIN_SECONDS = context.config().DRAIN_SECONDS
DRAIN_LINGER = context.config().DRAIN_LINGER
#: a drainer takes up to this many games from the ready list at once (`drain_many`)
TAKE_GAMES = context.config().DRAIN_TAKE
#: a game's lock expires this long after a worker died holding it (kill -9, lost host). Safe to
#: keep short: a drain that outlives it commits nothing (the commit is guarded by `applied`).
LOCK_TTL_MS = context.config().LOCK_TTL_MS
#: how long a drainer waits for the lock of a game from the ready list before waking it again
READY_LOCK_WAIT = 1.0


def resolve_game(gid: str) -> int:
    """RQ job: apply every pending move of one game, then of the games woken while it runs;
    returns how many entries it resolved. Its duration is counted (/metrics), once the moves
    it resolved are committed and their locks released."""
    started = time.monotonic()
    try:
        return _drain_from(gid)
    finally:
        metrics_records.record_job(context.store(), time.monotonic() - started)


@dataclass
class Taking:
    """A drainer's take of its next games, riding in the release of the games it drained
    when the queue shares the store's Redis: one round trip per batch fewer. `games` holds
    what the last release took (None: nothing taken yet)."""

    queue: Queue
    job_id: str
    games: tuple[list[str], int] | None = None

    def command(self) -> tuple[object, ...]:
        return take_command(self.queue, self.job_id, TAKE_GAMES)

    def took(self, reply: object) -> None:
        if reply is not None and not isinstance(reply, Exception):
            self.games = taken(reply)  # type: ignore[arg-type]

    def pop(self) -> tuple[list[str], int] | None:
        games, self.games = self.games, None
        return games


def _drain_from(gid: str) -> int:
    queue = context.queue()
    job = get_current_job()
    job_id = job.id if job is not None else resolve_job_id(gid)
    deadline = time.monotonic() + DRAIN_SECONDS
    taking = Taking(queue, job_id) if context.store().inline_wake is not None else None
    try:
        total = drain_many([gid], wait=context.config().LOCK_WAIT_SECONDS, taking=taking)
        while time.monotonic() < deadline:
            others = _next_games(queue, job_id, deadline, taking)
            if not others:
                return total  # left: a later wake enqueues a new job
            total += _drain_woken(others, taking)
        held = taking.pop() if taking is not None else None
        if held and held[0]:  # taken by the last release: drained before this job ends
            total += _drain_woken(held[0], None)
    except BaseException:
        held = taking.pop() if taking is not None else None
        for other in held[0] if held else ():  # taken, never drained: woken again
            _reschedule(context.store(), other)
        leave(queue, job_id, stop=True)
        raise
    leave(queue, job_id, stop=True)  # out of time: games still waiting go to a new job
    return total


def _next_games(queue: Queue, job_id: str, deadline: float, taking: Taking | None
                ) -> list[str]:
    """The next woken games to drain (up to TAKE_GAMES), or none once this drainer has left
    (none was waiting).

    It lingers for a wake only when no other job waits in the RQ queue behind it."""
    held = taking.pop() if taking is not None else None
    others, jobs_waiting = held if held is not None else take(queue, job_id, TAKE_GAMES)
    if not others and DRAIN_LINGER > 0 and not jobs_waiting:
        other = wait_ready(queue, min(DRAIN_LINGER, deadline - time.monotonic()))
        others = [other] if other else []
    if not others:
        other = leave(queue, job_id, stop=False)  # refused while a game waits: that one
        others = [other] if other else []
    return others


def _drain_woken(gids: list[str], taking: Taking | None) -> int:
    """Drain games taken from the ready list; a failure hands them back before it propagates
    (a game already drained is woken for nothing)."""
    try:
        return drain_many(gids, wait=READY_LOCK_WAIT, taking=taking)
    except Exception:
        for gid in gids:
            _reschedule(context.store(), gid)
        raise


def drain_many(gids: list[str], wait: float, taking: Taking | None = None) -> int:
    """Resolve games as their own jobs would, in a few round trips for all of them: one opens
    them (each game's flag cleared, its lock taken, everything read, and who of its players
    listens to their live feeds), one commits (with the live feeds' entries) and reads their
    notices, one trims the notices taken (after dispatching them) and releases the locks, and
    with `taking` takes the drainer's next games. Returns how many entries it resolved.

    The rare cases go through `drain`, one game at a time, once the others are released: a
    game whose lock another holds (`drain` waits up to `wait` for it), one still to be
    started, one with more than BATCH entries pending, and one whose resolve raised (so that
    one broken game fails its job alone, as before, and never the games taken with it)."""
    store = context.store()
    gids = list(dict.fromkeys(gids))  # a game can be woken twice before a drainer takes it
    notes: list[dict[str, str]] = []  # each game's submit times, for the metrics
    states = context.kept_states()  # what this worker committed last, used once
    kept = {gid: k for gid in gids if (k := states.take(gid)) is not None}
    opened = store.open_for_resolve(gids, BATCH, LOCK_TTL_MS,
                                    then=metrics_records.note_reads(gids), then_replies=notes,
                                    kept=[kept[g].item if g in kept else "" for g in gids])
    noted = dict(zip(gids, notes, strict=True))
    held: list[tuple[str, str]] = []
    later: list[str] = []
    reads: dict[str, list[tuple[int, dict[str, str]]]] = {}
    heard: dict[str, list[str] | None] = {}  # who of each game's players listens
    tally = metrics_records.Tally()  # counted in the release's round trip
    total = 0
    try:
        plans: list[Resolution] = []
        resolved: list[tuple[str, Resolved]] = []
        for gid, got in zip(gids, opened, strict=True):
            if got is None:
                later.append(gid)  # its lock is held elsewhere
                continue
            token, read, heard[gid] = got
            held.append((gid, token))
            reads[gid] = read[2]  # its entries
            try:
                planned = plan_resolve(gid, read,
                                       kept.get(gid) if read[1] == KEPT_STATE else None)
            except Exception:  # this game alone: `drain` meets the error again and fails the job
                log.debug("game %s: resolve failed in a batch; retried alone", gid,
                          exc_info=True)
                planned = None
            if isinstance(planned, Resolution):
                plans.append(planned)
            elif planned is not None:
                resolved.append((gid, planned))
            else:
                later.append(gid)  # to be started first, or failed
        # every game taken is flushed; its outbox is read in the commit's round trip
        flushed = [done.game for _, done in resolved if done.game is not None]
        flushed += [p.game for p in plans]
        flushed_ids, players = [g.id for g in flushed], dispatch.flush_players(flushed)
        outboxes: list[object] = []
        written = write_resolutions(store, plans,
                                    then=notify_records.outbox_commands(flushed_ids, players),
                                    then_replies=outboxes,
                                    listening=[heard[p.game.id] for p in plans])
        resolved += zip([p.game.id for p in plans], written, strict=True)
        for plan, done in zip(plans, written, strict=True):
            if done.count:  # committed (a commit that lost its guard wrote nothing)
                gid = plan.game.id
                tally.resolved(gid, reads[gid], plan.commit.rejected, noted[gid],
                               done.caught_up)
                if plan.item is not None:
                    states.put(gid, Kept(plan.item, plan.commit.state, plan.listing_state()))
        caught_up = []
        for gid, done in resolved:
            total += done.count
            if done.count >= BATCH:
                later.append(gid)  # more entries wait than one commit takes
            elif done.caught_up:
                caught_up.append(gid)
        trims: list[tuple[str, int]] = []  # sent before the locks go, in that round trip
        notify.flush_resolved(store, context.queue(), flushed,
                              notify_records.outboxes_from(outboxes, flushed_ids, players), trims)
        trimmed: list[object] = []
        took: list[object] = []
        try:
            store.release_locks(held, caught_up,
                                first=notify_records.trim_commands(trims) if trims else (),
                                first_replies=trimmed,
                                then=[*tally.take(), *([taking.command()] if taking else ())],
                                then_replies=took)
        finally:
            if taking is not None and took:
                taking.took(took[-1])
        held = []
        if trims:
            notify_records.mark_grown(store, trims, trimmed)
    finally:
        if held:  # failed half-way: the locks go now rather than after their TTL
            store.release_locks(held, [], then=tally.take())
    for gid in later:
        total += drain(gid, wait) or 0
    return total


def drain(gid: str, wait: float) -> int | None:
    """Resolve one game as its own job would: flag cleared first, then under the game's lock;
    the notices its commits recorded are dispatched before the lock is released.

    Returns how many entries it resolved, or None if the lock stayed busy (a job follows)."""
    store = context.store()
    total = 0
    caught_up = False
    tally = metrics_records.Tally()
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
            if done.count and done.game is not None:  # this rare path reads its entries back
                first = done.game.applied + 1
                metrics_records.tally_stored(store, tally, gid, first, first + done.count - 1,
                                             done.caught_up)
            if done.count < BATCH:
                caught_up = done.caught_up
                break
        if game is not None:  # the commits recorded what must be told
            notify.flush(store, context.queue(), gid, game=game)
    if caught_up:
        store.done_pending(gid)
    metrics_records.record(store, tally)
    return total


def _reschedule(store: Store, gid: str) -> None:
    wake_again(store, context.queue(), gid)


def sweep(store: Store, queue: object) -> int:
    """Wake every game that may have unresolved work; returns how many.

    Run when a worker starts and periodically: it repairs jobs lost to a crash between the
    accepting script and the wake, or a worker killed before it cleared its flag (or while
    the ready list held games for it).
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
            wake_again(store, queue, gid)  # type: ignore[arg-type]
            count += 1
        else:
            store.done_pending(gid)
    if count:
        log.info("sweep: woke %d games with pending moves", count)
    notify.sweep(store, queue)
    return count
