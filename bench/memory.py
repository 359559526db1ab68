"""Memory: Redis bytes per live Stratego game and per applied move; 100,000 live games.

An Original game is played through a real store (accept + resolve per move) to move `--mid`
(a live mid-game game). Figures, all from `MEMORY USAGE <key> SAMPLES 0` summed over the
game's keys: bytes per live game; bytes per applied move (the growth over the next `--moves`
moves, divided by their number) against the mean canonical envelope size of those moves
(target <= 2x); the state's size (target <= 16 KB). Then the generator clones that game's keys
under `--games` new ids (DUMP once, RESTORE in pipelines: each clone has its own hash tag), with
AOF switched off once the web process has started (the copies would only cost disk; at most 40%
of the free memory is used), and reports `used_memory` and the API's read latency (GET
/v1/games/{id} and GET .../view, random games, one client, through gunicorn)
with 100 games present and with all of them present: p50, p99 and the p99 ratio.
"""

from __future__ import annotations

import random
import tempfile
import time
from pathlib import Path
from typing import Any

import redis
import requests
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from bench.common import Figure, System, bundled_redis, main, percentile
from bench.games import (
    game_keys,
    long_stratego_moves,
    play_through_store,
    raw_client,
    stratego_game,
)
from service.storage.keys import GAMES_KEY, game_key
from service.storage.store import Store

STATE_LIMIT = 16 * 1024


def game_bytes(store: Store, gid: str) -> int:
    return sum(store.r.memory_usage(k, samples=0) or 0 for k in game_keys(store, gid))


def clone(store: Store, gid: str, count: int, batch: int = 500) -> list[str]:
    """`count` copies of one game under new ids (and in the games index); returns the ids."""
    raw = raw_client(store)
    prefix = f"{{g:{gid}}}:"
    dumps = {k[len(prefix):]: raw.dump(k) for k in game_keys(store, gid)}
    ids = []
    for start in range(0, count, batch):
        pipe = raw.pipeline(transaction=False)
        now = time.time()
        for n in range(start, min(count, start + batch)):
            new = f"g_bench{n:07d}"
            ids.append(new)
            for part, data in dumps.items():
                pipe.restore(game_key(new, part), 0, data, replace=True)
            pipe.zadd(GAMES_KEY, {new: now})
        pipe.execute()
    return ids


def run(runs: int | None = None, quick: bool = False, games: int | None = None,
        mid: int = 100, moves: int = 200, reads: int | None = None, **_: Any) -> list[Figure]:
    runs = runs or (1 if quick else 3)
    games = games or (5_000 if quick else 100_000)
    reads = reads or (300 if quick else 1000)
    per_game = Figure(f"memory: bytes per live Stratego game (move {mid})", unit="bytes")
    state = Figure(f"memory: state bytes (move {mid})", unit="bytes", op="<=",
                   target=STATE_LIMIT)
    state_late = Figure(f"memory: state bytes (move {mid + moves})", unit="bytes", op="<=",
                        target=STATE_LIMIT)
    per_move = Figure("memory: bytes per applied move", unit="bytes")
    envelope = Figure("memory: canonical envelope bytes (mean)", unit="bytes")
    ratio = Figure("memory: per move / envelope", unit="ratio", op="<=", target=2.0)
    used = Figure("memory: used_memory with the games loaded", unit="MB")
    loaded = Figure("memory: live games loaded", unit="games")
    p99_few = Figure("memory: API read p99, 100 games", unit="ms")
    p99_many = Figure("memory: API read p99, games loaded", unit="ms")
    p50_many = Figure("memory: API read p50, games loaded", unit="ms")
    p99_ratio = Figure("memory: read p99 games loaded / 100 games", unit="ratio")
    all_moves = long_stratego_moves("original", mid + moves + 1)
    server_key = Ed25519PrivateKey.generate()
    for n in range(runs):
        with bundled_redis() as url:
            r = redis.Redis.from_url(url)
            store = Store.from_url(url)
            gid, players = stratego_game(store)
            play_through_store(store, gid, players, all_moves[:mid], server_key)
            before = game_bytes(store, gid)
            per_game.samples.append(before)
            state.samples.append(store.r.strlen(game_key(gid, "state")))
            head = int(store.r.hget(game_key(gid, "meta"), "head"))
            play_through_store(store, gid, players, all_moves[mid:mid + moves], server_key)
            after = game_bytes(store, gid)
            state_late.samples.append(store.r.strlen(game_key(gid, "state")))
            envs = [f["env"] for _, f in store.entries(gid, head + 1, head + moves)]
            mean_env = sum(len(e.encode()) for e in envs) / len(envs)
            per_move.samples.append((after - before) / moves)
            envelope.samples.append(mean_env)
            ratio.samples.append((after - before) / moves / mean_env)
            if n < runs - 1:
                continue  # the load (slow, gigabytes) once, in the last run
            fits = _available_bytes() * 0.4 / before
            if games > fits:
                print(f"memory: only {int(fits):,} games fit in 40% of the free memory; "
                      f"loading that many instead of {games:,}")
                games = int(fits)
            # a live mid-game game to clone: a fresh one at move `mid`
            gid, players = stratego_game(store)
            play_through_store(store, gid, players, all_moves[:mid], server_key)
            system = System(url, Path(tempfile.mkdtemp(prefix="parley-bench-")),
                            web_processes=1, workers=0).start()
            try:
                # the web checked AOF at start-up; the clones would only cost disk
                r.config_set("appendonly", "no")
                few = clone(store, gid, 100)
                lat_few = _reads(system.url, few, reads, n)
                ids = clone(store, gid, games)  # the first 100 ids are the same games again
                used.samples.append(r.info("memory")["used_memory"] / 1e6)
                loaded.samples.append(len(ids))
                lat_many = _reads(system.url, ids, reads, n)
            finally:
                system.stop()
            p99_few.samples.append(percentile(lat_few, 99))
            p99_many.samples.append(percentile(lat_many, 99))
            p50_many.samples.append(percentile(lat_many, 50))
            p99_ratio.samples.append(percentile(lat_many, 99) / percentile(lat_few, 99))
    return [per_game, state, state_late, per_move, envelope, ratio, loaded, used, p50_many,
            p99_few, p99_many, p99_ratio]


def _available_bytes() -> float:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) * 1024
    return float("inf")


def _reads(url: str, ids: list[str], count: int, seed: int) -> list[float]:
    """Spectator reads (no token): the public summary and the spectator's view."""
    http = requests.Session()
    chooser = random.Random(seed)
    out = []
    for n in range(count):
        gid = chooser.choice(ids)
        path = f"/v1/games/{gid}" if n % 2 == 0 else f"/v1/games/{gid}/view"
        t = time.perf_counter()
        resp = http.get(url + path, timeout=30)
        out.append((time.perf_counter() - t) * 1000)
        if resp.status_code != 200:
            raise RuntimeError(f"{path}: {resp.status_code} {resp.text[:200]}")
    return out


def _extra(p: Any) -> None:
    p.add_argument("--games", type=int, default=None, help="live games to load (100,000)")
    p.add_argument("--mid", type=int, default=100, help="the cloned game's move count")
    p.add_argument("--moves", type=int, default=200, help="moves for the per-move growth")
    p.add_argument("--reads", type=int, default=None, help="API reads per measurement")


if __name__ == "__main__":
    raise SystemExit(main(run, __doc__.splitlines()[0], _extra))
