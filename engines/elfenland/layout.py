"""Where the board picture draws each town of a map: house data, like the map itself.

A map file (`data/elfenland-map-*.json`) says which towns and roads exist, not where they lie; a
layout file (`data/elfenland-layout-*.json`) places the towns of one map in a fixed coordinate
box, bends the roads that would otherwise lie on top of each other, says which towns carry their
label above rather than below, and outlines the lakes. The picture takes the layout whose `map`
is the map the view's options name, so a finished game is drawn as it was; a map without a
layout is drawn on a circle (legible, if not pretty). Shipped layout files never change either.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from types import MappingProxyType
from typing import Any

from engines.datasets import DataSets
from engines.elfenland.board import DATA_DIR, Board, board

Point = tuple[float, float]


@dataclass(frozen=True)
class Layout:
    """A validated layout file: coordinates in a box `width` x `height`, y pointing down."""

    #: the map (`map_data` value) this layout draws
    map: str
    width: float
    height: float
    #: town id -> its centre
    towns: Mapping[str, Point]
    #: towns whose label goes above the town (the rest: below)
    labels_above: frozenset[str]
    #: road id -> how far its midpoint bows out of the straight line: positive to the right
    #: of the way from `a` to `b` as drawn (y down), negative to the left
    bends: Mapping[int, float]
    #: lake name -> its shore as a polygon
    lakes: Mapping[str, tuple[Point, ...]]


def _point(raw: Any, what: str) -> Point:
    if not (isinstance(raw, list) and len(raw) == 2
            and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in raw)):
        raise ValueError(f"{what} is not an [x, y] pair")
    return float(raw[0]), float(raw[1])


def parse_layout(data: Any) -> Layout:
    """The `Layout` of a layout file; `ValueError` naming the first problem."""
    if not isinstance(data, dict) or not isinstance(data.get("map"), str):
        raise ValueError("a layout names its 'map'")
    width, height = _point(data.get("size"), "size")
    towns_raw = data.get("towns")
    if not isinstance(towns_raw, dict) or not towns_raw:
        raise ValueError("a layout places its 'towns'")
    towns = {str(t): _point(p, f"town {t!r}") for t, p in towns_raw.items()}
    above = data.get("labels_above", [])
    if not isinstance(above, list) or any(t not in towns for t in above):
        raise ValueError("labels_above names towns of the layout")
    bends_raw = data.get("bends", {})
    if not isinstance(bends_raw, dict) or any(
            not k.isdigit() or not isinstance(v, (int, float)) for k, v in bends_raw.items()):
        raise ValueError("bends map road ids to numbers")
    lakes = {str(name): tuple(_point(p, f"lake {name!r}") for p in shore)
             for name, shore in (data.get("lakes") or {}).items()}
    return Layout(
        map=data["map"], width=width, height=height, towns=MappingProxyType(towns),
        labels_above=frozenset(above),
        bends=MappingProxyType({int(k): float(v) for k, v in bends_raw.items()}),
        lakes=MappingProxyType(lakes))


#: the shipped layouts (`data/elfenland-layout-*.json`)
LAYOUTS: DataSets[Layout] = DataSets(DATA_DIR, "elfenland-layout-1", parse_layout,
                                     prefix="elfenland-layout-")


@cache
def layout_for(board_name: str) -> Layout:
    """The shipped layout of the map `board_name` (the first by name that places every town),
    or the towns on a circle where none does."""
    the_map = board(board_name)
    for name in LAYOUTS.names:
        found = LAYOUTS.load(name)
        if found.map == board_name and set(the_map.towns) <= set(found.towns):
            return found
    return _circle(board_name, the_map)


def _circle(board_name: str, board: Board) -> Layout:
    """Every town on one circle, in file order: a fallback that is legible, if not pretty."""
    size, radius = 1000.0, 420.0
    step = 2 * math.pi / len(board.towns)
    towns = {t: (size / 2 + radius * math.cos(i * step - math.pi / 2),
                 size * 0.32 + radius * 0.62 * math.sin(i * step - math.pi / 2))
             for i, t in enumerate(board.towns)}
    return Layout(map=board_name, width=size, height=size * 0.64,
                  towns=MappingProxyType(towns), labels_above=frozenset(),
                  bends=MappingProxyType({}), lakes=MappingProxyType({}))
