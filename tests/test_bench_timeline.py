"""bench.timeline: a phase's bursts of slow moves, beside what a real Redis logged meanwhile
and how fast the host let each CPU run (bench.host_speed)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import redis

from bench import host_speed
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


def test_the_probes_sample_every_cpu(tmp_path: Path) -> None:
    with host_speed.probes(tmp_path):
        wait_until(lambda: all(len(rows) >= 5 for rows in host_speed.read(tmp_path).values())
                   and len(host_speed.read(tmp_path)) == len(os.sched_getaffinity(0)), 10,
                   "five samples of every CPU", interval=0.05)
    samples = host_speed.read(tmp_path)
    assert sorted(samples) == sorted(os.sched_getaffinity(0))
    for rows in samples.values():
        assert all(0 < us < 100_000 for _, us in rows)
        assert all(b[0] > a[0] for a, b in zip(rows, rows[1:], strict=False))


def test_a_report_names_the_cpus_that_ran_slow(tmp_path: Path) -> None:
    """CPU 1 ran at half speed for the second half of the phase, burst included; CPU 0 never."""
    start = 1_000_000.0
    ticks = [start + i * 0.02 for i in range(200)]  # 4 s
    (tmp_path / "host-cpu0.txt").write_text("".join(f"{t:.3f} 45.0\n" for t in ticks))
    (tmp_path / "host-cpu1.txt").write_text("".join(
        f"{t:.3f} {90.0 if t >= start + 2 else 45.0}\n" for t in ticks))
    moves = [(start + i / 100, 0.002) for i in range(400)]
    moves[250:260] = [(start + 2.5 + i / 100, 0.040) for i in range(10)]
    write_phase(tmp_path, "single-half", start, 4.0, moves)
    samples = host_speed.read(tmp_path)
    assert host_speed.full_speed(samples) == 45.0
    assert host_speed.slow_shares(samples, 45.0, start, 4.0) == {0: 0.0, 1: 0.5}
    shown = report(tmp_path)
    assert "2.50: 10/25 (slow CPUs: 1)" in shown
    assert "host: CPU 0 ran slow 0% of the phase, CPU 1 ran slow 50% of the phase" in shown
