"""Störtebeker: `legal_moves` lists exactly the moves `check` accepts (issue 58 point 7).

Every decision says `legal_moves_complete: true`. At each compared decision the whole move
vocabulary of docs/rules/stortebeker.md "Decisions and moves" is enumerated for the seat,
whatever the decision's kind (so a move of another decision must be refused too):

- `place` and `fire_cannon`: every hand card at every ship at sea and at one ship off the sea
  (the rules tell no two ships off the sea apart: each is unknown);
- `exchange_discard`: every 1 to 4 hand cards (the rules allow 2 or 3);
- `exchange_take` and `cannon_take`: every card of the data set, wherever it lies;
- `board`: every ship at sea and one off the sea; `end_play`, `end_boarding`,
  `decline_counter`;
- `counter_attack`: every 0 to 4 hand cards (the rules allow at most 3).

The space is enumerated in full; the decision points are sampled (the first of each kind in a
game, and half of the others). The shorthands `play_cards` and `finish_play` stand for
sequences of listed steps and `resign` is always accepted; none is ever listed (the spec), so
they are not candidates.

Equivalence, "cards the rules cannot tell apart": a card is its place (a hand, the pile, the
cards this exchange discarded, an exchange area, the deck, one seat's side of one ship, out of
play), its kind, its pirate symbol and its value; a list of cards is a multiset of those.

Option sets: every combination of the five rules and `stall-limit` at 2, 3 and 4 seats
(`two-player-three-ships` only at 2), in an order that puts the basic and the extended game
first; the default run plays the first `games(3)` of each seat count, and a long run
(`PARLEY_COMPLETENESS_GAMES=200`) goes through all of them several times.
"""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Iterator
from typing import Any

import pytest

from engines.contract import Move, State
from engines.stortebeker import ENGINE
from engines.stortebeker.state import RULES
from tests.engines.completeness import Completeness, games, preferring
from tests.engines.stortebeker_helpers import DATA, game, hand, put, sea, send, to_board

CARDS = sorted(DATA.card_order)
SHIPS = list(DATA.ship_order)
#: moves that lead to boardings and counter-attacks, which uniform play seldom reaches
BUSY = ("board", "counter_attack", "place", "fire_cannon", "cannon_take")
#: a cannon_take needs candidates of two owners or of both symbols: rare with one opponent
KINDS = {"play_cards", "board", "counter_attack"}


def option_sets(seats: int) -> list[dict[str, bool]]:
    """Every option set valid at `seats`, the basic and the extended game first."""
    names = (*RULES, "stall-limit")
    every = [dict(zip(names, values, strict=True))
             for values in itertools.product([False, True], repeat=len(names))]
    valid = [o for o in every if seats == 2 or not o["two-player-three-ships"]]
    extended = {**{r: True for r in RULES}, "two-player-three-ships": seats == 2,
                "stall-limit": False}
    return [valid[0], extended, *(o for o in valid[1:] if o != extended)]


def candidates(state: State, seat: int) -> Iterator[Move]:
    """The move vocabulary, every field value spelled out (see the module docstring)."""
    hand = sorted(state["hands"][str(seat)])
    at_sea = [s for s in state["slots"] if s is not None]
    ships = [*at_sea, next(s for s in SHIPS if s not in at_sea)]
    for card in hand:
        for ship in ships:
            yield {"type": "place", "card": card, "ship": ship}
            yield {"type": "fire_cannon", "card": card, "ship": ship}
    for size in range(1, 5):
        for cards in itertools.combinations(hand, size):
            yield {"type": "exchange_discard", "cards": list(cards)}
    for card in CARDS:
        yield {"type": "exchange_take", "card": card}
        yield {"type": "cannon_take", "card": card}
    for ship in ships:
        yield {"type": "board", "ship": ship}
    for size in range(5):
        for cards in itertools.combinations(hand, size):
            yield {"type": "counter_attack", "complete": list(cards)}
    for kind in ("end_play", "end_boarding", "decline_counter"):
        yield {"type": kind}


class Places:
    """Where each card lies, computed once per position (`key` runs for every candidate)."""

    def __init__(self) -> None:
        self.state: State | None = None
        self.step = -1
        self.where: dict[str, str] = {}

    def of(self, state: State) -> dict[str, str]:
        if self.state is not state or self.step != state["step"]:
            self.state, self.step, self.where = state, state["step"], _places(state)
        return self.where


def _places(state: State) -> dict[str, str]:
    where = dict.fromkeys(state["deck"], "deck")
    where.update(dict.fromkeys(state["discard"], "pile"))
    where.update(dict.fromkeys(state.get("out", []), "out"))
    if state["play"] is not None:
        where.update(dict.fromkeys(state["play"]["D"], "discarded by this exchange"))
    for owner in state["hands"]:
        where.update(dict.fromkeys(state["hands"][owner], f"hand {owner}"))
        where.update(dict.fromkeys(state["areas"][owner], f"area {owner}"))
    for ship, sides in state["sides"].items():
        for owner, own in sides.items():
            where.update(dict.fromkeys(own["prov"] + own["pir"], f"{ship} side {owner}"))
    return where


PLACES = Places()


def key(state: State, seat: int, move: Move) -> Hashable:
    """The move with each card as what the rules see of it: place, kind, symbol, value."""
    where = PLACES.of(state)

    def seen(card: str) -> tuple[str, str, bool, int]:
        info = DATA.cards[card]
        return where[card], info.kind, info.symbol, info.value

    def field(name: str, value: Any) -> Hashable:
        if name == "card":
            return seen(value)
        if name in ("cards", "complete"):
            return tuple(sorted(map(seen, value)))
        return value

    return tuple(sorted((name, field(name, value)) for name, value in move.items()))


def spec() -> Completeness:
    return Completeness(ENGINE, candidates, key, preferring(BUSY), rate=0.5)


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_listing_is_exactly_what_check_accepts(seats: int) -> None:
    checker = spec()
    sets = option_sets(seats)
    for seed in range(games(3)):
        checker.play(sets[seed % len(sets)], seats, seed)
    expected = KINDS | ({"cannon_take"} if seats > 2 else set())
    assert expected <= set(checker.compared), checker.compared


def test_every_counter_attack_completion_the_rules_tell_apart_is_listed() -> None:
    """The comparison on a counter-attack whose hand holds a symbol and two plain cards of
    the missing kind: the symbol card and one plain card are two listed choices."""
    state = game(3)
    sea(state, "green-2", "green-1", "blue-1", "yellow-1")
    put(state, 0, "green-2", "water-03", "biscuits-03")
    put(state, 1, "green-2", "water-04")
    hand(state, 1, "biscuits-01", "biscuits-05", "biscuits-06", "rum-04")
    to_board(state, 0, 4)
    send(state, 0, {"type": "board", "ship": "green-2"}, dice=[4, 3])
    assert state["dec"]["kind"] == "counter_attack" and state["dec"]["seat"] == 1
    spec().compare(state, 1)
