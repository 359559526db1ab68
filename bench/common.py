"""What every benchmark shares: figures, medians, the one table, and a throwaway system.

A `Figure` is one measured quantity with its samples (one per run), a unit and optionally a
target (`op` and `target`): the table shows the median of the samples and whether the median
meets the target. Comparisons that must hold across machines are ratios measured side by side
in the same run.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import redis

from service.ops.embedded_redis import start_redis, stop_redis
from service.ops.ports import free_port
from tests.waiting import wait_answering


@dataclass
class Figure:
    """One row of the table: samples (one per run), unit, and an optional target."""

    name: str
    samples: list[float] = field(default_factory=list)
    unit: str = ""
    op: str = ""  # ">=" or "<=" (empty: informational)
    target: float | None = None

    @property
    def median(self) -> float:
        return statistics.median(self.samples) if self.samples else float("nan")

    @property
    def met(self) -> bool | None:
        if self.target is None or not self.samples:
            return None
        return self.median >= self.target if self.op == ">=" else self.median <= self.target


def _fmt(value: float) -> str:
    if value != value:  # NaN
        return "-"
    if abs(value) >= 100:
        return f"{value:,.0f}"
    if abs(value) >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}"


def table(figures: Sequence[Figure]) -> str:
    """The one table: figure, median (n runs), unit, target, met."""
    rows = [("figure", "median", "runs", "unit", "target", "met")]
    for f in figures:
        target = f"{f.op} {_fmt(f.target)}" if f.target is not None else ""
        met = {None: "", True: "yes", False: "NO"}[f.met]
        rows.append((f.name, _fmt(f.median), str(len(f.samples)), f.unit, target, met))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = []
    for n, r in enumerate(rows):
        cells = [r[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(r[1:], widths[1:],
                                                                        strict=True)]
        lines.append("  ".join(cells))
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def parser(description: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--runs", type=int, default=None, help="runs per figure (median reported)")
    p.add_argument("--quick", action="store_true", help="short runs (a smoke check)")
    return p


def exit_on_sigterm() -> None:
    """Make SIGTERM (`timeout`, a CI runner) exit through Python, so that the `finally` blocks
    stop the servers a benchmark started instead of leaving them running."""
    signal.signal(signal.SIGTERM, lambda signum, _frame: sys.exit(128 + signum))


def main(run: Callable[..., list[Figure]], description: str,
         extra: Callable[[argparse.ArgumentParser], None] | None = None) -> int:
    """The `python -m bench.<name>` entry point of one benchmark."""
    exit_on_sigterm()
    p = parser(description)
    if extra:
        extra(p)
    args = vars(p.parse_args())
    figures = run(**args)
    print(table(figures))
    return 0


def timed(fn: Callable[[], object]) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


# ---- a throwaway system on loopback --------------------------------------------------------


@contextlib.contextmanager
def bundled_redis(appendfsync: str = "everysec", timeline: Path | None = None
                  ) -> Iterator[str]:
    """The bundled redis-server (AOF on, noeviction) in a temp dir; yields its URL.
    `timeline`: with its latency monitor on, and its log and latency spikes kept there at the
    end (`bench.timeline`)."""
    from bench.timeline import LATENCY_MS, keep_redis  # it imports this module

    tmp = Path(tempfile.mkdtemp(prefix="parley-bench-redis-"))
    port = free_port()
    extra = ["--latency-monitor-threshold", str(LATENCY_MS), "--slowlog-log-slower-than",
             str(LATENCY_MS * 1000), "--slowlog-max-len", "1024"] if timeline else None
    proc = start_redis(tmp, port, appendfsync=appendfsync, extra=extra)
    try:
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        try:
            if timeline:
                keep_redis(timeline, redis.Redis(port=port), tmp)
        finally:
            stop_redis(proc)
            shutil.rmtree(tmp, ignore_errors=True)


@dataclass
class System:
    """`parley web` and `parley worker` processes against one Redis, like tests/e2e."""

    redis_url: str
    data: Path
    web_processes: int = 1
    workers: int = 1
    worker_class: str = "simple"
    env: dict[str, str] = field(default_factory=dict)
    url: str = ""
    procs: list[subprocess.Popen] = field(default_factory=list)

    def __post_init__(self) -> None:
        port = free_port()
        self.url = f"http://127.0.0.1:{port}"
        self.env = {**os.environ, "REDIS_URL": self.redis_url, "PARLEY_DATA": str(self.data),
                    "PARLEY_PORT": str(port), "PARLEY_WORKER_CLASS": self.worker_class,
                    "PARLEY_STREAM_PORT": str(free_port()),
                    # the load comes from a handful of players on one address
                    "PARLEY_RATE_LIMITS": "0", **self.env}
        self.env.pop("PARLEY_STORE_URL", None)
        self.port = port

    def start(self) -> System:
        web = subprocess.Popen(
            [sys.executable, "-m", "service.cli", "web", "--port", str(self.port),
             "--workers", str(self.web_processes), "--log-level", "warning"],
            env=self.env, start_new_session=True)
        self.procs.append(web)
        wait_answering(self.url + "/v1/server-key", web, "the web process", 60)
        return self.start_workers()

    def start_stream(self) -> subprocess.Popen:
        """The stream process (the players' live streams), as `parley run` starts it."""
        proc = subprocess.Popen([sys.executable, "-m", "service.cli", "stream"], env=self.env,
                                start_new_session=True, stderr=subprocess.DEVNULL)
        self.procs.append(proc)
        wait_answering(f"http://127.0.0.1:{self.env['PARLEY_STREAM_PORT']}/health", proc,
                       "the stream process", 60)
        return proc

    def start_workers(self) -> System:
        """The `parley worker` processes (alone: a system without web processes)."""
        for _ in range(self.workers):
            self.start_worker()
        return self

    def start_worker(self) -> subprocess.Popen:
        proc = subprocess.Popen([sys.executable, "-m", "service.cli", "worker"], env=self.env,
                                start_new_session=True, stderr=subprocess.DEVNULL)
        self.procs.append(proc)
        return proc

    def stop(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGTERM)
        for proc in self.procs:
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        self.procs.clear()


def jobs_done(conn: redis.Redis) -> int:
    """RQ jobs finished so far by the registered workers (their own counters)."""
    from rq import Worker

    return sum(w.successful_job_count for w in Worker.all(connection=conn))


def subscribe_applied(r: redis.Redis) -> Any:
    """A pub/sub on APPLIED_CHANNEL, returned once Redis has confirmed the subscription (so
    nothing published afterwards is missed)."""
    from service.storage.keys import APPLIED_CHANNEL

    pubsub = r.pubsub()
    pubsub.subscribe(APPLIED_CHANNEL)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        msg = pubsub.get_message(timeout=1.0)
        if msg and msg["type"] == "subscribe":
            return pubsub
    raise RuntimeError(f"no confirmation of the subscription to {APPLIED_CHANNEL}")


def parse_applied(data: bytes) -> tuple[str, int]:
    """An APPLIED_CHANNEL message, `b"<game id> <applied>"`, as (game id, applied)."""
    gid, _, applied = data.rpartition(b" ")
    return gid.decode(), int(applied)


def applied_counts(r: redis.Redis, gids: Sequence[str]) -> list[int]:
    """Each game's own `applied` count, in one round trip: the fallback for a missed
    APPLIED_CHANNEL message."""
    from service.storage.keys import game_key

    pipe = r.pipeline(transaction=False)
    for gid in gids:
        pipe.hget(game_key(gid, "meta"), "applied")
    return [int(value or 0) for value in pipe.execute()]


def flush(redis_url: str) -> None:
    redis.Redis.from_url(redis_url).flushall()
