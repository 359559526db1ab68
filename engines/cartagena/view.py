"""What each seat may see (spec §7), events as each audience sees them, and a text picture
that names the players (never a seat number) and draws the route square by square.

Public: the board, every pirate, the turn, hand sizes, the deck size and the whole discard pile.
Private: a seat's own hand (sorted by id, so its order tells nothing) and, during a Rascals
discard, the cards it has named so far; the others see only who is still discarding, and hand
sizes that still count the named cards until everyone is done.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engines.cartagena.board import FINISH
from engines.contract import JSON, Event, Namer, State
from engines.sentences import (
    board_namer,
    capital,
    join,
    outcome,
    place,
    player_names,
    plural,
    possessive,
)


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


#: each route's name, as its variant names it
_ROUTES = {"escape": "the escape", "tortuga": "Tortuga", "complete": "the complete escape"}
#: squares per line of the route (a tile's worth)
_PER_LINE = 6


def render_text(view: Mapping[str, Any], names: Sequence[str] | None = None) -> str:
    """The route square by square with the pirates on it by name, the hands and whose turn it
    is; `names`: the players' names by seat ("Player 1", ... without them)."""
    seats = view["seats"]
    name = board_namer(seats, names, view["seat"])
    at = _pirates_at(view, name)
    lines = [_heading(view, name, player_names(seats, names))]
    start = "wreck" if view["route"] == "tortuga" else "prison"
    lines.append(_place(start, at))
    squares = [_square(i, symbol, at) for i, symbol in enumerate(view["squares"], start=1)]
    for first in range(0, len(squares), _PER_LINE):
        lines.append("  " + ", ".join(squares[first:first + _PER_LINE]))
        if view["route"] == "complete" and first + _PER_LINE == view["tunnel"]:
            lines.append(f"{_place('ship', at)} (at {place(view['shore'])})")
    lines.append(_place(view["finish"], at))
    if "chests" in view:
        chests = view["chests"]
        lines.append(f"Chest tokens on squares {join(map(str, chests['squares'])) or 'none'}"
                     f" ({chests['aside']} aside).")
    hands = ", ".join(f"{name(int(s))} {k}" for s, k in view["hand_sizes"].items())
    lines.append(f"Cards in hand: {hands}; deck {view['deck']}; discard "
                 f"{len(view['discard'])}.")
    if "hand" in view:
        lines.append("Your hand: " + (" ".join(view["hand"]) or "-"))
    if view["result"]:
        lines.append(f"Game over: {outcome(view['result'], name)}.")
    elif view["phase"] == "discard":
        lines.append(f"Rascals: {join(name(s) for s in view['to_act'])} must discard down "
                     "to 7 cards.")
    return "\n".join(lines)


def _heading(view: Mapping[str, Any], name: Namer, full: Sequence[str]) -> str:
    """"Cartagena (the escape) - Ann's turn, 1 action taken - you are Bob"."""
    text = f"Cartagena ({_ROUTES.get(view['route'], view['route'])})"
    if not view["result"]:
        captain = " (the ship's captain)" if view["captain"] else ""
        text += (f" - {possessive(name(view['active']))} turn{captain}, "
                 f"{plural(view['actions'], 'action')} taken")
    seat = view["seat"]
    return text + ("" if seat is None else f" - you are {full[seat]}")


def _pirates_at(view: Mapping[str, Any], name: Namer) -> dict[str, list[tuple[str, int]]]:
    """Location -> whose pirates are there, how many."""
    found: dict[str, list[tuple[str, int]]] = {}
    for s, locations in view["pirates"].items():
        for loc, count in locations.items():
            found.setdefault(loc, []).append((name(int(s)), count))
    return found


def _square(i: int, symbol: str, at: Mapping[str, list[tuple[str, int]]]) -> str:
    """"5 parrot (Ann, Bob 2)": a count only where a player has several pirates there."""
    here = ", ".join(f"{who} {n}" if n > 1 else who for who, n in at.get(str(i), ()))
    return f"{i} {symbol}" + (f" ({here})" if here else "")


def _place(loc: str, at: Mapping[str, list[tuple[str, int]]]) -> str:
    """A location off the squares and who is there: "Prison: Ann 6, Bob 1"."""
    here = ", ".join(f"{who} {n}" for who, n in at.get(loc, ()))
    return f"{capital(loc)}: {here or 'nobody'}"
