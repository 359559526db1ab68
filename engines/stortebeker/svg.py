"""An SVG picture of a Störtebeker view: the ships at sea with every player's load, the harbour,
the players' captured ships and points, the viewer's hand, for web pages and mails.

It reads only the redacted view (`engines.stortebeker.view`), and the public data set the
view's options name for the printed faces of cards the view gives by id (a provision's pirate
symbol, a harbour or captured ship's needs), so it shows nothing the viewer may not see: another
player's face-down pirate is a card back, the deck and the hidden harbour ships are counts.
Provisions are drawn *and* lettered (W water, Be beans, Bi biscuits...), a ship's colour is
written in its id, and players are tokens with colour, shape and letter, so that the picture
reads without colour.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any
from xml.sax.saxutils import escape

from engines.contract import JSON
from engines.sentences import capital, game_over_line, join, plural, possessive
from engines.stortebeker import event_text
from engines.stortebeker.data import CardData, card_data
from engines.svg import Svg, initials, num, placed, player_names

WIDTH = 900
LEFT = 12
#: a ship at sea: its card, the room its needs take, one player's load on it
SHIP_W, SHIP_GAP, SHIP_TOP = 212, 10, 92
SIDE_H = 52
#: a small card in a load, in the discard pile or an exchange area
CHIP_W, CHIP_H, CHIP_GAP = 22, 32, 3
#: a card in the viewer's hand
CARD_W, CARD_H = 46, 62
ROW_CARDS = 18 + CARD_H + 14
#: each ship colour's fill and the ink written on it
SHIP_FILL = {"black": ("#3A3A3A", "#FFFFFF"), "blue": ("#2F6DB5", "#FFFFFF"),
             "green": ("#2E7D4F", "#FFFFFF"), "red": ("#B83227", "#FFFFFF"),
             "yellow": ("#E8C547", "#000000")}
ASKED = {"play_cards": "play cards", "cannon_take": "choose the card the cannon takes",
         "board": "board a ship or end boarding", "counter_attack": "counter-attack or decline"}
STYLE = (
    "<style>"
    ".ship{fill:#FFF8E7;stroke:#4A3B28;stroke-width:1.2}"
    ".slot{fill:none;stroke:#7A8FA6;stroke-width:1.5;stroke-dasharray:6 4}"
    ".chip{fill:#FFFDF6;stroke:#4A3B28;stroke-width:1}"
    ".sym{fill:#FFFDF6;stroke:#000000;stroke-width:2.2}"
    ".back{fill:#5B3A1E;stroke:#2B1606;stroke-width:1}"
    ".pir{fill:#F3E2C0;stroke:#2B1606;stroke-width:1.4}"
    ".hid{fill:#F3E2C0;stroke:#2B1606;stroke-width:1.4;stroke-dasharray:3 2}"
    ".need{fill:#EFE6D2;stroke:#8C7A5B;stroke-width:1}"
    ".mark{fill:none;stroke:#000000;stroke-width:3}"
    ".gi{fill:#3A2E1F}.gl{fill:#FFFDF6}.gs{fill:none;stroke:#3A2E1F;stroke-width:2;"
    "stroke-linecap:round}"
    ".c{font-size:9px;font-weight:bold;fill:#2A2116;text-anchor:middle}"
    ".v{font-size:13px;font-weight:bold;fill:#2A2116;text-anchor:middle}"
    ".q{font-size:14px;font-weight:bold;fill:#FFFFFF;text-anchor:middle}"
    ".h{font-size:16px;font-weight:bold;fill:#111111}.t{font-size:12.5px;fill:#111111}"
    ".s{font-size:11px;fill:#333333}.b{font-weight:bold}"
    "</style>"
)
#: each provision (and the pirate) drawn in a 24 x 24 box round (0, 0)
GLYPHS: dict[str, str] = {
    "water": '<path class="gi" d="M0 -11c5 7 8 11 8 15a8 8 0 0 1 -16 0c0 -4 3 -8 8 -15z"/>'
             '<path class="gl" d="M-4 4a4 4 0 0 0 3 4" style="fill:none;stroke:#FFFDF6;'
             'stroke-width:1.6"/>',
    "beans": '<ellipse class="gi" cx="-6" cy="2" rx="4.5" ry="6.5" transform="rotate(-20 -6 2)"/>'
             '<ellipse class="gi" cx="1" cy="-3" rx="4.5" ry="6.5" transform="rotate(15 1 -3)"/>'
             '<ellipse class="gi" cx="6" cy="5" rx="4.5" ry="6.5" transform="rotate(40 6 5)"/>',
    "biscuits": '<rect class="gi" x="-10" y="-9" width="20" height="18" rx="4"/>'
                '<circle class="gl" cx="-4" cy="-3" r="1.6"/><circle class="gl" cx="4" cy="-3" '
                'r="1.6"/><circle class="gl" cx="-4" cy="4" r="1.6"/><circle class="gl" cx="4" '
                'cy="4" r="1.6"/>',
    "meat": '<ellipse class="gi" cx="-2" cy="-2" rx="8" ry="7" transform="rotate(-35 -2 -2)"/>'
            '<path class="gs" style="stroke-width:3" d="M3 4l6 6"/><circle class="gi" cx="10" '
            'cy="8" r="2.2"/><circle class="gi" cx="8" cy="11" r="2.2"/>',
    "rum": '<rect class="gi" x="-2.5" y="-12" width="5" height="7" rx="1"/>'
           '<rect class="gi" x="-7" y="-6" width="14" height="17" rx="4"/>'
           '<rect class="gl" x="-5" y="0" width="10" height="6" rx="1"/>',
    "bananas": '<path class="gi" d="M-11 -6q2 16 20 12l2 -3q-14 2 -18 -11z"/>'
               '<path class="gi" d="M-8 -9q4 13 19 9l1 -3q-12 1 -16 -9z"/>'
               '<rect class="gi" x="-12" y="-10" width="4" height="3" rx="1"/>',
    "pirate": '<path class="gi" d="M-12 -2q12 -18 24 0q-12 -5 -24 0z"/>'
              '<circle class="gi" cx="0" cy="5" r="6"/><circle class="gl" cx="-2.2" cy="4" '
              'r="1.6"/><circle class="gl" cx="2.2" cy="4" r="1.6"/>',
}
#: the pirate symbol printed on ten provisions: a small skull in the card's corner
SKULL = ('<circle cx="0" cy="0" r="5" fill="#000000"/><circle cx="-1.8" cy="-0.8" r="1.3" '
         'fill="#FFFFFF"/><circle cx="1.8" cy="-0.8" r="1.3" fill="#FFFFFF"/>'
         '<rect x="-1.6" y="2" width="3.2" height="1.4" fill="#FFFFFF"/>')


def glyph(kind: str, cx: float, cy: float, scale: float = 1.0) -> str:
    """A kind's drawing centred on (cx, cy); an unknown kind is its initial in a ring."""
    inner = GLYPHS.get(kind)
    if inner is None:
        inner = (f'<circle class="gs" r="10"/><text class="v" y="5">'
                 f'{escape(kind[:1].upper())}</text>')
    return placed(inner, cx, cy, scale)


@lru_cache(maxsize=8)
def _codes(kinds: tuple[str, ...]) -> dict[str, str]:
    """A short code per provision kind, distinct within the set: W, Be, Bi, M, R, Ba."""
    return dict(zip(kinds, initials([k.capitalize() for k in kinds]), strict=True))


def _kind(card: str) -> str:
    """`water-07` -> `water`, `pirate4-2` -> `pirate` (card ids say what a card is)."""
    head = card.rsplit("-", 1)[0]
    return "pirate" if head.startswith("pirate") else head


# ---- small cards -----------------------------------------------------------------------------


def _chip(x: float, y: float, card: str, data: CardData) -> str:
    """A provision in a load or a pile: its drawing and code, a skull where it bears the
    symbol; a pirate card: its value."""
    info = data.cards.get(card)
    kind = _kind(card)
    if kind == "pirate":
        value = info.value if info else "?"
        return _pirate(x, y, value, "pir", f"pirate worth {value}")
    symbol = bool(info and info.symbol)
    code = _codes(data.kinds).get(kind, kind[:2])
    title = f"{kind}{', with the pirate symbol' if symbol else ''}"
    mark = f'<g transform="translate({num(x + CHIP_W - 3)} {num(y + 3)})">{SKULL}</g>' \
        if symbol else ""
    cls = "sym" if symbol else "chip"
    return (f'<g class="card"><title>{escape(title)}</title><rect class="{cls}" x="{num(x)}" '
            f'y="{num(y)}" width="{CHIP_W}" height="{CHIP_H}" rx="3"/>'
            + glyph(kind, x + CHIP_W / 2, y + 11, 0.62)
            + f'<text class="c" x="{num(x + CHIP_W / 2)}" y="{num(y + CHIP_H - 4)}">'
            f'{escape(code)}</text>{mark}</g>')


def _pirate(x: float, y: float, value: Any, cls: str, title: str) -> str:
    """A pirate card in a load: face down (a back with "?"), or its value."""
    if cls == "back":
        return (f'<g class="card"><title>{title}</title><rect class="back" x="{num(x)}" '
                f'y="{num(y)}" width="{CHIP_W}" height="{CHIP_H}" rx="3"/><text class="q" '
                f'x="{num(x + CHIP_W / 2)}" y="{num(y + 21)}">?</text></g>')
    return (f'<g class="card"><title>{title}</title><rect class="{cls}" x="{num(x)}" '
            f'y="{num(y)}" width="{CHIP_W}" height="{CHIP_H}" rx="3"/>'
            + glyph("pirate", x + CHIP_W / 2, y + 9, 0.5)
            + f'<text class="v" x="{num(x + CHIP_W / 2)}" y="{num(y + CHIP_H - 4)}">{value}'
            f'</text></g>')


def _load_pirate(x: float, y: float, p: Mapping[str, Any]) -> str:
    """A pirate at a ship as the view gives it: the viewer's own (value; dashed while hidden
    from the others), another's revealed one (value), another's face-down one (a back)."""
    if "value" not in p:
        return _pirate(x, y, "?", "back", "a face-down pirate")
    if p.get("revealed"):
        return _pirate(x, y, p["value"], "pir", f"pirate worth {p['value']}, revealed")
    return _pirate(x, y, p["value"], "hid", f"your pirate worth {p['value']}, face down")


# ---- the sea -------------------------------------------------------------------------------


def _needs(x: float, y: float, requires: Mapping[str, int], data: CardData, w: float,
           words: bool = True) -> str:
    """What a ship needs: each kind drawn and named (or coded where room is short), a count
    where it needs more than one."""
    kinds = [k for k in data.kinds if k in requires] + sorted(
        k for k in requires if k not in data.kinds)
    step = min(50.0, (w - 8) / max(len(kinds), 1))
    codes = _codes(data.kinds)
    parts = []
    for i, kind in enumerate(kinds):
        cx = x + 4 + step * i + step / 2
        n = int(requires[kind])
        label = kind if words else codes.get(kind, kind[:2])
        parts.append(f'<g><title>needs {n} {escape(kind)}</title><rect class="need" '
                     f'x="{num(cx - step / 2 + 1.5)}" y="{num(y)}" width="{num(step - 3)}" '
                     f'height="34" rx="4"/>' + glyph(kind, cx, y + 12, 0.7)
                     + f'<text class="c" x="{num(cx)}" y="{num(y + 30)}">{escape(label)}</text>'
                     + (f'<circle cx="{num(cx + step / 2 - 9)}" cy="{num(y + 8)}" r="6.5" '
                        f'fill="#000000"/><text class="q" x="{num(cx + step / 2 - 9)}" '
                        f'y="{num(y + 12)}" font-size="11">{n}</text>' if n > 1 else "")
                     + "</g>")
    return "".join(parts)


def _ship(doc: Svg, x: float, y: float, h: float, ship: Mapping[str, Any], data: CardData,
          short: Sequence[str], letters: Sequence[str], mark: str) -> None:
    """A ship at sea: its id, points and defence in its colour's band, its needs, then each
    player's load on it (provisions, pirates, how much is loaded)."""
    fill, ink = SHIP_FILL.get(str(ship["colour"]), ("#777777", "#FFFFFF"))
    doc.open("g", id=f"ship-{ship['id']}")
    doc.raw(f'<rect class="ship" x="{x}" y="{y}" width="{SHIP_W}" height="{num(h)}" rx="7"/>'
            f'<path d="M{x} {y + 7}a7 7 0 0 1 7 -7h{SHIP_W - 14}a7 7 0 0 1 7 7v17h-{SHIP_W}z" '
            f'fill="{fill}"/>')
    doc.text(x + 8, y + 12, str(ship["id"]), size=13, anchor="start", fill=ink, class_="b")
    doc.text(x + SHIP_W - 8, y + 12, plural(int(ship["points"]), "point"), size=12,
             anchor="end", fill=ink, class_="b")
    doc.text(x + 8, y + 36, f"defence {ship['defence']}", size=12, anchor="start", class_="t")
    need = sum(int(n) for n in ship["requires"].values())
    doc.text(x + SHIP_W - 8, y + 36, f"needs {need}", size=12, anchor="end", class_="t")
    doc.raw(_needs(x + 2, y + 46, ship["requires"], data, SHIP_W - 4))
    sy = y + 88
    sides = ship["sides"]
    if not sides:
        doc.text(x + 8, sy + 8, "nobody has loaded it yet", size=11, anchor="start", class_="s")
    for owner in sorted(sides, key=int):
        side, seat = sides[owner], int(owner)
        provisions, pirates = side["provisions"], side["pirates"]
        loaded = f"{len(provisions)}/{need}" + (" complete" if len(provisions) >= need else "")
        doc.token(x + 14, sy + 7, 6.5, seat, letters[seat])
        who = short[seat] if len(short[seat]) <= 11 else short[seat][:10] + "\u2026"
        doc.text(x + 25, sy + 7, who, size=12, anchor="start", class_="t b")
        doc.text(x + SHIP_W - 8, sy + 7, loaded, size=11, anchor="end", class_="s")
        cx = x + 8
        for card in sorted(provisions, key=lambda c: (data.kinds.index(_kind(c))
                                                      if _kind(c) in data.kinds else 99, c)):
            doc.raw(_chip(cx, sy + 16, card, data))
            cx += CHIP_W + CHIP_GAP
        cx += 4 if provisions and pirates else 0
        for p in sorted(pirates, key=_pirate_order):
            doc.raw(_load_pirate(cx, sy + 16, p))
            cx += CHIP_W + CHIP_GAP
        sy += SIDE_H
    if mark:
        doc.raw(f'<rect class="mark" x="{x - 3}" y="{y - 3}" width="{SHIP_W + 6}" '
                f'height="{num(h + 6)}" rx="9"/>')
        doc.text(x + SHIP_W / 2, y + h + 14, mark, size=11.5, class_="t b")
    doc.close("g")


def _pirate_order(p: Mapping[str, Any]) -> tuple[int, int, str]:
    """Pirates in a load: known values highest first, then the face-down ones."""
    return (0 if "value" in p else 1, -int(p.get("value", 0)), str(p.get("id", "")))


def _marks(view: Mapping[str, Any], short: Sequence[str]) -> dict[str, str]:
    """The ships the decision is about, and what it asks there."""
    dec = view["decision"]
    if view["result"] or dec.get("seat") is None:
        return {}
    kind = dec["kind"]
    if kind == "board":
        return {s: "can be boarded" for s in dec.get("eligible", ())}
    if kind == "cannon_take":
        return {dec["ship"]: f"cannon hit: a {dec['loot_kind']} card"}
    if kind == "counter_attack":
        return {dec["ship"]: f"{short[dec['best']['seat']]} leads with {dec['best']['value']}"}
    return {}


# ---- words -----------------------------------------------------------------------------------


def _status(view: Mapping[str, Any], short: Sequence[str], full: Sequence[str]) -> str:
    """What the game waits for, or how it ended."""
    result = view["result"]
    if result:
        return game_over_line(result, lambda s: full[s], event_text.describe_result)
    dec = view["decision"]
    if dec.get("seat") is None:
        return f"{capital(possessive(short[view['active']]))} turn."
    who = short[dec["seat"]]
    kind = dec["kind"]
    text = f"{capital(possessive(who))} turn to {ASKED.get(kind, kind.replace('_', ' '))}"
    if kind == "play_cards":
        text += f" ({dec['u']} of {plural(dec['k'], 'card')} used"
        if dec.get("discarded"):
            text += ", exchanged " + " ".join(dec["discarded"])
            if dec.get("taken"):
                text += " for " + " ".join(dec["taken"])
        text += ")"
    elif kind == "cannon_take":
        text += (f" at {dec['ship']} (colour die {dec['die']}: {dec['loot_kind']}; "
                 f"{' or '.join(dec['candidates'])})")
    elif kind == "board":
        text += f": {join(dec.get('eligible', ())) or 'none'}"
    elif kind == "counter_attack":
        need = dec["missing"]
        missing = join(f"{need[k]} {k}" if need[k] > 1 else k for k in sorted(need))
        text += f" at {dec['ship']}, to beat {dec['best']['value']}" + (
            f", missing {missing}" if missing else "")
    return text + "."


def _notes(view: Mapping[str, Any]) -> list[str]:
    """The end's state and the options in words."""
    lines = []
    end = view["end"]
    if view["result"]:
        pass
    elif end.get("final_capture"):
        lines.append("The final round: the game ends after this round.")
    elif end.get("stall_end"):
        lines.append("No capture for too long: the game ends after this round.")
    elif end.get("armed"):
        lines.append("The harbour is empty: the next capture starts the final round.")
    options = view["options"]
    rules = [w for key, w in (("colour-bonus", "colour bonus"), ("open-harbour", "open harbour"),
                              ("failed-boarding-ends", "a failed boarding ends boarding"),
                              ("counter-ends-boarding", "a winning counter-attack ends "
                               "boarding"), ("two-player-three-ships", "three ships at sea"),
                              ("stall-limit", "the stall limit"))
             if options.get(key) or (options.get("extended") and key != "stall-limit")]
    if rules:
        lines.append("Rules: " + ", ".join(dict.fromkeys(rules)) + ".")
    return lines


# ---- the panels ------------------------------------------------------------------------------


def _harbour(doc: Svg, y: float, view: Mapping[str, Any], data: CardData) -> None:
    """The harbour (its count, its face-up ships), the removed ships, the deck and the pile."""
    harbour = view["harbour"]
    doc.open("g", id="harbour")
    doc.text(LEFT, y, f"Harbour: {plural(int(harbour['count']), 'ship')}, "
             f"{view['removed']} removed unseen", size=13, anchor="start", class_="t b")
    x = LEFT
    for ship in harbour["visible"]:
        info = data.ships.get(ship)
        fill, ink = SHIP_FILL.get(info.colour if info else "", ("#777777", "#FFFFFF"))
        doc.raw(f'<rect class="ship" x="{x}" y="{y + 12}" width="128" height="78" rx="5"/>'
                f'<rect x="{x}" y="{y + 12}" width="128" height="18" rx="5" fill="{fill}"/>')
        doc.text(x + 6, y + 21, ship, size=11.5, anchor="start", fill=ink, class_="b")
        if info:
            doc.text(x + 122, y + 21, f"{info.points} pts", size=11, anchor="end", fill=ink)
            doc.text(x + 6, y + 40, f"defence {info.defence}", size=11, anchor="start",
                     class_="s")
            doc.raw(_needs(x, y + 52, info.requires, data, 128, words=False))
        x += 136
    doc.close("g")


#: discard groups per row of the pile
PILE_ROW = 9


def _pile_groups(pile: Sequence[str], data: CardData) -> list[list[str]]:
    """The discard pile as groups of cards the rules cannot tell apart (kind and symbol, or a
    pirate's value), in kind order."""
    groups: dict[str, list[str]] = {}
    for card in pile:
        info = data.cards.get(card)
        key = (f"pirate{info.value}" if info and info.is_pirate else
               f"{_kind(card)}{'*' if info and info.symbol else ''}")
        groups.setdefault(key, []).append(card)
    order = {k: i for i, k in enumerate(data.kinds)}
    return [groups[k] for k in sorted(groups, key=lambda k: (order.get(k.rstrip("*"), 99), k))]


def _piles(doc: Svg, x: float, y: float, view: Mapping[str, Any],
           groups: list[list[str]], data: CardData) -> None:
    """The deck as a count, the face-up discard pile as cards per kind with counts."""
    doc.open("g", id="discard")
    doc.text(x, y, f"Deck: {plural(int(view['deck']), 'card')}. Discard pile: "
             f"{plural(len(view['discard']), 'card')}", size=13, anchor="start", class_="t b")
    for i, cards in enumerate(groups):
        cx, cy = x + (i % PILE_ROW) * (CHIP_W + 26), y + 12 + (i // PILE_ROW) * (CHIP_H + 6)
        doc.raw(_chip(cx, cy, min(cards), data))
        doc.raw(f'<text class="s b" x="{num(cx + CHIP_W + 2)}" y="{num(cy + 20)}">'
                f'\u00d7{len(cards)}</text>')
    doc.close("g")


def _players(doc: Svg, y: float, view: Mapping[str, Any], data: CardData,
             short: Sequence[str], letters: Sequence[str]) -> None:
    """Per player: points (bonus, track), cards in hand, the exchange area, captured ships."""
    me = view["seat"]
    won = (view["result"] or {}).get("winners") or ()
    doc.open("g", id="players")
    for seat in range(int(view["seats"])):
        ly = y + seat * 44
        score = view["scores"][str(seat)]
        doc.token(24, ly, 8, seat, letters[seat])
        if seat == view["decision"].get("seat") and not view["result"]:
            doc.raw(f'<polygon points="4,{ly - 6} 12,{ly} 4,{ly + 6}" fill="#FFF3B0" '
                    f'stroke="#000000" stroke-width="2"/>')
        doc.text(38, ly, short[seat] + (" (you)" if seat == me else ""), size=13,
                 anchor="start", class_="t b")
        bonus = f" (bonus {score['bonus']})" if score["bonus"] else ""
        notes = [f"{plural(int(score['points']), 'point')}{bonus}, track {score['track']}",
                 plural(int(view["hand_counts"][str(seat)]), "card") + " in hand"]
        if seat in won:
            notes.append("won")
        if view["resigned"][seat]:
            notes.append("resigned")
        doc.text(210, ly, ", ".join(notes), size=12, anchor="start", class_="t")
        area = view["exchange_areas"].get(str(seat)) or []
        if area:
            doc.text(650, ly, "exchange area:", size=11, anchor="start", class_="s")
            for i, card in enumerate(sorted(area)):
                doc.raw(_chip(740 + i * (CHIP_W + CHIP_GAP), ly - 16, card, data))
        groups = _by_colour(score["ships"], data)
        doc.text(38, ly + 20, f"captured: {'none' if not groups else ''}", size=11,
                 anchor="start", class_="s")
        sx = 100.0
        for colour, ships in groups:
            fill, ink = SHIP_FILL.get(colour, ("#777777", "#FFFFFF"))
            label = f"{colour} " + "+".join(str(p) for _, p in ships)
            w = 8 + 6.4 * len(label)
            told = ", ".join(f"{ship} ({plural(p, 'point')})" for ship, p in ships)
            doc.raw(f'<g><title>{escape(told)}</title><rect x="{num(sx)}" y="{ly + 12}" '
                    f'width="{num(w)}" height="16" rx="3" fill="{fill}"/>')
            doc.text(sx + w / 2, ly + 20, label, size=10, fill=ink, class_="b")
            doc.raw("</g>")
            sx += w + 4
    doc.close("g")


def _by_colour(ships: Sequence[str], data: CardData) -> list[tuple[str, list[tuple[str, int]]]]:
    """Captured ships by colour (the colour bonus counts them so), each colour's ships as
    (id, points), most points first."""
    groups: dict[str, list[tuple[str, int]]] = {}
    for ship in ships:
        info = data.ships.get(ship)
        colour = info.colour if info else "unknown"
        groups.setdefault(colour, []).append((ship, info.points if info else 0))
    order = {c: i for i, c in enumerate(SHIP_FILL)}
    return [(c, sorted(groups[c], key=lambda sp: (-sp[1], sp[0])))
            for c in sorted(groups, key=lambda c: (order.get(c, 99), c))]


def _hand(doc: Svg, y: float, hand: Sequence[str], data: CardData) -> None:
    """The viewer's hand as cards: a provision's drawing, kind and symbol; a pirate's value."""
    doc.open("g", id="hand")
    doc.text(LEFT, y + 6, f"Your hand ({plural(len(hand), 'card')})", size=13, anchor="start",
             class_="t b")
    if not hand:
        doc.text(LEFT, y + 30, "no cards", size=12, anchor="start", class_="s")
    for i, card in enumerate(hand):
        x, cy = LEFT + i * (CARD_W + 6), y + 18
        info = data.cards.get(card)
        kind = _kind(card)
        cls = "sym" if info and info.symbol else "pir" if kind == "pirate" else "chip"
        if kind == "pirate":
            label, note = "pirate", f"worth {info.value if info else '?'}"
        else:
            label, note = kind, "symbol" if info and info.symbol else ""
        doc.raw(f'<g class="card"><title>{escape(card)}</title><rect class="{cls}" x="{x}" '
                f'y="{cy}" width="{CARD_W}" height="{CARD_H}" rx="5"/>'
                + glyph(kind, x + CARD_W / 2, cy + 18)
                + f'<text class="c" x="{num(x + CARD_W / 2)}" y="{cy + 42}">{escape(label)}'
                f'</text><text class="s" x="{num(x + CARD_W / 2)}" y="{cy + 55}" '
                f'text-anchor="middle">{note}</text>'
                + (f'<g transform="translate({x + CARD_W - 7} {cy + 7})">{SKULL}</g>'
                   if info and info.symbol else "") + "</g>")
    doc.close("g")


def _key(doc: Svg, y: float, data: CardData) -> None:
    """What the codes and marks mean, so that the picture reads alone."""
    codes = _codes(data.kinds)
    doc.open("g", id="key")
    text = ", ".join(f"{codes[k]} {k}" for k in data.kinds)
    doc.text(LEFT, y, f"Provisions: {text}.", size=11, anchor="start", class_="s")
    doc.raw(f'<g transform="translate({LEFT + 5} {y + 18})">{SKULL}</g>')
    doc.text(LEFT + 14, y + 18, "the pirate symbol (+1 when boarding)", size=11,
             anchor="start", class_="s")
    doc.raw(_pirate(LEFT + 236, y + 10, "?", "back", "a face-down pirate"))
    doc.text(LEFT + 262, y + 26, "face-down pirate", size=11, anchor="start", class_="s")
    doc.raw(_pirate(LEFT + 370, y + 10, 3, "hid", "your pirate worth 3, face down"))
    doc.text(LEFT + 396, y + 26, "your pirate, hidden from the others", size=11,
             anchor="start", class_="s")
    doc.raw(_pirate(LEFT + 600, y + 10, 3, "pir", "pirate worth 3, revealed"))
    doc.text(LEFT + 626, y + 26, "revealed pirate", size=11, anchor="start", class_="s")
    doc.close("g")


def render_svg(view: Mapping[str, JSON], names: Sequence[str] | None = None) -> str:
    """The sea, the harbour, the players and the viewer's hand; `names`: the players' names by
    seat ("Player 1", ... without)."""
    data = card_data(str(view["options"]["card_data"]))
    seats = int(view["seats"])
    full = player_names(seats, names)
    short = [n if len(n) <= 14 else n[:13] + "\u2026" for n in full]
    letters = initials(full)
    me = view["seat"] if isinstance(view["seat"], int) else None
    status = _status(view, short, full)
    notes = _notes(view)
    marks = _marks(view, short)
    sea = view["sea"]
    most = max([len(s["sides"]) for s in sea if s] + [1])
    ship_h = 88 + SIDE_H * most
    harbour_y = SHIP_TOP + ship_h + 40
    groups = _pile_groups(view["discard"], data)
    pile_rows = -(-len(groups) // PILE_ROW)
    players_y = harbour_y + max(96, 16 + (CHIP_H + 6) * pile_rows) + 26
    notes_y = players_y + 44 * seats
    hand_y = notes_y + 18 * len(notes) + 4
    hand = view.get("hand")
    key_y = hand_y + (ROW_CARDS if hand is not None else 0) + 8
    height = key_y + 44
    head = f"Störtebeker, turn {view['turn']} (round {view['round']})"
    seen = f"seen by {full[me]}" if me is not None else "seen by a spectator"
    points = ", ".join(f"{full[s]} {view['scores'][str(s)]['points']}" for s in range(seats))
    ships = "; ".join(_ship_words(s, full) for s in sea if s)
    desc = (f"{head}, {seen}. {status} Points: {points}. At sea: {ships or 'no ship'}. "
            + " ".join(notes))
    doc = Svg(WIDTH, height, f"Störtebeker: {join(full)}", desc)
    doc.raw(STYLE)
    doc.rect(0, 0, WIDTH, height, fill="#E6EFF5")
    doc.text(LEFT, 18, head, size=16, anchor="start", class_="h")
    doc.text(LEFT, 40, status + (f" You are {short[me]}." if me is not None else ""), size=13,
             anchor="start", class_="t")
    doc.text(LEFT, SHIP_TOP - 18, "At sea", size=13, anchor="start", class_="t b")
    doc.open("g", id="sea")
    for i, ship in enumerate(sea):
        x = LEFT + i * (SHIP_W + SHIP_GAP)
        if ship is None:
            doc.raw(f'<rect class="slot" x="{x}" y="{SHIP_TOP}" width="{SHIP_W}" '
                    f'height="{ship_h}" rx="7"/>')
            doc.text(x + SHIP_W / 2, SHIP_TOP + 30, "an empty place", size=12, class_="s")
        else:
            _ship(doc, x, SHIP_TOP, ship_h, ship, data, short, letters,
                  marks.get(str(ship["id"]), ""))
    doc.close("g")
    _harbour(doc, harbour_y, view, data)
    _piles(doc, LEFT + 450, harbour_y, view, groups, data)
    _players(doc, players_y, view, data, short, letters)
    y = notes_y
    for line in notes:
        doc.text(LEFT, y, line, size=12.5, anchor="start", class_="t")
        y += 18
    if hand is not None:
        _hand(doc, hand_y, hand, data)
    _key(doc, key_y, data)
    return str(doc)


def _ship_words(ship: Mapping[str, Any], full: Sequence[str]) -> str:
    """A ship at sea in words, for the description: "red-5 (7 points, defence 10): Ann 2/4"."""
    need = sum(int(n) for n in ship["requires"].values())
    loads = ", ".join(f"{full[int(o)]} {len(side['provisions'])}/{need}"
                      for o, side in sorted(ship["sides"].items(), key=lambda kv: int(kv[0])))
    return (f"{ship['id']} ({ship['points']} points, defence {ship['defence']})"
            + (f": {loads}" if loads else ""))
