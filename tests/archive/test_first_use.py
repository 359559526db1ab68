"""Processes that first use a new archive at the same moment (a web process and a worker)
both make its tables; neither may fail because the other made them first."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

from service.storage.archive import Archive

TRIES = 12
PROCESSES = 4


def _first_read(url: str, start: multiprocessing.synchronize.Event) -> None:
    archive = Archive(url)
    start.wait()
    assert archive.meta("g_none") is None


def test_processes_that_make_the_tables_together_all_succeed(tmp_path: Path) -> None:
    context = multiprocessing.get_context("fork")
    for n in range(TRIES):
        url = f"sqlite:///{tmp_path / f'archive-{n}.sqlite3'}"
        start = context.Event()
        workers = [context.Process(target=_first_read, args=(url, start))
                   for _ in range(PROCESSES)]
        for worker in workers:
            worker.start()
        start.set()
        for worker in workers:
            worker.join(60)
        assert [w.exitcode for w in workers] == [0] * PROCESSES, n
