"""Random playouts through the engine contract, shared by the contract tests and benchmarks."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from typing import Any

from engines.contract import Engine, Move
from engines.rng import SeededRng
from service.signing import dump_state


@dataclass
class Playout:
    """One finished random game: the moves made, in order, and the final state."""

    options: dict[str, Any]
    seats: int
    seed: int
    moves: list[tuple[int, Move]] = field(default_factory=list)
    state: dict[str, Any] = field(default_factory=dict)


def random_playout(
    engine: Engine, options: dict[str, Any], seats: int, seed: int, max_moves: int = 100_000,
    check: bool = False,
) -> Playout:
    """Play one game choosing uniformly from `legal_moves`; with `check`, verify the contract
    at every step (JSON-plain state, steps, listings only for seats asked, views serialisable)."""
    chooser = random.Random(seed)
    rng = SeededRng(seed)
    opts = engine.validate_options(options, seats)
    state = engine.setup(opts, seats, rng)
    game = Playout(opts, seats, seed, state=state)
    for _ in range(max_moves):
        if engine.result(state) is not None:
            break
        decision = engine.decision(state)
        to_act = decision["to_act"]
        assert to_act, f"no seat to act but no result: {decision}"
        seat = chooser.choice(to_act)
        moves = list(engine.legal_moves(state, seat))
        assert moves, f"seat {seat} asked to act with no legal move at {decision}"
        move = chooser.choice(moves)
        if check:
            _check_step(engine, state, seats, seat, decision)
        state, _events = engine.apply(state, seat, move, rng)
        game.moves.append((seat, move))
        if check:
            assert json.loads(json.dumps(state)) == state, "state is not plain JSON"
            # the server stores and hashes states with orjson: the bytes must be those of the
            # canonical form (docs/audit.md §1) for every state an engine can reach
            assert dump_state(state) == json.dumps(
                state, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
            after = engine.decision(state)
            simultaneous_open = (
                set(after["to_act"]) < set(to_act) and after["step_kind"] == decision["step_kind"]
            )
            assert after["step"] >= decision["step"]
            if after["step"] == decision["step"]:
                assert simultaneous_open, "step did not advance though the decision closed"
    else:
        raise AssertionError(f"game did not end within {max_moves} moves")
    game.state = state
    return game


def _check_step(engine: Engine, state: dict, seats: int, seat: int, decision: dict) -> None:
    for other in range(seats):
        if other not in decision["to_act"]:
            assert not list(engine.legal_moves(state, other))
    for who in [None, seat]:
        view = engine.view(state, who)
        json.dumps(view)
        assert isinstance(engine.render_text(view), str)
