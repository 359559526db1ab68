"""The web process's history packer (service/storage/history_packer.py), alone: reports are
packed on its own thread, those of a few moments together, a game's latest report replaces an
earlier one not yet packed, a failed packing is logged and the next goes on, and an idle thread
ends and starts again."""

from __future__ import annotations

import logging
import threading
import time

import pytest

from service.storage.history_packer import Due, HistoryPacker
from tests.waiting import wait_until


class Recorder:
    """A pack function: records each call's thread and reports; waits for `gate` if given;
    fails while `failing`."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, list[Due]]] = []
        self.gate: threading.Event | None = None
        self.failing = False
        self.done = threading.Semaphore(0)

    def __call__(self, due: list[Due]) -> None:
        if self.gate is not None:
            self.gate.wait(5)
        self.calls.append((threading.current_thread().name, due))
        self.done.release()
        if self.failing:
            raise RuntimeError("no Redis")


def test_reports_are_packed_on_the_packers_thread() -> None:
    pack = Recorder()
    packer = HistoryPacker(pack)
    packer.add("g1", ["due 1"])
    assert pack.done.acquire(timeout=5)
    assert pack.calls == [("history-packer", [("g1", ["due 1"])])]


def test_reports_of_a_few_moments_are_packed_together() -> None:
    pack = Recorder()
    packer = HistoryPacker(pack, gather_seconds=1.0)
    packer.add("g1", ["due 1"])  # wakes the thread, which waits for others to join
    time.sleep(0.2)
    packer.add("g2", ["due 2"])
    packer.add("g1", ["due 3"])
    assert pack.done.acquire(timeout=5)
    assert [due for _, due in pack.calls] == [[("g1", ["due 3"]), ("g2", ["due 2"])]]
    assert not pack.done.acquire(timeout=0.1)  # and in no other call


def test_a_games_latest_report_replaces_one_not_yet_packed() -> None:
    pack = Recorder()
    pack.gate = threading.Event()
    packer = HistoryPacker(pack)
    packer.add("g1", ["first"])  # taken at once, then held at the gate
    wait_until(lambda: not packer._due, 5, interval=0.005)
    packer.add("g1", ["second"])
    packer.add("g2", ["other"])
    packer.add("g1", ["third"])
    pack.gate.set()
    assert pack.done.acquire(timeout=5) and pack.done.acquire(timeout=5)
    assert [due for _, due in pack.calls] == [
        [("g1", ["first"])], [("g1", ["third"]), ("g2", ["other"])]]


def test_a_failed_packing_is_logged_and_the_next_goes_on(caplog: pytest.LogCaptureFixture
                                                           ) -> None:
    pack = Recorder()
    pack.failing = True
    packer = HistoryPacker(pack)
    with caplog.at_level(logging.ERROR, logger="service.storage.history_packer"):
        packer.add("g1", ["due"])
        assert pack.done.acquire(timeout=5)
        wait_until(lambda: "history of g1 not packed" in caplog.text, 5, interval=0.005)
    pack.failing = False
    packer.add("g2", ["due"])
    assert pack.done.acquire(timeout=5)
    assert [due for _, due in pack.calls] == [[("g1", ["due"])], [("g2", ["due"])]]


def test_an_idle_thread_ends_and_the_next_report_starts_another() -> None:
    pack = Recorder()
    packer = HistoryPacker(pack, idle_seconds=0.05)
    packer.add("g1", ["due"])
    assert pack.done.acquire(timeout=5)
    wait_until(lambda: not packer.running, 5, interval=0.005)
    packer.add("g2", ["due"])
    assert packer.running
    assert pack.done.acquire(timeout=5)
    assert [due for _, due in pack.calls] == [[("g1", ["due"])], [("g2", ["due"])]]

