"""An SVG picture of a Cartagena view: the route as a winding path of squares, for web pages and
mails.

It reads only the redacted view (`engines.cartagena.view`), and the public data set the view's
options name for one fact the view leaves out (which cards have a dark background), so it shows
nothing the viewer may not see: other hands are counts, the deck a face-down pile, a chest token
a face-down disc. Every square carries its symbol as a small drawing *and* a word, every pirate
is its player's token (colour, shape and letter) with a count, and the places off the squares
are named, so that the picture reads without colour.

The route runs in rows of twelve columns that turn at each end (a snake): the prison, the ship
and the cove take two columns each, so the longest route (eight tiles, 48 squares) fits in five
rows. The squares of one route never change during a game, so their markup is built once
and a picture costs little more than its pirates and its panels.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any
from xml.sax.saxutils import escape

from engines.cartagena import event_text
from engines.cartagena.data import DATASETS, symbol_of
from engines.contract import JSON
from engines.sentences import capital, game_over_line, join, place, plural, possessive
from engines.svg import Svg, initials, num, placed, player_names

COLS = 12
#: a square's size, the distance between columns and between rows
CW, CH = 56, 84
PX, PY = 60, 104
#: room left and right of the rows for the path's turns
MX = 30
WIDTH = 2 * MX + COLS * PX - (PX - CW)
TOP = 62
#: a card in a hand
CARD_W, CARD_H = 50, 66
#: the height of a labelled row of cards
ROW_CARDS = 18 + CARD_H + 12
ROUTES = {"escape": "the escape", "tortuga": "Tortuga", "complete": "the complete escape"}
PLACES = {"prison": "Prison", "wreck": "Wreck", "ship": "Ship", "cove": "Cove"}
MODES = {"back": "move back", "morgan": "Morgan", "both": "move back or Morgan"}
SPELLS = {"pistol_take": "the pistol",
          "rum_deal": "deals the cards the rum drew: keeps 2, gives 1 to each other player",
          "lantern_keep": "keeps 1 card the lantern drew and puts the others back on the deck"}
#: each part's squares, two tints so that the tiles show (the numbers and the key say it too)
TINTS = {"tunnel": ("#E9E0CA", "#DCD0B3"), "jungle": ("#D5E8C4", "#C2DCAC")}
STYLE = (
    "<style>"
    ".sq{stroke:#6B5B43;stroke-width:1.2}"
    ".pl{fill:#F4EBD6;stroke:#6B5B43;stroke-width:1.6}.sea{fill:#CFE3F3}"
    ".no{font-size:10px;fill:#5A4A33}.sym{font-size:10px;fill:#2A2116;text-anchor:middle}"
    ".n{font-size:11px;font-weight:bold;fill:#111111}"
    ".pn{font-size:13px;font-weight:bold;fill:#2A2116}"
    ".h{font-size:16px;font-weight:bold;fill:#111111}.t{font-size:12.5px;fill:#111111}"
    ".s{font-size:11px;fill:#333333}.b{font-weight:bold}"
    ".gi{fill:#3A2E1F}.gl{fill:#FFF8E0}.gs{fill:none;stroke:#3A2E1F;stroke-width:2;"
    "stroke-linecap:round}"
    ".card{fill:#FFFDF6;stroke:#4A3B28;stroke-width:1.2}"
    ".dk .card{fill:#3B3026}.dk .gi{fill:#F6E7C1}.dk .gl{fill:#3B3026}.dk .gs{stroke:#F6E7C1}"
    ".dk .sym,.dk .n,.dk .s{fill:#FFFFFF}"
    ".back{fill:#7A4E2D;stroke:#3B2408;stroke-width:1.2}"
    ".chest{fill:#D9A520;stroke:#5A3E00;stroke-width:1.2}"
    ".q{font-size:9px;font-weight:bold;fill:#3A2A00;text-anchor:middle}"
    ".path{fill:none;stroke:#B49A6E;stroke-width:14;stroke-linejoin:round;"
    "stroke-linecap:round}"
    ".turn{fill:#FFF3B0;stroke:#000000;stroke-width:2}"
    "</style>"
)

#: each symbol drawn in a 24 x 24 box round (0, 0): dark ink (`gi`), light parts (`gl`), lines
GLYPHS: dict[str, str] = {
    "pistol": '<path class="gi" d="M-11 -8h17l3 -2h2v6h-8l-1 2h-3l-1 3h-2l1 -3h-1l1 -1h-8z'
              'M1 -2h7l2 11h-6z"/><path class="gs" d="M-1 -2q0 4 4 4"/>',
    "rum": '<rect class="gi" x="-2.5" y="-12" width="5" height="7" rx="1"/>'
           '<rect class="gi" x="-7" y="-6" width="14" height="17" rx="4"/>'
           '<rect class="gl" x="-5" y="0" width="10" height="6" rx="1"/>',
    "bottle": '<rect class="gi" x="-2.5" y="-12" width="5" height="7" rx="1"/>'
              '<rect class="gi" x="-7" y="-6" width="14" height="17" rx="4"/>',
    "lantern": '<circle class="gs" cx="0" cy="-10" r="2"/><path class="gi" d="M-6 -8h12l-2 '
               '3h-8z"/><rect class="gi" x="-7" y="-5" width="14" height="13" rx="2"/>'
               '<rect class="gl" x="-4.5" y="-3" width="9" height="9" rx="1"/>'
               '<ellipse class="gi" cx="0" cy="2" rx="2" ry="3"/>'
               '<rect class="gi" x="-8" y="8" width="16" height="3" rx="1"/>',
    "parrot": '<path class="gi" d="M-2 -11a6 6 0 0 1 6 6v2l-3 2 5 14h-4l-4 -8-4 -2a7 7 0 0 '
              '1 -1 -9z"/><path class="gi" d="M4 -8l5 2-5 3z"/>'
              '<circle class="gl" cx="0" cy="-6" r="1.6"/>',
    "hook": '<path class="gs" style="stroke-width:3" d="M3 -9v11a6 6 0 0 1 -12 0l3 -3"/>'
            '<rect class="gi" x="-1" y="-12" width="8" height="4" rx="1"/>',
    "chest": '<path class="gi" d="M-11 -1v-4a11 6 0 0 1 22 0v4z"/>'
             '<rect class="gi" x="-11" y="0" width="22" height="11" rx="1"/>'
             '<rect class="gl" x="-2.5" y="-2" width="5" height="6" rx="1"/>',
    "skull": '<circle class="gi" cx="0" cy="-3" r="8"/><rect class="gi" x="-5" y="3" '
             'width="10" height="7" rx="2"/><circle class="gl" cx="-3" cy="-3" r="2.2"/>'
             '<circle class="gl" cx="3" cy="-3" r="2.2"/>',
    "key": '<circle class="gs" cx="-6" cy="0" r="4.5"/><path class="gs" d="M-1.5 0h12v4'
           'M6 0v3"/>',
    "dagger": '<path class="gi" d="M0 -12l3 12h-6z"/><rect class="gi" x="-7" y="0" width="14" '
              'height="3" rx="1"/><rect class="gi" x="-1.5" y="3" width="3" height="7"/>'
              '<circle class="gi" cx="0" cy="11" r="2"/>',
    "hat": '<path class="gi" d="M-12 3q12 -22 24 0q-12 -5 -24 0z"/>'
           '<path class="gl" d="M-6 -3h12v2h-12z"/>',
    # the places off the squares
    "prison": '<rect class="gi" x="-11" y="-10" width="22" height="20" rx="2"/>'
              '<path class="gl" d="M-8 -7h16v14h-16z"/><path class="gs" d="M-4 -7v14M0 -7v14'
              'M4 -7v14"/>',
    "wreck": '<path class="gi" d="M-12 2l20 -6 4 4-6 8h-14z"/><path class="gs" d="M-1 -1'
             'l-5 -10M-6 -11l6 3"/>',
    "ship": '<path class="gi" d="M-12 3h24l-4 7h-16z"/><path class="gs" d="M0 3v-15"/>'
            '<path class="gi" d="M1.5 -11l8 10h-8z"/><path class="gi" d="M-1.5 -9l-7 8h7z"/>',
    "cove": '<path class="gi" d="M-12 11q12 -10 24 0z"/><path class="gs" d="M1 5q1 -8 -2 -14"/>'
            '<path class="gi" d="M-1 -9q-8 -3 -11 3q6 -3 11 -3zM-1 -9q8 -4 12 2q-6 -3 -12 -2z'
            'M-1 -9q-3 6 -8 8q5 -5 8 -8zM-1 -9q6 3 7 9q-4 -6 -7 -9z"/>',
}


def glyph(symbol: str, cx: float, cy: float, scale: float = 1.0) -> str:
    """A symbol's drawing centred on (cx, cy); one the picture does not know is its initial in a
    ring, so a data set with other symbols still reads (each square also names its symbol)."""
    inner = GLYPHS.get(symbol)
    if inner is None:
        inner = (f'<circle class="gs" cx="0" cy="0" r="10"/><text class="pn" x="0" y="5" '
                 f'text-anchor="middle">{escape(symbol[:1].upper())}</text>')
    return placed(inner, cx, cy, scale)


# ---- the route -----------------------------------------------------------------------------


def _items(route: str, count: int, tunnel: int) -> list[tuple[str, int]]:
    """The route in order as (location, columns): the start, the squares, the ship between the
    parts of the complete escape, the finish."""
    start, finish = ("wreck", "cove") if route == "tortuga" else (
        "prison", "cove" if route == "complete" else "ship")
    items = [(start, 2)] + [(str(q), 1) for q in range(1, count + 1)]
    if route == "complete":
        items.insert(tunnel + 1, ("ship", 2))
    return items + [(finish, 2)]


@lru_cache(maxsize=16)
def _layout(route: str, count: int, tunnel: int
            ) -> tuple[dict[str, tuple[int, int, int, int]], tuple[tuple[int, int], ...], int]:
    """Each location's box (x, y, width, direction of its row: 1 left to right, -1 back), the
    path's points through them, and the number of rows."""
    boxes: dict[str, tuple[int, int, int, int]] = {}
    points: list[tuple[int, int]] = []
    row, col = 0, 0
    for loc, cols in _items(route, count, tunnel):
        if col + cols > COLS:
            edge = WIDTH - MX // 2 if row % 2 == 0 else MX // 2
            points += [(edge, TOP + row * PY + CH // 2), (edge, TOP + (row + 1) * PY + CH // 2)]
            row, col = row + 1, 0
        way = 1 if row % 2 == 0 else -1
        first = col if way == 1 else COLS - col - cols
        w = cols * PX - (PX - CW)
        x, y = MX + first * PX, TOP + row * PY
        boxes[loc] = (x, y, w, way)
        points.append((x + w // 2, y + CH // 2))
        col += cols
    return boxes, tuple(points), row + 1


@lru_cache(maxsize=16)
def _squares(route: str, squares: tuple[str, ...], tunnel: int) -> tuple[str, ...]:
    """Each square's fixed markup (tile, number, symbol drawing and word), and last the path."""
    boxes, points, _ = _layout(route, len(squares), tunnel)
    out = []
    for q, symbol in enumerate(squares, start=1):
        x, y, w, _ = boxes[str(q)]
        part = "jungle" if route == "tortuga" or (route == "complete" and q > tunnel) \
            else "tunnel"
        tint = TINTS[part][(q - 1 - (tunnel if part == "jungle" and route == "complete" else 0))
                           // 6 % 2]
        out.append(
            f'<rect class="sq" x="{x}" y="{y}" width="{w}" height="{CH}" rx="5" '
            f'fill="{tint}"/><text class="no" x="{x + 4}" y="{y + 12}">{q}</text>'
            + glyph(symbol, x + w / 2, y + 26)
            + f'<text class="sym" x="{num(x + w / 2)}" y="{y + 52}">{escape(symbol)}</text>')
    path = " ".join(f"{x},{y}" for x, y in points)
    out.append(f'<polyline class="path" points="{path}"/>')
    return tuple(out)


def _tokens(doc: Svg, at: list[tuple[int, int]], cx: float, y: float, letters: Sequence[str],
            names: Sequence[str], where: str) -> None:
    """The players' pirates at one square in a row centred on cx: a token each, with "x2" where
    a player has several."""
    widths = [17 + (17 if n > 1 else 0) for _, n in at]
    x = cx - (sum(widths) + 3 * (len(at) - 1)) / 2
    for (seat, n), w in zip(at, widths, strict=True):
        doc.token(x + 8, y, 7, seat, letters[seat], f"{names[seat]}: {plural(n, 'pirate')} "
                  f"{where}")
        if n > 1:
            doc.raw(f'<text class="n" x="{num(x + 17)}" y="{num(y + 4)}">\u00d7{n}</text>')
        x += w + 3


def _place(doc: Svg, loc: str, box: tuple[int, int, int, int], at: list[tuple[int, int]],
           letters: Sequence[str], names: Sequence[str], note: str, glyph_left: bool) -> None:
    """A place off the squares (start, ship, finish): its drawing, its name and every player's
    pirates there, a count each."""
    x, y, w, _ = box
    doc.open("g", id=f"at-{loc}", data_pick=f"loc:{loc}")
    doc.raw(f'<rect class="pl{" sea" if loc == "ship" else ""}" x="{x}" y="{y}" width="{w}" '
            f'height="{CH}" rx="8"/>')
    gx = x + 16 if glyph_left else x + w - 16
    doc.raw(glyph(loc, gx, y + 17))
    tx = x + 32 if glyph_left else x + 6
    doc.raw(f'<text class="pn" x="{tx}" y="{y + 17}">{PLACES.get(loc, loc)}</text>')
    if note:
        doc.raw(f'<text class="s" x="{tx}" y="{y + 31}">{escape(note)}</text>')
    for i, (seat, n) in enumerate(at):
        cx, cy = x + 12 + (i % 3) * 38, y + 47 + (i // 3) * 22
        doc.token(cx, cy, 7, seat, letters[seat], f"{names[seat]}: {plural(n, 'pirate')} "
                  f"at the {loc}")
        doc.raw(f'<text class="n" x="{cx + 9}" y="{cy + 4}">\u00d7{n}</text>')
    doc.close("g")


def _route(doc: Svg, view: Mapping[str, Any], letters: Sequence[str],
           names: Sequence[str]) -> None:
    """The route with its pirates and chest tokens."""
    squares = tuple(view["squares"])
    route, tunnel = str(view["route"]), int(view["tunnel"])
    boxes, _, _ = _layout(route, len(squares), tunnel)
    fixed = _squares(route, squares, tunnel)
    at: dict[str, list[tuple[int, int]]] = {}
    for seat in sorted(view["pirates"], key=int):
        for loc, n in view["pirates"][seat].items():
            if n:
                at.setdefault(str(loc), []).append((int(seat), int(n)))
    for found in at.values():
        found.sort()
    chests = set(view["chests"]["squares"]) if "chests" in view else set()
    doc.raw(fixed[-1])
    doc.open("g", id="route")
    for q in range(1, len(squares) + 1):
        x, y, w, _ = boxes[str(q)]
        doc.raw(f'<g id="sq-{q}" data-pick="loc:{q}">{fixed[q - 1]}')
        if q in chests:
            doc.raw(f'<g class="ct"><title>a chest token, face down</title><circle '
                    f'class="chest" cx="{x + w - 9}" cy="{y + 10}" r="7"/><text class="q" '
                    f'x="{x + w - 9}" y="{y + 13}">?</text></g>')
        if str(q) in at:
            _tokens(doc, at[str(q)], x + w / 2, y + CH - 14, letters, names, f"on square {q}")
        doc.raw("</g>")
    doc.close("g")
    for loc in sorted(set(boxes) - {str(q) for q in range(1, len(squares) + 1)}):
        box = boxes[loc]
        note = ""
        glyph_left = True
        if loc == "ship" and route == "complete":
            shore = str(view["shore"])
            note = f"at {place(shore)}"
            # the ship sits at the shore it lies at: the tunnel's end or the jungle's start
            before = boxes[str(tunnel)][0] < box[0]
            glyph_left = before == (shore == "cartagena")
        _place(doc, loc, box, at.get(loc, []), letters, names, note, glyph_left)


# ---- the panels ----------------------------------------------------------------------------


def _kinds(cards: Sequence[str], dark: frozenset[str] | None
           ) -> list[tuple[str, str | None, int, str]]:
    """Cards as (symbol, background, count, lowest id) in symbol order; "dark" and "light"
    apart only where `dark` is given (Rascals), else the background is None. The lowest id
    is the card `legal_moves` names for its kind (`rules._kinds`)."""
    counts: dict[tuple[str, str | None], int] = {}
    first: dict[tuple[str, str | None], str] = {}
    for card in sorted(cards):
        shade = None if dark is None else "dark" if card in dark else "light"
        key = (symbol_of(card), shade)
        counts[key] = counts.get(key, 0) + 1
        first.setdefault(key, card)
    return [(symbol, shade, n, first[(symbol, shade)]) for (symbol, shade), n in sorted(
        counts.items(), key=lambda kv: (kv[0][0], kv[0][1] != "dark"))]


def _card(x: float, y: float, symbol: str, shade: str | None, count: int | None,
          pick: str | None = None) -> str:
    """A card face: the symbol drawn and named, its background under Rascals, how many (or
    "top" for the discard pile's top card); `pick`, a card id, makes it one the web client's
    click lands on (`data-pick="card:<id>"`, docs/client.md)."""
    kind = f"{symbol} card" if shade is None else f"{symbol} card ({shade})"
    title = f"the top card: {kind}" if count is None else plural(count, kind, kind.replace(
        " card", " cards", 1))
    cx = num(CARD_W / 2)
    shade_text = "" if shade is None else f'<text class="s" x="{cx}" y="49" ' \
        f'text-anchor="middle">{shade}</text>'
    picked = f' data-pick="card:{escape(pick)}"' if pick else ""
    return (f'<g class="{"hc dk" if shade == "dark" else "hc"}"{picked} '
            f'transform="translate({num(x)} {num(y)})"><title>{escape(title)}</title>'
            f'<rect class="card" width="{CARD_W}" height="{CARD_H}" rx="5"/>'
            + glyph(symbol, CARD_W / 2, 17)
            + f'<text class="sym" x="{cx}" y="38">{escape(symbol)}</text>{shade_text}'
            f'<text class="n" x="{cx}" y="{CARD_H - 5}" text-anchor="middle">'
            f'{"top" if count is None else f"×{count}"}</text></g>')


def _cards_row(doc: Svg, x: float, y: float, label: str, cards: Sequence[str],
               dark: frozenset[str] | None, gid: str) -> float:
    """A labelled row of cards, grouped by kind, each kind a pick of its lowest id (the card
    the moves name); returns the y below it."""
    doc.open("g", id=gid)
    doc.text(x, y + 6, label, size=13, anchor="start", class_="t b")
    kinds = _kinds(cards, dark)
    if not kinds:
        doc.text(x, y + 30, "no cards", size=12, anchor="start", class_="s")
    for i, (symbol, shade, n, first) in enumerate(kinds):
        doc.raw(_card(x + i * (CARD_W + 6), y + 18, symbol, shade, n, first))
    doc.close("g")
    return y + ROW_CARDS


def _status(view: Mapping[str, Any], short: Sequence[str], full: Sequence[str]) -> str:
    """Whose turn and how many actions are left, or what the game waits for, or its end."""
    result = view["result"]
    if result:
        return game_over_line(result, lambda s: full[s], event_text.describe_result)
    active = short[view["active"]]
    phase = view["phase"]
    if phase == "discard":
        return (f"Rascals: {join(short[s] for s in view['to_act'])} must discard down to 7 "
                f"cards; then {possessive(active)} turn goes on.")
    if phase in SPELLS:
        spell = view.get("spell") or {}
        if phase == "pistol_take":
            told = f"takes a card from {possessive(short[spell['target']])} hand (the pistol)" \
                if "target" in spell else "takes a card (the pistol)"
        else:
            told = SPELLS[phase]
        return f"{active} {told}."
    left = max(0, 3 - int(view["actions"]))
    captain = " (the ship's captain)" if view["captain"] else ""
    return f"{capital(possessive(active))} turn{captain}: {plural(left, 'action')} left."


def _players(doc: Svg, y: float, view: Mapping[str, Any], short: Sequence[str],
             letters: Sequence[str]) -> float:
    """One line per player: token, name, cards in hand, pirates safe; returns the y below."""
    crew = int(view["options"]["pirates"])
    finish = str(view["finish"])
    me = view["seat"]
    doc.open("g", id="players")
    for seat in range(int(view["seats"])):
        ly = y + seat * 22
        doc.token(24, ly, 8, seat, letters[seat])
        if seat == view["active"] and not view["result"]:
            doc.raw(f'<polygon class="turn" points="4,{ly - 6} 12,{ly} 4,{ly + 6}"/>')
        label = short[seat] + (" (you)" if seat == me else "")
        doc.text(38, ly, label, size=13, anchor="start", class_="t b")
        pirates = view["pirates"].get(str(seat), {})
        notes = [plural(int(view["hand_sizes"][str(seat)]), "card") + " in hand",
                 f"{pirates.get(finish, 0)}/{crew} pirates at the {finish}"]
        if seat in ((view["result"] or {}).get("winners") or ()):
            notes.append("won")
        if view["resigned"][seat]:
            notes.append("resigned")
        elif seat == view["active"] and not view["result"]:
            notes.append("to play")
        if view["phase"] == "discard" and seat in view["to_act"]:
            notes.append("discarding")
        doc.text(220, ly, ", ".join(notes), size=12, anchor="start", class_="t")
    doc.close("g")
    return y + 22 * int(view["seats"])


def _piles(doc: Svg, x: float, y: float, view: Mapping[str, Any],
           dark: frozenset[str] | None) -> None:
    """The deck face down and the discard pile with its top card, each with its count."""
    pile = view["discard"]
    gap = 24
    doc.open("g", id="piles")
    doc.text(x + CARD_W / 2, y + 6, f"deck {view['deck']}", size=12, class_="t")
    doc.text(x + CARD_W * 1.5 + gap, y + 6, f"discard {len(pile)}", size=12, class_="t")
    doc.raw(f'<rect class="back" x="{x}" y="{y + 18}" width="{CARD_W}" height="{CARD_H}" '
            f'rx="5"/>')
    if pile:
        top = pile[-1]
        doc.raw(_card(x + CARD_W + gap, y + 18, symbol_of(top),
                      None if dark is None else "dark" if top in dark else "light", None))
    else:
        doc.raw(f'<rect class="card" x="{x + CARD_W + gap}" y="{y + 18}" width="{CARD_W}" '
                f'height="{CARD_H}" rx="5" stroke-dasharray="4 3"/>')
    doc.close("g")


def _ordinal(depth: int) -> str:
    """A place in the deck: "on top", "2nd", "3rd", "4th"..."""
    if depth == 0:
        return "on top"
    n = depth + 1
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _notes(view: Mapping[str, Any]) -> list[str]:
    """The rest in words: the parts of the route, the options, the chests, a pending spell."""
    squares, tunnel, route = len(view["squares"]), int(view["tunnel"]), view["route"]
    mode = view["options"]["draw_mode"]
    if route == "complete":
        lines = [f"Tunnel: squares 1-{tunnel} ({MODES[mode['tunnel']]}), then the ship across "
                 f"the sea; jungle: squares {tunnel + 1}-{squares} ({MODES[mode['jungle']]})."]
    else:
        part = "jungle" if route == "tortuga" else "tunnel"
        lines = [f"{capital(part)}: squares 1-{squares} ({MODES[mode[part]]}) from the "
                 f"{'wreck' if route == 'tortuga' else 'prison'} to the {view['finish']}."]
    flags = [w for w, on in (("Rascals (dark cards)", view["options"]["rascals"]),
                             ("the Caribbean Witch", view["options"]["witch"])) if on]
    if flags:
        lines.append("Playing with " + join(flags) + ".")
    if "chests" in view:
        chests = view["chests"]
        opened = ", ".join(str(t).replace("-", " ") for t in chests["opened"])
        lines.append(f"Chest tokens (? on a square): {len(chests['squares'])} on the board, "
                     f"{chests['aside']} aside"
                     + (f"; opened since the last shuffle: {opened}." if opened else "."))
    discarding = view.get("discarding")
    if discarding:
        named = " ".join(discarding["named"]) or "none yet"
        lines.append(f"You must discard {discarding['owed']} more (named: {named}).")
    known = view.get("known_deck")
    if known:
        lines.append("Deck cards your lantern showed you: " + ", ".join(
            f"{_ordinal(k['depth'])} {symbol_of(k['card'])}" for k in
            sorted(known, key=lambda k: k["depth"])) + ".")
    return lines


def render_svg(view: Mapping[str, JSON], names: Sequence[str] | None = None) -> str:
    """The route, the pirates, the players' hands and whose turn it is; `names`: the players'
    names by seat ("Player 1", ... without)."""
    seats = int(view["seats"])
    full = player_names(seats, names)
    short = [n if len(n) <= 16 else n[:15] + "\u2026" for n in full]
    letters = initials(full)
    me = view["seat"] if isinstance(view["seat"], int) else None
    route = str(view["route"])
    dark = DATASETS.load(view["options"]["tile_data"]).dark if view["options"]["rascals"] \
        else None
    status = _status(view, short, full)
    notes = _notes(view)
    spell = view.get("spell") or {}
    shown = spell.get("target_hand", spell.get("drawn"))
    hand = view.get("hand")
    _, _, rows = _layout(route, len(view["squares"]), int(view["tunnel"]))
    players_y = TOP + rows * PY - (PY - CH) + 24
    notes_y = players_y + max(22 * seats, CARD_H + 14) + 6
    cards_y = notes_y + 18 * len(notes) + 4
    height = cards_y + ROW_CARDS * ((hand is not None) + (shown is not None)) + 8
    head = f"Cartagena, {ROUTES.get(route, route)}"
    seen = f"seen by {full[me]}" if me is not None else "seen by a spectator"
    crew = int(view["options"]["pirates"])
    safe = ", ".join(f"{full[s]} {view['pirates'].get(str(s), {}).get(view['finish'], 0)}"
                     for s in range(seats))
    desc = (f"{head}, {seen}: a route of {len(view['squares'])} squares. {status} Pirates at "
            f"the {view['finish']} (of {crew}): {safe}. " + " ".join(notes))
    doc = Svg(WIDTH, height, f"Cartagena: {join(full)}", desc)
    doc.raw(STYLE)
    doc.rect(0, 0, WIDTH, height, fill="#F7F1E3")
    doc.text(14, 18, head, size=16, anchor="start", class_="h")
    doc.text(14, 40, status + (f" You are {short[me]}." if me is not None else ""), size=13,
             anchor="start", class_="t")
    _route(doc, view, letters, full)
    _players(doc, players_y, view, short, letters)
    _piles(doc, WIDTH - 2 * CARD_W - 38, players_y - 8, view, dark)
    y = notes_y
    for line in notes:
        doc.text(14, y, line, size=12.5, anchor="start", class_="t")
        y += 18
    y = cards_y
    if hand is not None:
        y = _cards_row(doc, 14, y, f"Your hand ({plural(len(hand), 'card')})", hand, dark,
                       "hand")
    if shown is not None:
        label = (f"{capital(possessive(short[spell['target']]))} hand (your pistol shows "
                 "it)" if "target_hand" in spell else
                 "Drawn by your rum: keep 2, give 1 to each other player" if
                 spell["kind"] == "rum_deal" else
                 "Drawn by your lantern: keep 1, put the others back on the deck")
        _cards_row(doc, 14, y, label, shown, dark, "spell")
    return str(doc)
