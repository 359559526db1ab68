"""What one seat (or a spectator) may see of a Totohu game (rules/totohu.md §7).

`view` builds a fresh dict from an allow-list; nothing is copied and then pruned. Secrets:

- a seat's `choices` entry (ship and `hide`) until the reveal, and `hide` for ever: others see
  only `chosen`; the seat itself sees its own choice as `my_choice`;
- in blind play, until the game ends: every fleet but the viewer's own (the dummy's too), and
  with it every score but the viewer's own. Public in blind play: phase, round, starter,
  `to_act`, who is active, who has resigned, reveals, the order, the pending raid and the
  solo face map (§7 accepts that rerolls and `dummy_faces` expose eliminated dummy ships).

Events carry their blind-play audience in `audience` (seats), set by `rules._event_for`; an
event without it is public. Decision (§7): effects on and departures of the dummy's ships are
treated like those of another seat's ships, so in blind solo no one sees them.
"""

from __future__ import annotations

from typing import Any

from engines.contract import JSON, Event, State
from engines.totohu.rules import (
    DUMMY,
    GAME_OVER,
    SIDES,
    at_sea,
    dummy_faces,
    fleet_of,
    result,
    score,
)

SHIP_FIELDS = ("status", "holes", "cannons", "deck", "hold", "anchors")


def view(state: State, seat: int | None) -> dict[str, JSON]:
    """The redacted view of `seat` (None, or any non-seat: a spectator)."""
    n = state["seats"]
    me = SIDES[seat] if isinstance(seat, int) and 0 <= seat < n else None
    options = state["options"]
    over = state["phase"] == GAME_OVER
    blind = options["blind"] and not over
    fleets = state["fleets"]
    choices = state["choices"]
    fleet = fleet_of(state)
    shown = [side for side in fleets if not blind or side == me]
    raid = state["raid"]
    out: dict[str, Any] = {
        "seat": None if me is None else seat,
        "seats": n,
        "options": {
            "hidden_treasure": options["hidden_treasure"],
            "blind": options["blind"],
            "fleet_data": options["fleet_data"],
        },
        "step": state["step"],
        "phase": state["phase"],
        "round": state["round"],
        "starter": state["starter"],
        "to_act": list(state["to_act"]),
        "chosen": {SIDES[s]: choices[SIDES[s]] is not None for s in range(n)},
        "active": {side: at_sea(ships) for side, ships in fleets.items()},
        "resigned": {SIDES[s]: state["resigned"][s] for s in range(n)},
        "ship_types": [t.as_json() for t in fleet.ships],
        "fleets": {
            side: {
                ship_id: {f: ship[f] for f in SHIP_FIELDS}
                for ship_id, ship in fleets[side].items()
            }
            for side in shown
        },
        "scores": {side: score(fleets[side]) for side in shown},
        "reveal": None if state["reveal"] is None else dict(state["reveal"]),
        "order": None if state["order"] is None else [list(p) for p in state["order"]],
        "raid": None if raid is None else {
            "seat": int(raid["pirate"]),
            "pirate": {"side": raid["pirate"], "ship": choices[raid["pirate"]]["ship"]},
            "merchant": {"side": raid["merchant"], "ship": choices[raid["merchant"]]["ship"]},
        },
        "dummy_faces": dummy_faces(fleet, fleets[DUMMY]) if DUMMY in fleets else None,
        "result": result(state),
    }
    mine = choices[me] if me is not None else None
    out["my_choice"] = None if mine is None else {"ship": mine["ship"], "hide": mine["hide"]}
    return out


def view_event(event: Event, seat: int | None) -> Event | None:
    """The event as `seat` (None: a spectator) may see it while the game runs, or None.

    In blind play `effect`, `departure` and `robbery` events name their audience; everything
    else is public (§7). The audience marker itself is not shown.
    """
    audience = event.get("audience")
    if audience is None:
        return dict(event)
    if seat not in audience:
        return None
    return {k: v for k, v in event.items() if k != "audience"}
