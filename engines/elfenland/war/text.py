"""Plain-text picture of a war view, for emails and the CLI (DESIGN.md "Engine contract").

It reads only the redacted view (`view.view`), never the state, so it cannot leak.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engines.contract import JSON


def _ms(m: Mapping[str, int]) -> str:
    return ", ".join(f"{k} {t}" for t, k in m.items()) or "none"


def render_text(view: Mapping[str, JSON]) -> str:
    """Round, decision, every seat's towns and units, trunks, the viewer's hand and card."""
    me = view["seat"]
    v: Mapping[str, Any] = view
    to_act = ", ".join(f"seat {s}" for s in v["to_act"]) or "nobody"
    lines = [f"Battle for Elfland, round {v['round']}: {v['phase']} (step {v['step']}). "
             f"To act: {to_act}. Start: seat {v['start']}."]
    by_seat: dict[int, list[str]] = {}
    for town, g in v["garrison"].items():
        by_seat.setdefault(g["seat"], []).append(f"{town} ({_ms(g['units'])})")
    for s in range(v["seats"]):
        flags = []
        if v["eliminated"][s]:
            flags.append("resigned" if v["resigned"][s] else "eliminated")
        if v["capitals"][s]:
            flags.append(f"capital {v['capitals'][s]}")
        if v["trophies"][s]:
            flags.append("trophies " + ", ".join(f"seat {o}" for o in v["trophies"][s]))
        head = f"Seat {s} ({v['colours'][s]})" + (" (you)" if s == me else "")
        lines.append(f"{head}: {v['hand_sizes'][s]} cards, {v['support_counts'][s]} support"
                     f" counters, {v['units_on_board'][s]} units"
                     + (f"; {'; '.join(flags)}" if flags else "") + ".")
        if by_seat.get(s):
            lines.append("  " + "; ".join(by_seat[s]))
    if v["trunks"]:
        lines.append("Trunks on roads: " + ", ".join(v["trunks"]) + ".")
    lines.append(f"Supply: {_ms(v['supply'])}. Cloud reserve: {v['cloud_reserve']}. "
                 f"Deck: {v['deck_size']}. Rafts played: {v['rafts_played']}.")
    if v["selection"]:
        sel = v["selection"]
        lines.append(f"Selecting a {sel['kind']} from {sel['from']} over "
                     f"{sel['roads']}: {sel['units'] or 'no unit yet'}.")
    if v["fight"]:
        f = v["fight"]
        lines.append(f"Last attack: seat {f['attacker']} from {f['from']} on {f['target']}: "
                     f"{f['attack_dice']} against {f['defence_dice']}.")
    if me is not None:
        lines.append(f"Your hand: {_ms(v['hand'])}. Your support: {_ms(v['support'])}.")
        if v.get("condition"):
            lines.append(f"Your condition card: {v['condition']['name']}.")
    res = v["result"]
    if res:
        winners = ", ".join(f"seat {w}" for w in res["winners"]) or "nobody"
        lines.append(f"Game over ({res['reason']}): {winners} won. Towns: "
                     + ", ".join(f"seat {s} {n}" for s, n in res["scores"].items()) + ".")
    return "\n".join(lines) + "\n"
