"""Random playouts through the engine contract, shared by the contract tests and benchmarks.

With `check=True` every step is checked against the contract (DESIGN.md "Engine contract",
"Contract v2"): plain-JSON states in their canonical bytes, listings only for the seats asked,
views and texts that serialise, `check` agreeing with `apply` on the chosen move and on mutated
ones, every refusal's code listed by the engine, every move valid under the engine's schema and
round-tripping through its notation, and steps that advance when a decision closes. A seat may
act several times at one step (v2 point 1) while it stays in `to_act`, but a decision that never
closes is caught: `MAX_MOVES_AT_ONE_STEP` moves at one step fail the playout.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from typing import Any

import orjson
from parley_protocol.signing import dump_state

from engines.contract import COMMON_CODES, Engine, IllegalMove, Move
from engines.rng import SeededRng

#: more moves than this at one step is a decision that never closes
MAX_MOVES_AT_ONE_STEP = 500


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
    at every step (see the module docstring)."""
    chooser = random.Random(seed)
    rng = SeededRng(seed)
    opts = engine.validate_options(options, seats)
    state = engine.setup(opts, seats, rng)
    game = Playout(opts, seats, seed, state=state)
    checker = ContractChecker(engine, seats, chooser) if check else None
    at_step = (-1, 0)  # (step, moves made at it)
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
        if checker is not None:
            checker.before(state, seat, decision, moves, move)
        state, _events = engine.apply(state, seat, move, rng)
        game.moves.append((seat, move))
        if checker is not None:
            checker.after(state, seat, decision)
        step = engine.decision(state)["step"]
        at_step = (step, at_step[1] + 1 if step == at_step[0] else 0)
        assert at_step[1] < MAX_MOVES_AT_ONE_STEP, \
            f"{MAX_MOVES_AT_ONE_STEP} moves at step {step}: a decision that never closes"
    else:
        raise AssertionError(f"game did not end within {max_moves} moves")
    game.state = state
    return game


class ContractChecker:
    """The per-step contract checks of a checked playout (one instance per game)."""

    def __init__(self, engine: Engine, seats: int, chooser: random.Random) -> None:
        self.engine = engine
        self.seats = seats
        self.chooser = chooser
        self.codes = set(engine.error_codes) | set(COMMON_CODES)
        self.validator = _move_validator(engine)
        self.valid: set[bytes] = set()
        self.per_type: dict[str, int] = {}

    def before(self, state: dict, seat: int, decision: dict, moves: list[Move],
               move: Move) -> None:
        engine = self.engine
        for other in range(self.seats):
            if other not in decision["to_act"]:
                assert not list(engine.legal_moves(state, other))
        for who in [None, seat]:
            view = engine.view(state, who)
            json.dumps(view)
            assert isinstance(engine.render_text(view), str)
        for m in moves:
            if self.validator is not None:
                # jsonschema is slow: each distinct move once, at most 40 of each type a game
                key = _snapshot(m)
                kind = str(m.get("type"))
                if key not in self.valid and self.per_type.get(kind, 0) < 40:
                    self.validator.validate(m)
                    self.valid.add(key)
                    self.per_type[kind] = self.per_type.get(kind, 0) + 1
            text = engine.format_move(m)
            assert isinstance(text, str) and text, f"no notation for {m}"
            assert engine.parse_move(text) == m, f"{m} -> {text!r} does not parse back"
        assert agree(engine, state, seat, move, self.codes) is None, f"check refuses {move}"
        for mutant in mutants(move, self.chooser, moves):
            agree(engine, state, seat, mutant, self.codes)
        for other in range(self.seats):
            if other != seat:
                agree(engine, state, other, move, self.codes)

    def after(self, state: dict, seat: int, decision: dict) -> None:
        assert json.loads(json.dumps(state)) == state, "state is not plain JSON"
        # the server stores and hashes states with orjson: the bytes must be those of the
        # canonical form (docs/audit.md §1) for every state an engine can reach
        assert dump_state(state) == json.dumps(
            state, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        after = self.engine.decision(state)
        assert after["step"] >= decision["step"]
        if after["step"] == decision["step"]:
            # the decision is still open: a simultaneous one with fewer seats left, or the same
            # seat acting again at this step (contract v2 point 1)
            assert after["step_kind"] == decision["step_kind"], \
                "the decision kind changed but the step did not advance"
            assert set(after["to_act"]) <= set(decision["to_act"]), \
                "a seat joined an open decision without the step advancing"


def _snapshot(value: Any) -> bytes:
    """The canonical bytes of a state or move, to compare before and after: orjson, since
    these comparisons are most of a checked playout's time (the stdlib's json was 60%)."""
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)


def agree(engine: Engine, state: dict, seat: int, move: Any, codes: set[str]) -> str | None:
    """`check` and `apply` give the same verdict on `move`; `check` changes nothing, a refused
    `apply` changes nothing, and a refusal's code is one the engine lists. Returns the code."""
    before = _snapshot(state)
    verdict: str | None = None
    try:
        engine.check(state, seat, move)
    except IllegalMove as err:
        verdict = err.code
    assert _snapshot(state) == before, f"check changed the state ({move})"
    scratch = orjson.loads(before)
    applied: str | None = None
    try:
        engine.apply(scratch, seat, orjson.loads(_snapshot(move)), SeededRng(0))
    except IllegalMove as err:
        applied = err.code
        assert _snapshot(scratch) == before, \
            f"a refused apply changed the state ({move}, {err.code})"
    assert verdict == applied, f"check says {verdict}, apply says {applied} for {move}"
    if verdict is not None:
        assert verdict in codes, f"code {verdict!r} is not in the engine's error_codes"
    return verdict


def mutants(move: Move, chooser: random.Random, others: list[Move]) -> list[Any]:
    """A few moves near a legal one: a field changed, dropped or retyped, another seat's."""
    out: list[Any] = [{**move, "type": "no_such_move"}]
    keys = [k for k in move if k != "type"]
    if keys:
        k = chooser.choice(keys)
        out.append({key: v for key, v in move.items() if key != k})
        value = move[k]
        if isinstance(value, bool):
            out.append({**move, k: not value})
        elif isinstance(value, int):
            out.append({**move, k: value + chooser.choice([-1, 1, 7])})
        elif isinstance(value, str):
            out.append({**move, k: value + "x"})
        out.append({**move, k: None})
        swap = chooser.choice(others)
        if k in swap:
            out.append({**move, k: swap[k]})
    return out


def _move_validator(engine: Engine) -> Any:
    from jsonschema import Draft202012Validator

    Draft202012Validator.check_schema(dict(engine.move_schema))
    return Draft202012Validator(dict(engine.move_schema))
