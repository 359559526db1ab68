"""What the war game derives from the shared map: unit terrains, exits, paths (§2.4, §5.4, §5.5).

docs/rules/elfenland-war.md "Movement". Built once per map from the public fields of
`engines.elfenland.board.Board` and the chart reading of `engines.elfenland.cards`, then cached:
the rules only look things up, so `legal_moves` never searches the map.

- A unit of type t may use a land road of terrain X iff the chart has an entry for (t, X) (§2.4).
- `exits[F]`: every road at F as (road, other end, terrain, rafts per unit leaving F; 0 on land).
- `paths[F]`: every path of a movement from F: one road, or two connected roads of one terrain
  whose end is not F (§5.4), with the rafts per unit it costs (0 on land).
- `between[F][T]`: the roads joining F and T (a repeated attack may use any of them, §5.5).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from types import MappingProxyType

from engines.elfenland.board import RAFT, TRANSPORTS, Board, board
from engines.elfenland.cards import cost

#: the unit types, in canonical order: the land transports without the magic cloud (§2.4)
UNIT_TYPES: tuple[str, ...] = tuple(t for t in TRANSPORTS if t != "magic_cloud")
CLOUD = "magic_cloud"
TRUNK = "trunk"


@dataclass(frozen=True)
class Exit:
    """One road leaving a town: where it goes and what a unit pays to take it."""

    road: int
    to: str
    terrain: str
    land: bool
    #: raft cards one unit pays to cross it leaving this town (0 on land)
    rafts: int


@dataclass(frozen=True)
class Path:
    """One path of a movement: `roads` (1 or 2), the middle town (or None) and the end."""

    roads: tuple[int, ...]
    mid: str | None
    to: str
    terrain: str
    land: bool
    #: raft cards one unit pays for the whole path (0 on land)
    rafts: int


@dataclass(frozen=True)
class WarMap:
    """The war's view of one map, with everything the rules look up."""

    board: Board
    #: unit type -> land terrains it may use
    terrains: Mapping[str, frozenset[str]]
    #: unit type -> land terrain -> chart cost of one road (the double move pays twice this)
    chart: Mapping[str, Mapping[str, int]]
    exits: Mapping[str, tuple[Exit, ...]]
    paths: Mapping[str, tuple[Path, ...]]
    between: Mapping[str, Mapping[str, tuple[int, ...]]]
    #: the land roads, ascending (where trunks may lie)
    land_roads: tuple[int, ...]

    def unit_may(self, unit: str, terrain: str) -> bool:
        """True if `unit` may use a land road of `terrain` (§2.4)."""
        return terrain in self.terrains[unit]


@cache
def war_map(name: str) -> WarMap:
    """The cached `WarMap` of the map data set `name`."""
    b = board(name)
    terrains = {u: frozenset(b.travel_cost[u]) for u in UNIT_TYPES}
    chart = {u: MappingProxyType(dict(b.travel_cost[u])) for u in UNIT_TYPES}
    exits: dict[str, tuple[Exit, ...]] = {}
    for town in b.towns:
        out = []
        for rid in b.roads_at[town]:
            road = b.road(rid)
            rafts = 0 if road.land else int(cost(b, road, RAFT, town) or 0)
            out.append(Exit(rid, road.other(town), road.terrain, road.land, rafts))
        exits[town] = tuple(out)
    paths: dict[str, tuple[Path, ...]] = {}
    between: dict[str, dict[str, tuple[int, ...]]] = {}
    for town in b.towns:
        out_paths: list[Path] = []
        near: dict[str, list[int]] = {}
        for e in exits[town]:
            near.setdefault(e.to, []).append(e.road)
            out_paths.append(Path((e.road,), None, e.to, e.terrain, e.land, e.rafts))
            for e2 in exits[e.to]:
                if e2.terrain == e.terrain and e2.to != town:
                    out_paths.append(Path((e.road, e2.road), e.to, e2.to, e.terrain, e.land,
                                          e.rafts + e2.rafts))
        paths[town] = tuple(out_paths)
        between[town] = {t: tuple(rs) for t, rs in near.items()}
    return WarMap(
        board=b,
        terrains=MappingProxyType(terrains),
        chart=MappingProxyType(chart),
        exits=MappingProxyType(exits),
        paths=MappingProxyType(paths),
        between=MappingProxyType({t: MappingProxyType(v) for t, v in between.items()}),
        land_roads=tuple(r.id for r in b.roads if r.land),
    )
