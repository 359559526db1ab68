"""The war game's condition cards: the data set, its parsing and the predicates (§2.4, §8.2).

docs/rules/elfenland-war.md "Condition cards". The nine cards are house data: a file under
`data/` named by the `war-conditions` option, so a finished game replays with the cards it was
played with. A card holds two conditions; a condition holds when every predicate in it holds
for the card's holder at a check. The predicates (spec §2.4):

- `{"control": T}`: the holder has a unit in T;
- `{"control_all": [T...]}`: it controls every listed town;
- `{"control_at_least": k, "of": [T...]}`: at least k of the listed towns;
- `{"control_at_least": k, "except": [T...]}`: at least k towns not listed;
- `{"liberate": colour}`: a seat of that colour exists, is not the holder, and has no unit on the
  board; void (never true) if no seat has the colour or the holder has it;
- `{"kill_all": unit}`: no other seat has a unit of that type on the board.

`min_seats` voids a condition in games set up with fewer seats (the swineherds' first one).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engines.datasets import DataSets

DATA_DIR = Path(__file__).parent / "data"
DEFAULT = "elfenland_war_conditions"
PREDICATES = ("control", "control_all", "control_at_least", "liberate", "kill_all")


@dataclass(frozen=True)
class Condition:
    """One condition of a card: every predicate must hold; void below `min_seats` seats."""

    all: tuple[Mapping[str, Any], ...]
    min_seats: int


@dataclass(frozen=True)
class Card:
    """One condition card: its id, an English name, and its two conditions."""

    id: str
    name: str
    conditions: tuple[Condition, ...]


@dataclass(frozen=True)
class ConditionSet:
    """A parsed data set: the cards in file order (the order `war-condition-cards` shuffles)."""

    cards: tuple[Card, ...]

    def card(self, card_id: str) -> Card:
        """The card with this id (ids are checked when the set is parsed)."""
        for c in self.cards:
            if c.id == card_id:
                return c
        raise KeyError(card_id)


def _predicate(raw: Any) -> Mapping[str, Any]:
    if not isinstance(raw, dict):
        raise ValueError("a predicate is an object")
    kinds = [k for k in raw if k in PREDICATES]
    if len(kinds) != 1:
        raise ValueError(f"a predicate names exactly one of {list(PREDICATES)}: {raw!r}")
    kind = kinds[0]
    value = raw[kind]
    if kind in ("control", "liberate", "kill_all"):
        ok = isinstance(value, str) and set(raw) == {kind}
    elif kind == "control_all":
        ok = isinstance(value, list) and all(isinstance(t, str) for t in value) \
            and set(raw) == {kind}
    else:
        rest = set(raw) - {kind}
        towns = raw.get("of", raw.get("except"))
        ok = type(value) is int and value >= 1 and rest in ({"of"}, {"except"}) \
            and isinstance(towns, list) and all(isinstance(t, str) for t in towns)
    if not ok:
        raise ValueError(f"bad predicate {raw!r}")
    return dict(raw)


def parse_conditions(raw: Any) -> ConditionSet:
    """The `ConditionSet` of a data file; `ValueError` naming the first problem."""
    if not isinstance(raw, dict) or not isinstance(raw.get("cards"), list) or not raw["cards"]:
        raise ValueError("the file needs a non-empty 'cards' list")
    cards: list[Card] = []
    for c in raw["cards"]:
        if not isinstance(c, dict) or not isinstance(c.get("id"), str) or \
                not isinstance(c.get("conditions"), list) or not c["conditions"]:
            raise ValueError(f"bad card {c!r}")
        conds = []
        for cond in c["conditions"]:
            if not isinstance(cond, dict) or not isinstance(cond.get("all"), list) \
                    or not cond["all"]:
                raise ValueError(f"card {c['id']!r}: a condition needs an 'all' list")
            conds.append(Condition(tuple(_predicate(p) for p in cond["all"]),
                                   int(cond.get("min_seats", 0))))
        cards.append(Card(c["id"], str(c.get("name", c["id"])), tuple(conds)))
    if len({c.id for c in cards}) != len(cards):
        raise ValueError("card ids repeat")
    return ConditionSet(tuple(cards))


#: the shipped sets (`data/elfenland_war_conditions*.json`), named by `war-conditions`
CONDITION_SETS: DataSets[ConditionSet] = DataSets(
    DATA_DIR, DEFAULT, parse_conditions, prefix=DEFAULT)


def condition_set(name: str = DEFAULT) -> ConditionSet:
    """The condition cards named `name`; `invalid_options` if there is no such set."""
    return CONDITION_SETS.load(name)


def holds(card: Card, holder: int, owner: Mapping[str, int], colours: Sequence[str],
          present: Sequence[Mapping[str, int]], seats_at_setup: int) -> bool:
    """True if either condition of `card` holds for `holder` now (§8.2 point 3).

    `owner` maps each occupied town to its seat, `present[s]` is seat s's units on the board by
    type (empty: no unit), `colours[s]` the seat's colour.
    """
    for cond in card.conditions:
        if seats_at_setup < cond.min_seats:
            continue
        if all(_pred(p, holder, owner, colours, present) for p in cond.all):
            return True
    return False


def _pred(p: Mapping[str, Any], h: int, owner: Mapping[str, int], colours: Sequence[str],
          present: Sequence[Mapping[str, int]]) -> bool:
    if "control" in p:
        return owner.get(p["control"]) == h
    if "control_all" in p:
        return all(owner.get(t) == h for t in p["control_all"])
    if "control_at_least" in p:
        if "of" in p:
            n = sum(owner.get(t) == h for t in p["of"])
        else:
            skip = set(p["except"])
            n = sum(s == h and t not in skip for t, s in owner.items())
        return n >= p["control_at_least"]
    if "liberate" in p:
        colour = p["liberate"]
        if colour not in colours or colours[h] == colour:
            return False
        target = colours.index(colour)
        return not present[target]
    unit = p["kill_all"]
    return not any(present[s].get(unit) for s in range(len(present)) if s != h)
