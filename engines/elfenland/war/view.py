"""What one seat (or a spectator) may see of a war game (spec §7; docs/rules/elfenland-war.md).

`view` builds a fresh dict from an allow-list. Public: the board (garrisons, trunks, capitals,
trophies), the supply, the cloud reserve, `war_discard`, played rafts, deck size, hand sizes,
support-counter counts, who has submitted a placement, the selection in progress and the last
fight. Private to its owner: the hand, the cloud/trunk split, the condition card and the own
unresolved placement. The deck order, other hands and other condition cards are never shown;
condition cards are revealed when the game has ended. Events carry no hidden card at all (draws
are counts), so every event is public.
"""

from __future__ import annotations

from typing import Any

from engines.contract import JSON, Event, State
from engines.elfenland.cards import canonical
from engines.elfenland.war import flow
from engines.elfenland.war.conditions import condition_set


def view(state: State, seat: int | None) -> dict[str, JSON]:
    """The redacted view of `seat` (None, or any non-seat: a spectator)."""
    n = state["seats"]
    me = seat if type(seat) is int and 0 <= seat < n else None
    over = state["phase"] == flow.GAME_OVER
    pending = state["pending"]
    fight = state["fight"]
    out: dict[str, Any] = {
        "mode": "war",
        "seat": me,
        "seats": n,
        "options": dict(state["options"]),
        "step": state["step"],
        "phase": state["phase"],
        "to_act": list(state["to_act"]),
        "round": state["round"],
        "start": state["start"],
        "active": state["active"],
        "passes_in_row": state["passes_in_row"],
        "colours": list(state["colours"]),
        "home_towns": [list(h) for h in state["home"]],
        "garrison": {t: {"seat": g["seat"], "units": canonical(g["units"])}
                     for t, g in sorted(state["garrison"].items())},
        "unplaced": [canonical(r) for r in state["reserve"]],
        "units_on_board": list(state["units_on_board"]),
        "capitals": list(state["capital"]),
        "trophies": [list(t) for t in state["trophies"]],
        "capitals_to_win": flow.capital_goal(state),
        "supply": canonical(state["supply"]),
        "cloud_reserve": state["cloud_reserve"],
        "support_counts": [sum(s.values()) for s in state["support"]],
        "trunks": {r: s for r, s in sorted(state["trunks"].items(), key=lambda i: int(i[0]))},
        "hand_sizes": [sum(h.values()) for h in state["hands"]],
        "deck_size": len(state["deck"]),
        "war_discard": canonical(state["war_discard"]),
        "rafts_played": state["rafts_played"],
        "eliminated": list(state["eliminated"]),
        "resigned": list(state["resigned"]),
        "submitted": [str(s) in state["submitted"] for s in range(n)],
        "selection": None if pending is None else {
            "kind": pending["kind"], "from": pending["from"],
            "roads": pending.get("roads", [pending.get("road")]),
            "units": (canonical(pending["units"]) if isinstance(pending["units"], dict)
                      else list(pending["units"]))},
        "fight": None if fight is None else {
            k: fight[k] for k in ("from", "target", "attacker", "defender", "losses",
                                  "attack_dice", "defence_dice")},
        "result": state["result"],
    }
    if me is not None:
        out["hand"] = canonical(state["hands"][me])
        out["support"] = dict(state["support"][me])
        mine = state["submitted"].get(str(me))
        out["my_submission"] = mine
        out["condition"] = None if state["conditions"] is None else \
            _card(state, state["conditions"][me])
    if over and state["conditions"] is not None:
        out["conditions"] = [_card(state, c) for c in state["conditions"]]
    return out


def _card(state: State, card_id: str) -> dict[str, JSON]:
    card = condition_set(state["options"]["war-conditions"]).card(card_id)
    return {"id": card.id, "name": card.name,
            "conditions": [{"all": [dict(p) for p in c.all], "min_seats": c.min_seats}
                           for c in card.conditions]}


def view_event(event: Event, seat: int | None) -> Event | None:
    """Every war event is public: hidden cards never enter events (draws are counts)."""
    return dict(event)
