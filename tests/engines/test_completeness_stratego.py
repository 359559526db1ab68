"""Stratego: in play, `legal_moves` lists exactly the moves `check` accepts (issue 58 point 7).

The candidate space of a play decision is every `move` from any of the 100 squares to any of the
100 squares (lakes and `from == to` included): 10,000 candidates, enumerated in full at each
compared decision point. Two moves are the same when they name the same squares (docs/rules/
stratego.md: extra fields are ignored, and the candidates carry none). Setups are free
arrangements (`legal_moves_complete` is false) and are not compared; `resign` is always
accepted and never listed (the contract), so it is not a candidate. Both armies are played.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator

import pytest

from engines.contract import Move, State
from engines.stratego import ENGINE
from tests.engines.completeness import Completeness, games

FILES = "abcdefghij"
#: every square of the board, named as the rules name them (files a-j, ranks 1-10)
SQUARES = [f"{f}{r}" for r in range(1, 11) for f in FILES]


def candidates(state: State, seat: int) -> Iterator[Move]:
    """Every square pair as a `move` (the rules' only play move besides `resign`)."""
    for frm in SQUARES:
        for to in SQUARES:
            yield {"type": "move", "from": frm, "to": to}


def key(state: State, seat: int, move: Move) -> Hashable:
    return move["type"], move["from"], move["to"]


@pytest.mark.parametrize("army", ["original", "duel"])
def test_play_listing_is_exactly_what_check_accepts(army: str) -> None:
    spec = Completeness(ENGINE, candidates, key, rate=0.05)
    for seed in range(games(2)):
        spec.play({"army": army}, 2, seed)
    assert spec.compared["play"] >= games(2), spec.compared
    assert "setup" not in spec.compared


def test_a_missing_move_is_reported() -> None:
    """The comparison can fail: a listing that drops a move is caught."""
    class Dropping:
        def __getattr__(self, name: str) -> object:
            return getattr(ENGINE, name)

        def legal_moves(self, state: State, seat: int) -> Iterator[Move]:
            return iter(list(ENGINE.legal_moves(state, seat))[1:])

    spec = Completeness(Dropping(), candidates, key)  # type: ignore[arg-type]
    with pytest.raises(AssertionError, match="accepted by check but not listed"):
        spec.play({"army": "duel"}, 2, 0)
