"""The Elfenland map as SVG, and the pieces drawn on it: shared by the race's and the war's
pictures (`engines.elfenland.race.svg`, `engines.elfenland.war.svg`).

The map never changes during a game, so its markup (lakes, roads, towns) is built once per map
and reused; a picture then adds only what the view holds. Every road reads without colour: its
terrain has a colour *and* a stroke pattern *and* a letter, rivers carry an arrow downstream,
counters and obstacles are labelled boxes. Towns lie where the map's layout file
(`engines.elfenland.layout`) puts them, in the layout's box, which the picture places at
(0, `MAP_Y`). The pieces on the map and the panel under it are `engines.elfenland.pieces_svg`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from xml.sax.saxutils import escape

from engines.elfenland.board import board
from engines.elfenland.layout import Layout, Point, layout_for
from engines.svg import num

#: the picture's width, and where the map's box begins
WIDTH = 1000
MAP_Y = 58
#: terrain -> (letter, word): the letter sits on every road of that terrain
TERRAINS: Mapping[str, tuple[str, str]] = {
    "plains": ("P", "plains"), "forest": ("F", "forest"), "desert": ("D", "desert"),
    "mountain": ("M", "mountain"), "river": ("R", "river"), "lake": ("L", "lake"),
}
#: a boot colour of the box -> the palette entry (`engines.svg`) drawn for it, so that a
#: player who plays blue sees a blue token; each entry also has its own shape
BOOT_PALETTE: Mapping[str, int] = {
    "blue": 0, "orange": 1, "green": 2, "purple": 3, "yellow": 4, "red": 6, "black": 7,
}
STYLE = (
    "<style>"
    ".bg{fill:#FBFAF5}.land{fill:#F1EBD3;stroke:#8A7A55;stroke-width:1.5}"
    ".lake{fill:#BFDCF2;stroke:#5E95C4;stroke-width:1.5}"
    ".ln{font-size:11px;font-style:italic;fill:#2C5F8A;text-anchor:middle}"
    ".r{fill:none;stroke-width:5;stroke-linecap:round}"
    ".plains{stroke:#A5C24B}.forest{stroke:#2E7D32;stroke-dasharray:11 4}"
    ".desert{stroke:#D9A230;stroke-dasharray:0.1 7}"
    ".mountain{stroke:#7D5D4F;stroke-dasharray:12 3 3 3}"
    ".river{stroke:#2B7BD0;stroke-width:4}.lakeway{stroke:#2B7BD0;stroke-width:2.5;"
    "stroke-dasharray:7 5}"
    ".tl{fill:#FFFFFF;stroke:#555555;stroke-width:1}"
    ".tt{font-size:8.5px;font-weight:bold;fill:#222222;text-anchor:middle}"
    ".arrow{fill:#12467E}"
    ".town{fill:#FFFFFF;stroke:#222222;stroke-width:2}.start{fill:#FFF3B0}"
    ".tn{font-size:12.5px;font-weight:bold;fill:#1A1A1A;text-anchor:middle;"
    "stroke:#FBFAF5;stroke-width:3;paint-order:stroke;stroke-linejoin:round}"
    ".cb{stroke:#222222;stroke-width:1}.ct{font-size:9.5px;font-weight:bold;fill:#111111;"
    "text-anchor:middle}"
    ".giant_pig{fill:#F6BCC9}.elfcycle{fill:#BFD9EE}.magic_cloud{fill:#F2F2F2}"
    ".unicorn{fill:#DCCBF0}.troll_wagon{fill:#D9C6A2}.dragon{fill:#F5A27F}.raft{fill:#A9DCCF}"
    ".ob{fill:#6B4226;stroke:#C62828;stroke-width:2}.br{fill:#9E9E9E;stroke:#222222;"
    "stroke-width:1.5}.ot{font-size:9.5px;font-weight:bold;fill:#FFFFFF;text-anchor:middle}"
    ".visit{fill:none;stroke:#222222;stroke-width:2;stroke-dasharray:4 2.5}"
    ".goal{fill:none;stroke:#222222;stroke-width:2;stroke-dasharray:2 2}"
    ".cap{fill:none;stroke:#000000;stroke-width:3.5}"
    ".star{fill:#FFD54F;stroke:#222222;stroke-width:1}"
    ".sel{fill:none;stroke:#F0E442;stroke-width:13;stroke-opacity:0.85;stroke-linecap:round}"
    ".fight{fill:none;stroke:#000000;stroke-width:2.5;stroke-dasharray:7 4}"
    ".h{font-size:16px;font-weight:bold;fill:#111111}.t{font-size:13px;fill:#111111}"
    ".s{font-size:11.5px;fill:#222222}.b{font-weight:bold}.k{font-size:11px;fill:#333333}"
    ".hd{font-size:13px;font-weight:bold;fill:#111111}"
    ".card{stroke:#333333;stroke-width:1}.cn{font-size:10px;font-weight:bold;fill:#111111;"
    "text-anchor:middle}"
    ".rule{stroke:#CCC3A5;stroke-width:1}"
    "</style>"
)


@dataclass(frozen=True)
class Shape:
    """One road as drawn: from `a` to `b`, bowed through the control point `c` (or straight)."""

    a: Point
    b: Point
    c: Point | None
    length: float

    def at(self, t: float) -> Point:
        """The point a share `t` of the way from `a` to `b`."""
        (ax, ay), (bx, by) = self.a, self.b
        if self.c is None:
            return ax + (bx - ax) * t, ay + (by - ay) * t
        cx, cy = self.c
        u = 1 - t
        return (u * u * ax + 2 * u * t * cx + t * t * bx, u * u * ay + 2 * u * t * cy + t * t * by)

    def heading(self, t: float) -> float:
        """The direction of travel at `t` (radians, y down)."""
        (ax, ay), (bx, by) = self.a, self.b
        if self.c is None:
            return math.atan2(by - ay, bx - ax)
        cx, cy = self.c
        dx = 2 * (1 - t) * (cx - ax) + 2 * t * (bx - cx)
        dy = 2 * (1 - t) * (cy - ay) + 2 * t * (by - cy)
        return math.atan2(dy, dx)

    def path(self) -> str:
        (ax, ay), (bx, by) = self.a, self.b
        if self.c is None:
            return f"M{num(ax)} {num(ay)}L{num(bx)} {num(by)}"
        return f"M{num(ax)} {num(ay)}Q{num(self.c[0])} {num(self.c[1])} {num(bx)} {num(by)}"


@cache
def shapes(map_name: str) -> dict[int, Shape]:
    """Every road's shape: the layout's bends, and roads that share both ends and have no bend
    of the layout's bowed apart (so that a map without a layout stays legible)."""
    the_map, lay = board(map_name), layout_for(map_name)
    seen: dict[frozenset[str], int] = {}
    out = {}
    for road in the_map.roads:
        ends = frozenset((road.a, road.b))
        bend = lay.bends.get(road.id)
        if bend is None:
            bend = 0.0 if ends not in seen else (14.0 if seen[ends] % 2 else -14.0)
        seen[ends] = seen.get(ends, 0) + 1
        (ax, ay), (bx, by) = lay.towns[road.a], lay.towns[road.b]
        length = math.hypot(bx - ax, by - ay) or 1.0
        control = None
        if bend:
            nx, ny = -(by - ay) / length, (bx - ax) / length
            control = ((ax + bx) / 2 + 2 * bend * nx, (ay + by) / 2 + 2 * bend * ny)
        out[road.id] = Shape((ax, ay), (bx, by), control, length)
    return out


def town_name(map_name: str, town: str) -> str:
    return board(map_name).names.get(town, town)


def road_name(map_name: str, road: int) -> str:
    """"Feodor–Rivinia (forest)": a road as a player finds it on the map."""
    r = board(map_name).roads[road]
    return f"{town_name(map_name, r.a)}\u2013{town_name(map_name, r.b)} ({r.terrain})"


def arrow(x: float, y: float, angle: float, size: float = 7.0) -> str:
    """A small filled triangle at (x, y) pointing along `angle` (a river's flow)."""
    pts = []
    for turn, r in ((0.0, size), (2.5, size * 0.8), (-2.5, size * 0.8)):
        pts.append(f"{num(x + r * math.cos(angle + turn))},{num(y + r * math.sin(angle + turn))}")
    return f'<polygon class="arrow" points="{" ".join(pts)}"/>'


def terrain_mark(x: float, y: float, terrain: str) -> str:
    """The terrain's letter in a small disc, so that a road reads without its colour."""
    letter = TERRAINS.get(terrain, ("?", terrain))[0]
    return (f'<circle class="tl" cx="{num(x)}" cy="{num(y)}" r="6.5"/>'
            f'<text class="tt" x="{num(x)}" y="{num(y + 3)}">{letter}</text>')


def label_y(lay: Layout, town: str) -> float:
    """The label's baseline: above the town or below it."""
    y = lay.towns[town][1]
    return y - 14 if town in lay.labels_above else y + 24


def base_map(map_name: str) -> str:
    """The map's markup in its own box: `ground` then `network`."""
    return ground(map_name) + network(map_name)


@cache
def ground(map_name: str) -> str:
    """The land and the lakes with their names."""
    lay = layout_for(map_name)
    parts = [f'<rect class="land" x="2" y="2" width="{num(lay.width - 4)}" '
             f'height="{num(lay.height - 4)}" rx="10"/>']
    for name in sorted(lay.lakes):
        shore = lay.lakes[name]
        parts.append(f'<polygon class="lake" points="'
                     f'{" ".join(f"{num(x)},{num(y)}" for x, y in shore)}"><title>'
                     f'{escape(name)}</title></polygon>')
        cx = sum(x for x, _ in shore) / len(shore)
        cy = sum(y for _, y in shore) / len(shore)
        parts.append(f'<text class="ln" x="{num(cx)}" y="{num(cy + 4)}">{escape(name)}</text>')
    return "".join(parts)


@cache
def network(map_name: str) -> str:
    """Roads with their terrain marks and river arrows, then the towns and their names (one
    `<g id="towns">` holding a `tn` label per town). Each road's path carries
    `data-pick="road:<id>"`: what the web client's click lands on (docs/client.md). All of it
    in one `<g data-layer="static">`, the same in every picture of the map: a hint that a
    drawing to pixels (the mailed PNG) may keep it drawn."""
    the_map, lay = board(map_name), layout_for(map_name)
    marks = []
    parts = ['<g data-layer="static"><g id="roads">']
    for road in the_map.roads:
        shape = shapes(map_name)[road.id]
        cls = "lakeway" if road.terrain == "lake" else road.terrain
        parts.append(f'<path class="r {cls}" d="{shape.path()}" data-pick="road:{road.id}">'
                     f'<title>'
                     f'{escape(road_name(map_name, road.id))}</title></path>')
        t = max(0.22, 0.5 - 26 / shape.length)
        marks.append(terrain_mark(*shape.at(t), road.terrain))
        if road.terrain == "river":
            marks.append(arrow(*shape.at(0.5), shape.heading(0.5)))
    parts.append("</g>")
    parts.extend(marks)
    parts.append('<g id="towns">')
    for town in the_map.towns:
        x, y = lay.towns[town]
        name = escape(the_map.names[town])
        if town == the_map.start:
            parts.append(f'<circle class="town start" cx="{num(x)}" cy="{num(y)}" r="11"/>'
                         f'<circle class="town" cx="{num(x)}" cy="{num(y)}" r="5"/>')
        else:
            parts.append(f'<circle class="town" cx="{num(x)}" cy="{num(y)}" r="8"/>')
        parts.append(f'<text class="tn" x="{num(x)}" y="{num(label_y(lay, town))}">'
                     f'{name}</text>')
    parts.append("</g></g>")
    return "".join(parts)


def palette(colours: Sequence[str]) -> list[int]:
    """The palette entry drawn for each player: their boot colour's where every colour is
    known and distinct, else one per player in order."""
    picks = [BOOT_PALETTE.get(str(c), -1) for c in colours]
    if -1 in picks or len(set(picks)) != len(picks):
        return list(range(len(colours)))
    return picks
