"""Open live streams against the move API: 1,000 SSE streams held while games are played.

One system (`parley web`, `parley worker`, the stream process) on the bundled Redis. Phase 1
plays the end-to-end move load of `bench.e2e` (per-game clients, peak rate) with no stream
open; phase 2 opens STREAMS streams (each of its own player, through the API's redirect, held
by a separate asyncio process), then plays the same load again. Figures: streams held (every
one answered `ready` and none closed), moves/s and submit->applied p50/p99 in both phases and
their ratio, and the stream process's memory with the streams open.
"""

from __future__ import annotations

import asyncio
import multiprocessing as mp
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.common import Figure, System, bundled_redis, main
from bench.e2e import move_load
from bench.stats import percentile
from tests.players import Site, TestPlayer

STREAMS = 1000


def _holder(url: str, tokens: list[str], opened: Any, stop: Any, report: Any) -> None:
    """Open one stream per token, read each until `ready`, then keep reading until `stop`."""
    asyncio.run(_hold(url, tokens, opened, stop, report))


async def _hold(url: str, tokens: list[str], opened: Any, stop: Any, report: Any) -> None:
    import aiohttp

    ready = closed = 0
    frames = 0

    async def one(session: aiohttp.ClientSession, token: str) -> None:
        nonlocal ready, closed, frames
        try:
            async with session.get(url + "/v1/players/me/stream",
                                   headers={"Authorization": f"Bearer {token}"}) as resp:
                async for line in resp.content:
                    if line.startswith(b"event: ready"):
                        ready += 1
                    elif line.startswith(b"data:"):
                        frames += 1
        except (aiohttp.ClientError, asyncio.CancelledError):
            pass
        closed += 1

    connector = aiohttp.TCPConnector(limit=0)
    timeout = aiohttp.ClientTimeout(total=None, sock_read=None)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
        tasks = []
        for token in tokens:
            tasks.append(asyncio.create_task(one(session, token)))
            if len(tasks) % 50 == 0:
                await asyncio.sleep(0.05)  # a gentle ramp: 1,000 redirects and connects
        deadline = time.monotonic() + 120
        while ready < len(tokens) and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        opened.put(ready)
        while not stop.is_set():
            await asyncio.sleep(0.2)
        still_open = len(tokens) - closed
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    report.put({"ready": ready, "open_at_end": still_open, "frames": frames})


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def run(runs: int | None = None, quick: bool = False, seconds: float | None = None,
        streams: int | None = None, **_: Any) -> list[Figure]:
    runs = runs or (1 if quick else 3)
    seconds = seconds or (5.0 if quick else 15.0)
    streams = streams or (200 if quick else STREAMS)
    held = Figure(f"streams: SSE streams held open during the move load (of {streams})",
                  unit="streams", op=">=", target=streams)
    rate = {k: Figure(f"streams: moves applied/s at peak, {k}", unit="moves/s")
            for k in ("no stream", f"{streams} streams")}
    ratio = Figure(f"streams: moves/s with {streams} streams / without", unit="ratio",
                   op=">=", target=0.9)
    p99 = {k: Figure(f"streams: submit->applied p99 at peak, {k}", unit="ms")
           for k in ("no stream", f"{streams} streams")}
    memory = Figure(f"streams: stream process memory with {streams} streams", unit="MB")
    for _ in range(runs):
        with bundled_redis() as redis_url:
            system = System(redis_url, Path(tempfile.mkdtemp(prefix="parley-bench-")),
                            web_processes=2, workers=1)
            system.start()
            try:
                stream = system.start_stream()
                time.sleep(1.0)
                # the movers poll their views (`client="view"`): the figure is what idle
                # streams cost the move path, as measured since session 14
                base = move_load(system.url, redis_url, 2, 8, seconds, None, "original",
                                 client="view")
                site = Site(system.url)
                tokens = [TestPlayer(f"watcher{n}").register(site).token
                          for n in range(streams)]
                ctx = mp.get_context("spawn")
                opened, report, stop = ctx.Queue(), ctx.Queue(), ctx.Event()
                holder = ctx.Process(target=_holder, args=(system.url, tokens, opened, stop,
                                                           report))
                holder.start()
                ready = opened.get(timeout=180)
                loaded = move_load(system.url, redis_url, 2, 8, seconds, None, "original",
                                   client="view")
                memory.samples.append(_rss_mb(stream.pid))
                stop.set()
                end = report.get(timeout=60)
                holder.join()
            finally:
                system.stop()
        held.samples.append(min(ready, end["open_at_end"]))
        for key, phase in (("no stream", base), (f"{streams} streams", loaded)):
            rate[key].samples.append(phase["moves_per_s"])
            p99[key].samples.append(percentile([x * 1000 for x in phase["latencies"]], 99))
        ratio.samples.append(loaded["moves_per_s"] / base["moves_per_s"])
    return [held, *rate.values(), ratio, *p99.values(), memory]


def _extra(p: Any) -> None:
    p.add_argument("--seconds", type=float, default=None, help="length of each load phase")
    p.add_argument("--streams", type=int, default=None, help=f"streams to open ({STREAMS})")


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    raise SystemExit(main(run, __doc__.splitlines()[0], _extra))
