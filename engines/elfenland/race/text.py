"""A compact plain-text picture of a race view (mail, CLI); reads the view only (and the public
map it names), so it cannot leak (docs/rules/elfenland.md "What each seat sees")."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engines.elfenland.board import board

SHORT = {"giant_pig": "pig", "elfcycle": "cyc", "magic_cloud": "cloud", "unicorn": "uni",
         "troll_wagon": "troll", "dragon": "dragon", "raft": "raft"}


def _multiset(m: Mapping[str, int]) -> str:
    return ", ".join(f"{SHORT.get(k, k)} {v}" for k, v in m.items()) or "-"


def render_text(view: Mapping[str, Any]) -> str:
    """Round, decision, roads with counters, each player's position and towns, one's hand."""
    dec = view["decision"]
    the_map = board(view["options"]["map_data"])
    lines = [f"Elfenland race - round {view['round']} of {view['rounds']}, "
             f"step {view['step']}, phase {view['phase']}"]
    if view.get("result"):
        res = view["result"]
        lines.append(f"Game over ({res['reason']}): winners {res['winners']}, "
                     f"scores {res['scores']}")
    else:
        lines.append(f"Decision: {dec['kind']} for seats {dec['to_act']}")
    lines.append("Roads:")
    for road in view["roads"]:
        extra = ""
        if "obstacle_owner" in road:
            side = road.get("obstacle_side")
            extra += f" +obstacle(seat {road['obstacle_owner']}{', at ' + side if side else ''})"
        if "bridge_owner" in road:
            extra += f" bridge(seat {road['bridge_owner']})"
        counter = SHORT.get(road["counter"], road["counter"]) if road["counter"] else "-"
        r = the_map.roads[road["road"]]
        lines.append(f"  {r.id:>2} {r.a}-{r.b} ({r.terrain}): {counter}{extra}")
    lines.append(f"Display: {', '.join(SHORT[c] for c in view['display']) or '-'}; "
                 f"pile {view['pile_size']}, deck {view['deck_size']}")
    for p in view["players"]:
        flag = " (resigned)" if p["resigned"] else ""
        lines.append(f"Seat {p['seat']} {p['colour']}{flag}: at {p['boot']}, "
                     f"{len(p['collected'])} towns, {p['hand_size']} cards, counters "
                     f"[{_multiset(p['faceup'])}] + {p['hidden_count']} hidden, obstacle "
                     f"{'yes' if p['obstacle_available'] else 'no'}")
        if p["collected"]:
            lines.append(f"  towns: {' '.join(p['collected'])}")
    you = view.get("you")
    if you:
        lines.append(f"Your hand: {_multiset(you['hand'])}; hidden counters: "
                     f"{_multiset(you['hidden'])}")
        if "destination" in you:
            lines.append(f"Your destination: {you['destination']}")
    return "\n".join(lines)
