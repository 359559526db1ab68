"""Plain-text picture of a Totohu view, for emails and the CLI (DESIGN.md "Engine contract").

It reads only the redacted view (`view.view`), never the state, so it cannot leak. Sides are
named by their players (`names`; "Player 1", ... without them) or "the dummy"; the result says
who won, and leaves why to the platform's result sentence (`event_text.describe_result`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engines.contract import JSON, Namer
from engines.sentences import board_namer, join, outcome, player_names, words

DUMMY = "dummy"


def _side_name(side: str, names: Sequence[str], me: int | None) -> str:
    """A fleet's heading: "Ann (you)", "Bob", "Dummy"."""
    if side == DUMMY:
        return "Dummy"
    return names[int(side)] + (" (you)" if me is not None and int(side) == me else "")


def _owner(side: str, name: Namer) -> str:
    """A side in a sentence: "you", "Bob", "the dummy"."""
    return "the dummy" if side == DUMMY else name(int(side))


def _ship_line(t: Mapping[str, Any], ship: Mapping[str, Any], treasure: bool) -> str:
    parts = [
        f"  {t['id']:<3} {t['name']:<14} {ship['status']:<4}",
        f"holes {ship['holes']}/{t['holes']}",
    ]
    if t["class"] == "pirate":
        parts.append(f"cannons {ship['cannons']}/{t['cannons']}")
    elif t["class"] == "merchant":
        parts.append(f"deck {ship['deck']}/{t['deck']}")
    else:
        parts.append(f"anchors {ship['anchors']}/{t['anchors']}")
    if treasure and t["hold"]:
        parts.append(f"hold {ship['hold']}/{t['hold']}")
    return "  ".join(parts)


def render_text(view: Mapping[str, JSON], names: Sequence[str] | None = None) -> str:
    """Round, phase, whose turn, every visible fleet with its counters, scores and choices;
    `names`: the players' names by seat."""
    me = view["seat"]
    seats = len(view["resigned"])
    full = player_names(seats, names)
    name = board_namer(seats, names, me)
    treasure = view["options"]["hidden_treasure"]
    to_act = join(name(s) for s in view["to_act"]) or "nobody"
    lines = [
        f"Totohu, round {view['round']}: {words(view['phase'])}. "
        f"Starter: {name(view['starter'])}. To act: {to_act}."
    ]
    flags = [name for name, on in (("hidden treasure", treasure),
                                   ("blind play", view["options"]["blind"])) if on]
    if flags:
        lines.append("Options: " + ", ".join(flags) + ".")
    if me is not None:
        mine = view["my_choice"]
        choice = "none yet" if mine is None else mine["ship"] + (" (hide)" if mine["hide"] else "")
        lines.append(f"You are {full[me]}; your choice this round: {choice}.")
    types = view["ship_types"]
    for side, active in view["active"].items():
        status = ["active" if active else "out"]
        if side != "dummy":
            if view["resigned"][side]:
                status.append("resigned")
            status.append("chosen" if view["chosen"][side] else "not chosen")
        head = f"{_side_name(side, full, me)}: {', '.join(status)}"
        ships = view["fleets"].get(side)
        if ships is None:
            lines.append(head + "; fleet hidden.")
            continue
        lines.append(f"{head}; score {view['scores'][side]}.")
        lines.extend(_ship_line(t, ships[t["id"]], treasure) for t in types)
    if view["reveal"]:
        shown = ", ".join(f"{_owner(s, name)} {ship}" for s, ship in view["reveal"].items())
        lines.append(f"Last reveal: {shown}.")
    if view["order"]:
        lines.append("Order: " + ", ".join(f"{_owner(str(a), name)} against "
                                           f"{_owner(str(b), name)}"
                                           for a, b in view["order"]) + ".")
    raid = view["raid"]
    if raid:
        pirate, merchant = raid["pirate"], raid["merchant"]
        lines.append(
            f"Raid: {_owner(pirate['side'], name)} with {pirate['ship']} meets "
            f"{_owner(merchant['side'], name)} with {merchant['ship']}: shoot or rob."
        )
    if view["dummy_faces"]:
        by_ship: dict[str, list[str]] = {}
        for face, ship in view["dummy_faces"].items():
            by_ship.setdefault(ship, []).append(face)
        lines.append("Dummy faces: " + "; ".join(
            f"{','.join(faces)} {ship}" for ship, faces in by_ship.items()) + ".")
    res = view["result"]
    if res:
        solo_lost = seats == 1 and not res["winners"]
        lines.append(f"Game over: {'the dummy won' if solo_lost else outcome(res, name)}.")
    return "\n".join(lines) + "\n"
