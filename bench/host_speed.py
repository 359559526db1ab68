"""How fast each CPU ran while a benchmark did: a probe beside `bench.e2e --timeline DIR`.

This machine is a virtual one, and its CPUs do not keep one speed. A fixed piece of work
(a short loop, the least of three tries every `TICK` seconds, timed in the probe's own CPU
time, so waiting for a core does not count) takes about 45 µs on one CPU at one moment and
about twice that at the next, for stretches of tens of milliseconds to a second, on an idle
machine as under load, often with no time reported as stolen (docs/performance.md,
"Reading the figures"). A phase whose CPUs ran at half speed has half the machine; its latencies
say more about the host than about the code. With `--timeline DIR`, bench.e2e runs one probe process
pinned to each CPU (about 1 % of a core each) and keeps `host-cpu<N>.txt` (epoch seconds,
µs of the least try), and `bench.timeline` reports how much of each phase each CPU ran slow.

`python -m bench.host_speed probe FILE CPU SECONDS` runs one probe alone.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

#: seconds between a probe's samples
TICK = 0.05
#: a sample this many times full speed (the least samples of every CPU) is a slow one
SLOW = 1.5
#: the loop a sample times (about 45 µs on this machine's CPU at full speed)
LOOP = 800


def _work() -> int:
    total = 0
    for i in range(LOOP):
        total += i * i
    return total


def probe(path: Path, cpu: int, seconds: float) -> None:
    """Sample `cpu`'s speed every TICK for `seconds` (or until killed) into `path`."""
    os.sched_setaffinity(0, {cpu})
    end = time.time() + seconds
    at = time.time()
    with path.open("w", buffering=1) as out:
        while time.time() < end:
            at += TICK
            if (delay := at - time.time()) > 0:
                time.sleep(delay)
            least = min(_timed() for _ in range(3))
            out.write(f"{time.time():.3f} {least / 1000:.1f}\n")


def _timed() -> int:
    start = time.thread_time_ns()
    _work()
    return time.thread_time_ns() - start


@contextmanager
def probes(folder: Path, seconds: float = 3600.0) -> Iterator[None]:
    """One probe process per CPU, writing into `folder` until the block ends."""
    folder.mkdir(parents=True, exist_ok=True)
    procs = [subprocess.Popen([sys.executable, "-m", "bench.host_speed", "probe",
                               str(folder / f"host-cpu{cpu}.txt"), str(cpu), str(seconds)])
             for cpu in sorted(os.sched_getaffinity(0))]
    try:
        yield
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            proc.wait(10)


Samples = dict[int, list[tuple[float, float]]]


def read(folder: Path) -> Samples:
    """Each probed CPU's samples: (epoch seconds, µs); a line cut by the probe's end is
    left out."""
    out = {}
    for path in sorted(folder.glob("host-cpu*.txt")):
        rows = [line.split() for line in path.read_text().splitlines()]
        out[int(path.stem.removeprefix("host-cpu"))] = [
            (float(row[0]), float(row[1])) for row in rows if len(row) == 2]
    return out


def full_speed(samples: Samples) -> float | None:
    """The µs of a sample at full speed: the 1st percentile of every CPU's samples (nothing
    runs the loop faster than a CPU at full speed, and a CPU may run slow most of a run)."""
    from bench.stats import percentile  # here: a probe process imports nothing of the bench

    pooled = [us for rows in samples.values() for _, us in rows]
    return percentile(pooled, 1) if pooled else None


def slow_shares(samples: Samples, fast: float | None, start: float, seconds: float
                ) -> dict[int, float]:
    """The share of each CPU's samples within [start, start + seconds] that took SLOW times
    `fast` (`full_speed(samples)`) or more."""
    out: dict[int, float] = {}
    if fast is None:
        return out
    for cpu, rows in samples.items():
        inside = [us for at, us in rows if start <= at <= start + seconds]
        if inside:
            out[cpu] = sum(us > SLOW * fast for us in inside) / len(inside)
    return out


def main() -> int:
    if len(sys.argv) == 5 and sys.argv[1] == "probe":
        probe(Path(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]))
        return 0
    print(__doc__.splitlines()[-1].strip(), file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
