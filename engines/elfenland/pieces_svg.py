"""The pieces of an Elfenland picture: counters, cards and markers, the panel under the map,
and the key; shared by the race's and the war's pictures.

Counters and units are small boxes with three letters (`ABBR`) as well as a colour, cards show
their letters and how many are held, obstacles, bridges and trunks are labelled boxes beside a
road's counter. The panel's right column is a list of sections, each with its height, so that
a picture knows its height before it is drawn.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from xml.sax.saxutils import escape

from engines.elfenland.board import board
from engines.elfenland.cards import CARD_TYPES
from engines.elfenland.layout import Layout, Point, layout_for
from engines.elfenland.map_svg import MAP_Y, STYLE, TERRAINS, WIDTH, arrow, shapes, terrain_mark
from engines.sentences import words
from engines.svg import Svg, initials, num, player_names

#: card and counter type -> the three letters its boxes carry
ABBR: Mapping[str, str] = {
    "giant_pig": "Pig", "elfcycle": "Cyc", "magic_cloud": "Cld", "unicorn": "Uni",
    "troll_wagon": "Trl", "dragon": "Drg", "raft": "Raf",
}
#: the panel under the map: its two columns, and the characters a line of small text holds
LEFT, RIGHT = 14, 512
LINE_CHARS = 74

Section = tuple[float, Callable[[Svg, float], None]]


def chip(x: float, y: float, kind: str, title: str | None = None) -> str:
    """A counter (or unit) as a small labelled box centred on (x, y)."""
    tip = f"<title>{escape(title)}</title>" if title else ""
    return (f'<g>{tip}<rect class="cb {kind}" x="{num(x - 15)}" y="{num(y - 8)}" width="30" '
            f'height="16" rx="3"/><text class="ct" x="{num(x)}" y="{num(y + 3.5)}">'
            f'{ABBR.get(kind, "?")}</text></g>')


def chips(x: float, y: float, kinds: Iterable[str], title: str = "") -> tuple[str, float]:
    """Counters in a row from (x, y) (their centre line); returns the markup and the x after."""
    parts = []
    for kind in kinds:
        parts.append(chip(x + 15, y, kind, f"{words(kind)}{title}"))
        x += 33
    return "".join(parts), x


def card(x: float, y: float, kind: str, count: int) -> str:
    """A travel card type held `count` times: a small card with its letters and the count."""
    return (f'<g><title>{count} {escape(words(kind))} card{"s" if count != 1 else ""}</title>'
            f'<rect class="card {kind}" x="{num(x)}" y="{num(y)}" width="40" height="34" '
            f'rx="4"/><text class="cn" x="{num(x + 20)}" y="{num(y + 14)}">'
            f'{ABBR.get(kind, "?")}</text><text class="cn" x="{num(x + 20)}" '
            f'y="{num(y + 28)}">\u00d7{count}</text></g>')


def cards_row(x: float, y: float, hand: Mapping[str, int]) -> tuple[str, float]:
    """A hand's card types in the canonical order, with counts; returns markup and x after."""
    parts = []
    for kind in sorted(hand, key=card_order):
        if hand[kind] > 0:
            parts.append(card(x, y, kind, int(hand[kind])))
            x += 44
    return "".join(parts), x


def card_order(kind: str) -> tuple[int, str]:
    """Sort key: the canonical order of card types, anything else after them."""
    return (CARD_TYPES.index(kind) if kind in CARD_TYPES else len(CARD_TYPES), kind)


def expand(multiset: Mapping[str, int]) -> list[str]:
    """{"dragon": 2, "raft": 1} -> ["dragon", "dragon", "raft"], in the canonical order."""
    return [k for k in sorted(multiset, key=card_order) for _ in range(int(multiset[k]))]


def tally(multiset: Mapping[str, int]) -> str:
    """"2 dragon, 1 raft" in the canonical order ("none" for nothing)."""
    return ", ".join(f"{multiset[k]} {words(k)}" for k in sorted(multiset, key=card_order)
                     if multiset[k]) or "none"


def road_box(map_name: str, road: int, kind: str, title: str) -> str:
    """A counter lying on a road: its box on the road's midpoint."""
    x, y = shapes(map_name)[road].at(0.5)
    return chip(x, y, kind, title)


def marker_box(map_name: str, road: int, cls: str, label: str, title: str,
               toward: str | None = None, beside: bool = True) -> str:
    """An obstacle, bridge or trunk on a road: a small labelled box on the midpoint, or
    `beside` a counter there: towards the end `toward` where it guards one (else towards the
    road's `b` end)."""
    shape = shapes(map_name)[road]
    r = board(map_name).roads[road]
    step = 27 / shape.length if beside else 0.0
    x, y = shape.at(0.5 - step if toward == r.a else 0.5 + step)
    w = max(18.0, 7.0 * len(label) + 8)
    return (f'<g><title>{escape(title)}</title><rect class="{cls}" x="{num(x - w / 2)}" '
            f'y="{num(y - 8)}" width="{num(w)}" height="16" rx="2"/><text class="ot" '
            f'x="{num(x)}" y="{num(y + 3.5)}">{escape(label)}</text></g>')


def stack_at(lay: Layout, town: str, count: int, gap: float = 21.0) -> list[Point]:
    """Where `count` tokens at one town stand: in a row over the town (under it where the
    town's label is above), side by side so that none hides another."""
    x, y = lay.towns[town]
    row_y = y + 22 if town in lay.labels_above else y - 20
    first = x - gap * (count - 1) / 2
    return [(first + gap * i, row_y) for i in range(count)]


def star(x: float, y: float, r: float = 8.0) -> str:
    """A five-pointed star centred on (x, y): the viewer's destination."""
    pts = []
    for i in range(10):
        radius = r if i % 2 == 0 else r * 0.45
        angle = math.radians(-90 + 36 * i)
        pts.append(f"{num(x + radius * math.cos(angle))},{num(y + radius * math.sin(angle))}")
    return f'<polygon class="star" points="{" ".join(pts)}"/>'


def key(y: float, marks: Sequence[tuple[str, str]]) -> str:
    """What the marks mean, from `y` down: the terrains, the counter letters, then `marks`
    (markup of a sample at (0, 0), words), over `key_rows(marks)` rows."""
    parts = [f'<g id="key"><text class="hd" x="14" y="{num(y + 4)}">Key</text>']
    x = 54.0
    for terrain, (_, word) in TERRAINS.items():
        cls = "lakeway" if terrain == "lake" else terrain
        parts.append(f'<path class="r {cls}" d="M{num(x)} {num(y)}h34"/>'
                     + terrain_mark(x + 17, y, terrain))
        if terrain == "river":
            parts.append(arrow(x + 29, y, 0.0, 6))
            word = "river (arrow: downstream)"
        parts.append(f'<text class="k" x="{num(x + 40)}" y="{num(y + 4)}">{word}</text>')
        x += 46 + len(word) * 6.2 + 12
    y += 24
    x = 54.0
    for kind in CARD_TYPES:
        parts.append(chip(x + 15, y, kind))
        parts.append(f'<text class="k" x="{num(x + 34)}" y="{num(y + 4)}">{words(kind)}</text>')
        x += 38 + len(words(kind)) * 6.2 + 14
    y += 24
    x = 54.0
    for sample, word in marks:
        width = len(word) * 6.2
        if x + 30 + width > WIDTH - 10:
            x, y = 54.0, y + 24
        parts.append(f'<g transform="translate({num(x + 14)} {num(y)})">{sample}</g>'
                     f'<text class="k" x="{num(x + 34)}" y="{num(y + 4)}">{escape(word)}</text>')
        x += 44 + width + 16
    parts.append("</g>")
    return "".join(parts)


def key_rows(marks: Sequence[tuple[str, str]]) -> int:
    """How many rows `key` takes: the terrains, the counters, and the marks as they wrap."""
    rows, x = 3, 54.0
    for _, word in marks:
        width = len(word) * 6.2
        if x + 30 + width > WIDTH - 10:
            rows, x = rows + 1, 54.0
        x += 44 + width + 16
    return rows


def short(name: str, most: int = 18) -> str:
    """A name cut to fit its place in the picture (the title keeps it whole)."""
    return name if len(name) <= most else name[:most - 1] + "\u2026"


def frame(doc: Svg, head: str, status: str) -> None:
    """The picture's background and its two heading lines."""
    doc.raw(STYLE)
    doc.rect(0, 0, WIDTH, doc.height, class_="bg")
    doc.text(LEFT, 20, head, size=16, anchor="start", class_="h")
    doc.text(LEFT, 42, status, size=13, anchor="start", class_="t")


def panel(doc: Svg, y: float, sections: Sequence[Section], key_y: float,
          marks: Sequence[tuple[str, str]]) -> None:
    """The right column of the panel from `y` down, a rule, and the key at `key_y`."""
    doc.raw('<g id="panel">')
    for height, draw in sections:
        draw(doc, y)
        y += height
    doc.raw(f'</g><line class="rule" x1="{LEFT}" y1="{num(key_y - 16)}" x2="{WIDTH - LEFT}" '
            f'y2="{num(key_y - 16)}"/>')
    doc.raw(key(key_y, marks))


def text_sections(lines: Iterable[str]) -> list[Section]:
    """Lines of small text in the right column, wrapped to its width."""
    out: list[Section] = []
    for line in lines:
        for part in textwrap.wrap(line, LINE_CHARS):
            out.append((18, lambda doc, y, part=part: doc.text(
                RIGHT, y + 8, part, size=11.5, anchor="start", class_="s")))
    return out


def cards_section(label: str, hand: Mapping[str, int]) -> Section:
    """A heading and a row of cards (a hand, a display) in the right column."""
    def draw(doc: Svg, y: float) -> None:
        doc.text(RIGHT, y + 8, label, size=13, anchor="start", class_="hd")
        markup, x = cards_row(RIGHT, y + 20, hand)
        doc.raw(markup)
        if x == RIGHT:
            doc.text(RIGHT, y + 36, "none", size=11.5, anchor="start", class_="s")
    return 62, draw


@dataclass(frozen=True)
class Readers:
    """What the race's and the war's pictures both start from: the map set and its layout,
    the players' names (whole, shortened, as letters), the viewer's seat and how the
    description says whose picture it is."""

    map_name: str
    lay: Layout
    who: list[str]
    short: list[str]
    letters: list[str]
    me: int | None
    seen: str


def readers(view: Mapping[str, Any], names: Sequence[str] | None) -> Readers:
    map_name = str(view["options"]["map_data"])
    who = player_names(int(view["seats"]), names)
    me = view["seat"] if isinstance(view["seat"], int) else None
    return Readers(map_name, layout_for(map_name), who, [short(x) for x in who],
                   initials(who), me,
                   f"seen by {who[me]}" if me is not None else "seen by a spectator")


def page_heights(lay: Layout, rows_h: float, sections: Sequence[Section],
                 marks: Sequence[tuple[str, str]]) -> tuple[float, float, float]:
    """Where the panel and the key start under the map, and the picture's height."""
    panel_y = MAP_Y + lay.height + 18
    key_y = panel_y + max(rows_h, sum(h for h, _ in sections)) + 20
    return panel_y, key_y, key_y + 24 * (key_rows(marks) - 1) + 26
