"""Notation is read without regard to case or spacing (docs/rules/*.md "Notation"): a phone's
keyboard capitalises the first letter, or the whole reply, and a thumb doubles spaces. For every
legal move in random positions of every game, the move's notation in capitals, and with its
spaces doubled and padded, reads as the notation itself does; `format_move` is unchanged."""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator
from typing import Any

import pytest

from engines.contract import Engine, IllegalMove
from engines.registry import get_engine
from engines.rng import SeededRng

#: (ruleset, options, seats): every game, and the variants whose moves have notation of their own
GAMES = [
    ("stratego", {}, 2),
    ("totohu", {"hidden_treasure": True}, 3),
    ("cartagena", {}, 2),
    ("cartagena", {"route": "complete", "witch": True, "rascals": True}, 3),
    ("stortebeker", {}, 2),
    ("stortebeker", {"extended": True}, 3),
    ("elfenland", {}, 2),
    ("elfenland", {"thief": True, "objection": True, "junk-exchange": True,
                   "lost-tickets": True, "ferryman": True}, 3),
    ("elfenland", {"mode": "war"}, 2),
]
#: positions looked at per game, and moves of each seat listed per position
PLIES = 400
MOVES_PER_POSITION = 60


def _positions(engine: Engine, options: dict[str, Any], seats: int, seed: int
               ) -> Iterator[tuple[dict[str, Any], int]]:
    """(state, seat) along one random game, for every seat asked to act."""
    chooser = random.Random(seed)
    rng = SeededRng(seed)
    state = engine.setup(engine.validate_options(options, seats), seats, rng)
    for _ in range(PLIES):
        if engine.result(state) is not None:
            return
        to_act = engine.decision(state)["to_act"]
        for seat in to_act:
            yield state, seat
        seat = chooser.choice(to_act)
        moves = list(itertools.islice(engine.legal_moves(state, seat), 500))
        state, _ = engine.apply(state, seat, chooser.choice(moves), rng)


def _variants(text: str) -> list[str]:
    return [text.upper(), text.title(), f"  {text.replace(' ', '  ')} \t",
            text.upper().replace(" ", "  ")]


@pytest.mark.parametrize(("ruleset", "options", "seats"), GAMES,
                         ids=[f"{g[0]}-{i}" for i, g in enumerate(GAMES)])
def test_notation_reads_the_same_in_capitals_and_with_extra_spaces(
        ruleset: str, options: dict[str, Any], seats: int) -> None:
    engine = get_engine(ruleset)
    checked = 0
    for seed in (1, 2):
        for state, seat in _positions(engine, options, seats, seed):
            for move in itertools.islice(engine.legal_moves(state, seat), MOVES_PER_POSITION):
                text = engine.format_move(move)
                assert engine.parse_move(text) == move, text  # the round trip, as before
                for variant in _variants(text):
                    try:
                        read = engine.parse_move(variant)
                    except IllegalMove as err:
                        raise AssertionError(f"{variant!r} not read: {err.message}") from None
                    assert read == move, (variant, text)
                checked += 1
    assert checked > 200
    for word in ("Resign", " RESIGN  "):
        assert engine.parse_move(word) == {"type": "resign"}


def test_ids_keep_their_case_in_the_notation() -> None:
    """`format_move` is unchanged: ids stay lower case, board codes upper case."""
    assert get_engine("cartagena").format_move(
        {"type": "play", "card": "parrot-01", "from": "prison"}) == "play parrot-01 prison"
    assert get_engine("stratego").parse_move("Setup A10=F b10=bomb  C10=s") == {
        "type": "setup", "placement": {"a10": "flag", "b10": "bomb", "c10": "spy"}}
    assert get_engine("stratego").format_move(
        {"type": "setup", "placement": {"a10": "flag"}}) == "setup a10=F"
    assert get_engine("elfenland").parse_move("Obstacle 13 AT Ixara") == {
        "type": "place_obstacle", "road": 13, "side": "ixara"}
    assert get_engine("totohu").parse_move("PLAY M2 HIDE") == {
        "type": "play", "ship": "m2", "hide": True}
