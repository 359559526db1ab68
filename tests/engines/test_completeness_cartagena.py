"""Cartagena: `legal_moves` lists exactly the moves `check` accepts (issue 58 point 7).

The move vocabulary of docs/rules/cartagena.md "Moves" is enumerated at every compared decision,
whatever its kind (a move of the wrong phase must be refused too). A location is every place
name, every square of the route and one square on either side of it (0 and N + 1):

- `play`: every card of the hand from every location; `back` from every location; `morgan` of
  every seat (and one past the last) from every location; `sail`, `pass`, `end_turn`;
- `spell` of one card: every card of the hand with every seat as `target`, with no field, and
  from every location (the fields of the pistol, the rum and lantern, and the chest);
- `spell` of two cards: every ordered pair of the hand's cards, taking the two lowest ids of
  each kind (the equivalence below makes any other card of a kind the same), without a `symbol`
  and, when the first card is a parrot, with every symbol; each from every location where the
  seat has a pirate and from the four place names. A square without one of the seat's pirates is
  refused by the same check for every move, and the single-card moves try every square;
- `discard`: every card of the hand, every pair of them, a card named twice and the whole hand;
  `discard_random`;
- `pistol_take`: every card of every hand; `lantern_keep`: every card the lantern drew kept, and
  every ordered choice of the cards drawn returned (short, long, in any order).

Equivalence (the rules cannot tell these apart, docs/rules/cartagena.md "Moves"): two cards of
one kind, the same symbol and background; a dark card and a light one of a symbol differ (under
Rascals only the dark one makes the others discard). The two cards of a spell are a multiset
(two parrots, or a hook and a second card, are the same spell in either order; the first card
still names the spell), and a spell ignores the fields its kind does not read (the move schema
lets every spell carry `from`, `symbol` and `target`). A discard of several cards means those
cards one by one, so it stands for the discard of its first card; `discard_random` is a discard
chosen by a draw, so it stands for "some listed move" in a discard and for itself elsewhere.
`resign` is always accepted and never listed (the contract), so it is not a candidate; a rum
deal says `legal_moves_complete: false` and is not compared.

Games cycle through every combination of route, draw mode, Rascals and the witch, with 2-5
seats and the board and crew sizes of the variants; `PARLEY_COMPLETENESS_GAMES` sets how many
per route (a long run sets 200). The decision points are sampled: the first of each kind in a
game, and a share `RATE` of the others.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Hashable, Iterator
from typing import Any

import pytest

from engines.cartagena import ENGINE
from engines.cartagena import board as B
from engines.cartagena.data import DATASETS, symbol_of
from engines.contract import Move, State
from tests.engines.completeness import ANY_LISTED, Completeness, games

PLACES = ["prison", "wreck", "ship", "cove"]
#: the share of decision points compared after the first of each kind in a game
RATE = 0.25
#: the fields each spell reads (docs/rules/cartagena.md "Moves"); it ignores the others
SPELL_FIELDS = {"pistol": ("target",), "rum": (), "lantern": (), "parrot": ("symbol", "from"),
                "hook": ("from",), "chest": ("from",)}
#: the draw modes per part: each the same in both parts, and one mixed (the complete escape)
DRAW_MODES = [{"tunnel": m, "jungle": m} for m in B.DRAW_MODES] + [
    {"tunnel": "back", "jungle": "morgan"}]
#: (tiles, pirates) of the variants short, escape and long; the complete escape's split
SIZES = {"escape": [(4, 4), (6, 6), (8, 6)], "tortuga": [(4, 4), (6, 6), (8, 6)],
         "complete": [({"tunnel": 3, "jungle": 3}, 4), ({"tunnel": 4, "jungle": 4}, 6)]}


def option_sets(route: str) -> list[dict[str, Any]]:
    """Every combination of the witch, Rascals and the draw mode on one route."""
    modes = DRAW_MODES if route == "complete" else DRAW_MODES[:3]
    combos = itertools.product([True, False], [True, False], modes)
    return [{"route": route, "witch": w, "rascals": r, "draw_mode": m} for w, r, m in combos]


def locations(state: State) -> list[int | str]:
    return [*PLACES, *range(len(state["squares"]) + 1)]


def candidates(state: State, seat: int) -> Iterator[Move]:
    """The move vocabulary of docs/rules/cartagena.md "Moves", every field value spelled out."""
    hand = sorted(state["hands"][str(seat)])
    everywhere = locations(state)
    yield from _actions(state, hand, everywhere)
    yield from _spells(state, seat, hand, everywhere)
    yield from _discards(hand)
    yield from _answers(state, hand)


def _actions(state: State, hand: list[str], everywhere: list[int | str]) -> Iterator[Move]:
    yield from ({"type": t} for t in ("sail", "pass", "end_turn"))
    for loc in everywhere:
        yield {"type": "back", "from": loc}
        yield from ({"type": "play", "card": c, "from": loc} for c in hand)
        yield from ({"type": "morgan", "seat": s, "from": loc} for s in range(state["n"] + 1))


def _spells(state: State, seat: int, hand: list[str], everywhere: list[int | str]
            ) -> Iterator[Move]:
    for card in hand:
        yield {"type": "spell", "cards": [card]}
        yield from ({"type": "spell", "cards": [card], "target": t} for t in range(state["n"]))
        yield from ({"type": "spell", "cards": [card], "from": loc} for loc in everywhere)
    own = [B.loc_value(k) for k in state["pirates"][str(seat)]]
    symbols = B.data_of(state).symbols
    for first, second in itertools.permutations(_two_of_each_kind(state, hand), 2):
        wild = symbols if symbol_of(first) == "parrot" else ()
        for loc in dict.fromkeys([*own, *PLACES]):
            yield {"type": "spell", "cards": [first, second], "from": loc}
            yield from ({"type": "spell", "cards": [first, second], "symbol": s, "from": loc}
                        for s in wild)


@functools.cache
def _kind(tile_data: str) -> dict[str, tuple[str, bool]]:
    """The equivalence: card id -> (symbol, whether the data set makes it dark). Cached, since
    `key` runs for every candidate."""
    data = DATASETS.load(tile_data)
    return {card: (symbol_of(card), card in data.dark) for card in data.cards}


def _two_of_each_kind(state: State, hand: list[str]) -> list[str]:
    """The two lowest cards of each kind in the hand: every pair of kinds, and of one kind."""
    kind = _kind(state["options"]["tile_data"])
    seen: dict[tuple[str, bool], int] = {}
    out = []
    for card in hand:
        seen[kind[card]] = seen.get(kind[card], 0) + 1
        if seen[kind[card]] <= 2:
            out.append(card)
    return out


def _discards(hand: list[str]) -> Iterator[Move]:
    yield {"type": "discard_random"}
    yield from ({"type": "discard", "cards": [c]} for c in hand)
    yield from ({"type": "discard", "cards": list(p)} for p in itertools.combinations(hand, 2))
    if hand:
        yield {"type": "discard", "cards": [hand[0], hand[0]]}
        yield {"type": "discard", "cards": hand}


def _answers(state: State, hand: list[str]) -> Iterator[Move]:
    for s in range(state["n"]):
        yield from ({"type": "pistol_take", "card": c} for c in state["hands"][str(s)])
    drawn = sorted((state.get("follow") or {}).get("drawn", []))
    for keep in drawn or hand[:1]:
        for size in range(len(drawn) + 1):
            for back in itertools.permutations(drawn, size):
                yield {"type": "lantern_keep", "keep": keep, "return": list(back)}


def key(state: State, seat: int, move: Move) -> Hashable:
    """A move up to the cards the rules cannot tell apart (see the module docstring)."""
    kind = _kind(state["options"]["tile_data"])
    t = move["type"]
    if t == "discard_random":
        return ANY_LISTED if state["phase"] == "discard" else (t,)
    if t == "discard":
        return t, kind[move["cards"][0]]
    if t == "play":
        return t, kind[move["card"]], move["from"]
    if t == "pistol_take":
        return t, kind[move["card"]]
    if t == "lantern_keep":
        return t, kind[move["keep"]], tuple(kind[c] for c in move["return"])
    if t == "spell":
        cards, spell = move["cards"], symbol_of(move["cards"][0])
        fields = tuple(move.get(f) for f in SPELL_FIELDS[spell])
        return t, spell, tuple(sorted(kind[c] for c in cards)), fields
    return t, move.get("seat"), move.get("from")


def options_of(route: str, game: int) -> tuple[dict[str, Any], int]:
    """Game `game` of a route: its options and seats. It takes combination 5 * game (mod their
    count, to which 5 is prime), so neighbouring games differ and any run of as many games as
    there are combinations plays each of them."""
    sets, sizes = option_sets(route), SIZES[route]
    tiles, crew = sizes[game % len(sizes)]
    return {**sets[5 * game % len(sets)], "tiles": tiles, "pirates": crew}, 2 + game % 4


@pytest.mark.parametrize("route", B.ROUTES)
def test_listing_is_exactly_what_check_accepts(route: str) -> None:
    spec = Completeness(ENGINE, candidates, key, rate=RATE)
    for game in range(games(4)):
        options, seats = options_of(route, game)
        spec.play(options, seats, seed=game)
    assert "action" in spec.compared, spec.compared


def test_discards_and_the_witchs_answers_are_compared() -> None:
    """They come up by chance: witch and Rascals games are played until each was compared."""
    spec = Completeness(ENGINE, candidates, key, rate=0.05)
    wanted = {"action", "discard", "pistol_take", "lantern_keep"}
    options = {"route": "complete", "witch": True, "rascals": True,
               "draw_mode": {"tunnel": "both", "jungle": "both"}}
    for seed in range(20):
        if wanted <= set(spec.compared):
            break
        spec.play(options, 4, seed)
    assert wanted <= set(spec.compared), spec.compared


def test_every_named_variant_is_among_the_combinations() -> None:
    """The cycle covers the variants' presets (given a long enough run)."""
    covered = [dict(o) for r in B.ROUTES for o in option_sets(r)]
    for variant in ENGINE.variants:
        opts = ENGINE.validate_options(dict(variant.options), 2)
        assert {k: opts[k] for k in ("route", "witch", "rascals", "draw_mode")} in covered
