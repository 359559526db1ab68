"""An SVG picture of a Totohu view: every fleet as a row of ship cards, for web pages and mails.

It reads only the redacted view (`engines.totohu.view`), so it can show nothing the viewer may
not see: a fleet the view leaves out (blind play) is six card backs, and another player's ship
choice before the reveal is one card back. A card shows the ship as the rulebook's cards do:
its die face, its holes (open or hit), and its cannon, deck, anchor and hold slots (empty or
filled), each row also counted in words, so that the picture reads without colour; a ship that
sank, went to port or left carries a stamp saying so.

A card's markup depends only on the ship's type and counters, so it is built once and placed
with a translation: a picture costs a few short strings per fleet.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any
from xml.sax.saxutils import escape

from engines.contract import JSON
from engines.svg import Svg, initials, num, player_names
from engines.totohu import event_text

DUMMY = "dummy"
CARD_W, CARD_H, GAP = 120, 118, 6
#: where a card's slots begin, right of their label
SLOT_X = 70
#: the left column (the side's name, score and this round's ship), then the six cards
LEFT = 12
CARDS_X = LEFT + 118
WIDTH = CARDS_X + 6 * (CARD_W + GAP) + 6
ROW_H = CARD_H + 14
TOP = 62
#: pips of a die face on a 3x3 grid (0..8, row by row)
PIPS = {1: (4,), 2: (0, 8), 3: (0, 4, 8), 4: (0, 2, 6, 8), 5: (0, 2, 4, 6, 8),
        6: (0, 2, 3, 5, 6, 8)}
CLASS_NAME = {"pirate": "pirate", "merchant": "merchant", "hunter": "hunter"}
STAMP = {"sunk": "SUNK", "port": "IN PORT", "left": "LEFT"}
STATUS_WORDS = {"sea": "at sea", "sunk": "sunk", "port": "in port", "left": "left"}
PHASE_WORDS = {"choose": "choosing ships", "order": "ordering the encounters",
               "raid": "a raid", "game_over": "game over"}
STYLE = (
    "<style>"
    ".card{fill:#FFF8E7;stroke:#4A3B28;stroke-width:1.2}"
    ".band{fill:#4A3B28}.band.merchant{fill:#7A5A2B}.band.hunter{fill:#2F5D46}"
    ".id{font-size:12px;font-weight:bold;fill:#FFFFFF}"
    ".nm{font-size:11px;font-weight:bold;fill:#111111}"
    ".s{font-size:9.5px;fill:#333333}.t{font-size:13px;fill:#111111}"
    ".h{font-size:15px;font-weight:bold;fill:#111111}.b{font-weight:bold}"
    ".die{fill:#FFFFFF;stroke:#222222;stroke-width:0.8}.pip{fill:#222222}"
    ".open{fill:#FFFFFF;stroke:#222222;stroke-width:1}"
    ".hit{fill:#222222;stroke:#222222;stroke-width:1}"
    ".slot{fill:#FFFFFF;stroke:#777777;stroke-width:1}"
    ".full{fill:#8C5A1E;stroke:#3B2408;stroke-width:1}"
    ".gone{fill:#FFFFFF;fill-opacity:0.6}"
    ".stamp{font-size:14px;font-weight:bold;fill:#B00020;text-anchor:middle}"
    ".stampbox{fill:#FFFFFF;stroke:#B00020;stroke-width:2}"
    ".back{fill:#1F3A5F;stroke:#0B1A2E;stroke-width:1.2}"
    ".wave{fill:none;stroke:#8FB3D9;stroke-width:1.5}"
    ".q{font-size:22px;font-weight:bold;fill:#FFFFFF;text-anchor:middle}"
    ".mark{fill:none;stroke:#000000;stroke-width:3}"
    ".last{fill:none;stroke:#000000;stroke-width:2.5;stroke-dasharray:6 3}"
    ".empty{fill:none;stroke:#777777;stroke-width:1.2;stroke-dasharray:4 3}"
    "</style>"
)


def _short(name: str, most: int = 16) -> str:
    """A name cut to fit its place in the picture (the title keeps it whole)."""
    return name if len(name) <= most else name[:most - 1] + "\u2026"


def _die(x: float, y: float, face: int, size: float = 16) -> str:
    """A die showing `face`, its top left corner at (x, y)."""
    step, r = size / 4, num(size / 11)
    pips = "".join(
        f'<circle class="pip" cx="{num(x + step * (1 + p % 3))}" '
        f'cy="{num(y + step * (1 + p // 3))}" r="{r}"/>' for p in PIPS.get(face, ()))
    return (f'<rect class="die" x="{num(x)}" y="{num(y)}" width="{num(size)}" '
            f'height="{num(size)}" rx="3"/>{pips}')


def _slots(y: int, label: str, have: int, room: int, cls: str, round_: bool) -> str:
    """One row of a card: a label with the count, then `room` slots, `have` of them filled."""
    parts = [f'<text class="s" x="6" y="{y + 3}">{label} {have}/{room}</text>']
    step = min(11.0, (CARD_W - SLOT_X - 4) / max(room, 1))
    r = min(4.0, step / 2 - 0.6)
    for i in range(room):
        cx = SLOT_X + step * i + r
        kind = cls if i < have else ("open" if cls == "hit" else "slot")
        if round_:
            parts.append(f'<circle class="{kind}" cx="{num(cx)}" cy="{y}" r="{num(r)}"/>')
        else:
            parts.append(f'<rect class="{kind}" x="{num(cx - r)}" y="{num(y - r)}" '
                         f'width="{num(2 * r)}" height="{num(2 * r)}"/>')
    return "".join(parts)


@lru_cache(maxsize=512)
def _card(kind: tuple[Any, ...], ship: tuple[Any, ...], treasure: bool) -> str:
    """One ship card at (0, 0): `kind` the ship type's fields, `ship` its status and counters."""
    sid, name, cls, strength, holes, cannons, deck, anchors, hold, face = kind
    status, n_holes, n_cannons, n_deck, n_hold, n_anchors = ship
    what = CLASS_NAME.get(cls, cls) + (f", strength {strength}" if strength else "")
    parts = [
        f'<rect class="card" width="{CARD_W}" height="{CARD_H}" rx="6"/>',
        f'<path class="band {escape(cls)}" d="M0 6a6 6 0 0 1 6-6h{CARD_W - 12}a6 6 0 0 1 6 6'
        f'v14h-{CARD_W}z"/>',
        f'<text class="id" x="6" y="15">{escape(sid)}</text>',
        _die(CARD_W - 20, 2, face),
        f'<text class="nm" x="6" y="34">{escape(name)}</text>',
        f'<text class="s" x="6" y="47">{escape(what)}</text>',
        _slots(62, "holes", n_holes, holes, "hit", True),
    ]
    y = 78
    if cannons:
        parts.append(_slots(y, "cannons", n_cannons, cannons, "full", True))
        y += 16
    if deck:
        parts.append(_slots(y, "deck", n_deck, deck, "full", False))
        y += 16
    if anchors:
        parts.append(_slots(y, "anchors", n_anchors, anchors, "full", True))
        y += 16
    if treasure and hold:
        parts.append(_slots(y, "hold", n_hold, hold, "full", False))
    stamp = STAMP.get(status)
    if stamp:
        w = 12 + 9 * len(stamp)
        parts.append(
            f'<rect class="gone" width="{CARD_W}" height="{CARD_H}" rx="6"/>'
            f'<g transform="rotate(-18 {CARD_W // 2} {CARD_H // 2 + 8})">'
            f'<rect class="stampbox" x="{num((CARD_W - w) / 2)}" y="{CARD_H // 2 - 3}" '
            f'width="{w}" height="22" rx="3"/>'
            f'<text class="stamp" x="{CARD_W // 2}" y="{CARD_H // 2 + 13}">{stamp}</text></g>')
    return "".join(parts)


@lru_cache(maxsize=4)
def _back(w: int, h: int) -> str:
    """A card's back at (0, 0): what a hidden ship looks like."""
    q, half = num((w - 16) / 4), num((w - 16) / 8)
    waves = "".join(f'<path class="wave" d="M8 {y}q{half} -6 {q} 0t{q} 0t{q} 0t{q} 0"/>'
                    for y in (h // 4, h - h // 4))
    return (f'<rect class="back" width="{w}" height="{h}" rx="6"/>{waves}'
            f'<text class="q" x="{num(w / 2)}" y="{num(h / 2 + 8)}">?</text>')


def _mini(sid: str) -> str:
    """A small face-up card at (0, 0) naming a ship: this round's choice or reveal."""
    return (f'<rect class="card" width="40" height="54" rx="5"/>'
            f'<text class="nm" x="20" y="32" text-anchor="middle">{escape(sid)}</text>')


def _at(x: float, y: float, markup: str) -> str:
    return f'<g transform="translate({num(x)} {num(y)})">{markup}</g>'


def _sides(view: Mapping[str, Any]) -> list[str]:
    """The seats' sides in order, then the dummy's."""
    seats = sorted((s for s in view["active"] if s != DUMMY), key=int)
    return seats + ([DUMMY] if DUMMY in view["active"] else [])


def _round_ship(view: Mapping[str, Any], side: str, mine: bool) -> tuple[str, str]:
    """What the side plays this round as (kind, text): a face-up ship, a back, or nothing."""
    phase = view["phase"]
    reveal = view["reveal"] or {}
    if phase in ("order", "raid") and side in reveal:
        return "face", reveal[side]
    if phase != "choose" or side == DUMMY:
        return "none", ""
    if mine and view["my_choice"] is not None:
        choice = view["my_choice"]
        return "face", choice["ship"] + (" hide" if choice["hide"] else "")
    if view["chosen"].get(side):
        return "back", "chosen"
    if int(side) in view["to_act"]:
        return "empty", "choosing"
    return "none", ""


def _side_row(doc: Svg, y: float, view: Mapping[str, Any], side: str, label: str, letter: str,
              mine: bool, marked: Mapping[str, str]) -> None:
    """One fleet: who it is, its score and round status on the left, then its six cards."""
    dummy = side == DUMMY
    doc.open("g", id=f"fleet-{side}")
    if dummy:
        # the dummy's token: grey, a diamond, "D" (no player has a diamond: at most three)
        doc.polygon([(LEFT + 8, y + 1), (LEFT + 16, y + 9), (LEFT + 8, y + 17), (LEFT, y + 9)],
                    fill="#999999", stroke="#222222")
        doc.text(LEFT + 8, y + 9, "D", size=9, font_weight="bold")
    else:
        doc.token(LEFT + 8, y + 9, 8, int(side), letter)
    doc.text(LEFT + 22, y + 9, label, size=13, anchor="start", class_="b")
    fleet = view["fleets"].get(side)
    score = view["scores"].get(side)
    notes = ["fleet and score hidden" if score is None else f"score {score}"]
    if not view["active"][side]:
        notes.append("no ship at sea")
    if not dummy and view["resigned"].get(side):
        notes.append("resigned")
    doc.text(LEFT, y + 28, ", ".join(notes[:2]), size=11, anchor="start", class_="s")
    if len(notes) > 2:
        doc.text(LEFT, y + 42, notes[2], size=11, anchor="start", class_="s")
    kind, text = _round_ship(view, side, mine)
    mx, my = LEFT, y + 56
    if kind == "face":
        doc.raw(_at(mx, my, _mini(text.split()[0])))
    elif kind == "back":
        doc.raw(_at(mx, my, _back(40, 54)))
    elif kind == "empty":
        doc.raw(f'<rect class="empty" x="{mx}" y="{my}" width="40" height="54" rx="5"/>')
    if kind != "none":
        when = "played" if view["phase"] != "choose" else "this round"
        doc.text(mx + 46, my + 20, when, size=11, anchor="start", class_="s")
        doc.text(mx + 46, my + 34, text, size=11, anchor="start", class_="s b")
    treasure = bool(view["options"]["hidden_treasure"])
    x = CARDS_X
    for t in view["ship_types"]:
        if fleet is None:
            doc.raw(_at(x, y, _back(CARD_W, CARD_H)))
        else:
            ship = fleet[t["id"]]
            doc.raw(_at(x, y, _card(
                (t["id"], t["name"], t["class"], t["strength"], t["holes"], t["cannons"],
                 t["deck"], t["anchors"], t["hold"], t["die_face"]),
                (ship["status"], ship["holes"], ship["cannons"], ship["deck"], ship["hold"],
                 ship["anchors"]), treasure)))
            mark = marked.get(t["id"])
            if mark:
                doc.raw(f'<rect class="{mark}" x="{x - 3}" y="{y - 3}" width="{CARD_W + 6}" '
                        f'height="{CARD_H + 6}" rx="8"/>')
        x += CARD_W + GAP
    doc.close("g")


def _marks(view: Mapping[str, Any], side: str, mine: bool) -> dict[str, str]:
    """The side's cards to outline: this round's ship (solid; the final round's once the game
    is over) or the last round's (dashed)."""
    reveal = view["reveal"] or {}
    phase = view["phase"]
    if mine and phase == "choose" and view["my_choice"] is not None:
        return {view["my_choice"]["ship"]: "mark"}
    if side in reveal:
        return {reveal[side]: "last" if phase == "choose" else "mark"}
    return {}


def render_svg(view: Mapping[str, JSON], names: Sequence[str] | None = None) -> str:
    """Round, phase and whose turn, every fleet as cards (hidden ones as backs), this round's
    ships, the order, a pending raid, the dummy's die and the result; `names`: the players'
    names by seat ("Player 1", ... without)."""
    seats = int(view["seats"])
    who = player_names(seats, names)
    short = [_short(n) for n in who]
    me = view["seat"] if isinstance(view["seat"], int) else None
    letters = initials(who)
    sides = _sides(view)

    def name(side: Any) -> str:
        return "the dummy" if str(side) == DUMMY else short[int(side)]

    phase = str(view["phase"])
    to_act = ", ".join(short[s] for s in view["to_act"]) or "nobody"
    head = f"Totohu, round {view['round']}: {PHASE_WORDS.get(phase, phase)}"
    status = (f"To act: {to_act}. Starter: {short[view['starter']]}." if phase != "game_over"
              else "The game is over.")
    flags = [w for w, on in (("hidden treasure", view["options"]["hidden_treasure"]),
                             ("blind play", view["options"]["blind"])) if on]
    if flags:
        status += " Options: " + ", ".join(flags) + "."
    lines = _round_lines(view, name)
    faces = view["dummy_faces"] or (
        {str(t["die_face"]): t["id"] for t in view["ship_types"]} if DUMMY in sides else None)
    height = TOP + ROW_H * len(sides) + 18 * len(lines) + (58 if faces else 0) + 24
    players = ", ".join(who[:-1]) + f" and {who[-1]}" if seats > 1 else who[0]
    title = f"Totohu: {players}" + (" against the dummy" if seats == 1 else "")
    seen = f"seen by {who[me]}" if me is not None else "seen by a spectator"
    scores = ", ".join(f"{name(s)} {view['scores'][s]}" for s in sides if s in view["scores"])
    desc = (f"{head}, {seen}. {status} Each fleet is a row of six ship cards, hidden ones "
            f"face down. Scores: {scores or 'hidden'}. " + " ".join(lines))
    doc = Svg(WIDTH, height, title, desc)
    doc.raw(STYLE)
    doc.rect(0, 0, WIDTH, height, fill="#EAF2F8")
    doc.text(LEFT, 18, head, size=15, anchor="start", class_="h")
    doc.text(LEFT, 40, status, size=13, anchor="start", class_="t")
    y = float(TOP)
    for side in sides:
        mine = me is not None and side == str(me)
        label = "Dummy" if side == DUMMY else short[int(side)] + (" (you)" if mine else "")
        _side_row(doc, y, view, side, label, "" if side == DUMMY else letters[int(side)], mine,
                  _marks(view, side, mine))
        y += ROW_H
    y += 6
    for line in lines:
        doc.text(LEFT, y, line, size=13, anchor="start", class_="t")
        y += 18
    if faces:
        y = _dummy_die(doc, y, view, faces)
    _key(doc, y + 6)
    return str(doc)


def _round_lines(view: Mapping[str, Any], name: Any) -> list[str]:
    """The round in words: the ships played, the order, a pending raid, the result."""
    lines = []
    reveal = view["reveal"]
    if reveal:
        when = {"choose": "last round", "game_over": "in the final round"}.get(
            view["phase"], "this round")
        played = ", ".join(f"{name(s)} {ship}" for s, ship in sorted(
            reveal.items(), key=lambda kv: (kv[0] == DUMMY, kv[0])))
        lines.append(f"Ships played {when}: {played}.")
    if view["order"]:
        lines.append("Encounters in order: " + ", ".join(
            f"{name(a)} against {name(b)}" for a, b in view["order"]) + ".")
    raid = view["raid"]
    if raid:
        pirate, merchant = raid["pirate"], raid["merchant"]
        lines.append(f"Raid: {name(pirate['side'])}'s pirate {pirate['ship']} meets "
                     f"{name(merchant['side'])}'s merchant {merchant['ship']}; "
                     f"{name(raid['seat'])} decides: shoot or rob.")
    result = view["result"]
    if result:
        scores = result.get("scores") or {}
        ordered = {k: scores[k] for k in sorted(scores, key=lambda k: (k == DUMMY, k))}
        told = event_text.describe_result({**result, "scores": ordered}, name)
        lines.append("Game over. " + (told or ""))
    return lines


def _dummy_die(doc: Svg, y: float, view: Mapping[str, Any], faces: Mapping[str, str]) -> float:
    """The dummy's die: which ship each face sends to sea (§4.5); returns the y below."""
    doc.text(LEFT, y + 4, "The dummy's die:", size=13, anchor="start", class_="t")
    parts = []
    for i, face in enumerate(sorted(faces, key=int)):
        x = LEFT + 120 + i * 52
        parts.append(_die(x, y - 6, int(face), 22))
        parts.append(f'<text class="s b" x="{x + 11}" y="{y + 30}" text-anchor="middle">'
                     f'{escape(faces[face])}</text>')
    doc.raw(f'<g id="dummy-die">{"".join(parts)}</g>')
    return y + 50


def _key(doc: Svg, y: float) -> None:
    """What the marks on the cards mean, so that the picture reads alone."""
    doc.raw(
        f'<g id="key"><circle class="open" cx="{LEFT + 4}" cy="{y}" r="4"/>'
        f'<text class="s" x="{LEFT + 12}" y="{y + 3}">hole, intact</text>'
        f'<circle class="hit" cx="{LEFT + 84}" cy="{y}" r="4"/>'
        f'<text class="s" x="{LEFT + 92}" y="{y + 3}">hole, hit</text>'
        f'<circle class="full" cx="{LEFT + 154}" cy="{y}" r="4"/>'
        f'<text class="s" x="{LEFT + 162}" y="{y + 3}">cannon or anchor</text>'
        f'<rect class="full" x="{LEFT + 250}" y="{y - 4}" width="8" height="8"/>'
        f'<text class="s" x="{LEFT + 262}" y="{y + 3}">barrel (deck or hold)</text>'
        f'<rect class="mark" x="{LEFT + 374}" y="{y - 6}" width="16" height="12"/>'
        f'<text class="s" x="{LEFT + 396}" y="{y + 3}">played this round</text>'
        f'<rect class="last" x="{LEFT + 490}" y="{y - 6}" width="16" height="12"/>'
        f'<text class="s" x="{LEFT + 512}" y="{y + 3}">played last round</text>'
        f'<rect class="back" x="{LEFT + 610}" y="{y - 7}" width="12" height="14" rx="2"/>'
        f'<text class="s" x="{LEFT + 628}" y="{y + 3}">hidden ship</text></g>')
