"""Memory: Redis bytes per live Stratego game, per applied move, per finished game before
and after the archive; 100,000 live games.

An Original game is played through a real store (accept + resolve per move) to move `--mid`
(a live mid-game game). Figures, all from `MEMORY USAGE <key> SAMPLES 0` summed over the
game's keys: bytes per live game (target <= 32 KB at move 100, issue 34), and the most it
takes over the next 16 moves (its history is packed 16 entries at a time, so a game's size is
a sawtooth); bytes per applied move (the growth over the next `--moves` moves, divided by
their number) against the mean canonical envelope size of those moves (target <= 2x); the
state's canonical JSON (target <= 16 KB) and what Redis stores of it (packed). The game's
`submitted` hash is left out of every figure and reported on its own: the metrics' notes of
when moves were accepted, which a worker's resolve drops but the in-process resolve used here
(`resolve_pending`) leaves behind. Another game, played to move `--mid` and
resigned, gives the bytes per finished game in Redis before it moves to the archive and after
(the pointer left: target <= 256 B), and its compressed record's size in the archive
(SQLite). Then the generator clones the live game's keys under `--games` new ids (DUMP once,
RESTORE in pipelines: each clone has its own hash tag), with AOF switched off once the web
process has started (the copies would only cost disk; at most 40% of the free memory is
used), and reports `used_memory` and the API's read latency (GET /v1/games/{id} and GET
.../view, random games, one client, through `parley web`) with 100 games present and with all of
them present: p50, p99 and the p99 ratio.
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

from bench.common import Figure, System, bundled_redis, main
from bench.games import (
    game_keys,
    long_stratego_moves,
    play_through_store,
    raw_client,
    stratego_game,
)
from bench.stats import percentile
from service.storage.archive import open_archive
from service.storage.history_segments import SEGMENT
from service.storage.keys import GAMES_KEY, game_key
from service.storage.store import Store
from workers.archiver import archive_game

STATE_LIMIT = 16 * 1024
#: what a live Original game may take at move 100 (a million of them in 32 GB)
LIVE_LIMIT = 32 * 1024
#: a game's parts left out of its size: the metrics' notes, which a worker's resolve drops
NOT_COUNTED = ("submitted",)
#: what an archived game may leave in Redis (its pointer)
POINTER_LIMIT = 256


def game_bytes(store: Store, gid: str, parts: tuple[str, ...] | None = None) -> int:
    """MEMORY USAGE of the game's keys: of `parts` only, or of all but NOT_COUNTED."""
    return sum(store.r.memory_usage(k, samples=0) or 0 for k in game_keys(store, gid)
               if (k.rsplit(":", 1)[1] in parts if parts else
                   k.rsplit(":", 1)[1] not in NOT_COUNTED))


def clone(store: Store, gid: str, count: int, batch: int = 500) -> list[str]:
    """`count` copies of one game under new ids (and in the games index); returns the ids."""
    raw = raw_client(store)
    prefix = f"{{g:{gid}}}:"
    dumps = {k[len(prefix):]: raw.dump(k) for k in game_keys(store, gid)
             if k[len(prefix):] not in NOT_COUNTED}
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
    per_game = Figure(f"memory: bytes per live Stratego game (move {mid})", unit="bytes",
                      op="<=" if mid == 100 else "", target=LIVE_LIMIT if mid == 100 else None)
    peak = Figure(f"memory: bytes per live Stratego game, most over moves {mid}.."
                  f"{mid + SEGMENT - 1}", unit="bytes")
    notes = Figure(f"memory: `submitted` notes left by the in-process resolve (move {mid}, "
                   "not counted)", unit="bytes")
    state = Figure(f"memory: state bytes (move {mid})", unit="bytes", op="<=",
                   target=STATE_LIMIT)
    stored = Figure(f"memory: state bytes stored, packed (move {mid})", unit="bytes")
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
    finished = [Figure(f"memory: bytes per finished game (move {mid}), before the archive",
                       unit="bytes"),
                Figure(f"memory: bytes per finished game (move {mid}), archived", unit="bytes",
                       op="<=", target=POINTER_LIMIT),
                Figure(f"memory: archive bytes per finished game (move {mid})", unit="bytes")]
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
            notes.samples.append(game_bytes(store, gid, NOT_COUNTED))
            state.samples.append(len(store.state_json(gid) or ""))
            stored.samples.append(store.r.strlen(game_key(gid, "state")))
            head = int(store.r.hget(game_key(gid, "meta"), "head"))
            sizes = [before]
            for move in all_moves[mid:mid + SEGMENT - 1]:
                play_through_store(store, gid, players, [move], server_key)
                sizes.append(game_bytes(store, gid))
            peak.samples.append(max(sizes))
            play_through_store(store, gid, players, all_moves[mid + SEGMENT - 1:mid + moves],
                               server_key)
            after = game_bytes(store, gid)
            state_late.samples.append(len(store.state_json(gid) or ""))
            envs = [f["env"] for _, f in store.entries(gid, head + 1, head + moves)]
            mean_env = sum(len(e.encode()) for e in envs) / len(envs)
            per_move.samples.append((after - before) / moves)
            envelope.samples.append(mean_env)
            ratio.samples.append((after - before) / moves / mean_env)
            for figure, value in zip(finished, _finished_game(store, all_moves[:mid],
                                                              server_key), strict=True):
                figure.samples.append(value)
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
    return [per_game, peak, notes, state, stored, state_late, per_move, envelope, ratio,
            *finished, loaded, used, p50_many, p99_few, p99_many, p99_ratio]


def _finished_game(store: Store, moves: list[tuple[int, dict]], server_key: Any
                   ) -> tuple[int, int, int]:
    """A game played through `moves` and resigned: (its Redis bytes finished, its Redis bytes
    once moved to the archive, its compressed record's bytes in the archive)."""
    gid, players = stratego_game(store)
    play_through_store(store, gid, players, [*moves, (1, {"type": "resign"})], server_key)
    if store.archive is None:
        store.archive = open_archive(
            f"sqlite:///{tempfile.mkdtemp(prefix='parley-bench-archive-')}/archive.sqlite3")
    finished = game_bytes(store, gid)
    outcome = archive_game(store, gid)
    if outcome != "ok":
        raise RuntimeError(f"game {gid} did not move to the archive: {outcome}")
    return finished, game_bytes(store, gid), store.archive.stored_bytes(gid)


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
