"""Störtebeker's house data: ships, action cards, colour-die faces (docs/rules/stortebeker.md).

The rulebook prints no ship list, so ships, the six provision kinds, which provision cards carry
the pirate symbol and the colour of each die face are HOUSE DATA in
`data/stortebeker-<name>.json`, named by the `card_data` option (contract v2 point 9): printed
cards can replace them as a new file without touching code or breaking finished games.
`parse_data` checks a file completely and builds a frozen `CardData`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engines.datasets import DataSets

DATA_DIR = Path(__file__).parent / "data"
DEFAULT = "stortebeker-house-1"
PIRATE = "pirate"
_ID = re.compile(r"[a-z0-9][a-z0-9-]{0,31}")


@dataclass(frozen=True)
class Ship:
    id: str
    colour: str
    points: int
    defence: int
    #: provision kind -> cards of it the ship needs
    requires: dict[str, int]
    #: how many provision cards complete the ship
    needed: int


@dataclass(frozen=True)
class Card:
    """An action card: a provision of `kind` (maybe with the pirate symbol) or a pirate."""

    id: str
    kind: str
    symbol: bool
    #: what it adds to an attack: the pirate's value, 1 for a symbol, else 0
    value: int

    @property
    def is_pirate(self) -> bool:
        return self.kind == PIRATE


@dataclass(frozen=True)
class CardData:
    id: str
    ships: dict[str, Ship]
    cards: dict[str, Card]
    #: shuffle input orders (spec §10 point 20): data-file order
    ship_order: tuple[str, ...]
    card_order: tuple[str, ...]
    kinds: tuple[str, ...]
    #: colour-die face (1-6) -> provision kind
    face: dict[int, str]


def parse_data(raw: Any) -> CardData:
    """Check a data file (every problem is a `ValueError` naming it) and build `CardData`."""
    if not isinstance(raw, dict) or set(raw) != {"id", "ships", "provisions", "pirates",
                                                 "colour_die"}:
        raise ValueError("a data file has exactly: id, ships, provisions, pirates, colour_die")
    die = raw["colour_die"]
    if not isinstance(die, dict) or sorted(die) != [str(f) for f in range(1, 7)]:
        raise ValueError("colour_die maps the faces '1'..'6' to provision kinds")
    face = {int(f): kind for f, kind in die.items()}
    kinds = tuple(face[f] for f in range(1, 7))
    if len(set(kinds)) != 6 or not all(isinstance(k, str) and _ID.fullmatch(k) for k in kinds):
        raise ValueError("the six die faces name six different provision kinds")
    cards: dict[str, Card] = {}
    for p in _list(raw["provisions"], "provisions"):
        if set(p) != {"id", "kind", "symbol"} or p["kind"] not in kinds \
                or not isinstance(p["symbol"], bool):
            raise ValueError(f"provision {p!r}: id, kind (a die kind), symbol (bool)")
        if str(p["id"]).startswith(PIRATE):
            raise ValueError(f"provision {p['id']!r}: only pirate ids start with 'pirate'")
        _add(cards, Card(_card_id(p["id"]), p["kind"], p["symbol"], int(p["symbol"])))
    for p in _list(raw["pirates"], "pirates"):
        value = p.get("value") if isinstance(p, dict) else None
        if set(p) != {"id", "value"} or not isinstance(value, int) or not 1 <= value <= 9:
            raise ValueError(f"pirate {p!r}: id and value 1-9")
        if not str(p["id"]).startswith(PIRATE):
            raise ValueError(f"pirate {p['id']!r}: pirate ids start with 'pirate' (a move "
                             "placing one is secret, and secrecy is read from the move)")
        _add(cards, Card(_card_id(p["id"]), PIRATE, False, value))
    ships: dict[str, Ship] = {}
    for s in _list(raw["ships"], "ships"):
        if set(s) != {"id", "colour", "points", "defence", "requires"}:
            raise ValueError(f"ship {s!r}: id, colour, points, defence, requires")
        req = s["requires"]
        if not isinstance(req, dict) or not req or any(
                k not in kinds or not isinstance(n, int) or n < 1 for k, n in req.items()):
            raise ValueError(f"ship {s['id']!r}: requires maps provision kinds to counts >= 1")
        if sum(req.values()) > 4:
            raise ValueError(f"ship {s['id']!r} needs more than 4 cards (a counter-attack "
                             "adds at most 3 to one)")
        if s["id"] in ships or not _ID.fullmatch(str(s["id"])):
            raise ValueError(f"ship id {s['id']!r} is invalid or repeated")
        if not all(isinstance(s[f], int) and s[f] >= 1 for f in ("points", "defence")):
            raise ValueError(f"ship {s['id']!r}: points and defence are integers >= 1")
        ships[s["id"]] = Ship(s["id"], str(s["colour"]), s["points"], s["defence"], dict(req),
                              sum(req.values()))
    if len(ships) < 7:
        raise ValueError("at least 7 ships (4 at sea and a harbour)")
    if len(cards) < 30:
        raise ValueError("at least 30 action cards (four hands of 6 and a deck)")
    return CardData(raw["id"], ships, cards, tuple(ships), tuple(cards), kinds, face)


def _list(value: Any, what: str) -> list[Any]:
    if not isinstance(value, list) or not value:
        raise ValueError(f"{what} is a non-empty list")
    return value


def _card_id(value: Any) -> str:
    if not isinstance(value, str) or not _ID.fullmatch(value):
        raise ValueError(f"card id {value!r} is invalid")
    return value


def _add(cards: dict[str, Card], card: Card) -> None:
    if card.id in cards:
        raise ValueError(f"card id {card.id!r} is repeated")
    cards[card.id] = card


DATASETS: DataSets[CardData] = DataSets(DATA_DIR, DEFAULT, parse_data, prefix="stortebeker-")


def card_data(name: str) -> CardData:
    """The (cached) data set of a game."""
    return DATASETS.load(name)
