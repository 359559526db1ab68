"""Flat cost: applying move ~2,000 of a long Stratego game costs no more than move ~20.

One long random Stratego (Original) game is played. In-process: the engine's per-move work as a
worker does it (`decision`, `apply`, `result`) over a window of moves starting at move 20 and at
move 2,000, each on a fresh copy of the state. End to end: the same game through a real Redis
store, each move accepted (`service.domain.accept.submit_move`: schema, signature, checks, dry run,
Lua append) and resolved (`service.domain.game.resolve_pending`: load, apply, commit); the game's
keys are snapshotted at both points (DUMP) and restored before every timed window. Figures:
µs per move at both points and their ratio (target <= 1.2). Everything in one process, side
by side, so the ratio holds across machines.
"""

from __future__ import annotations

import copy
import statistics
import time
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from bench.common import Figure, bundled_redis, main
from bench.games import (
    long_stratego_moves,
    play_through_store,
    restore,
    snapshot,
    stratego_game,
)
from engines.registry import get_engine
from engines.rng import SeededRng
from service.domain.accept import submit_move
from service.domain.game import resolve_pending
from service.storage.store import Store

EARLY, LATE = 20, 2000
TARGET_RATIO = 1.2


def _states(moves: list[tuple[int, dict]], points: tuple[int, ...]
            ) -> dict[int, tuple[dict, list[int]]]:
    """The engine state before move `p` (0-based) for each point, and the step before each move."""
    engine = get_engine("stratego")
    rng = SeededRng(0)
    state = engine.setup(engine.validate_options({"army": "original"}, 2), 2, rng)
    out: dict[int, tuple[dict, list[int]]] = {}
    steps: list[int] = []
    for i, (seat, move) in enumerate(moves):
        if i in points:
            out[i] = (copy.deepcopy(state), steps)
        steps.append(engine.decision(state)["step"])
        state, _ = engine.apply(state, seat, move, rng)
    return {p: (s, steps) for p, (s, _) in out.items()}


def engine_window(state: dict, moves: list[tuple[int, dict]], reps: int) -> float:
    """µs per move for `moves` applied from `state` (fresh copy per repetition)."""
    engine = get_engine("stratego")
    rng = SeededRng(0)
    best = []
    for _ in range(reps):
        s = copy.deepcopy(state)
        t = time.perf_counter()
        for seat, move in moves:
            engine.decision(s)
            s, _ = engine.apply(s, seat, move, rng)
            engine.result(s)
        best.append((time.perf_counter() - t) / len(moves) * 1e6)
    return statistics.median(best)


def run(runs: int | None = None, quick: bool = False, window: int | None = None,
        **_: Any) -> list[Figure]:
    runs = runs or (2 if quick else 5)
    window = window or (10 if quick else 20)
    moves = long_stratego_moves("original", LATE + window + 1)
    states = _states(moves, (EARLY, LATE))
    steps = states[EARLY][1]
    early_us = Figure(f"flat engine: µs/move at move {EARLY}", unit="µs")
    late_us = Figure(f"flat engine: µs/move at move {LATE}", unit="µs")
    ratio = Figure(f"flat engine: move {LATE} / move {EARLY}", unit="ratio", op="<=",
                   target=TARGET_RATIO)
    for _ in range(runs):
        a = engine_window(states[EARLY][0], moves[EARLY:EARLY + window], 50)
        b = engine_window(states[LATE][0], moves[LATE:LATE + window], 50)
        early_us.samples.append(a)
        late_us.samples.append(b)
        ratio.samples.append(b / a)
    figures = [early_us, late_us, ratio]

    e_early = Figure(f"flat e2e: µs/move (accept+resolve) at move {EARLY}", unit="µs")
    e_late = Figure(f"flat e2e: µs/move (accept+resolve) at move {LATE}", unit="µs")
    e_ratio = Figure(f"flat e2e: move {LATE} / move {EARLY}", unit="ratio", op="<=",
                     target=TARGET_RATIO)
    server_key = Ed25519PrivateKey.generate()
    with bundled_redis() as url:
        store = Store.from_url(url)
        gid, players = stratego_game(store)
        play_through_store(store, gid, players, moves[:EARLY], server_key)
        snaps = {EARLY: snapshot(store, gid)}
        play_through_store(store, gid, players, moves[EARLY:LATE], server_key)
        snaps[LATE] = snapshot(store, gid)
        bodies = {p: [players[seat].envelope(gid, seat, steps[p + i], move)
                      for i, (seat, move) in enumerate(moves[p:p + window])]
                  for p in (EARLY, LATE)}
        for _ in range(runs):
            per = {}
            for p in (EARLY, LATE):
                restore(store, gid, snaps[p])
                times = []
                for body in bodies[p]:
                    t = time.perf_counter()
                    submit_move(store, gid, body, server_key)
                    resolve_pending(store, gid)
                    times.append((time.perf_counter() - t) * 1e6)
                per[p] = statistics.median(times)
            e_early.samples.append(per[EARLY])
            e_late.samples.append(per[LATE])
            e_ratio.samples.append(per[LATE] / per[EARLY])
        state_bytes = {p: len(store.r.get(f"{{g:{gid}}}:state") or "") for p in (LATE,)}
    size = Figure(f"flat: state JSON bytes after move {LATE + window}", [state_bytes[LATE]],
                  unit="bytes")
    return figures + [e_early, e_late, e_ratio, size]


def _extra(p: Any) -> None:
    p.add_argument("--window", type=int, default=None, help="moves timed at each point")


if __name__ == "__main__":
    raise SystemExit(main(run, __doc__.splitlines()[0], _extra))
