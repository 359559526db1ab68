"""Moving finished games from Redis to the archive: the RQ job, the sweep, the start-up scan.

A game may move once its end notices are out (the flush marks it in `parley:archive` with the
time it may move: PARLEY_ARCHIVE_AFTER seconds later; with 0 it also enqueues `archive_job`
at once) and every periodic sweep moves the games whose time has come. One move, in steps
that may each be cut short by a crash:

1. `copy`: read the whole game in one atomic read and upsert it into the archive (keyed by
   the game id, with the digest of what was copied). Nothing is copied while the game is
   locked, has notices not yet dispatched, or has moves not yet resolved.
2. `verify`: the archive must hold exactly that record (decompressed, hashed again).
3. `swap`: one script on the game's slot deletes its keys and leaves the pointer, only if the
   game is still as copied (else the next run copies again).
4. `cleanup`: the cross-game indexes (the players' lists, the games index, the to-do set)
   forget the game, each with a single-key command; the to-do entry goes last.

A crash after 1 or 2 leaves the game whole in Redis and a row in the archive: the next run
copies it again onto the same row (nothing duplicated) and goes on. A crash after 3 leaves
the pointer and the to-do entry: the next run finds the pointer and does 4. Two runs at once
(the job and a sweep) copy the same row twice and swap once.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

from service.storage.archive import Archive, archive_of, archived_meta
from service.storage.game_records import (
    GameRecord,
    drop_from_indexes,
    due_for_archive,
    finished_unscheduled,
    forget_archive,
    mark_for_archive,
    players_of,
    postpone_archive,
    read_snapshot,
    swap_to_pointer,
)
from service.storage.store import Store
from workers import context

log = logging.getLogger(__name__)

#: games taken from the to-do set at a time, and how long one sweep keeps moving games
SWEEP_PAGE = 100
SWEEP_SECONDS = 10.0
#: a game whose move failed is tried again this much later
RETRY_SECONDS = 300


class ArchiveMismatch(RuntimeError):
    """The archive does not hold what was just copied into it: Redis keeps the game."""


@dataclass
class Copied:
    """What step 1 put into the archive."""

    record: GameRecord
    digest: str


def copy(store: Store, archive: Archive, gid: str) -> Copied | str:
    """Step 1: the game's record into the archive; or why not: "archived" (the pointer is
    there already), "missing", "not_finished", "busy" (locked, notices or moves pending)."""
    snapshot = read_snapshot(store, gid)
    if snapshot.archived:
        return "archived"
    if snapshot.record is None:
        return "missing"
    meta = snapshot.record.parts["meta"]
    if meta.get("status") != "finished":
        return "not_finished"
    if snapshot.locked or snapshot.outbox or meta.get("applied", "0") != meta.get("head", "0"):
        return "busy"
    return Copied(snapshot.record, archive.put(snapshot.record))


def verify(archive: Archive, copied: Copied) -> None:
    """Step 2: the archive holds exactly the copy, or Redis keeps the game."""
    if not archive.holds(copied.record.gid, copied.digest):
        raise ArchiveMismatch(f"game {copied.record.gid}: the archive does not hold the copy "
                              f"{copied.digest[:16]}... just written")


def swap(store: Store, copied: Copied) -> str:
    """Step 3: the game's keys become the pointer ("ok"), unless it changed meanwhile."""
    return swap_to_pointer(store, copied.record)


def cleanup(store: Store, gid: str, players: list[str]) -> None:
    """Step 4: the indexes forget the archived game."""
    drop_from_indexes(store, gid, players)


def archive_game(store: Store, gid: str) -> str:
    """Move one finished game to the archive, or finish a move a crash cut short; returns
    "ok", "archived" (it had moved already: the indexes were brought up to date), or why it
    stays in Redis for now ("busy", "changed", "missing", "not_finished")."""
    archive = archive_of(store)
    copied = copy(store, archive, gid)
    if copied == "archived":
        cleanup(store, gid, players_of(archived_meta(store, gid)))
        return "archived"
    if isinstance(copied, str):
        if copied in ("missing", "not_finished"):
            forget_archive(store, gid)  # nothing to move, now or later
        return copied
    verify(archive, copied)
    outcome = swap(store, copied)
    if outcome not in ("ok", "archived"):
        return outcome  # still in the to-do set: the next sweep copies it again
    cleanup(store, gid, copied.record.players())
    log.info("game %s moved to the archive (%s...)", gid, copied.digest[:16])
    return "ok"


def archive_job(gid: str) -> str:
    """RQ job: move one game whose end notices went out with no wait (PARLEY_ARCHIVE_AFTER=0)."""
    return archive_game(context.store(), gid)


def sweep(store: Store, budget: float = SWEEP_SECONDS) -> int:
    """Move every game whose time has come (for up to `budget` seconds); returns how many
    moved. A game that cannot move yet stays in the to-do set for the next sweep."""
    moved = 0
    stop = time.monotonic() + budget
    tried: set[str] = set()
    while time.monotonic() < stop:
        due = [gid for gid in due_for_archive(store, SWEEP_PAGE + len(tried))
               if gid not in tried]
        if not due:
            break
        for gid in due:
            tried.add(gid)
            try:
                moved += archive_game(store, gid) == "ok"
            except Exception:  # the archive unreachable, or one damaged game: later
                log.exception("game %s: moving it to the archive failed; again in %d s", gid,
                              RETRY_SECONDS)
                postpone_archive(store, gid, RETRY_SECONDS)
            if time.monotonic() >= stop:
                break
    if moved:
        log.info("archive sweep: %d finished games moved to the archive", moved)
    return moved


def schedule_unmarked(store: Store, after: float) -> int:
    """Mark every finished game that is neither archived nor waiting (games that ended before
    the archive existed); run when a worker starts. Returns how many."""
    found = list(finished_unscheduled(store))
    mark_for_archive(store, found, after)
    if found:
        log.info("start-up scan: %d finished games to move to the archive", len(found))
    return len(found)
