"""Plain-text picture of a war view, for emails and the CLI (DESIGN.md "Engine contract").

It reads only the redacted view (`view.view`), never the state, so it cannot leak. Players are
named (`names`; "Player 1", ... without them), never numbered by seat; the result says who won,
and leaves why to the platform's result sentence (`event_text.describe_result`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engines.contract import JSON
from engines.sentences import board_namer, join, outcome, place, player_names, words


def _ms(m: Mapping[str, int]) -> str:
    return ", ".join(f"{k} {words(t)}" for t, k in m.items()) or "none"


def render_text(view: Mapping[str, JSON], names: Sequence[str] | None = None) -> str:
    """Round, decision, every player's towns and units, trunks, the viewer's hand and card;
    `names`: the players' names by seat."""
    me = view["seat"]
    v: Mapping[str, Any] = view
    name = board_namer(v["seats"], names, me)
    full = player_names(v["seats"], names)
    to_act = join(name(s) for s in v["to_act"]) or "nobody"
    lines = [f"Battle for Elfland, round {v['round']}: {words(v['phase'].removeprefix('war_'))}. "
             f"To act: {to_act}. Starting player: {name(v['start'])}."]
    by_seat: dict[int, list[str]] = {}
    for town, g in v["garrison"].items():
        by_seat.setdefault(g["seat"], []).append(f"{place(town)} ({_ms(g['units'])})")
    for s in range(v["seats"]):
        flags = []
        if v["eliminated"][s]:
            flags.append("resigned" if v["resigned"][s] else "eliminated")
        if v["capitals"][s]:
            flags.append(f"capital {place(v['capitals'][s])}")
        if v["trophies"][s]:
            flags.append("trophies of " + join(full[o] for o in v["trophies"][s]))
        head = f"{full[s]} ({v['colours'][s]}{', you' if s == me else ''})"
        lines.append(f"{head}: {v['hand_sizes'][s]} cards, {v['support_counts'][s]} support"
                     f" counters, {v['units_on_board'][s]} units"
                     + (f"; {'; '.join(flags)}" if flags else "") + ".")
        if by_seat.get(s):
            lines.append("  " + "; ".join(by_seat[s]))
    if v["trunks"]:
        lines.append("Trunks on roads: " + ", ".join(f"{r} ({name(o)})" if isinstance(o, int)
                                                     else str(r)
                                                     for r, o in v["trunks"].items()) + ".")
    lines.append(f"Supply: {_ms(v['supply'])}. Cloud reserve: {v['cloud_reserve']}. "
                 f"Deck: {v['deck_size']}. Rafts played: {v['rafts_played']}.")
    if v["selection"]:
        sel = v["selection"]
        units = sel["units"]
        picked = _ms(units) if isinstance(units, dict) else join(words(u) for u in units)
        lines.append(f"Selecting {words(sel['kind'])} from {place(sel['from'])} over roads "
                     f"{join(map(str, sel['roads']))}: {picked or 'no unit yet'}.")
    if v["fight"]:
        f = v["fight"]
        lines.append(f"Last attack: {name(f['attacker'])} from {place(f['from'])} on "
                     f"{place(f['target'])}: dice {join(map(str, f['attack_dice']))} against "
                     f"{join(map(str, f['defence_dice']))}.")
    if me is not None:
        lines.append(f"Your hand: {_ms(v['hand'])}. Your support: {_ms(v['support'])}.")
        if v.get("condition"):
            lines.append(f"Your condition card: {v['condition']['name']}.")
    res = v["result"]
    if res:
        lines.append(f"Game over: {outcome(res, name)}.")
    return "\n".join(lines) + "\n"
