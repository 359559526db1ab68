"""An SVG picture of a war view (Battle for Elfland): the map with every army's towns, units,
capitals and trunks, each player's public counts, and the viewer's cards and condition card.

It reads only the redacted view (`engines.elfenland.war.view`) and the public map it names, so
it shows nothing the viewer may not see: other hands, support splits and condition cards are
counts (condition cards are drawn for everyone once the game is over). A held town carries its
owner's token (colour, shape and letter) and its units in words; a capital wears a thick ring;
the towns the viewer's condition card names wear a dashed square. The map comes from
`engines.elfenland.map_svg`; the pieces, the panel and the key from
`engines.elfenland.pieces_svg`.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
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
    "war_place_initial": "placing the first units", "war_capital": "choosing a capital",
    "war_place_rest": "placing the other units", "war_opening": "placing trunks",
    "war_turn": "taking a turn", "war_pick": "picking units", "war_pick_more": "picking units",
    "war_casualties": "choosing casualties", "war_attack_again": "deciding on another attack",
    "war_convert": "trading in cards", "game_over": "game over",
}
#: a player's row in the panel (one more line for setup and trophies)
ROW = 50
LEFT = P.LEFT


def render_svg(view: Mapping[str, JSON], names: Sequence[str] | None = None) -> str:
    """The map (every held town with its owner and units, capitals, trunks, the selection and
    the last attack), each player's counts, the viewer's hand, support and condition card, the
    supply and the round; `names`: the players' names by seat."""
    v: Mapping[str, Any] = view
    r = P.readers(v, names)
    map_name, who, short, letters, me = r.map_name, r.who, r.short, r.letters, r.me
    n = len(who)
    pal = M.palette(v["colours"])

    head, status = _heading(v, short)
    goals = _condition_towns(v.get("condition"))
    sections = _sections(v, short, map_name, me)
    extras = [_extras(v, s, short, map_name) for s in range(n)]
    rows_h = sum(ROW + (14 if e else 0) for e in extras)
    marks = _marks(bool(goals), v)
    panel_y, key_y, height = P.page_heights(r.lay, rows_h, sections, marks)

    title = "Battle for Elfland: " + (join(who) if n > 1 else who[0])
    doc = Svg(M.WIDTH, height, title, _desc(v, who, pal, r.seen, head, status, map_name))
    P.frame(doc, head, status)
    doc.raw(f'<g id="map" transform="translate(0 {M.MAP_Y})">')
    doc.raw(M.ground(map_name))
    _selection(doc, v, map_name)
    doc.raw(M.network(map_name))
    _trunks(doc, v, short, letters, map_name)
    _goals(doc, goals, map_name)
    _garrisons(doc, v, pal, letters, short, map_name)
    _fight(doc, v, short, map_name)
    doc.raw('</g><g id="players">')
    y = float(panel_y)
    for s in range(n):
        _player_row(doc, y, v, s, pal, letters, short, me, extras[s], map_name)
        y += ROW + (14 if extras[s] else 0)
    doc.raw("</g>")
    P.panel(doc, panel_y, sections, key_y, marks)
    return str(doc)


def _heading(v: Mapping[str, Any], short: list[str]) -> tuple[str, str]:
    """The round and what happens now, in two lines."""
    rounds = v["options"].get("war-max-rounds")
    head = "Battle for Elfland, " + (
        f"round {v['round']}" + (f" of {rounds}" if rounds else "") if v["round"] else "setup")
    victory = v["options"].get("war-victory")
    goal = (f"Victory: {v['capitals_to_win']} enemy capital"
            f"{'s' if v['capitals_to_win'] != 1 else ''}." if victory == "capitals"
            else "Victory: a fulfilled condition card.")
    if v.get("result"):
        return head + ": game over", stated(outcome(v["result"], lambda s: short[s]))
    doing = DOING.get(str(v["phase"]), str(v["phase"]).removeprefix("war_").replace("_", " "))
    to_act = join(short[s] for s in v["to_act"]) or "nobody"
    return (f"{head}: {doing}",
            f"To act: {to_act}. Starting player: {short[v['start']]}. {goal}")


def _desc(v: Mapping[str, Any], who: list[str], pal: list[int], seen: str, head: str,
          status: str, map_name: str) -> str:
    held: dict[int, int] = {}
    for g in v["garrison"].values():
        held[g["seat"]] = held.get(g["seat"], 0) + 1
    armies = "; ".join(
        f"{who[s]} ({PLAYER_SHAPES[pal[s] % len(PLAYER_SHAPES)]} token) holds "
        f"{plural(held.get(s, 0), 'town')} with {plural(v['units_on_board'][s], 'unit')}"
        + (f", capital {M.town_name(map_name, v['capitals'][s])}" if v["capitals"][s] else "")
        for s in range(int(v["seats"])))
    return (f"{head}, {seen}. {status} {armies}. The map shows the towns, the roads coloured "
            f"and patterned by terrain with a letter (P plains, F forest, D desert, M mountain, "
            f"R river, L lake), each held town with its owner's token and units, capitals "
            f"ringed and trunks as labelled boxes.")


def _extras(v: Mapping[str, Any], seat: int, short: list[str], map_name: str) -> str:
    """Setup and trophies: what only some moments of the game have."""
    parts = []
    left = sum(v["unplaced"][seat].values())
    if left:
        parts.append(f"{plural(left, 'unit')} to place")
    if v["submitted"][seat]:
        parts.append("has placed")
    if v["trophies"][seat]:
        parts.append("trophies: " + join(f"{short[o]}'s capital" for o in v["trophies"][seat]
                                         if isinstance(o, int) and 0 <= o < len(short)))
    home = v["home_towns"][seat]
    if v["phase"] in ("war_place_initial", "war_capital", "war_place_rest") and home:
        parts.append("towns: " + ", ".join(M.town_name(map_name, t) for t in home))
    return " \u00b7 ".join(parts)


def _player_row(doc: Svg, y: float, v: Mapping[str, Any], seat: int, pal: list[int],
                letters: list[str], short: list[str], me: int | None, extra: str,
                map_name: str) -> None:
    doc.token(LEFT + 11, y + 9, 9, pal[seat], letters[seat], title=short[seat])
    name = short[seat] + (" (you)" if seat == me else "")
    state = ("resigned" if v["resigned"][seat] else "eliminated") if v["eliminated"][seat] \
        else (f"capital {M.town_name(map_name, v['capitals'][seat])}" if v["capitals"][seat]
              else "no capital")
    doc.raw(f'<text class="t" x="{LEFT + 28}" y="{num(y + 13.5)}"><tspan class="b">'
            f'{escape(name)}</tspan> {escape(str(v["colours"][seat]))}, {escape(state)}</text>')
    towns = sum(1 for g in v["garrison"].values() if g["seat"] == seat)
    doc.text(LEFT + 28, y + 30,
             f"{plural(towns, 'town')} \u00b7 {plural(v['units_on_board'][seat], 'unit')} on "
             f"the map \u00b7 {plural(v['hand_sizes'][seat], 'card')} \u00b7 "
             f"{plural(v['support_counts'][seat], 'support counter')}", size=11.5,
             anchor="start", class_="s")
    if extra:
        doc.text(LEFT + 28, y + 46, textwrap.shorten(extra, 76, placeholder=" \u2026"),
                 size=11.5, anchor="start", class_="s")


def _units_label(units: Mapping[str, int]) -> str:
    """"2Drg 1Uni": a garrison in the counters' letters, in the canonical order."""
    return " ".join(f"{units[k]}{P.ABBR.get(k, '?')}" for k in sorted(units, key=P.card_order)
                    if units[k])


def _garrisons(doc: Svg, v: Mapping[str, Any], pal: list[int], letters: list[str],
               short: list[str], map_name: str) -> None:
    """Each held town: a ring for a capital, the owner's token on the town, its units over it."""
    lay = layout_for(map_name)
    capitals = {t: s for s, t in enumerate(v["capitals"]) if t}
    doc.raw('<g id="garrisons">')
    for town in sorted(capitals):
        if town in lay.towns:
            x, y = lay.towns[town]
            doc.raw(f'<circle class="cap" cx="{num(x)}" cy="{num(y)}" r="15"><title>'
                    f'{escape(short[capitals[town]])}\'s capital</title></circle>')
    for town in sorted(v["garrison"]):
        if town not in lay.towns:
            continue
        g = v["garrison"][town]
        seat, units = g["seat"], g["units"]
        x, y = lay.towns[town]
        place = M.town_name(map_name, town)
        doc.token(x, y, 10, pal[seat], letters[seat],
                  title=f"{short[seat]} holds {place} with {P.tally(units)}")
        label = _units_label(units)
        w = 6.2 * len(label) + 8
        ty = y + 22 if town in lay.labels_above else y - 22
        doc.raw(f'<rect class="cb magic_cloud" x="{num(x - w / 2)}" y="{num(ty - 8)}" '
                f'width="{num(w)}" height="15" rx="3"/><text class="ct" x="{num(x)}" '
                f'y="{num(ty + 3.5)}">{escape(label)}</text>')
    doc.raw("</g>")


def _trunks(doc: Svg, v: Mapping[str, Any], short: list[str], letters: list[str],
            map_name: str) -> None:
    """Each trunk on its road: a labelled box with its owner's letter."""
    the_map = board(map_name)
    parts = ['<g id="trunks">']
    for key in sorted(v["trunks"], key=lambda k: int(k)):
        road, owner = int(key), v["trunks"][key]
        if not the_map.is_road(road):
            continue
        mine = isinstance(owner, int) and 0 <= owner < len(short)
        label = "T" + (letters[owner] if mine else "")
        whose = f"{short[owner]}'s trunk" if mine else "A trunk"
        parts.append(P.marker_box(map_name, road, "ob", label,
                                  f"{whose} on {M.road_name(map_name, road)}", beside=False))
    parts.append("</g>")
    doc.raw("".join(parts))


def _selection(doc: Svg, v: Mapping[str, Any], map_name: str) -> None:
    """The roads of a move or attack being picked, highlighted under the map's roads."""
    sel = v.get("selection")
    if not sel:
        return
    shapes = M.shapes(map_name)
    paths = "".join(f'<path class="sel" d="{shapes[r].path()}"/>' for r in sel["roads"]
                    if isinstance(r, int) and r in shapes)
    doc.raw(f'<g id="selection">{paths}</g>')


def _fight(doc: Svg, v: Mapping[str, Any], short: list[str], map_name: str) -> None:
    """The last attack: a dashed arrow from the attacking town to the attacked one."""
    fight = v.get("fight")
    lay = layout_for(map_name)
    if not fight or fight["from"] not in lay.towns or fight["target"] not in lay.towns:
        return
    (ax, ay), (bx, by) = lay.towns[fight["from"]], lay.towns[fight["target"]]
    length = max(((bx - ax) ** 2 + (by - ay) ** 2) ** 0.5, 1.0)
    ux, uy = (bx - ax) / length, (by - ay) / length
    sx, sy, ex, ey = ax + ux * 16, ay + uy * 16, bx - ux * 18, by - uy * 18
    head = " ".join(f"{num(ex + ux * a + uy * b)},{num(ey + uy * a - ux * b)}"
                    for a, b in ((6, 0), (-6, 6), (-6, -6)))
    doc.raw(f'<g id="fight"><title>{escape(_fight_line(v, short, map_name))}</title>'
            f'<path class="fight" d="M{num(sx)} {num(sy)}L{num(ex)} {num(ey)}"/>'
            f'<polygon points="{head}"/></g>')


def _fight_line(v: Mapping[str, Any], short: list[str], map_name: str) -> str:
    f = v["fight"]
    attacker = short[f["attacker"]] if isinstance(f.get("attacker"), int) else "someone"
    return (f"Last attack: {attacker} from {M.town_name(map_name, f['from'])} on "
            f"{M.town_name(map_name, f['target'])}, dice "
            f"{', '.join(map(str, f.get('attack_dice') or [])) or 'none'} against "
            f"{', '.join(map(str, f.get('defence_dice') or [])) or 'none'}.")


def _condition_towns(card: Mapping[str, Any] | None) -> list[str]:
    """The towns a condition card names (to hold), sorted."""
    towns: set[str] = set()
    for cond in (card or {}).get("conditions", []):
        for p in cond.get("all", []):
            if isinstance(p.get("control"), str):
                towns.add(p["control"])
            towns.update(t for t in p.get("control_all", []) if isinstance(t, str))
            towns.update(t for t in p.get("of", []) if isinstance(t, str))
    return sorted(towns)


def _goals(doc: Svg, towns: list[str], map_name: str) -> None:
    """A dashed square round each town the viewer's condition card names."""
    lay = layout_for(map_name)
    parts = ['<g id="goals">']
    for town in towns:
        if town in lay.towns:
            x, y = lay.towns[town]
            parts.append(f'<rect class="goal" x="{num(x - 17)}" y="{num(y - 17)}" width="34" '
                         f'height="34" rx="3"><title>named by your condition card</title>'
                         f'</rect>')
    parts.append("</g>")
    doc.raw("".join(parts))


def _predicate(p: Mapping[str, Any], map_name: str) -> str:
    """One predicate of a condition card in words (engines.elfenland.war.conditions)."""
    def towns(ts: Sequence[str]) -> str:
        return join(M.town_name(map_name, t) for t in ts)
    if "control" in p:
        return f"hold {M.town_name(map_name, p['control'])}"
    if "control_all" in p:
        return f"hold all of {towns(p['control_all'])}"
    if "control_at_least" in p and "of" in p:
        return f"hold {p['control_at_least']} of {towns(p['of'])}"
    if "control_at_least" in p:
        return f"hold {p['control_at_least']} towns besides {towns(p.get('except', []))}"
    if "liberate" in p:
        return f"wipe out the {p['liberate']} army"
    if "kill_all" in p:
        return f"leave no other army a {words(p['kill_all'])}"
    return "?"


def condition_lines(card: Mapping[str, Any], map_name: str) -> list[str]:
    """A condition card in words, one line per condition."""
    out = []
    for i, cond in enumerate(card.get("conditions", [])):
        least = int(cond.get("min_seats", 0) or 0)
        text = " and ".join(_predicate(p, map_name) for p in cond.get("all", []))
        out.append(f"{'Or' if i else 'Either'}: {text}"
                   + (f" (games of {least} or more players)" if least > 2 else "") + ".")
    return out


def _sections(v: Mapping[str, Any], short: list[str], map_name: str,
              me: int | None) -> list[P.Section]:
    """The right column: the viewer's hand, support and condition card, the supply, the
    selection, the last attack and the result."""
    out: list[P.Section] = []
    lines: list[str] = []
    if me is not None:
        size = sum(v["hand"].values())
        out.append(P.cards_section(f"Your hand: {plural(size, 'card')}", v["hand"]))
        support = v.get("support") or {}
        lines.append("Your support counters: " + (", ".join(
            f"{support[k]} {words(k)}" for k in sorted(support) if support[k]) or "none")
            + ".")
        if v.get("my_submission"):
            lines.append("You have placed your units.")
        card = v.get("condition")
        if card:
            lines.append(f"Your condition card: {card.get('name', '?')} (dashed squares).")
            lines.extend(condition_lines(card, map_name))
    lines.append(f"Unit supply: {P.tally(v['supply'])}.")
    lines.append(f"Cloud reserve: {v['cloud_reserve']} \u00b7 victory deck: {v['deck_size']} "
                 f"cards \u00b7 discards: {sum(v['war_discard'].values())} \u00b7 rafts played: "
                 f"{v['rafts_played']}.")
    sel = v.get("selection")
    if sel:
        units = sel["units"]
        picked = P.tally(units) if isinstance(units, dict) else (
            join(words(u) for u in units) or "none")
        roads = [M.road_name(map_name, r) for r in sel["roads"] if isinstance(r, int)]
        lines.append(f"Picking units to {'attack' if sel['kind'] == 'attack' else 'move'} "
                     f"from {M.town_name(map_name, sel['from'])} over {join(roads)} "
                     f"(highlighted): {picked}.")
    if v.get("fight"):
        lines.append(_fight_line(v, short, map_name))
    result = v.get("result")
    if result:
        scores = result.get("scores") or {}
        told = ", ".join(f"{short[int(s)]} {scores[s]}" for s in
                         sorted(scores, key=lambda s: int(s)) if str(s).isdigit()
                         and int(s) < len(short))
        lines.append(f"Game over: {outcome(result, lambda s: short[s])}. Towns: {told}.")
    for s, card in enumerate(v.get("conditions") or []):
        if s < len(short) and card:
            lines.append(f"{short[s]}'s condition card: {card.get('name', '?')}.")
    return out + P.text_sections(lines)


def _marks(goals: bool, v: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The key's entries for the marks this picture may hold."""
    out = [('<circle class="cap" cx="0" cy="0" r="8"/>', "a capital"),
           ('<rect class="ob" x="-11" y="-8" width="22" height="16" rx="2"/>'
            '<text class="ot" x="0" y="3.5">TA</text>', "trunk (its owner's letter)"),
           ('<rect class="cb magic_cloud" x="-14" y="-7" width="28" height="14" rx="3"/>'
            '<text class="ct" x="0" y="3.5">2Drg</text>', "units in a town")]
    if goals:
        out.append(('<rect class="goal" x="-9" y="-9" width="18" height="18" rx="2"/>',
                    "a town your condition card names"))
    if v.get("selection"):
        out.append(('<path class="sel" d="M-8 0h16"/>', "the roads of the move being picked"))
    if v.get("fight"):
        out.append(('<path class="fight" d="M-10 0h14"/><polygon points="10,0 4,5 4,-5"/>',
                    "the last attack"))
    return out
