"""What one seat (or a spectator) may see of a race game, and of each event (spec §7).

`view` builds a fresh dict from an allow-list. Never shown while the game runs: other hands,
face-down counters (only their counts), the pile's composition (only its size), the deck's order
(only its size), other destinations, others' picked cards and pending answers (only who has
answered). Events carry their private parts under `private` (str seat -> payload); a seat sees
its own as `yours`, nobody sees another's.
"""

from __future__ import annotations

from typing import Any

from engines.contract import JSON, Event, State
from engines.elfenland import cards
from engines.elfenland.race.fields import SIMULTANEOUS
from engines.elfenland.race.scoring import result

VARIANT_FIELDS = ("monopoly", "visited", "hellish", "centre", "card_display", "subst_tokens",
                  "objections", "substituted")


def _decision(st: State) -> dict[str, Any]:
    dec = st["dec"]
    out: dict[str, Any] = {k: v for k, v in dec.items() if k not in ("victims",)}
    out["to_act"] = list(dec["to_act"])
    if "victims" in dec:
        out["victims"] = list(dec["victims"])
    if dec["kind"] in SIMULTANEOUS:
        out["answered"] = sorted(int(k) for k in st["pending"])
    if isinstance(dec.get("owed"), dict):
        out["owed"] = dict(dec["owed"])
    return out


def view(st: State, seat: int | None) -> dict[str, JSON]:
    """The redacted view of `seat` (None or a non-seat: a spectator)."""
    n = st["n"]
    me = seat if isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < n \
        else None
    players = []
    for s in range(n):
        players.append({
            "seat": s, "colour": st["colours"][s], "boot": st["boot"][s],
            "collected": list(st["collected"][s]),
            "hand_size": sum(st["hand"][s].values()),
            "faceup": cards.canonical(st["faceup"][s]),
            "hidden_count": sum(st["hidden"][s].values()),
            "obstacle_available": st["obstacle_available"][s],
            "adj": st["adj"][s], "resigned": st["resigned"][s],
        })
    roads = []
    keys = set(st["counters"]) | set(st["obstacles"]) | set(st["bridges"])
    for key in sorted(keys, key=int):
        entry: dict[str, Any] = {"road": int(key), "counter": st["counters"].get(key)}
        ob = st["obstacles"].get(key)
        if ob is not None:
            entry["obstacle_owner"] = ob["owner"]
            entry["obstacle_side"] = ob["side"]
        if key in st["bridges"]:
            entry["bridge_owner"] = st["bridges"][key]
        roads.append(entry)
    out: dict[str, Any] = {
        "mode": "race", "seat": me, "seats": n, "options": dict(st["options"]),
        "step": st["step"], "round": st["round"], "rounds": st["options"]["rounds"],
        "start": st["start"], "phase": st["phase"], "decision": _decision(st),
        "players": players, "roads": roads,
        "display": list(st["display"]), "pile_size": sum(st["pile"].values()),
        "deck_size": len(st["deck"]), "discard_pile": cards.canonical(st["discards"]),
        "passes_in_row": st["passes"],
    }
    for name in VARIANT_FIELDS:
        if name in st:
            value = st[name]
            out[name] = [list(v) for v in value] if name == "visited" else (
                list(value) if isinstance(value, list) else value)
    if "objection" in st and st["objection"] is not None:
        obj = st["objection"]
        out["objection"] = {k: obj[k] for k in ("placer", "road", "counter", "objector")}
    if "thief" in st:
        th = st["thief"]
        out["thief"] = {"passed": list(th["passed"]), "stage": th.get("stage")}
    over = st["result"] is not None
    if over:
        out["result"] = result(st)
        if "destination" in st:
            out["destinations"] = list(st["destination"])
    if me is not None:
        mine: dict[str, Any] = {
            "hand": cards.canonical(st["hand"][me]),
            "hidden": cards.canonical(st["hidden"][me]),
        }
        if "destination" in st:
            mine["destination"] = st["destination"][me]
        pending = st["pending"].get(str(me))
        if pending is not None:
            mine["answer"] = pending[1]
        if st["travel"] is not None and me in st["dec"]["to_act"]:
            mine["picked"] = cards.canonical(st["travel"]["picked"])
        out["you"] = mine
    return out


def view_event(event: Event, seat: int | None) -> Event | None:
    """The event as `seat` may see it: public fields, plus its own private part as `yours`."""
    out = {k: v for k, v in event.items() if k != "private"}
    private = event.get("private")
    if private and isinstance(seat, int) and str(seat) in private:
        out["yours"] = private[str(seat)]
    return out
