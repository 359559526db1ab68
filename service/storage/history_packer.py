"""History packing off a settled move's path: a web process's background thread.

A move the web process settles (`Store.settle_foreseen`) may find whole history segments due
(`history_segments`). Packing them (their entries read, zlib at level 6, then written) only
saves memory, yet it held about one settled move in five for two more round trips and the
compression before its answer. The web process hands them to this thread instead, which packs
every game reported meanwhile in two round trips (docs/performance.md, "The history packer"). Woken
by a report, it lets the next `GATHER_SECONDS` of reports join it before packing: at a few hundred
moves a second, a pack of one game each time made about 70 packs a second of its own
(docs/performance.md, "The history packer"). A report is three counts, not the entries: until they
are packed, every commit of the game reports them again.

Nothing is lost or done twice: what a commit reports due is computed from the counts already
packed, so a game's latest report covers its earlier ones and only that one is kept; a report
dropped by a process that stops (or by a failed round trip) is found due again by the game's
next commit; PACK_HISTORY packs nothing twice and leaves an archived game alone. The thread
ends after `IDLE_SECONDS` without a report and starts again with the next, so an idle process
(or a test's app) holds no thread and keeps no store alive.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)

#: how long the thread waits for a report before it ends
IDLE_SECONDS = 10.0
#: how long a report waits for others to join its pack (the segments only save memory)
GATHER_SECONDS = 0.05
#: what a commit reports due, by game (COMMIT's reply: how many moves, events and hashes are
#: to be packed), and what packs a list of them
Due = tuple[str, list[Any]]
Pack = Callable[[list[Due]], None]


class HistoryPacker:
    """Packs the history segments reported to it (`add`) on a daemon thread of its own,
    started by a report when none runs."""

    def __init__(self, pack: Pack, idle_seconds: float = IDLE_SECONDS,
                 gather_seconds: float = GATHER_SECONDS) -> None:
        self._pack = pack
        self._idle = idle_seconds
        self._gather = gather_seconds
        self._due: dict[str, list[Any]] = {}
        self._changed = threading.Condition()
        self._thread: threading.Thread | None = None

    def add(self, gid: str, due: list[Any]) -> None:
        """Pack `due` (COMMIT's reply for `gid`) soon; returns at once."""
        with self._changed:
            self._due[gid] = due
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="history-packer",
                                                daemon=True)
                self._thread.start()
            self._changed.notify()

    @property
    def running(self) -> bool:
        with self._changed:
            return self._thread is not None

    def _run(self) -> None:
        while True:
            with self._changed:
                if not self._due:
                    self._changed.wait(self._idle)
                if not self._due:  # idle: end, and let the next report start a thread
                    self._thread = None
                    return
            time.sleep(self._gather)  # the reports of the next moments join this pack
            with self._changed:
                due, self._due = list(self._due.items()), {}
            try:
                self._pack(due)
            except Exception:  # packing only saves memory: the games' next commits retry
                log.exception("history of %s not packed", ", ".join(g for g, _ in due))
