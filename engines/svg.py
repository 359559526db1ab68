"""The little SVG writer every engine's `render_svg` draws with.

A board picture must be deterministic (the same view gives the same bytes, so an ETag can name
it), self-contained (no fonts, images or scripts from elsewhere), readable without colour and
small. One writer keeps those properties in one place: numbers are printed in one fixed form,
text is always escaped, the document always carries `<title>` and `<desc>`, and players are told
apart by a colour from a colour-blind-safe palette *and* a shape *and* a letter.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any
from xml.sax.saxutils import escape, quoteattr

#: the most an engine's picture may weigh (bytes of UTF-8)
MAX_BYTES = 60_000

#: Okabe and Ito's palette, told apart by people with any common colour-vision deficiency;
#: the order puts the most distinct colours first (players 1..8)
PLAYER_COLOURS: tuple[str, ...] = (
    "#0072B2",  # blue
    "#E69F00",  # orange
    "#009E73",  # bluish green
    "#CC79A7",  # reddish purple
    "#F0E442",  # yellow
    "#56B4E9",  # sky blue
    "#D55E00",  # vermilion
    "#000000",  # black
)
#: text drawn on a player's colour: dark on the light ones, white on the dark ones
PLAYER_INK: tuple[str, ...] = (
    "#FFFFFF", "#000000", "#FFFFFF", "#000000", "#000000", "#000000", "#FFFFFF", "#FFFFFF",
)
#: a second cue beside colour: each player's token has its own outline
PLAYER_SHAPES: tuple[str, ...] = (
    "circle", "square", "triangle", "diamond", "pentagon", "hexagon", "star", "octagon",
)

FONT = "DejaVu Sans, Verdana, Arial, sans-serif"


def num(x: float) -> str:
    """A coordinate in one fixed form: at most two decimals, no trailing zeros, no "-0"."""
    text = f"{round(x, 2):.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def player_colour(seat: int) -> str:
    return PLAYER_COLOURS[seat % len(PLAYER_COLOURS)]


def player_ink(seat: int) -> str:
    return PLAYER_INK[seat % len(PLAYER_INK)]


def initials(names: Sequence[str]) -> list[str]:
    """One or two letters per player, distinct where the names allow ("Ann", "Alice" -> "An",
    "Al"; two "Bo"s -> "B1", "B2"), so a token reads without its colour."""
    first = [(n.strip()[:1] or "?").upper() for n in names]
    two = [f + (n.strip()[1:2] or "?").lower() for f, n in zip(first, names, strict=True)]
    out = []
    for seat in range(len(names)):
        if first.count(first[seat]) == 1:
            out.append(first[seat])
        elif two.count(two[seat]) == 1:
            out.append(two[seat])
        else:
            out.append(f"{first[seat]}{seat + 1}")
    return out


def _polygon_points(cx: float, cy: float, r: float, corners: int, turn: float = -90.0,
                    inner: float | None = None) -> str:
    points = []
    steps = corners * (2 if inner else 1)
    for i in range(steps):
        radius = inner if inner and i % 2 else r
        angle = math.radians(turn + 360.0 * i / steps)
        points.append(f"{num(cx + radius * math.cos(angle))},{num(cy + radius * math.sin(angle))}")
    return " ".join(points)


class Svg:
    """An SVG document built element by element; `str(doc)` is the finished picture."""

    def __init__(self, width: float, height: float, title: str, desc: str) -> None:
        self.width = width
        self.height = height
        self._parts: list[str] = [
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{num(width)}" '
            f'height="{num(height)}" viewBox="0 0 {num(width)} {num(height)}" role="img" '
            f'font-family={quoteattr(FONT)}>',
            f"<title>{escape(title)}</title>",
            f"<desc>{escape(desc)}</desc>",
        ]

    @staticmethod
    def _attrs(attrs: dict[str, object]) -> str:
        out = []
        for key, value in attrs.items():
            if value is None:
                continue
            if isinstance(value, float):
                value = num(value)
            out.append(f" {key.rstrip('_').replace('_', '-')}={quoteattr(str(value))}")
        return "".join(out)

    def raw(self, markup: str) -> None:
        """Markup the caller built itself (already escaped)."""
        self._parts.append(markup)

    def open(self, tag: str = "g", **attrs: object) -> None:
        self._parts.append(f"<{tag}{self._attrs(attrs)}>")

    def close(self, tag: str = "g") -> None:
        self._parts.append(f"</{tag}>")

    def element(self, tag: str, text: str | None = None, **attrs: object) -> None:
        if text is None:
            self._parts.append(f"<{tag}{self._attrs(attrs)}/>")
        else:
            self._parts.append(f"<{tag}{self._attrs(attrs)}>{escape(text)}</{tag}>")

    def rect(self, x: float, y: float, w: float, h: float, **attrs: object) -> None:
        self.element("rect", x=float(x), y=float(y), width=float(w), height=float(h), **attrs)

    def circle(self, cx: float, cy: float, r: float, **attrs: object) -> None:
        self.element("circle", cx=float(cx), cy=float(cy), r=float(r), **attrs)

    def line(self, x1: float, y1: float, x2: float, y2: float, **attrs: object) -> None:
        self.element("line", x1=float(x1), y1=float(y1), x2=float(x2), y2=float(y2), **attrs)

    def polyline(self, points: Iterable[tuple[float, float]], **attrs: object) -> None:
        self.element("polyline", points=" ".join(f"{num(x)},{num(y)}" for x, y in points),
                     **attrs)

    def polygon(self, points: Iterable[tuple[float, float]], **attrs: object) -> None:
        self.element("polygon", points=" ".join(f"{num(x)},{num(y)}" for x, y in points),
                     **attrs)

    def text(self, x: float, y: float, text: str, size: float = 12, anchor: str = "middle",
             **attrs: object) -> None:
        """A label; centred on (x, y) by default, its baseline placed so it reads centred."""
        self.element("text", text, x=float(x), y=float(y + size * 0.35), font_size=float(size),
                     text_anchor=anchor, **attrs)

    def token(self, cx: float, cy: float, r: float, seat: int, label: str = "",
              title: str | None = None) -> None:
        """A player's token: their colour, their shape and a letter, so that it reads without
        colour; `title` becomes the tooltip."""
        fill, ink = player_colour(seat), player_ink(seat)
        shape = PLAYER_SHAPES[seat % len(PLAYER_SHAPES)]
        style = {"fill": fill, "stroke": "#222222", "stroke_width": 1.0}
        self.open("g", class_="token")
        if title:
            self.element("title", title)
        if shape == "circle":
            self.circle(cx, cy, r, **style)
        elif shape == "square":
            self.rect(cx - r * 0.9, cy - r * 0.9, r * 1.8, r * 1.8, **style)
        else:
            corners = {"triangle": 3, "diamond": 4, "pentagon": 5, "hexagon": 6, "star": 5,
                       "octagon": 8}[shape]
            turn = 0.0 if shape == "diamond" else -90.0
            inner = r * 0.5 if shape == "star" else None
            scale = 1.25 if shape == "triangle" else 1.1
            self._parts.append(
                f'<polygon points="{_polygon_points(cx, cy, r * scale, corners, turn, inner)}"'
                f'{self._attrs(style)}/>')
        if label:
            self.text(cx, cy + (r * 0.2 if shape == "triangle" else 0), label,
                      size=max(7.0, r * 0.95), fill=ink, font_weight="bold")
        self.close("g")

    def __str__(self) -> str:
        return "".join(self._parts) + "</svg>"


def placed(inner: str, cx: float, cy: float, scale: float = 1.0) -> str:
    """Markup drawn around (0, 0), moved to (cx, cy) and scaled: one drawing of a symbol
    serves every place it stands."""
    zoom = "" if scale == 1 else f" scale({num(scale)})"
    return f'<g transform="translate({num(cx)} {num(cy)}){zoom}">{inner}</g>'


def legend(doc: Svg, x: float, y: float, names: Sequence[str], extra: Sequence[str] = (),
           line: float = 18.0) -> float:
    """Each player's token and name (and an optional note per player) from (x, y) down;
    returns the y below the last line."""
    letters = initials(names)
    for seat, name in enumerate(names):
        doc.token(x + 8, y + seat * line + 8, 7, seat, letters[seat])
        note = f" {extra[seat]}" if seat < len(extra) and extra[seat] else ""
        doc.text(x + 22, y + seat * line + 8, f"{name}{note}", size=12, anchor="start")
    return y + len(names) * line


def player_names(view_seats: int, names: Sequence[str] | None) -> list[str]:
    """The names to draw: the given ones, or "Player 1".. where the caller knows none (never a
    seat number)."""
    if names is not None and len(names) >= view_seats:
        return [str(n) for n in names[:view_seats]]
    return [f"Player {s + 1}" for s in range(view_seats)]


def text_picture(title: str, text: str) -> str:
    """The text board as a picture, for an engine that draws none of its own: one monospace
    line per line of `render_text`."""
    lines = text.rstrip("\n").split("\n") or [""]
    width = 16 + 7.3 * max(len(line) for line in lines)
    doc = Svg(width, 16 + 16 * len(lines), title, "The game's text board.")
    doc.rect(0, 0, width, doc.height, fill="#ffffff")
    doc.open("g", font_family="DejaVu Sans Mono, Menlo, Consolas, monospace", font_size=12.0,
             fill="#000000")
    for i, line in enumerate(lines):
        doc.element("text", line, x=8.0, y=float(20 + 16 * i), **{"xml:space": "preserve"})
    doc.close("g")
    return str(doc)


def board_picture(engine: object, view: Mapping[str, Any], names: Sequence[str] | None) -> str:
    """The engine's `render_svg` of a view, or its text board drawn as a picture where it has
    none (the contract point is optional)."""
    draw = getattr(engine, "render_svg", None)
    if draw is not None:
        return draw(view, names)
    render_text = engine.render_text  # type: ignore[attr-defined]
    return text_picture(f"{engine.title}: the board", render_text(view, names))  # type: ignore[attr-defined]
