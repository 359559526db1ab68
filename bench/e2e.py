"""End to end: concurrent Stratego games through the real HTTP API, and RQ's own loop.

A throwaway system on loopback: the bundled Redis (AOF, everysec), gunicorn (`--web`
processes) and `--workers` `parley worker` processes of one worker class. Three phases, one run:

1. **RQ no-op**: `--loaders` processes enqueue no-op jobs (`bench.noop.noop`, result_ttl 0, like
   resolve jobs) as fast as they can for `--seconds`, and the same workers run them: jobs
   finished per second, from the first enqueue until the queue is empty.
2. **Peak**: `--loaders` processes play `--games` concurrent Stratego games each (a finished
   game is replaced by a new one), every move as a client does it: GET the seat's view (for its
   `legal_moves`), sign, POST; the next move waits until this one is applied. Moves applied per
   second, and submit->applied latency p50/p95/p99. Applied is seen by the load generator
   reading the games' `applied` counters from Redis (one pipelined read of every move in flight
   every half millisecond), so observing costs the web processes nothing.
3. **Half peak**: the same games paced to half the peak rate (open loop per game): latency.

Targets: moves applied/s >= 1.0x the no-op job rate; p99 submit->applied <= 50 ms at half peak.
Also printed: moves per RQ job (the workers' successful-job counters) in the peak phase.
"""

from __future__ import annotations

import multiprocessing as mp
import random
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import redis

from bench.common import Figure, System, bundled_redis, main, percentile

TARGET_P99_MS = 50.0


# ---- the load generator (runs in its own process) -------------------------------------------


def _observer(redis_url: str, inbox: Any, out: Any) -> None:
    """Its own process (no GIL shared with the players): watches the `applied` counter of every
    move in flight with one pipelined read every half millisecond; reports latencies."""
    r = redis.Redis.from_url(redis_url)
    waiting: dict[tuple[str, int], float] = {}
    latencies: list[tuple[float, float]] = []
    done = False
    while not done or waiting:
        while True:
            try:
                item = inbox.get_nowait()
            except Exception:  # queue.Empty
                break
            if item is None:
                done = True
            else:
                gid, seq, t0 = item
                waiting[(gid, seq)] = t0
        if waiting:
            keys = list(waiting)
            pipe = r.pipeline(transaction=False)
            for gid, _seq in keys:
                pipe.hget(f"{{g:{gid}}}:meta", "applied")
            values = pipe.execute()
            now = time.time()
            for key, applied in zip(keys, values, strict=True):
                if applied is not None and int(applied) >= key[1]:
                    t0 = waiting.pop(key)
                    latencies.append((t0, now - t0))
        elif done:
            break
        time.sleep(0.0005)
    out.put(latencies)


def _loader(url: str, redis_url: str, games: int, start: float, seconds: float,
            rate: float | None, army: str, seed: int, out: Any, observed: Any) -> None:
    """Play `games` games concurrently from `start` (wall clock) for `seconds`; report."""
    import requests

    from tests.players import TestPlayer

    class Http:
        def __init__(self) -> None:
            self.s = requests.Session()

        def post(self, path: str, json: dict, headers: dict | None = None) -> Any:
            return self.s.post(url + path, json=json, headers=headers, timeout=30)

        def get(self, path: str, headers: dict | None = None) -> Any:
            return self.s.get(url + path, headers=headers, timeout=30)

    stop_at = start + seconds
    errors: list[str] = []
    lock = threading.Lock()

    def new_game(http: Http, n: int) -> tuple[str, list[TestPlayer]]:
        players = [TestPlayer(f"l{seed}-{n}-{i}").register(http) for i in range(2)]
        gid = http.post("/v1/games", json={"ruleset": "stratego", "players": 2, "options": {
            "army": army, "red_player": "joined"}}, headers=players[0].auth).json()["id"]
        for p in players:
            http.post(f"/v1/games/{gid}/join", json={}, headers=p.auth)
        return gid, players

    def submit(http: Http, gid: str, p: TestPlayer, seat: int, view: dict,
               move: dict) -> int | None:
        """POST a move; the observer process times it; returns its seq."""
        env = p.envelope(gid, seat, view["step"], move)
        t0 = time.time()
        resp = http.post(f"/v1/games/{gid}/moves", json=env)
        if resp.status_code != 202:
            with lock:
                errors.append(f"{resp.status_code} {resp.text[:200]}")
            return None
        seq = resp.json()["id"]
        if start <= t0 < stop_at:
            observed.put((gid, seq, t0))
        return seq

    def wait_applied(r: redis.Redis, gid: str, seq: int) -> bool:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if int(r.hget(f"{{g:{gid}}}:meta", "applied") or 0) >= seq:
                return True
            time.sleep(0.001)
        with lock:
            errors.append("not applied within 30 s")
        return False

    def play(n: int) -> None:
        http = Http()
        r = redis.Redis.from_url(redis_url)
        chooser = random.Random(seed * 1000 + n)
        interval = games_total_interval(rate)
        next_slot = start + chooser.uniform(0, interval or 0)
        game = 0
        while time.time() < stop_at:
            gid, players = new_game(http, n * 1000 + game)
            game += 1
            while time.time() < start:
                time.sleep(0.01)
            setup = []
            for seat, p in enumerate(players):
                view = http.get(f"/v1/games/{gid}/view", headers=p.auth).json()
                setup.append(submit(http, gid, p, seat, view, view["legal_moves"][0]))
            for seq in setup:
                if seq:
                    wait_applied(r, gid, seq)
            while time.time() < stop_at:
                summary = None
                for p in players:  # the seat to act: ask its own view
                    view = http.get(f"/v1/games/{gid}/view", headers=p.auth).json()
                    if view["status"] != "active":
                        summary = view
                        break
                    if view["seat"] in view["to_act"]:
                        break
                if summary is not None:
                    break
                if interval:
                    delay = next_slot - time.time()
                    if delay > 0:
                        time.sleep(delay)
                    next_slot = max(next_slot + interval, time.time())
                sub = submit(http, gid, p, view["seat"], view,
                             chooser.choice(view["legal_moves"]))
                if sub is None or not wait_applied(r, gid, sub):
                    break

    def games_total_interval(total_rate: float | None) -> float | None:
        return None if not total_rate else games / total_rate

    threads = [threading.Thread(target=play, args=(n,), daemon=True) for n in range(games)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(seconds + 120)
    out.put({"errors": errors[:5], "error_count": len(errors)})


def _enqueuer(redis_url: str, start: float, seconds: float, out: Any) -> None:
    from rq import Queue

    q = Queue("parley", connection=redis.Redis.from_url(redis_url))
    while time.time() < start:
        time.sleep(0.001)
    n = 0
    while time.time() < start + seconds:
        q.enqueue("bench.noop.noop", result_ttl=0)
        n += 1
    out.put(n)


# ---- the phases -----------------------------------------------------------------------------


def _jobs_done(redis_url: str) -> int:
    from rq import Worker

    conn = redis.Redis.from_url(redis_url)
    return sum(w.successful_job_count for w in Worker.all(connection=conn))


def noop_rate(redis_url: str, loaders: int, seconds: float) -> float:
    from rq import Queue

    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    start = time.time() + 2
    procs = [ctx.Process(target=_enqueuer, args=(redis_url, start, seconds, out))
             for _ in range(loaders)]
    before = _jobs_done(redis_url)
    for p in procs:
        p.start()
    enqueued = sum(out.get() for _ in procs)
    for p in procs:
        p.join()
    q = Queue("parley", connection=redis.Redis.from_url(redis_url))
    while q.count or q.started_job_registry.count:
        time.sleep(0.005)
    elapsed = time.time() - start
    done = _jobs_done(redis_url) - before
    if done < enqueued:  # the workers' counters lag a little behind the queue
        time.sleep(0.5)
        done = _jobs_done(redis_url) - before
    return min(done, enqueued) / elapsed


def move_load(url: str, redis_url: str, loaders: int, games: int, seconds: float,
              rate: float | None, army: str) -> dict[str, Any]:
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    observed, latencies_out = ctx.Queue(), ctx.Queue()
    observer = ctx.Process(target=_observer, args=(redis_url, observed, latencies_out))
    observer.start()
    start = time.time() + 3 + games * loaders * 0.05  # time to register and create the games
    share = rate / loaders if rate else None  # each loader paces its own games
    procs = [ctx.Process(target=_loader, args=(url, redis_url, games, start, seconds, share,
                                               army, n, out, observed)) for n in range(loaders)]
    for p in procs:
        p.start()
    jobs_before = None
    while time.time() < start:
        time.sleep(0.05)
    jobs_before = _jobs_done(redis_url)
    reports = [out.get(timeout=seconds + 300) for _ in procs]
    jobs = _jobs_done(redis_url) - jobs_before
    for p in procs:
        p.join()
    observed.put(None)
    latencies = [lat for t0, lat in latencies_out.get(timeout=60) if t0 + lat <= start + seconds]
    observer.join()
    errors = sum(r["error_count"] for r in reports)
    return {"moves_per_s": len(latencies) / seconds, "latencies": latencies, "errors": errors,
            "samples": [e for r in reports for e in r["errors"]][:3],
            "moves_per_job": len(latencies) / jobs if jobs else float("nan")}


def run(runs: int | None = None, quick: bool = False, seconds: float | None = None,
        workers: int = 2, web: int = 2, loaders: int = 2, games: int | None = None,
        worker_class: str = "simple", army: str = "original", **_: Any) -> list[Figure]:
    runs = runs or (1 if quick else 3)
    seconds = seconds or (5.0 if quick else 15.0)
    games = games or (8 if quick else 16)
    tag = f"{worker_class}, {workers} workers, {web} web, {loaders * games} games"
    noop = Figure(f"e2e: RQ no-op jobs/s ({worker_class}, {workers} workers)", unit="jobs/s")
    moves = Figure(f"e2e: moves applied/s at peak ({tag})", unit="moves/s")
    ratio = Figure("e2e: moves applied/s / RQ no-op jobs/s", unit="ratio", op=">=",
                   target=1.0)
    per_job = Figure("e2e: moves per RQ job at peak", unit="moves/job")
    p50 = Figure("e2e: submit->applied p50 at peak", unit="ms")
    p95 = Figure("e2e: submit->applied p95 at peak", unit="ms")
    p99 = Figure("e2e: submit->applied p99 at peak", unit="ms")
    h50 = Figure("e2e: submit->applied p50 at half peak", unit="ms")
    h99 = Figure("e2e: submit->applied p99 at half peak", unit="ms", op="<=",
                 target=TARGET_P99_MS)
    errors = Figure("e2e: refused or lost moves", unit="count")
    for _ in range(runs):
        with bundled_redis() as redis_url:
            system = System(redis_url, Path(tempfile.mkdtemp(prefix="parley-bench-")),
                            web_processes=web, workers=workers, worker_class=worker_class)
            system.start()
            try:
                time.sleep(1.0)  # workers registered
                rq_rate = noop_rate(redis_url, loaders, seconds)
                peak = move_load(system.url, redis_url, loaders, games, seconds, None, army)
                half = move_load(system.url, redis_url, loaders, games, seconds,
                                 peak["moves_per_s"] / 2, army)
            finally:
                system.stop()
        noop.samples.append(rq_rate)
        moves.samples.append(peak["moves_per_s"])
        ratio.samples.append(peak["moves_per_s"] / rq_rate)
        per_job.samples.append(peak["moves_per_job"])
        lat = [x * 1000 for x in peak["latencies"]]
        p50.samples.append(percentile(lat, 50))
        p95.samples.append(percentile(lat, 95))
        p99.samples.append(percentile(lat, 99))
        hl = [x * 1000 for x in half["latencies"]]
        h50.samples.append(percentile(hl, 50))
        h99.samples.append(percentile(hl, 99))
        errors.samples.append(peak["errors"] + half["errors"])
        if peak["samples"] or half["samples"]:
            print("e2e: errors:", peak["samples"] + half["samples"])
    return [noop, moves, ratio, per_job, p50, p95, p99, h50, h99, errors]


def _extra(p: Any) -> None:
    p.add_argument("--seconds", type=float, default=None, help="length of each phase")
    p.add_argument("--workers", type=int, default=2, help="`parley worker` processes")
    p.add_argument("--web", type=int, default=2, help="gunicorn worker processes")
    p.add_argument("--loaders", type=int, default=2, help="load generator processes")
    p.add_argument("--games", type=int, default=None, help="concurrent games per loader")
    p.add_argument("--worker-class", default="simple", choices=("simple", "fork"))
    p.add_argument("--army", default="original", choices=("original", "duel"))


if __name__ == "__main__":
    raise SystemExit(main(run, __doc__.splitlines()[0], _extra))
