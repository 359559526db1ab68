"""Plain-text picture of a Totohu view, for emails and the CLI (DESIGN.md "Engine contract").

It reads only the redacted view (`view.view`), never the state, so it cannot leak.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engines.contract import JSON


def _side_name(side: str, me: int | None) -> str:
    if side == "dummy":
        return "Dummy"
    return f"Seat {side}" + (" (you)" if me is not None and int(side) == me else "")


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


def _seats(seats: list[int]) -> str:
    return ", ".join(str(s) for s in seats) or "nobody"


def render_text(view: Mapping[str, JSON]) -> str:
    """Round, phase, whose turn, every visible fleet with its counters, scores and choices."""
    me = view["seat"]
    treasure = view["options"]["hidden_treasure"]
    lines = [
        f"Totohu, round {view['round']}: {view['phase']} (step {view['step']}). "
        f"Starter: seat {view['starter']}. To act: {_seats(view['to_act'])}."
    ]
    flags = [name for name, on in (("hidden treasure", treasure),
                                   ("blind play", view["options"]["blind"])) if on]
    if flags:
        lines.append("Options: " + ", ".join(flags) + ".")
    if me is not None:
        mine = view["my_choice"]
        choice = "none yet" if mine is None else mine["ship"] + (" (hide)" if mine["hide"] else "")
        lines.append(f"You are seat {me}; your choice this round: {choice}.")
    types = view["ship_types"]
    for side, active in view["active"].items():
        status = ["active" if active else "out"]
        if side != "dummy":
            if view["resigned"][side]:
                status.append("resigned")
            status.append("chosen" if view["chosen"][side] else "not chosen")
        head = f"{_side_name(side, me)}: {', '.join(status)}"
        ships = view["fleets"].get(side)
        if ships is None:
            lines.append(head + "; fleet hidden.")
            continue
        lines.append(f"{head}; score {view['scores'][side]}.")
        lines.extend(_ship_line(t, ships[t["id"]], treasure) for t in types)
    if view["reveal"]:
        shown = ", ".join(f"{_side_name(s, None).lower()} {ship}"
                          for s, ship in view["reveal"].items())
        lines.append(f"Last reveal: {shown}.")
    if view["order"]:
        lines.append("Order: " + ", ".join(f"{a}-{b}" for a, b in view["order"]) + ".")
    raid = view["raid"]
    if raid:
        lines.append(
            f"Raid: seat {raid['seat']}'s {raid['pirate']['ship']} meets "
            f"{_side_name(raid['merchant']['side'], None).lower()}'s {raid['merchant']['ship']}: "
            "shoot or rob."
        )
    if view["dummy_faces"]:
        by_ship: dict[str, list[str]] = {}
        for face, ship in view["dummy_faces"].items():
            by_ship.setdefault(ship, []).append(face)
        lines.append("Dummy faces: " + "; ".join(
            f"{','.join(faces)} {ship}" for ship, faces in by_ship.items()) + ".")
    res = view["result"]
    if res:
        winners = ", ".join(f"seat {w}" for w in res["winners"]) or "nobody"
        scores = ", ".join(f"{_side_name(s, None).lower()} {v}" for s, v in res["scores"].items())
        lines.append(f"Game over ({res['reason']}): {winners} won. Scores: {scores}.")
    return "\n".join(lines) + "\n"
