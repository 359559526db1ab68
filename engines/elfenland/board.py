"""The Elfenland map as house data: towns, roads, lakes, the travel-cost chart, component counts.

docs/rules/elfenland.md "Board" (spec §2.1-§2.3). The map is never hard-coded: it lives in
`data/<name>.json` and is named by the `map_data` option, so a finished game replays with the map
it was played with. `parse_board` checks the file and turns it into a frozen `Board`, shared by
the race game and the war game (`engines.elfenland.war`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

from engines.datasets import DataSets

DATA_DIR = Path(__file__).parent / "data"
#: the shipped map, the default of the `map_data` option
DEFAULT = "elfenland-map-1"

LAND_TERRAINS = ("plains", "forest", "desert", "mountain")
WATER_TERRAINS = ("river", "lake")
TERRAINS = LAND_TERRAINS + WATER_TERRAINS
#: the land transport types in canonical order (§2.3): counter types, and card types minus raft
TRANSPORTS = ("giant_pig", "elfcycle", "magic_cloud", "unicorn", "troll_wagon", "dragon")
RAFT = "raft"


@dataclass(frozen=True)
class Road:
    """One road of the map (§2.1)."""

    #: the road's integer id (0-47 on the shipped map); moves name roads by it
    id: int
    #: one end; for a river the upstream end (leaving it costs 1 raft)
    a: str
    #: the other end; for a river the downstream end (leaving it costs 2 rafts)
    b: str
    #: one of `TERRAINS`: plains, forest, desert, mountain (land) or river, lake (water)
    terrain: str

    @property
    def land(self) -> bool:
        """True for plains, forest, desert and mountain: the roads that take counters."""
        return self.terrain in LAND_TERRAINS

    def other(self, town: str) -> str:
        """The end of the road that is not `town` (§1 "other(r, X)")."""
        return self.b if town == self.a else self.a

    def touches(self, town: str) -> bool:
        """True if `town` is one of the road's ends."""
        return town == self.a or town == self.b


@dataclass(frozen=True)
class Board:
    """A validated map file (§2.1-§2.3); every field is read-only and shared by all games."""

    #: every town id, in file order (the start town first on the shipped map)
    towns: tuple[str, ...]
    #: town id -> the name printed on the board (for texts)
    names: Mapping[str, str]
    #: town id -> other spellings seen in the sources (accepted nowhere; for documentation)
    aliases: Mapping[str, tuple[str, ...]]
    #: the start town, where every boot begins (`elvenhold`); it holds no town pieces
    start: str
    #: the towns holding town pieces (every town but the start), in file order
    piece_towns: tuple[str, ...]
    #: the towns with a town card (destination cards, war towns), in file order
    card_towns: tuple[str, ...]
    #: town id -> its gold value in Elfengold (unused by these games; kept from the file)
    gold_values: Mapping[str, int]
    #: every road, indexed by id (`roads[i].id == i`)
    roads: tuple[Road, ...]
    #: town id -> ids of the roads touching it, ascending
    roads_at: Mapping[str, tuple[int, ...]]
    #: lake name -> the towns on its shore (Mare Magnum, Mare Nebulae)
    lakes: Mapping[str, tuple[str, ...]]
    #: lake road id -> the name of its lake (a lake road joins two towns of one lake)
    lake_of: Mapping[int, str]
    #: transport type -> land terrain -> number of identical cards to use one road (§2.2);
    #: a terrain missing from a type's entry is forbidden to that type
    travel_cost: Mapping[str, Mapping[str, int]]
    #: raft cards for one water road: `river_downstream`, `river_upstream`, `lake`
    raft_cost: Mapping[str, int]
    #: cards a caravan pays on a road with a counter, without and with an obstacle (3, 4)
    caravan_cost: tuple[int, int]
    #: card type -> number of travel cards in the box (10 per land type, 12 rafts)
    card_counts: Mapping[str, int]
    #: counter type -> number of transportation counters in the box (8 per land type)
    counter_counts: Mapping[str, int]
    #: obstacles in the box (one per colour)
    obstacles: int
    #: town pieces per colour (one per piece town)
    pieces_per_colour: int
    #: the colours in the box, in the order seats get them by default
    colours: tuple[str, ...]
    #: the number of town cards (the towns of `card_towns`)
    town_cards: int

    def road(self, road_id: int) -> Road:
        """The road with this id (the caller has checked the id)."""
        return self.roads[road_id]

    def is_road(self, road_id: Any) -> bool:
        """True if `road_id` is an int naming a road of this map (bools are not ints here)."""
        return type(road_id) is int and 0 <= road_id < len(self.roads)


def _fail(message: str) -> ValueError:
    return ValueError(message)


def _freeze(mapping: dict) -> Mapping:
    return MappingProxyType(mapping)


def parse_board(data: Any) -> Board:
    """The `Board` of a map file; `ValueError` naming the first problem (§2.1)."""
    if not isinstance(data, dict):
        raise _fail("the file is not an object")
    towns_raw = data.get("towns")
    if not isinstance(towns_raw, list) or not towns_raw:
        raise _fail("no towns")
    towns: list[str] = []
    names: dict[str, str] = {}
    aliases: dict[str, tuple[str, ...]] = {}
    gold: dict[str, int] = {}
    starts: list[str] = []
    card_towns: list[str] = []
    piece_towns: list[str] = []
    for t in towns_raw:
        tid = t.get("id") if isinstance(t, dict) else None
        if not isinstance(tid, str) or not tid or tid in names:
            raise _fail(f"bad or repeated town id {tid!r}")
        towns.append(tid)
        names[tid] = str(t.get("name", tid))
        aliases[tid] = tuple(str(a) for a in t.get("aliases", []))
        gold[tid] = int(t.get("elfengold_gold_value", 0))
        if t.get("start"):
            starts.append(tid)
        if t.get("town_card"):
            card_towns.append(tid)
        if t.get("has_town_pieces"):
            piece_towns.append(tid)
    if len(starts) != 1:
        raise _fail("exactly one start town is needed")
    roads: list[Road] = []
    for i, r in enumerate(data.get("roads") or []):
        if not isinstance(r, dict) or r.get("id") != i:
            raise _fail(f"road {i} is missing or out of order")
        a, b, terrain = r.get("a"), r.get("b"), r.get("terrain")
        if a not in names or b not in names or a == b:
            raise _fail(f"road {i} joins unknown towns {a!r}, {b!r}")
        if terrain not in TERRAINS:
            raise _fail(f"road {i} has unknown terrain {terrain!r}")
        if terrain == "river" and r.get("downstream") != b:
            raise _fail(f"river road {i} must flow from a to b")
        roads.append(Road(i, a, b, terrain))
    if not roads:
        raise _fail("no roads")
    roads_at = {t: tuple(r.id for r in roads if r.touches(t)) for t in towns}
    lakes = {str(name): tuple(ts) for name, ts in (data.get("lakes") or {}).items()}
    lake_of: dict[int, str] = {}
    for r in roads:
        if r.terrain == "lake":
            owners = [n for n, ts in lakes.items() if r.a in ts and r.b in ts]
            if len(owners) != 1:
                raise _fail(f"lake road {r.id} belongs to no single lake")
            lake_of[r.id] = owners[0]
    chart = data.get("travel_cost") or {}
    travel_cost: dict[str, Mapping[str, int]] = {}
    for kind in TRANSPORTS:
        entry = chart.get(kind)
        if not isinstance(entry, dict) or any(
                k not in LAND_TERRAINS or type(v) is not int or v < 1 for k, v in entry.items()):
            raise _fail(f"travel_cost has no valid entry for {kind!r}")
        travel_cost[kind] = _freeze(dict(entry))
    raft = chart.get(RAFT) or {}
    raft_cost = {k: raft.get(k) for k in ("river_downstream", "river_upstream", "lake")}
    if any(type(v) is not int or v < 1 for v in raft_cost.values()):
        raise _fail("travel_cost.raft needs river_downstream, river_upstream and lake")
    caravan = chart.get("caravan_any_cards") or {}
    caravan_cost = (caravan.get("road_with_counter"), caravan.get("road_with_counter_and_obstacle"))
    if any(type(v) is not int for v in caravan_cost):
        raise _fail("travel_cost.caravan_any_cards is incomplete")
    comp = data.get("components") or {}
    cards = {k: v for k, v in (comp.get("travel_cards") or {}).items() if k != "total"}
    counters = {k: v for k, v in (comp.get("transportation_counters") or {}).items()
                if k != "total"}
    if set(cards) != set(TRANSPORTS) | {RAFT} or set(counters) != set(TRANSPORTS):
        raise _fail("components must count every card and counter type")
    colours = tuple(comp.get("colours") or ())
    if len(colours) < 6 or len(set(colours)) != len(colours):
        raise _fail("components.colours needs 6 distinct colours")
    return Board(
        towns=tuple(towns), names=_freeze(names), aliases=_freeze(aliases), start=starts[0],
        piece_towns=tuple(piece_towns), card_towns=tuple(card_towns), gold_values=_freeze(gold),
        roads=tuple(roads), roads_at=_freeze(roads_at), lakes=_freeze(lakes),
        lake_of=_freeze(lake_of), travel_cost=_freeze(travel_cost),
        raft_cost=_freeze(raft_cost), caravan_cost=(caravan_cost[0], caravan_cost[1]),
        card_counts=_freeze({k: cards[k] for k in (*TRANSPORTS, RAFT)}),
        counter_counts=_freeze({k: counters[k] for k in TRANSPORTS}),
        obstacles=int(comp.get("obstacles", 6)),
        pieces_per_colour=int(comp.get("town_pieces_per_colour", len(piece_towns))),
        colours=colours, town_cards=int(comp.get("town_cards", len(card_towns))),
    )


#: the shipped maps (`data/elfenland-map-*.json`), named by the `map_data` option
BOARDS: DataSets[Board] = DataSets(DATA_DIR, DEFAULT, parse_board, prefix="elfenland-map-")


def board(name: str = DEFAULT) -> Board:
    """The map named `name` (loaded once per process); `invalid_options` if there is none."""
    return BOARDS.load(name)
