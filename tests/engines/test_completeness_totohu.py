"""Totohu: `legal_moves` lists exactly the moves `check` accepts (issue 58 point 7).

The whole move vocabulary of docs/rules/totohu.md is enumerated at every compared decision,
whatever its kind, so a move of the wrong phase must be refused too (the `order` lists only at
`order` decisions; elsewhere the six orders of three distinct pairs stand for them):

- `play`: every ship id of the fleet data and one unknown id, each without `hide`, with
  `hide: false` and with `hide: true`;
- `order`: every list of three pairs of seats 0-2 (each pair ordered either way, repeats and a
  seat paired with itself included: 729 lists), every list of two pairs, and lists of four;
- `raid`: `shoot`, `rob` and an unknown action.

Equivalence: `hide` absent is `hide: false` (its default), and an encounter is a pair of seats
whichever is named first (`apply` fights `[1, 0]` as `[0, 1]`). `resign` is always accepted and
never listed (the contract), so it is not a candidate. Every option set at 1, 2 and 3 seats.
"""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Iterator

import pytest

from engines.contract import Move, State
from engines.totohu import ENGINE
from engines.totohu.fleet import load_fleet
from tests.engines.completeness import Completeness, games

SEATS = range(3)
PAIRS = [[a, b] for a in SEATS for b in SEATS]
OPTION_SETS = [{"hidden_treasure": t, "blind": b}
               for t, b in itertools.product([False, True], repeat=2)]


def _orders() -> list[list[list[int]]]:
    three = [list(p) for p in itertools.product(PAIRS, repeat=3)]
    two = [list(p) for p in itertools.product(PAIRS, repeat=2)]
    distinct = [[0, 1], [0, 2], [1, 2]]
    four = [[*p, p[0]] for p in itertools.permutations(distinct)]
    return three + two + four


ORDERS = _orders()
#: the orders a three-seat round could take: the wrong-phase probes of the other decisions
PLAUSIBLE = [list(map(list, p)) for p in itertools.permutations([[0, 1], [0, 2], [1, 2]])]


def candidates(state: State, seat: int) -> Iterator[Move]:
    """The move vocabulary of docs/rules/totohu.md "Moves", every field value spelled out."""
    ships = [t.id for t in load_fleet(state["options"]["fleet_data"]).ships]
    for ship in [*ships, "zz"]:
        yield {"type": "play", "ship": ship}
        for hide in (False, True):
            yield {"type": "play", "ship": ship, "hide": hide}
    for pairs in ORDERS if ENGINE.decision(state)["step_kind"] == "order" else PLAUSIBLE:
        yield {"type": "order", "pairs": [list(p) for p in pairs]}
    for action in ("shoot", "rob", "sink"):
        yield {"type": "raid", "action": action}


def key(state: State, seat: int, move: Move) -> Hashable:
    kind = move["type"]
    if kind == "play":
        return kind, move["ship"], bool(move.get("hide", False))
    if kind == "order":
        return kind, tuple(tuple(sorted(p)) for p in move["pairs"])
    return kind, move["action"]


@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: "-".join(k for k in o if o[k])
                         or "base")
@pytest.mark.parametrize("seats", [1, 2, 3])
def test_listing_is_exactly_what_check_accepts(options: dict, seats: int) -> None:
    spec = Completeness(ENGINE, candidates, key, rate=0.5)
    for seed in range(games(5)):
        spec.play(options, seats, seed)
    expected = {"choose"} | ({"order"} if seats == 3 else set()) | (
        {"raid"} if options["hidden_treasure"] else set())
    assert expected <= set(spec.compared), spec.compared
