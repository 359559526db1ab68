"""An SVG picture of a Stratego view: the board as the viewer faces it, for web pages and mails.

It reads only the redacted view (`engines.stratego.view`), so it can show no piece the viewer
may not know. The board is turned so that the viewer's own army stands at the bottom (Blue sees
it turned round, as across a real table); spectators see it from Red's side. Pieces carry the
notation's codes (`text.CODES`), "?" where the view hides the piece id. Red's pieces are discs
and Blue's are squares, in two colours told apart with any common colour-vision deficiency, so
that the armies read without colour; the last move is marked by outline (dashed from, solid to)
and an arrow as well as by a tint.

The squares, lakes and coordinates never change, so their markup is built once per orientation;
a picture then costs little more than one short string per piece (under a millisecond).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any
from xml.sax.saxutils import escape

from engines.contract import JSON
from engines.stratego import event_text
from engines.stratego.text import CODES, COLOUR, FILES, LAKES
from engines.svg import Svg, initials, num, player_names

CELL = 44
#: the board's top left corner
BX, BY = 30, 84
BOARD = 10 * CELL
#: the side panel's left edge
PX = BX + BOARD + 34
WIDTH = PX + 262
#: the key's top edge, below the board
KY = BY + BOARD + 34
HEIGHT = KY + 62
#: each army's colour (Okabe and Ito's vermilion and blue) and the ink drawn on it
ARMY_FILL = ("#D55E00", "#0072B2")
ARMY_INK = "#FFFFFF"
NAMES: dict[str, str] = {
    "marshal": "Marshal (10)", "general": "General", "colonel": "Colonel", "major": "Major",
    "captain": "Captain", "lieutenant": "Lieutenant", "sergeant": "Sergeant", "miner": "Miner",
    "scout": "Scout", "spy": "Spy (1)", "bomb": "Bomb", "flag": "Flag",
}
#: strongest first: how captured pieces are listed
ORDER: dict[str, int] = {piece: i for i, piece in enumerate(CODES)}
_BATTLE = {"attacker_wins": "the attacker won", "defender_wins": "the defender won",
           "both_removed": "both were removed"}
STYLE = (
    "<style>"
    ".sq{fill:#E3EDCB}.sq.o{fill:#D2E2B1}.lake{fill:#9DC6E6}"
    ".wave{fill:none;stroke:#3F7FB0;stroke-width:1.5}"
    ".c{font-size:12px;fill:#333333;text-anchor:middle}"
    ".p0{fill:#D55E00;stroke:#3A1A00;stroke-width:1.2}"
    ".p1{fill:#0072B2;stroke:#00253D;stroke-width:1.2}"
    ".k{fill:#FFFFFF;font-weight:bold;text-anchor:middle}"
    ".rv{fill:#FFFFFF;stroke:#000000;stroke-width:1.2}"
    ".mv{fill:#000000}"
    ".hl{fill:#F0E442;fill-opacity:0.75}"
    ".from{fill:none;stroke:#000000;stroke-width:2.5;stroke-dasharray:5 3}"
    ".to{fill:none;stroke:#000000;stroke-width:3}"
    ".t{font-size:13px;fill:#111111}.h{font-size:14px;font-weight:bold;fill:#111111}"
    ".s{font-size:11px;fill:#333333}"
    "</style>"
)


def _xy(square: str, flip: bool) -> tuple[int, int]:
    """The top left corner of a square's cell: files a..j left to right and rank 10 at the
    top, both reversed when `flip` (Blue's side)."""
    col, rank = FILES.index(square[0]), int(square[1:])
    if flip:
        return BX + (9 - col) * CELL, BY + (rank - 1) * CELL
    return BX + col * CELL, BY + (10 - rank) * CELL


@lru_cache(maxsize=2)
def _board(flip: bool) -> str:
    """The 92 land squares (checkered), the 8 lake squares with waves, and the coordinates.

    Each land square carries `data-pick="square:e4"`: what the web client's click lands on
    (docs/client.md, "Clicking on the board")."""
    parts = [f'<g id="board"><rect x="{BX - 3}" y="{BY - 3}" width="{BOARD + 6}" '
             f'height="{BOARD + 6}" fill="#5B4A2F" rx="3"/>']
    waves = []
    for rank in range(1, 11):
        for col, f in enumerate(FILES):
            sq = f"{f}{rank}"
            x, y = _xy(sq, flip)
            if sq in LAKES:
                parts.append(f'<rect class="lake" x="{x}" y="{y}" width="{CELL}" '
                             f'height="{CELL}"/>')
                for dy in (15, 29):
                    waves.append(f'<path class="wave" d="M{x + 8} {y + dy}q6 -6 12 0t12 0"/>')
            else:
                odd = " o" if (col + rank) % 2 else ""
                parts.append(f'<rect class="sq{odd}" x="{x}" y="{y}" width="{CELL}" '
                             f'height="{CELL}" data-pick="square:{sq}"/>')
    parts += waves
    files = FILES[::-1] if flip else FILES
    ranks = range(1, 11) if flip else range(10, 0, -1)
    for i, f in enumerate(files):
        x = BX + i * CELL + CELL // 2
        parts.append(f'<text class="c" x="{x}" y="{BY - 8}">{f}</text>')
        parts.append(f'<text class="c" x="{x}" y="{BY + BOARD + 17}">{f}</text>')
    for i, rank in enumerate(ranks):
        y = BY + i * CELL + CELL // 2 + 4
        parts.append(f'<text class="c" x="{BX - 15}" y="{y}">{rank}</text>')
        parts.append(f'<text class="c" x="{BX + BOARD + 16}" y="{y}">{rank}</text>')
    parts.append("</g>")
    return "".join(parts)


def _piece(cx: float, cy: float, owner: int, code: str, size: float = 1.0) -> str:
    """One piece: a disc for Red, a square for Blue, its code on it."""
    r = 17 * size
    if owner == 0:
        shape = f'<circle class="p0" cx="{num(cx)}" cy="{num(cy)}" r="{num(r)}"/>'
    else:
        side = r * 0.84
        shape = (f'<rect class="p1" x="{num(cx - side)}" y="{num(cy - side)}" '
                 f'width="{num(side * 2)}" height="{num(side * 2)}" rx="{num(3 * size)}"/>')
    font = 17 * size
    return (f'{shape}<text class="k" x="{num(cx)}" y="{num(cy + font * 0.36)}" '
            f'font-size="{num(font)}">{code}</text>')


def _code(piece: str | None) -> str:
    return "?" if piece is None else CODES.get(piece, "?")


def _named(piece: str | None) -> str:
    """"8 colonel", or "?" for a piece the view does not name."""
    return "?" if piece is None else f"{_code(piece)} {piece}"


def _short(name: str, most: int = 24) -> str:
    """A name cut to fit its place in the picture (the title keeps it whole)."""
    return name if len(name) <= most else name[:most - 1] + "\u2026"


def _sides(names: Sequence[str]) -> list[str]:
    """Each side as the picture names it: "Ann (Red)"."""
    return [f"{_short(names[s])} ({COLOUR[s]})" for s in (0, 1)]


def _status(view: Mapping[str, Any], sides: list[str], names: Sequence[str]) -> str:
    phase = view["phase"]
    if phase == "setup":
        waiting = " and ".join(sides[s] for s in view["to_act"])
        return f"Setting up: waiting for {waiting}"
    if phase == "play":
        return f"Ply {view['ply'] + 1}: {sides[view['active']]} to move"
    result = view["result"] or {}
    told = event_text.describe_result(result, lambda s: names[s])
    if told is None:
        winners = result.get("winners") or []
        told = f"{names[winners[0]]} won." if len(winners) == 1 else "A draw."
    return f"Game over: {told}"


def _last_move(doc: Svg, view: Mapping[str, Any], flip: bool, sides: list[str]) -> list[str]:
    """Tint and outline the last ply's squares, draw its arrow; returns its lines of text."""
    last = view["last_ply"]
    if last is None:
        return []
    (fx, fy), (tx, ty) = _xy(last["from"], flip), _xy(last["to"], flip)
    doc.raw(f'<g id="last-move"><rect class="hl" x="{fx}" y="{fy}" width="{CELL}" '
            f'height="{CELL}"/><rect class="hl" x="{tx}" y="{ty}" width="{CELL}" '
            f'height="{CELL}"/>'
            f'<rect class="from" x="{fx + 2}" y="{fy + 2}" width="{CELL - 4}" '
            f'height="{CELL - 4}"/><rect class="to" x="{tx + 2}" y="{ty + 2}" '
            f'width="{CELL - 4}" height="{CELL - 4}"/></g>')
    owner = 0 if last["uid"].startswith("r") else 1
    lines = [f"{sides[owner]} moved {last['from']}-{last['to']}"]
    battle = last["battle"]
    if battle is not None:
        attacker, defender = _named(battle["attacker_piece"]), _named(battle["defender_piece"])
        lines[0] = f"{sides[owner]} attacked {last['to']} from {last['from']}:"
        lines.append(f"{attacker} against {defender}: "
                     f"{_BATTLE.get(battle['result'], battle['result'])}")
    return lines


def _arrow(view: Mapping[str, Any], flip: bool) -> str:
    """The last ply's arrow, from the centre of one square to near the centre of the other."""
    last = view["last_ply"]
    if last is None:
        return ""
    (fx, fy), (tx, ty) = _xy(last["from"], flip), _xy(last["to"], flip)
    h = CELL / 2
    x1, y1, x2, y2 = fx + h, fy + h, tx + h, ty + h
    dx, dy = (x2 > x1) - (x2 < x1), (y2 > y1) - (y2 < y1)
    # the head's tip sits just inside the target square, so the piece there stays readable
    tip = (x2 - dx * 12, y2 - dy * 12)
    base = (tip[0] - dx * 10, tip[1] - dy * 10)
    wing = (-dy * 6, dx * 6)
    head = (f"{num(tip[0])},{num(tip[1])} {num(base[0] + wing[0])},{num(base[1] + wing[1])} "
            f"{num(base[0] - wing[0])},{num(base[1] - wing[1])}")
    line = f'x1="{num(x1)}" y1="{num(y1)}" x2="{num(base[0])}" y2="{num(base[1])}"'
    return (f'<g id="last-move-arrow"><line {line} stroke="#FFFFFF" stroke-width="6" '
            f'stroke-linecap="round"/><line {line} stroke="#000000" stroke-width="3"/>'
            f'<polygon points="{head}" fill="#000000" stroke="#FFFFFF" stroke-width="1"/></g>')


def _pieces(view: Mapping[str, Any], seat: int | None, flip: bool) -> tuple[str, list[int]]:
    """Every piece the view places, in square order, and how many each army has on the board."""
    placed: dict[str, tuple[int, str | None, bool, bool]] = {
        sq: (p["owner"], p["piece"], p["revealed"], p["moved"])
        for sq, p in view["board"].items()}
    if view["phase"] == "setup" and seat is not None:
        own = view["setups"].get(str(seat)) or {}
        placed.update({sq: (seat, piece, False, False) for sq, piece in own.items()})
    counts = [0, 0]
    h = CELL / 2
    out = []
    for sq in sorted(placed):
        owner, piece, revealed, moved = placed[sq]
        counts[owner] += 1
        x, y = _xy(sq, flip)
        out.append(_piece(x + h, y + h, owner, _code(piece)))
        if revealed:
            out.append(f'<circle class="rv" cx="{x + CELL - 5}" cy="{y + 5}" r="3.5"/>')
        if moved and piece is None:
            out.append(f'<circle class="mv" cx="{x + CELL - 5}" cy="{y + CELL - 5}" r="3"/>')
    return "".join(out), counts


def _captured(doc: Svg, y: float, view: Mapping[str, Any]) -> float:
    """Each army's removed pieces as small pieces, strongest first; returns the y below."""
    doc.text(PX, y, "Captured", anchor="start", class_="h", size=14)
    y += 20
    for s in (0, 1):
        gone = view["removed"][str(s)]
        codes = (["?"] * gone if isinstance(gone, int)
                 else [_code(p) for p in sorted(gone, key=lambda p: ORDER.get(p, 99))])
        doc.text(PX, y, f"{COLOUR[s]} lost {len(codes) or 'none'}", anchor="start", class_="t",
                 size=13)
        y += 14
        parts = [_piece(PX + 11 + 24 * (i % 10), y + 11 + 24 * (i // 10), s, code, 0.62)
                 for i, code in enumerate(codes)]
        doc.raw(f'<g id="captured-{COLOUR[s].lower()}">{"".join(parts)}</g>')
        y += 24 * ((len(codes) + 9) // 10) + 8
    return y


def _key(doc: Svg) -> None:
    """What the codes and marks mean, below the board, so that the picture reads alone."""
    entries = [(code, NAMES[piece]) for piece, code in CODES.items()] + [("?", "unknown")]
    parts = []
    for i, (code, name) in enumerate(entries):
        x, y = 12 + (i % 7) * 108, KY + 4 + (i // 7) * 17
        parts.append(f'<text class="s" x="{x}" y="{y}"><tspan font-weight="bold">{code}'
                     f'</tspan> {name}</text>')
    y = KY + 38
    parts.append(
        f'<circle class="rv" cx="16" cy="{y}" r="3.5"/>'
        f'<text class="s" x="24" y="{y + 4}">revealed to both players</text>'
        f'<circle class="mv" cx="192" cy="{y}" r="3"/>'
        f'<text class="s" x="200" y="{y + 4}">unknown piece that has moved</text>'
        f'<rect class="from" x="396" y="{y - 7}" width="14" height="14"/>'
        f'<text class="s" x="416" y="{y + 4}">last move from</text>'
        f'<rect class="to" x="516" y="{y - 7}" width="14" height="14"/>'
        f'<text class="s" x="536" y="{y + 4}">last move to</text>')
    doc.raw(f'<g id="key">{"".join(parts)}</g>')


def render_svg(view: Mapping[str, JSON], names: Sequence[str] | None = None) -> str:
    """The board from the viewer's side with the armies, the last move, captured pieces and
    whose turn it is; `names`: the players' names by seat ("Player 1", "Player 2" without)."""
    seat = view.get("seat")
    seat = seat if seat in (0, 1) else None
    flip = seat == 1
    who = player_names(2, names)
    sides = _sides(who)
    status = _status(view, sides, [_short(n) for n in who])
    army = str(view["options"].get("army", "original"))
    pieces, counts = _pieces(view, seat, flip)
    facing = (f"seen by {sides[seat]}, {COLOUR[seat]}'s army at the bottom" if seat is not None
              else "seen by a spectator, Red's army at the bottom")
    title = f"Stratego ({army.capitalize()}): {who[0]} (Red) against {who[1]} (Blue)"
    desc = (f"The 10 by 10 board {facing}, files a to j and ranks 1 to 10. {status} "
            f"Pieces shown: Red {counts[0]}, Blue {counts[1]}. Red's pieces are discs, "
            "Blue's are squares; each shows its code, or ? where unknown.")
    doc = Svg(WIDTH, HEIGHT, title, desc)
    doc.raw(STYLE)
    doc.rect(0, 0, WIDTH, HEIGHT, fill="#FAF7EF")
    doc.text(12, 18, f"Stratego ({army.capitalize()}): {sides[0]} against {sides[1]}",
             anchor="start", class_="h", size=15)
    doc.text(12, 40, status, anchor="start", class_="t", size=13)
    doc.raw(_board(flip))
    lines = _last_move(doc, view, flip, sides)
    doc.raw(f'<g id="pieces">{pieces}</g>')
    doc.raw(_arrow(view, flip))
    y = BY + 4.0
    letters = initials(who)
    for s in (0, 1):
        doc.raw(_piece(PX + 12, y + 12, s, escape(letters[s]), 0.7))
        you = " (you)" if s == seat else ""
        doc.text(PX + 30, y + 4, f"{_short(who[s])}{you}", anchor="start", class_="t", size=13,
                 font_weight="bold")
        if view["phase"] == "setup":
            note = "set up" if view["submitted"][str(s)] else "setting up"
        else:
            note = f"{counts[s]} on the board"
        doc.text(PX + 30, y + 20, f"{COLOUR[s]}: {note}", anchor="start", class_="s", size=11)
        y += 34
    y += 8
    if lines:
        ply = view["ply"]
        doc.text(PX, y, f"Last move (ply {ply})", anchor="start", class_="h", size=14)
        for line in lines:
            y += 17
            doc.text(PX, y, line, anchor="start", class_="t", size=12)
        y += 24
    y = _captured(doc, y, view)
    _key(doc)
    return str(doc)
