"""Generic contract tests run on every registered engine (OpenSpiel's random-simulation test)."""

from __future__ import annotations

import copy
import json

import pytest

from engines.contract import IllegalMove
from engines.registry import available, get_engine
from engines.rng import SeededRng
from tests.engines.playout import random_playout

RULESETS = available()


def _configs(ruleset: str) -> list[tuple[dict, int]]:
    """The first variant at every seat count, the others at the fewest and the most seats:
    the engines' own tests cover every combination; this keeps `make test` within its time."""
    engine = get_engine(ruleset)
    out = []
    every = range(engine.min_players, engine.max_players + 1)
    for n, variant in enumerate(engine.variants):
        for seats in every if n == 0 else sorted({engine.min_players, engine.max_players}):
            out.append((dict(variant.options), seats))
    return out


CONFIGS = [(rid, opts, seats) for rid in RULESETS for opts, seats in _configs(rid)]
#: checked playouts per configuration: more where an engine has few configurations
SEEDS = {rid: 5 if len(_configs(rid)) <= 4 else 2 for rid in RULESETS}


@pytest.mark.parametrize(("ruleset", "options", "seats"), CONFIGS)
def test_playouts_end_and_keep_the_contract(ruleset: str, options: dict, seats: int) -> None:
    engine = get_engine(ruleset)
    for seed in range(SEEDS[ruleset]):
        game = random_playout(engine, options, seats, seed, check=True)
        result = engine.result(game.state)
        assert result is not None
        assert set(result) >= {"winners", "scores", "reason"}
        assert engine.decision(game.state)["to_act"] == []


@pytest.mark.parametrize(("ruleset", "options", "seats"), CONFIGS)
def test_replay_reproduces_the_state_byte_for_byte(ruleset: str, options: dict, seats: int) -> None:
    engine = get_engine(ruleset)
    game = random_playout(engine, options, seats, seed=7)
    rng = SeededRng(7)
    state = engine.setup(game.options, seats, rng)
    for seat, move in game.moves:
        state, _ = engine.apply(state, seat, copy.deepcopy(move), rng)
    assert json.dumps(state, sort_keys=True) == json.dumps(game.state, sort_keys=True)


@pytest.mark.parametrize("ruleset", RULESETS)
def test_rejected_move_changes_nothing(ruleset: str) -> None:
    engine = get_engine(ruleset)
    state = engine.setup(engine.validate_options({}, engine.max_players), engine.max_players,
                         SeededRng(1))
    before = json.dumps(state, sort_keys=True)
    for bad in [{"type": "no_such_move"}, {}, {"type": 3}]:
        with pytest.raises(IllegalMove) as err:
            engine.apply(state, 0, bad, SeededRng(1))
        assert err.value.code
        assert json.dumps(state, sort_keys=True) == before


@pytest.mark.parametrize("ruleset", RULESETS)
def test_bad_options_are_invalid_options(ruleset: str) -> None:
    engine = get_engine(ruleset)
    with pytest.raises(IllegalMove) as err:
        engine.validate_options({"no_such_option": 1}, engine.min_players)
    assert err.value.code == "invalid_options"


@pytest.mark.parametrize("ruleset", RULESETS)
def test_legal_moves_never_list_resign(ruleset: str) -> None:
    engine = get_engine(ruleset)
    game = random_playout(engine, {}, engine.max_players, seed=3)
    rng = SeededRng(3)
    state = engine.setup(game.options, game.seats, rng)
    for seat, move in game.moves:
        for s in engine.decision(state)["to_act"]:
            assert all(m.get("type") != "resign" for m in engine.legal_moves(state, s))
        state, _ = engine.apply(state, seat, move, rng)


# ---- contract v2 ---------------------------------------------------------------------------


@pytest.mark.parametrize(("ruleset", "options", "seats"), CONFIGS)
def test_options_are_stable(ruleset: str, options: dict, seats: int) -> None:
    """v2 point 12: `validate_options` accepts its own output unchanged, and a variant's preset
    survives validation (named variants are exact presets)."""
    engine = get_engine(ruleset)
    once = engine.validate_options(options, seats)
    assert engine.validate_options(once, seats) == once
    assert json.loads(json.dumps(once)) == once
    for name, value in options.items():
        assert once[name] == value


@pytest.mark.parametrize("ruleset", RULESETS)
def test_engine_describes_itself(ruleset: str) -> None:
    """v2 point 13: a move schema that is a valid JSON Schema and admits `resign`, a code list
    with one line per code, a notation; the data option is an option."""
    from jsonschema import Draft202012Validator

    engine = get_engine(ruleset)
    Draft202012Validator.check_schema(dict(engine.move_schema))
    Draft202012Validator(dict(engine.move_schema)).validate({"type": "resign"})
    assert engine.error_codes and all(
        isinstance(c, str) and c == c.lower() and isinstance(line, str) and line.strip()
        for c, line in engine.error_codes.items())
    assert isinstance(engine.notation, str) and engine.notation.strip()
    assert engine.data_option is None or engine.data_option in engine.options
    assert engine.parse_move(engine.format_move({"type": "resign"})) == {"type": "resign"}


@pytest.mark.parametrize("ruleset", RULESETS)
def test_bad_notation_is_refused(ruleset: str) -> None:
    engine = get_engine(ruleset)
    for text in ["", "%%%", "\x00"]:
        with pytest.raises(IllegalMove) as err:
            engine.parse_move(text)
        assert err.value.code == "bad_notation"


@pytest.mark.parametrize(("ruleset", "options", "seats"), CONFIGS)
def test_default_moves_settle_the_late_seat(ruleset: str, options: dict, seats: int) -> None:
    """v2 point 6: wherever an engine offers a default move it is legal, and after it the seat
    is no longer asked at this step, so one timeout action settles one late seat."""
    engine = get_engine(ruleset)
    game = random_playout(engine, options, seats, seed=11)
    rng = SeededRng(11)
    state = engine.setup(game.options, seats, rng)
    for seat, move in game.moves:
        decision = engine.decision(state)
        for late in decision["to_act"]:
            default = engine.default_move(state, late)
            if default is None:
                continue
            engine.check(state, late, default)
            scratch, _ = engine.apply(copy.deepcopy(state), late, default, SeededRng(5))
            after = engine.decision(scratch)
            assert after["step"] != decision["step"] or late not in after["to_act"], \
                f"default move {default} leaves seat {late} asked at step {decision['step']}"
        state, _ = engine.apply(state, seat, move, rng)
