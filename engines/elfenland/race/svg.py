"""An SVG picture of a race view: the map with counters, obstacles and boots, and each player's
public counts, for web pages and mails.

It reads only the redacted view (`engines.elfenland.race.view`) and the public map it names, so
it shows nothing the viewer may not see: other hands and face-down counters are counts, the
viewer's own hand and counters are drawn card by card. Boots are tokens in the player's colour,
with their own shape and letter; towns the viewer still has to visit wear a dashed ring. The
map comes from `engines.elfenland.map_svg`; the pieces, the panel and the key from
`engines.elfenland.pieces_svg`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any
from xml.sax.saxutils import escape

from engines.contract import JSON
from engines.elfenland import map_svg as M
from engines.elfenland import pieces_svg as P
from engines.elfenland.board import board
from engines.elfenland.layout import layout_for
from engines.sentences import join, outcome, plural, stated, words
from engines.svg import PLAYER_SHAPES, Svg, num

#: decision kind -> what the players to act are doing
DOING: Mapping[str, str] = {
    "draft": "drawing counters", "qoc_draft": "drafting cards and counters",
    "discard": "discarding cards", "discard_public": "discarding cards",
    "centre_put": "putting a card in the centre", "centre_take": "taking a card from the centre",
    "rotation": "passing a counter on", "plan": "placing counters",
    "objection_window": "deciding on an objection", "vote": "voting on an objection",
    "junk_exchange": "exchanging cards", "move": "travelling",
    "pick": "choosing the cards for a road", "steal": "deciding whether to steal",
    "forced_step": "taking a forced step", "finish_round": "choosing a counter to keep",
}
#: a player's row in the panel (one more line where variants add counts)
ROW = 50
LEFT, RIGHT = P.LEFT, P.RIGHT


def render_svg(view: Mapping[str, JSON], names: Sequence[str] | None = None) -> str:
    """The map (towns, roads by terrain, counters, obstacles, bridges, boots, the viewer's
    towns still to visit and destination), each player's counts, the viewer's hand and
    counters, the face-up counters and the round; `names`: the players' names by seat."""
    v: Mapping[str, Any] = view
    r = P.readers(v, names)
    map_name, who, short, letters, me = r.map_name, r.who, r.short, r.letters, r.me
    n = len(who)
    players = sorted(v["players"], key=lambda p: p["seat"])
    pal = M.palette([p["colour"] for p in players])

    head, status = _heading(v, short)
    sections = _sections(v, short, map_name)
    extras = [_extras(v, p["seat"]) for p in players]
    rows_h = sum(ROW + (14 if e else 0) for e in extras)
    marks = _marks(me is not None, v)
    panel_y, key_y, height = P.page_heights(r.lay, rows_h, sections, marks)

    title = "Elfenland: " + (join(who) if n > 1 else who[0])
    doc = Svg(M.WIDTH, height, title, _desc(v, who, pal, r.seen, head, status, map_name))
    P.frame(doc, head, status)
    doc.raw(f'<g id="map" transform="translate(0 {M.MAP_Y})">')
    doc.raw(M.base_map(map_name))
    _map_marks(doc, v, me, map_name, short, letters)
    _boots(doc, players, pal, letters, short, map_name)
    doc.raw('</g><g id="players">')
    y = float(panel_y)
    for p, extra in zip(players, extras, strict=True):
        _player_row(doc, y, p, pal, letters, short, me, extra, map_name)
        y += ROW + (14 if extra else 0)
    doc.raw("</g>")
    P.panel(doc, panel_y, sections, key_y, marks)
    return str(doc)


def _heading(v: Mapping[str, Any], short: list[str]) -> tuple[str, str]:
    """The round and what happens now, in two lines."""
    head = f"Elfenland, round {v['round']} of {v['rounds']}"
    result = v.get("result")
    if result:
        return head + ": game over", stated(outcome(result, lambda s: short[s]))
    dec = v["decision"]
    doing = DOING.get(str(dec.get("kind")), str(dec.get("kind", "")).replace("_", " "))
    to_act = join(short[s] for s in dec.get("to_act", [])) or "nobody"
    status = f"To act: {to_act} ({doing})."
    answered = [s for s in dec.get("answered", []) if isinstance(s, int)]
    if answered:
        status += f" Answered: {join(short[s] for s in sorted(answered))}."
    status += f" Starting player: {short[v['start']]}."
    return f"{head}: {doing}", status


def _desc(v: Mapping[str, Any], who: list[str], pal: list[int], seen: str, head: str,
          status: str, map_name: str) -> str:
    boots = "; ".join(
        f"{who[p['seat']]} ({PLAYER_SHAPES[pal[i] % len(PLAYER_SHAPES)]} token) is at "
        f"{M.town_name(map_name, p['boot'])} with {plural(len(p['collected']), 'town')}"
        for i, p in enumerate(sorted(v["players"], key=lambda p: p["seat"])))
    laid = sum(1 for r in v["roads"] if r.get("counter"))
    return (f"{head}, {seen}. {status} {boots}. {laid} roads carry a counter. The map shows "
            f"the towns, the roads coloured and patterned by terrain with a letter (P plains, "
            f"F forest, D desert, M mountain, R river, L lake), rivers with an arrow "
            f"downstream, counters as labelled boxes and each boot as its player's token.")


def _extras(v: Mapping[str, Any], seat: int) -> str:
    """A player's counts that only variants have: tokens, objections, monopoly towns."""
    parts = []
    if "subst_tokens" in v:
        parts.append(f"substitution tokens {v['subst_tokens'][seat]}")
    if "objections" in v:
        parts.append(f"objections left {v['objections'][seat]}")
    if "visited" in v:
        seen = v["visited"][seat]
        parts.append("monopoly towns visited: " + (
            ", ".join(M.town_name(v["options"]["map_data"], t) for t in seen) or "none"))
    if v.get("thief") and v["thief"]["passed"][seat]:
        parts.append("has passed")
    return " \u00b7 ".join(parts)


def _player_row(doc: Svg, y: float, p: Mapping[str, Any], pal: list[int], letters: list[str],
                short: list[str], me: int | None, extra: str, map_name: str) -> None:
    seat = p["seat"]
    doc.token(LEFT + 11, y + 9, 9, pal[seat], letters[seat], title=short[seat])
    name = short[seat] + (" (you)" if seat == me else "") + (
        " (resigned)" if p["resigned"] else "")
    doc.raw(f'<text class="t" x="{LEFT + 28}" y="{num(y + 13.5)}"><tspan class="b">'
            f'{escape(name)}</tspan> {escape(p["colour"])}, at '
            f'{escape(M.town_name(map_name, p["boot"]))}</text>')
    towns = len(p["collected"])
    obstacle = "obstacle in hand" if p["obstacle_available"] else "no obstacle"
    doc.text(LEFT + 28, y + 30, f"{plural(towns, 'town')} \u00b7 "
             f"{plural(p['hand_size'], 'card')} \u00b7 {obstacle}", size=11.5, anchor="start",
             class_="s")
    markup, x = P.chips(LEFT + 252, y + 30, P.expand(p["faceup"]), " (face up)")
    doc.raw(markup)
    if p["hidden_count"]:
        doc.text(x + 4, y + 30, f"+{p['hidden_count']} face down", size=11.5, anchor="start",
                 class_="s")
    elif not p["faceup"]:
        doc.text(x, y + 30, "no counters", size=11.5, anchor="start", class_="s")
    if extra:
        doc.text(LEFT + 28, y + 46, extra, size=11.5, anchor="start", class_="s")


def _boots(doc: Svg, players: list[Mapping[str, Any]], pal: list[int], letters: list[str],
           short: list[str], map_name: str) -> None:
    """Each player's boot at its town; several boots at one town stand side by side."""
    lay = layout_for(map_name)
    at: dict[str, list[int]] = {}
    for p in players:
        at.setdefault(p["boot"], []).append(p["seat"])
    doc.raw('<g id="boots">')
    for town in sorted(at):
        if town not in lay.towns:
            continue
        seats = at[town]
        for seat, (x, y) in zip(seats, P.stack_at(lay, town, len(seats)), strict=True):
            doc.token(x, y, 9, pal[seat], letters[seat],
                      title=f"{short[seat]}'s boot at {M.town_name(map_name, town)}")
    doc.raw("</g>")


def _map_marks(doc: Svg, v: Mapping[str, Any], me: int | None, map_name: str,
               short: list[str], letters: list[str]) -> None:
    """Rings round the viewer's towns still to visit, the destination, counters on roads,
    obstacles and bridges."""
    the_map, lay = board(map_name), layout_for(map_name)
    parts = ['<g id="marks">']
    if me is not None:
        mine = next(p for p in v["players"] if p["seat"] == me)
        done = set(mine["collected"])
        for town in the_map.piece_towns:
            if town not in done:
                x, y = lay.towns[town]
                parts.append(f'<circle class="visit" cx="{num(x)}" cy="{num(y)}" r="13">'
                             f'<title>still to visit</title></circle>')
        goal = (v.get("you") or {}).get("destination")
        if goal in lay.towns:
            x, y = lay.towns[goal]
            parts.append(f'<g><title>your destination</title>{P.star(x + 19, y - 4)}</g>')
    parts.append("</g><g id=\"counters\">")
    for road in sorted(v["roads"], key=lambda r: r["road"]):
        rid = road["road"]
        if not the_map.is_road(rid):
            continue
        where = M.road_name(map_name, rid)
        if road.get("counter"):
            parts.append(P.road_box(map_name, rid, road["counter"],
                                    f"{words(road['counter'])} on {where}"))
        if "bridge_owner" in road:
            owner = road["bridge_owner"]
            parts.append(P.marker_box(map_name, rid, "br", f"={_letter(owner, letters)}",
                                      f"{_owner(owner, short)} bridge on {where}",
                                      beside=bool(road.get("counter"))))
        if "obstacle_owner" in road:
            owner, side = road["obstacle_owner"], road.get("obstacle_side")
            at = f" at the {M.town_name(map_name, side)} end" if side else ""
            parts.append(P.marker_box(map_name, rid, "ob", _letter(owner, letters),
                                      f"{_owner(owner, short)} obstacle on {where}{at}",
                                      toward=side, beside=bool(road.get("counter")
                                                              or "bridge_owner" in road)))
    parts.append("</g>")
    doc.raw("".join(parts))


def _letter(owner: Any, letters: list[str]) -> str:
    """The owner's letter, as on its token ("?" for no player)."""
    return letters[owner] if isinstance(owner, int) and 0 <= owner < len(letters) else "?"


def _owner(owner: Any, short: list[str]) -> str:
    """"Ann's", or "an" for no player."""
    return f"{short[owner]}'s" if isinstance(owner, int) and 0 <= owner < len(short) else "an"


def _sections(v: Mapping[str, Any], short: list[str], map_name: str) -> list[P.Section]:
    """The right column, top to bottom: the viewer's hand and counters, the face-up counters
    and cards, the variants' draws and the result; each with its height."""
    out: list[P.Section] = []
    you = v.get("you")
    if you:
        size = sum(you["hand"].values())
        out.append(P.cards_section(f"Your hand: {plural(size, 'card')}", you["hand"]))
        hidden = P.expand(you["hidden"])
        lines = []
        if "destination" in you:
            lines.append(f"Your destination: {M.town_name(map_name, you['destination'])} "
                         f"(the star).")
        if you.get("picked"):
            lines.append(f"Picked for this road: {P.tally(you['picked'])}.")
        if "answer" in you:
            lines.append("You have answered.")
        out.append((28, _chips_section("Your face-down counters:", hidden,
                                       " (your face-down counter)")))
        out.extend(P.text_sections(lines))
    out.append((28, _chips_section("Face-up counters:", v["display"], " (face up)")))
    out.extend(P.text_sections([
        f"Counter pile: {v['pile_size']} \u00b7 travel deck: {v['deck_size']} cards \u00b7 "
        f"discards: {sum(v['discard_pile'].values())} cards."]))
    if v.get("card_display"):
        out.append(P.cards_section("Face-up travel cards:", _count(v["card_display"])))
    if v.get("centre"):
        out.append(P.cards_section("Cards in the centre:", _count(v["centre"])))
    out.extend(P.text_sections(_variant_lines(v, short, map_name)))
    return out


def _count(items: Sequence[str]) -> dict[str, int]:
    """A list of cards as a multiset."""
    out: dict[str, int] = {}
    for item in items:
        out[item] = out.get(item, 0) + 1
    return out


def _variant_lines(v: Mapping[str, Any], short: list[str], map_name: str) -> list[str]:
    """The variants' public draws and states in words, then the result."""
    lines = []
    if v.get("monopoly"):
        lines.append("Monopoly towns this round: "
                     + join(M.town_name(map_name, t) for t in v["monopoly"]) + ".")
    hellish = v.get("hellish")
    if hellish:
        towns = [M.town_name(map_name, t) for t in hellish.get("towns", [])]
        lines.append(f"Hellish road: {' to '.join(towns)}, "
                     f"{len(hellish.get('path', []))} roads.")
    objection = v.get("objection")
    if objection:
        placer = objection.get("placer")
        by = objection.get("objector")
        lines.append(
            f"Objection to {_owner(placer, short)} {words(objection.get('counter'))} on "
            f"{M.road_name(map_name, objection['road'])}"
            + (f", raised by {short[by]}" if isinstance(by, int) else "") + ".")
    if v.get("substituted"):
        lines.append("Substituted this round: " + ", ".join(
            M.road_name(map_name, r) for r in sorted(v["substituted"])) + ".")
    result = v.get("result")
    if result:
        scores = result.get("scores") or {}
        told = ", ".join(f"{short[int(s)]} {scores[s]}" for s in
                         sorted(scores, key=lambda s: int(s)) if str(s).isdigit())
        lines.append(f"Game over: {outcome(result, lambda s: short[s])}. Scores: {told}.")
        if v.get("destinations"):
            lines.append("Destinations: " + ", ".join(
                f"{short[s]} {M.town_name(map_name, t)}"
                for s, t in enumerate(v["destinations"]) if s < len(short)) + ".")
    return lines


def _chips_section(label: str, kinds: Sequence[str], what: str) -> Callable[[Svg, float], None]:
    """A heading and a row of counters in the right column."""
    def draw(doc: Svg, y: float) -> None:
        doc.text(RIGHT, y + 10, label, size=13, anchor="start", class_="hd")
        x0 = RIGHT + 8.0 * len(label) + 8
        markup, x = P.chips(x0, y + 10, kinds, what)
        doc.raw(markup)
        if x == x0:
            doc.text(x0, y + 10, "none", size=11.5, anchor="start", class_="s")
    return draw


def _marks(viewer: bool, v: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The key's entries for the marks this picture may hold."""
    out = []
    if viewer:
        out.append(('<circle class="visit" cx="0" cy="0" r="9"/>',
                    "a town you still have to visit"))
        if "destination" in (v.get("you") or {}):
            out.append((P.star(0, 0, 8), "your destination"))
    out.append(('<rect class="ob" x="-9" y="-8" width="18" height="16" rx="2"/>'
                '<text class="ot" x="0" y="3.5">A</text>', "obstacle (its owner's letter)"))
    if v["options"].get("indiana-jones"):
        out.append(('<rect class="br" x="-11" y="-8" width="22" height="16" rx="2"/>'
                    '<text class="ot" x="0" y="3.5">=A</text>', "bridge (its owner's letter)"))
    start = M.town_name(v["options"]["map_data"], board(v["options"]["map_data"]).start)
    out.append(('<circle class="town start" cx="0" cy="0" r="9"/>'
                '<circle class="town" cx="0" cy="0" r="4"/>', f"{start}, where boots start"))
    return out
