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
    engine = get_engine(ruleset)
    out = []
    for variant in engine.variants:
        for seats in range(engine.min_players, engine.max_players + 1):
            out.append((dict(variant.options), seats))
    return out


CONFIGS = [(rid, opts, seats) for rid in RULESETS for opts, seats in _configs(rid)]


@pytest.mark.parametrize(("ruleset", "options", "seats"), CONFIGS)
def test_playouts_end_and_keep_the_contract(ruleset: str, options: dict, seats: int) -> None:
    engine = get_engine(ruleset)
    for seed in range(5):
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
