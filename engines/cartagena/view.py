"""What each seat may see (spec §7), events as each audience sees them, and a text picture.

Public: the board, every pirate, the turn, hand sizes, the deck size and the whole discard pile.
Private: a seat's own hand (sorted by id, so its order tells nothing) and, during a Rascals
discard, the cards it has named so far; the others see only who is still discarding, and hand
sizes that still count the named cards until everyone is done.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engines.cartagena.board import FINISH
from engines.contract import JSON, Event, State


def view(state: State, seat: int | None) -> dict[str, JSON]:
    n = state["n"]
    out: dict[str, JSON] = {
        "seat": seat, "seats": n, "options": dict(state["options"]), "route": state["route"],
        "squares": state["squares"][1:], "tunnel": state["tunnel"],
        "layout": [dict(t) for t in state["layout"]], "shore": state["shore"],
        "finish": FINISH[state["route"]],
        "pirates": {s: dict(p) for s, p in state["pirates"].items()},
        "hand_sizes": {str(s): len(state["hands"][str(s)])
                       + len(state["pending"].get(str(s), [])) for s in range(n)},
        "deck": len(state["deck"]), "discard": list(state["discard"]),
        "active": state["active"], "actions": state["actions"],
        "captain": state["captain"], "free_sail_used": state["free_sail_used"],
        "phase": state["phase"], "to_act": list(state["to_act"]),
        "resigned": list(state["resigned"]), "result": state["result"],
    }
    if state["options"].get("witch"):
        out["chests"] = {"squares": sorted(int(q) for q in state["chests"]),
                         "aside": len(state["chests_aside"]),
                         "opened": list(state["chests_opened"])}
    follow = state.get("follow")
    if follow is not None:
        shown: dict[str, Any] = {"kind": follow["kind"]}
        if "target" in follow:
            shown["target"] = follow["target"]
        if seat == state["active"]:  # only the caster sees what the spell put in front of it
            if "target" in follow:
                shown["target_hand"] = sorted(state["hands"][str(follow["target"])])
            else:
                shown["drawn"] = sorted(follow["drawn"])
        out["spell"] = shown
    known = state.get("known_deck")
    if known and seat == state.get("known_by"):
        out["known_deck"] = [{"depth": state["deck"].index(c), "card": c} for c in known
                             if c in state["deck"]]
    if seat is not None:
        out["hand"] = sorted(state["hands"][str(seat)])
        if str(seat) in state["pending"]:
            out["discarding"] = {"named": list(state["pending"][str(seat)]),
                                 "owed": state["owed"].get(str(seat), 0)}
    return out


def view_event(event: Event, seat: int | None) -> Event | None:
    """Draws show their cards to the drawer only; a named discard only to its seat."""
    kind = event["type"]
    if kind == "drew" and seat != event["seat"]:
        return {"type": "drew", "seat": event["seat"], "count": len(event["cards"])}
    if kind == "discard_named" and seat != event["seat"]:
        return None
    if kind == "pistol_took" and seat not in (event["seat"], event["target"]):
        return {"type": "pistol_took", "seat": event["seat"], "target": event["target"]}
    if kind == "lantern_kept" and seat != event["seat"]:
        return {"type": "lantern_kept", "seat": event["seat"], "returned": len(event["return"])}
    if kind == "rum_dealt" and seat != event["seat"]:
        return {**event, "keep": len(event["keep"]),
                "give": [g if g["seat"] == seat else {"seat": g["seat"]} for g in event["give"]]}
    return event


def render_text(view: Mapping[str, Any]) -> str:
    """The route with the pirates on it, the hand and whose turn it is."""
    seat = view["seat"]
    marks: dict[str, list[str]] = {}
    for s, locations in view["pirates"].items():
        for loc, count in locations.items():
            marks.setdefault(loc, []).append(f"{s}x{count}" if count > 1 else s)
    start = "wreck" if view["route"] == "tortuga" else "prison"
    parts = [f"{start}[{','.join(marks.get(start, []))}]"]
    for i, symbol in enumerate(view["squares"], start=1):
        here = marks.get(str(i))
        parts.append(f"{i}:{symbol}" + (f"[{','.join(here)}]" if here else ""))
        if view["route"] == "complete" and i == view["tunnel"]:
            parts.append(f"ship({view['shore']})[{','.join(marks.get('ship', []))}]")
    finish = view["finish"]
    parts.append(f"{finish}[{','.join(marks.get(finish, []))}]")
    lines = [f"Cartagena ({view['route']}) - seat {view['active']} to act, "
             f"{view['actions']} action(s) taken" + ("" if seat is None else
                                                     f" - you are seat {seat}")]
    lines += [" ".join(parts[i:i + 8]) for i in range(0, len(parts), 8)]
    lines.append("Hands: " + ", ".join(f"seat {s} {k}" for s, k in view["hand_sizes"].items())
                 + f"; deck {view['deck']}; discard {len(view['discard'])}")
    if "hand" in view:
        lines.append("Your hand: " + (" ".join(view["hand"]) or "-"))
    if view["result"]:
        lines.append(f"Game over: seat {view['result']['winners']} won "
                     f"({view['result']['reason']})")
    elif view["phase"] == "discard":
        lines.append(f"Rascals: seats {view['to_act']} discard down to 7")
    return "\n".join(lines)
