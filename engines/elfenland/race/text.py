"""A compact plain-text picture of a race view (mail, CLI); reads the view only (and the public
map it names), so it cannot leak (docs/rules/elfenland.md "What each seat sees"). Players are
named, never numbered by seat; the result says who won, the platform's result sentence why."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engines.elfenland.board import board
from engines.sentences import (
    board_namer,
    join,
    outcome,
    place,
    player_names,
    plural,
    possessive,
    words,
)


def _multiset(m: Mapping[str, int]) -> str:
    """{"giant_pig": 2} -> "giant pig 2"."""
    return ", ".join(f"{words(k)} {v}" for k, v in m.items()) or "-"


def render_text(view: Mapping[str, Any], names: Sequence[str] | None = None) -> str:
    """Round, decision, roads with counters, each player's position and towns, one's hand;
    `names`: the players' names by seat ("Player 1", ... without them)."""
    dec = view["decision"]
    the_map = board(view["options"]["map_data"])
    name = board_namer(view["seats"], names, view["seat"])
    full = player_names(view["seats"], names)
    lines = [f"Elfenland race - round {view['round']} of {view['rounds']}, phase "
             f"{words(view['phase'])}"]
    if view.get("result"):
        lines.append(f"Game over: {outcome(view['result'], name)}.")
    else:
        to_act = join(name(s) for s in dec["to_act"]) or "nobody"
        lines.append(f"Decision: {words(dec['kind'])}; to act: {to_act}")
    lines.append("Roads:")
    for road in view["roads"]:
        extra = ""
        if "obstacle_owner" in road:
            side = road.get("obstacle_side")
            extra += (f" + {possessive(name(road['obstacle_owner']))} obstacle"
                      + (f" at the {place(side)} end" if side else ""))
        if "bridge_owner" in road:
            extra += f" + {possessive(name(road['bridge_owner']))} bridge"
        counter = words(road["counter"]) if road["counter"] else "-"
        r = the_map.roads[road["road"]]
        lines.append(f"  {r.id:>2} {place(r.a)}-{place(r.b)} ({r.terrain}): {counter}{extra}")
    lines.append(f"Display: {', '.join(words(c) for c in view['display']) or '-'}; "
                 f"pile {view['pile_size']}, deck {view['deck_size']}")
    for p in view["players"]:
        flag = " (resigned)" if p["resigned"] else ""
        who = full[p["seat"]] + (" (you)" if p["seat"] == view["seat"] else "")
        lines.append(f"{who}, {p['colour']}{flag}: at {place(p['boot'])}, "
                     f"{plural(len(p['collected']), 'town')}, {plural(p['hand_size'], 'card')}, "
                     f"counters [{_multiset(p['faceup'])}] + {p['hidden_count']} hidden, "
                     f"obstacle {'yes' if p['obstacle_available'] else 'no'}")
        if p["collected"]:
            lines.append(f"  towns: {' '.join(place(t) for t in p['collected'])}")
    you = view.get("you")
    if you:
        lines.append(f"Your hand: {_multiset(you['hand'])}; hidden counters: "
                     f"{_multiset(you['hidden'])}")
        if "destination" in you:
            lines.append(f"Your destination: {place(you['destination'])}")
    return "\n".join(lines)
