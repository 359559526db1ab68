"""bench.timeline: a phase's bursts of slow moves, beside what a real Redis logged meanwhile."""

from __future__ import annotations

import os
import time
from pathlib import Path

import redis

from bench.common import bundled_redis
from bench.timeline import default_folder, read_phases, redis_events, report, write_phase
from tests.waiting import wait_until


def test_a_burst_is_shown_beside_the_rewrite_and_the_slow_command_of_its_moment(
        tmp_path: Path) -> None:
    start = time.time()
    with bundled_redis(timeline=tmp_path) as url:
        client = redis.Redis.from_url(url)
        client.execute_command("DEBUG", "SLEEP", "0.02")  # a 20 ms command
        client.bgrewriteaof()
        wait_until(lambda: not client.info("persistence")["aof_rewrite_in_progress"], 10,
                   "the AOF rewrite", interval=0.01)
    # 400 moves over 4 s at 2 ms, and 10 of them at 40 ms in the quarter-second from 1.5 s;
    # one move outside the window (answered after its end) is not kept
    moves = [(start + i / 100, 0.002) for i in range(400)]
    moves[150:160] = [(start + 1.5 + i / 100, 0.040) for i in range(10)]
    moves.append((start + 3.999, 0.5))
    write_phase(tmp_path, "single-half", start, 4.0, moves)

    [phase] = read_phases(tmp_path)
    assert len(phase.moves) == 400
    p99, bursts = phase.bursts()
    assert p99 == 40.0
    assert bursts[0] == (1.5, 10, 25)
    events = [what for _, what in redis_events(tmp_path)]
    assert "AOF rewrite starts" in events and "AOF rewrite ends" in events
    assert any(what.startswith("command ") for what in events)
    # the slow log names the command itself, with its microseconds
    [slow] = [line.split(" ", 2) for line in (tmp_path / "redis-slowlog.txt").read_text()
              .splitlines() if "DEBUG SLEEP" in line]
    assert int(slow[1]) >= 20_000 and slow[2] == "DEBUG SLEEP 0.02"
    shown = report(tmp_path)
    assert "single-half: 400 moves, p99 40.0 ms" in shown
    assert "1.50: 10/25" in shown
    assert "s: AOF rewrite starts" in shown


def test_bench_timeline_gives_each_run_a_folder_of_its_own(monkeypatch, tmp_path) -> None:
    """A harness that cannot pass --timeline sets $BENCH_TIMELINE and keeps every run."""
    monkeypatch.delenv("BENCH_TIMELINE", raising=False)
    assert default_folder() is None
    monkeypatch.setenv("BENCH_TIMELINE", str(tmp_path))
    folder = default_folder(now=0.0)
    assert folder == tmp_path / f"19700101T000000Z-{os.getpid()}"
    assert default_folder(now=1.0) != folder
