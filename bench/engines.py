"""Engine speed in-process (no Redis): random playouts and the cost of each contract call.

For every ruleset in the registry, every variant and every seat count: random playouts choosing
uniformly from `legal_moves` and calling `apply` (the loop of `tests/engines/playout.py`
without its checks) -> moves per second. Per ruleset and variant also µs per `legal_moves`
(listed in full), `apply`, `view` (the seat to act) and `render_text`, sampled along playouts.
Target: >= 10,000 moves/s for every combination.
"""

from __future__ import annotations

import copy
import random
import time
from typing import Any

from bench.common import Figure, main
from engines.contract import Engine
from engines.registry import available, get_engine
from engines.rng import SeededRng

TARGET_MOVES_PER_S = 10_000


def combos() -> list[tuple[str, Engine, str, dict[str, Any], int]]:
    """(ruleset, engine, variant id, options, seats) for everything the registry offers."""
    out = []
    for ruleset in available():
        engine = get_engine(ruleset)
        for variant in engine.variants:
            for seats in range(engine.min_players, engine.max_players + 1):
                out.append((ruleset, engine, variant.id, dict(variant.options), seats))
    return out


def playout_rate(engine: Engine, options: dict[str, Any], seats: int, seconds: float,
                 seed: int) -> float:
    """Moves per second over whole random games played for about `seconds`."""
    moves = 0
    spent = 0.0
    while spent < seconds:
        chooser = random.Random(seed)
        rng = SeededRng(seed)
        seed += 1
        t = time.perf_counter()
        state = engine.setup(engine.validate_options(options, seats), seats, rng)
        while engine.result(state) is None:
            seat = chooser.choice(engine.decision(state)["to_act"])
            move = chooser.choice(list(engine.legal_moves(state, seat)))
            state, _ = engine.apply(state, seat, move, rng)
            moves += 1
        spent += time.perf_counter() - t
    return moves / spent


def call_costs(engine: Engine, options: dict[str, Any], seats: int, samples: int,
               seed: int) -> dict[str, float]:
    """µs per legal_moves / apply / view / render_text, at states sampled along playouts."""
    chooser = random.Random(seed)
    rng = SeededRng(seed)
    states: list[tuple[dict, int, dict]] = []
    while len(states) < samples:
        state = engine.setup(engine.validate_options(options, seats), seats, rng)
        while engine.result(state) is None and len(states) < samples:
            seat = chooser.choice(engine.decision(state)["to_act"])
            move = chooser.choice(list(engine.legal_moves(state, seat)))
            if chooser.random() < 0.2:
                states.append((copy.deepcopy(state), seat, move))
            state, _ = engine.apply(state, seat, move, rng)
    # apply mutates: give every timed call its own copy (copies made outside the clock)
    copies = [copy.deepcopy(s) for s, _, _ in states]
    t = time.perf_counter()
    for (_, seat, move), s in zip(states, copies, strict=True):
        engine.apply(s, seat, move, rng)
    apply_us = (time.perf_counter() - t) / len(states) * 1e6
    t = time.perf_counter()
    for s, seat, _ in states:
        list(engine.legal_moves(s, seat))
    legal_us = (time.perf_counter() - t) / len(states) * 1e6
    t = time.perf_counter()
    views = [engine.view(s, seat) for s, seat, _ in states]
    view_us = (time.perf_counter() - t) / len(states) * 1e6
    t = time.perf_counter()
    for v in views:
        engine.render_text(v)
    text_us = (time.perf_counter() - t) / len(states) * 1e6
    return {"legal_moves": legal_us, "apply": apply_us, "view": view_us, "render_text": text_us}


def run(runs: int | None = None, quick: bool = False, seconds: float | None = None,
        **_: Any) -> list[Figure]:
    runs = runs or (1 if quick else 3)
    seconds = seconds or (0.3 if quick else 1.0)
    figures: list[Figure] = []
    for ruleset, engine, variant, options, seats in combos():
        rate = Figure(f"engine {ruleset}/{variant}/{seats}p playout", unit="moves/s", op=">=",
                      target=TARGET_MOVES_PER_S)
        for n in range(runs):
            rate.samples.append(playout_rate(engine, options, seats, seconds, seed=1000 * n))
        figures.append(rate)
    for ruleset, engine, variant, options, seats in combos():
        if seats != max(engine.min_players, 2 if engine.max_players >= 2 else 1):
            continue  # call costs once per variant, at the usual seat count
        costs: dict[str, Figure] = {}
        for n in range(runs):
            for call, us in call_costs(engine, options, seats, 200 if quick else 1000,
                                       seed=7 + n).items():
                costs.setdefault(call, Figure(f"engine {ruleset}/{variant} {call}",
                                              unit="µs/call")).samples.append(us)
        figures.extend(costs.values())
    return figures


def _extra(p: Any) -> None:
    p.add_argument("--seconds", type=float, default=None, help="playout time per combination")


if __name__ == "__main__":
    raise SystemExit(main(run, __doc__.splitlines()[0], _extra))
