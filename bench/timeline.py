"""When a phase's slow moves happened, and what Redis did then: `bench.e2e --timeline DIR`.

A p99 at half peak is made by about one move in a hundred, and in a 20-second phase those are
often not spread out: they come in bursts, a few dozen moves within a quarter of a second. A
burst has a cause at one moment (an AOF rewrite starting, a slow command, a process descheduled),
and the cause shows only when the burst's moment is put beside the system's events. With
`--timeline DIR`, bench.e2e keeps, for each run:

- `<mode>-<phase>.moves`: the window (`# start=<epoch> seconds=<n>`), then one line per timed
  move: when its POST was sent (epoch seconds) and its latency in ms;
- `redis.log`: the bundled Redis's log (an automatic AOF rewrite logs its start and its end);
- `redis-latency.txt`: Redis's latency monitor (threshold `LATENCY_MS`): each event with the
  epoch seconds and milliseconds of its recent spikes;
- `redis-slowlog.txt`: the commands that took `LATENCY_MS` or more (Redis's slow log): epoch
  seconds, microseconds, the command's first words (a script's by its SHA);
- `host-cpu<N>.txt`: how fast each CPU ran meanwhile (`bench.host_speed`): the host slows a
  CPU to half speed at moments of its own, and a burst then says more about it than about us.

`python -m bench.timeline DIR` (printed by bench.e2e at the end of a run) shows, for each phase,
its p99, the quarter-seconds holding the most moves at or above it (with the CPUs that ran slow
in each), how much of the phase each CPU ran slow, and the Redis events inside the window, as
seconds from the phase's start. docs/performance.md "AOF rewrites at 512 MB" is what it
found first: the start of an AOF rewrite.
"""

from __future__ import annotations

import argparse
import datetime
import os
import re
import shutil
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import redis

from bench import host_speed
from bench.stats import percentile

#: Redis's latency monitor records events at least this slow (ms)
LATENCY_MS = 3
#: the width of a burst's bucket (s)
BUCKET = 0.25
#: the log lines of an automatic AOF rewrite (Redis 6.2's wording) and what they mark
_REWRITE = {"Background append only file rewriting started": "AOF rewrite starts",
            "Background AOF rewrite finished successfully": "AOF rewrite ends"}
_LOG_TIME = re.compile(r"^\d+:[A-Z] (\d+ \w+ \d+ \d\d:\d\d:\d\d\.\d+) ")


@dataclass
class Phase:
    """One phase's timed moves: (POST sent, epoch seconds; latency, ms) within its window."""

    name: str
    start: float
    seconds: float
    moves: list[tuple[float, float]]

    def bursts(self, top: int = 4) -> tuple[float, list[tuple[float, int, int]]]:
        """The p99 (ms), and the `top` buckets with the most moves at or above it: (seconds
        from the start, such moves, all moves in the bucket)."""
        p99 = percentile([lat for _, lat in self.moves], 99)
        slow, every = Counter(), Counter()
        for sent, lat in self.moves:
            bucket = int((sent - self.start) / BUCKET) * BUCKET
            every[bucket] += 1
            if lat >= p99:
                slow[bucket] += 1
        return p99, [(b, n, every[b]) for b, n in slow.most_common(top)]


def default_folder(now: float | None = None) -> Path | None:
    """Where `bench.e2e` keeps its timeline when `--timeline` is not given: a folder of its
    own for each run under `$BENCH_TIMELINE`, if set. A harness that runs bench.e2e with fixed
    arguments (the side-by-side against boardgame.io) can then keep every round's moves, and
    a round that went bad can be looked at afterwards."""
    root = os.environ.get("BENCH_TIMELINE")
    if not root:
        return None
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(time.time() if now is None else now))
    return Path(root) / f"{stamp}-{os.getpid()}"


def within(moves: list[tuple[float, float]], start: float, seconds: float
           ) -> list[tuple[float, float]]:
    """The moves ((sent, latency in seconds)) a phase counts: applied before its window ends."""
    return [(sent, lat) for sent, lat in moves if sent + lat <= start + seconds]


def write_phase(folder: Path, name: str, start: float, seconds: float,
                moves: list[tuple[float, float]]) -> None:
    """Keep a phase's moves ((sent, latency in seconds), as bench.e2e times them), those
    `within` its window."""
    folder.mkdir(parents=True, exist_ok=True)
    lines = [f"# start={start:.6f} seconds={seconds}"]
    lines += [f"{sent:.6f} {lat * 1000:.3f}" for sent, lat in within(moves, start, seconds)]
    (folder / f"{name}.moves").write_text("\n".join(lines) + "\n")


def keep_redis(folder: Path, client: redis.Redis, data_dir: Path) -> None:
    """Keep the Redis's log and its latency monitor's history (before it stops)."""
    folder.mkdir(parents=True, exist_ok=True)
    lines = []
    for event, *_ in client.execute_command("LATENCY", "LATEST"):
        name = event.decode() if isinstance(event, bytes) else event
        for at, ms in client.execute_command("LATENCY", "HISTORY", name):
            lines.append(f"{at} {ms} {name}")
    (folder / "redis-latency.txt").write_text("".join(f"{line}\n" for line in sorted(lines)))
    # which commands were slow: the latency monitor names only their kind
    slow = []
    for entry in client.execute_command("SLOWLOG", "GET", "1024"):
        at, micros, args = entry[1], entry[2], entry[3]
        words = [a.decode(errors="replace") if isinstance(a, bytes) else str(a) for a in args]
        command = " ".join(w[:40].replace("\n", " ") for w in words[:6])
        slow.append(f"{at} {micros} {command}")
    (folder / "redis-slowlog.txt").write_text("".join(f"{line}\n" for line in sorted(slow)))
    if (data_dir / "redis.log").exists():
        shutil.copy(data_dir / "redis.log", folder / "redis.log")


def read_phases(folder: Path) -> Iterator[Phase]:
    for path in sorted(folder.glob("*.moves")):
        lines = path.read_text().splitlines()
        head = dict(item.split("=") for item in lines[0].lstrip("# ").split())
        moves = [(float(sent), float(lat)) for sent, lat in (line.split() for line in lines[1:])]
        yield Phase(path.stem, float(head["start"]), float(head["seconds"]), moves)


def redis_events(folder: Path) -> list[tuple[float, str]]:
    """(epoch seconds, what) of the AOF rewrites in the log and the latency monitor's spikes."""
    events = []
    log = folder / "redis.log"
    for line in log.read_text().splitlines() if log.exists() else ():
        for text, what in _REWRITE.items():
            if text in line and (at := _LOG_TIME.match(line)):
                when = datetime.datetime.strptime(at[1], "%d %b %Y %H:%M:%S.%f")
                events.append((when.timestamp(), what))  # the log's local time
    latency = folder / "redis-latency.txt"
    for line in latency.read_text().splitlines() if latency.exists() else ():
        at, ms, name = line.split()
        events.append((float(at), f"{name} {ms} ms (latency monitor, to the second)"))
    return sorted(events)


def report(folder: Path) -> str:
    """Each phase's p99, its bursts and the Redis events in its window, one run's folder."""
    out = []
    events = redis_events(folder)
    speeds = host_speed.read(folder)
    fast = host_speed.full_speed(speeds)

    def slow_cpus(start: float, seconds: float) -> str:
        """" (slow CPUs: ...)": those slow most of the window; "" where none was probed."""
        shares = host_speed.slow_shares(speeds, fast, start, seconds)
        if not shares:
            return ""
        slow = [str(cpu) for cpu, share in shares.items() if share > 0.5]
        return f" (slow CPUs: {', '.join(slow) or 'none'})"

    for phase in read_phases(folder):
        p99, bursts = phase.bursts()
        out.append(f"{folder.name}/{phase.name}: {len(phase.moves)} moves, p99 {p99:.1f} ms; "
                   f"most moves at or above it in (s from the start: such / all):")
        out.append("  " + ", ".join(f"{b:.2f}: {n}/{every}"
                                    f"{slow_cpus(phase.start + b, BUCKET)}"
                                    for b, n, every in bursts))
        if shares := host_speed.slow_shares(speeds, fast, phase.start, phase.seconds):
            out.append("  host: " + ", ".join(f"CPU {cpu} ran slow {share:.0%} of the phase"
                                              for cpu, share in shares.items()))
        inside = [(at - phase.start, what) for at, what in events
                  if phase.start <= at <= phase.start + phase.seconds]
        for offset, what in inside:
            out.append(f"  Redis at {offset:.2f} s: {what}")
    return "\n".join(out)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("folder", type=Path, help="bench.e2e's --timeline folder")
    folder = p.parse_args().folder
    runs = sorted(d for d in folder.iterdir() if d.is_dir()) or [folder]
    print("\n".join(report(run) for run in runs))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
