"""Cartagena's house data: the tile sequences, the card set and the chest tokens (spec §2).

The rulebook prints neither the symbol order of the eight double-sided tiles nor the treasure
values, so both are HOUSE DATA in `data/cartagena-<name>.json`, named by the `tile_data` option
(contract v2 point 9). `parse_data` checks a file and builds a frozen `TileData`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engines.datasets import DataSets

DATA_DIR = Path(__file__).parent / "data"
DEFAULT = "cartagena-house-1"


@dataclass(frozen=True)
class TileData:
    id: str
    symbols: tuple[str, ...]
    #: tile number (1-based) -> side ("tunnel" | "jungle") -> 6 symbols, p1..p6
    tiles: dict[int, dict[str, tuple[str, ...]]]
    #: every card id in shuffle input order (§3 step 4): by symbol, then 01..17
    cards: tuple[str, ...]
    dark: frozenset[str]
    #: chest token id -> cards its opener draws
    chests: dict[str, int]
    #: card id -> (symbol, dark): the kind that makes two cards interchangeable
    kind: dict[str, tuple[str, bool]]


def parse_data(raw: Any) -> TileData:
    if not isinstance(raw, dict) or set(raw) != {"id", "symbols", "cards_per_symbol",
                                                 "dark_per_symbol", "tiles", "chest_tokens"}:
        raise ValueError("a data file has id, symbols, cards_per_symbol, dark_per_symbol, "
                         "tiles and chest_tokens")
    symbols = raw["symbols"]
    if not isinstance(symbols, list) or len(symbols) != 6 or len(set(symbols)) != 6:
        raise ValueError("six different symbols")
    per, dark = raw["cards_per_symbol"], raw["dark_per_symbol"]
    if not (isinstance(per, int) and isinstance(dark, int) and 1 <= dark <= per <= 99):
        raise ValueError("cards_per_symbol and dark_per_symbol are integers, dark <= cards")
    tiles: dict[int, dict[str, tuple[str, ...]]] = {}
    for t in raw["tiles"]:
        sides = {side: tuple(t.get(side, ())) for side in ("tunnel", "jungle")}
        if any(sorted(s) != sorted(symbols) for s in sides.values()) or t.get("tile") in tiles:
            raise ValueError(f"tile {t.get('tile')!r}: each side is a permutation of the "
                             "six symbols, tile numbers distinct")
        tiles[int(t["tile"])] = sides
    if sorted(tiles) != list(range(1, 9)):
        raise ValueError("eight tiles numbered 1-8")
    cards = tuple(f"{s}-{i:02d}" for s in symbols for i in range(1, per + 1))
    chests = {c["id"]: int(c["draw"]) for c in raw["chest_tokens"]}
    darks = frozenset(f"{s}-{i:02d}" for s in symbols for i in range(1, dark + 1))
    kind = {c: (symbol_of(c), c in darks) for c in cards}
    return TileData(raw["id"], tuple(symbols), tiles, cards, darks, chests, kind)


DATASETS: DataSets[TileData] = DataSets(DATA_DIR, DEFAULT, parse_data, prefix="cartagena-")


def symbol_of(card: str) -> str:
    """`rum-05` -> `rum` (card ids are `<symbol>-<nn>`, §2.2)."""
    return card.rsplit("-", 1)[0]
