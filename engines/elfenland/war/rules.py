"""The war game's referee: which move each decision accepts, validation and apply.

docs/rules/elfenland-war.md "Decisions" and "Moves" (spec §4.3, §4.4, §5.3-§5.6). `validate`
returns a plan and changes nothing (`check`); `apply` validates, then carries the plan out in
place. The unit picks of §4.4 live here: a movement or attack started with no units opens the
decision `war_pick` (`pick_unit`, or `cancel` to drop the selection); the first unit turns it
into `war_pick_more` (`pick_unit`, `done`), which stays at one step while the seat picks
(contract v2 point 1). Listing the legal moves and the timeout defaults is `legal`'s job.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engines.contract import Decision, Event, Move, Result, Rng, State
from engines.elfenland.board import RAFT
from engines.elfenland.cards import add
from engines.elfenland.war import flow, setup, turn
from engines.elfenland.war.errors import fail
from engines.elfenland.war.geo import CLOUD, TRUNK, UNIT_TYPES

#: decision kind -> the move types it accepts (§4.3; the two pick kinds are this
#: implementation's: `war_pick` before the first unit, `war_pick_more` after it)
ACCEPTS: dict[str, frozenset[str]] = {
    flow.PLACE_INITIAL: frozenset({"war_place_initial"}),
    flow.CAPITAL: frozenset({"choose_capital"}),
    flow.PLACE_REST: frozenset({"war_place_rest"}),
    flow.OPENING: frozenset({"place_trunk", "pass"}),
    flow.TURN: frozenset({"trade_in", "war_move", "attack", "place_trunk", "remove_trunk",
                          "pass_turn"}),
    flow.PICK: frozenset({"pick_unit", "cancel"}),
    flow.PICK_MORE: frozenset({"pick_unit", "done"}),
    flow.CASUALTIES: frozenset({"casualties"}),
    flow.ATTACK_AGAIN: frozenset({"attack", "end_turn"}),
    flow.CONVERT: frozenset({"trade_in", "end_turn"}),
}

#: move type -> (required fields, optional fields) besides "type"
FIELDS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "war_place_initial": (frozenset({"towns"}), frozenset()),
    "choose_capital": (frozenset({"town"}), frozenset()),
    "war_place_rest": (frozenset({"units"}), frozenset()),
    "place_trunk": (frozenset({"road"}), frozenset()),
    "remove_trunk": (frozenset({"road"}), frozenset()),
    "pass": (frozenset(), frozenset()),
    "trade_in": (frozenset({"card"}), frozenset({"town"})),
    "war_move": (frozenset({"from", "roads"}), frozenset({"units", "cards"})),
    "attack": (frozenset({"from", "road"}), frozenset({"units", "cards"})),
    "pick_unit": (frozenset({"unit"}), frozenset()),
    "done": (frozenset(), frozenset()),
    "cancel": (frozenset(), frozenset()),
    "casualties": (frozenset({"units"}), frozenset()),
    "pass_turn": (frozenset(), frozenset()),
    "end_turn": (frozenset(), frozenset()),
    "resign": (frozenset(), frozenset()),
}

Plan = tuple[Callable[..., list[Event]], Any]


def decision(state: State) -> Decision:
    """Who acts now; the placements are free arrangements listed by examples only (§4.4)."""
    out: Decision = {"step": state["step"], "step_kind": state["phase"],
                     "to_act": list(state["to_act"])}
    if state["phase"] in flow.SIMULTANEOUS:
        out["legal_moves_complete"] = False
    return out


def result(state: State) -> Result | None:
    return state["result"]


# --------------------------------------------------------------------------- validation


def validate(state: State, seat: int, move: Any) -> Plan:
    """The plan of a legal move; `IllegalMove` with the first failing code (§5.6)."""
    if state["phase"] == flow.GAME_OVER:
        raise fail("game_over")
    if not isinstance(move, dict):
        raise fail("malformed_move", "A move is a JSON object with a `type`.")
    kind = move.get("type")
    if not isinstance(kind, str) or kind not in FIELDS:
        raise fail("unknown_move_type", f"Unknown move type {kind!r}.")
    required, optional = FIELDS[kind]
    keys = set(move) - {"type"}
    if not required <= keys or not keys <= required | optional:
        raise fail("malformed_move", f"`{kind}` takes {sorted(required)} "
                   f"(optional {sorted(optional)}).")
    seated = type(seat) is int and 0 <= seat < state["seats"]
    if kind == "resign":
        if not seated or state["resigned"][seat]:
            raise fail("not_your_turn", "Only a seated player still in the game may resign.")
        return do_resign, None
    if not seated or seat not in state["to_act"]:
        if seated and state["phase"] in flow.SIMULTANEOUS and str(seat) in state["submitted"]:
            raise fail("already_submitted")
        raise fail("not_your_turn")
    if kind not in ACCEPTS[state["phase"]]:
        raise fail("wrong_decision", f"`{kind}` is not accepted at {state['phase']}.")
    return _CHECKS[kind](state, seat, move)


def _placement(checker: Callable[[State, int, Move], Any]) -> Callable[..., Plan]:
    def check(state: State, seat: int, move: Move) -> Plan:
        content = checker(state, seat, move)
        return (lambda st, s, c, rng: setup.submit(st, s, c, rng)), content
    return check


def _check_capital(state: State, seat: int, move: Move) -> Plan:
    return (lambda st, s, town, rng: setup.do_capital(st, s, town)), \
        setup.check_capital(state, seat, move)


def _check_place_trunk(state: State, seat: int, move: Move) -> Plan:
    return _do_place_trunk, turn.check_place_trunk(state, seat, move)


def _do_place_trunk(state: State, seat: int, road: int, rng: Rng) -> list[Event]:
    events = turn.do_place_trunk(state, seat, road)
    if state["phase"] == flow.OPENING:
        state["passes_in_row"] = 0
        state["opener"] = (seat + 1) % state["seats"]
        if not flow.run_checks(state, events):
            flow.next_opening(state, events)
    else:
        flow.end_turn(state, rng, events)
    return events


def _check_pass(state: State, seat: int, move: Move) -> Plan:
    def do(st: State, s: int, _: Any, rng: Rng) -> list[Event]:
        st["passes_in_row"] += 1
        st["opener"] = (s + 1) % st["seats"]
        events: list[Event] = [{"type": "opening_passed", "seat": s, "automatic": False}]
        flow.next_opening(st, events)
        return events
    return do, None


def _check_remove_trunk(state: State, seat: int, move: Move) -> Plan:
    def do(st: State, s: int, road: int, rng: Rng) -> list[Event]:
        events = turn.do_remove_trunk(st, s, road)
        flow.end_turn(st, rng, events)
        return events
    return do, turn.check_remove_trunk(state, seat, move)


def _check_trade(state: State, seat: int, move: Move) -> Plan:
    def do(st: State, s: int, plan: Any, rng: Rng) -> list[Event]:
        events = turn.do_trade(st, s, plan)
        flow.run_checks(st, events)
        return events
    return do, turn.check_trade(state, seat, move)


def _check_war_move(state: State, seat: int, move: Move) -> Plan:
    plan = turn.check_war_move(state, seat, move)
    if plan["start"]:
        return _open_pick, {"kind": "war_move", "from": plan["from"],
                            "roads": list(plan["path"].roads), "units": {}}
    return turn.do_war_move, plan


def _check_attack(state: State, seat: int, move: Move) -> Plan:
    plan = turn.check_attack(state, seat, move)
    if plan["start"]:
        return _open_pick, {"kind": "attack", "from": plan["from"],
                            "road": plan["exit"].road, "units": []}
    return turn.do_attack, plan


def _open_pick(state: State, seat: int, pending: dict[str, Any], rng: Rng) -> list[Event]:
    pending["back"] = state["phase"]
    state["pending"] = pending
    flow.ask(state, flow.PICK, [seat])
    return [{"type": "selection_started", "seat": seat,
             **{k: v for k, v in pending.items() if k != "back"}}]


def pickable(state: State, seat: int, unit: str) -> bool:
    """True if one more `unit` may join the pending movement or attack (§4.4)."""
    p = state["pending"]
    g = state["garrison"].get(p["from"])
    if g is None or g["seat"] != seat:
        return False
    wm = turn.wmap(state)
    hand = state["hands"][seat]
    if p["kind"] == "war_move":
        if g["units"].get(unit, 0) <= p["units"].get(unit, 0):
            return False
        path = turn.find_path(wm, p["from"], p["roads"])
        return path is not None and turn.unit_can_move(wm, hand, path, unit, p["units"])
    if len(p["units"]) >= 2 or g["units"].get(unit, 0) <= p["units"].count(unit):
        return False
    e = turn.attack_exit(wm, p["from"], p["road"])
    return turn.unit_can_attack(wm, hand, e, unit, len(p["units"]))


def _combined(state: State) -> Move:
    """The combined form of the pending selection (what `done` applies)."""
    p = state["pending"]
    wm = turn.wmap(state)
    if p["kind"] == "war_move":
        path = turn.find_path(wm, p["from"], p["roads"])
        assert path is not None  # checked when the selection started
        return {"type": "war_move", "from": p["from"], "roads": list(p["roads"]),
                "units": dict(p["units"]), "cards": turn.move_cost(wm, path, p["units"])}
    e = turn.attack_exit(wm, p["from"], p["road"])
    cards = {} if e.land else {RAFT: len(p["units"]) * e.rafts}
    return {"type": "attack", "from": p["from"], "road": p["road"],
            "units": list(p["units"]), "cards": cards}


def _finish_selection(state: State, seat: int, rng: Rng, events: list[Event]) -> list[Event]:
    move = _combined(state)
    phase = state["phase"]
    state["phase"] = state["pending"]["back"]
    try:
        if move["type"] == "war_move":
            plan = turn.check_war_move(state, seat, move)
            do = turn.do_war_move
        else:
            plan = turn.check_attack(state, seat, move)
            do = turn.do_attack
    finally:
        state["phase"] = phase
    return events + do(state, seat, plan, rng)


def _check_pick(state: State, seat: int, move: Move) -> Plan:
    unit = move.get("unit")
    if unit not in UNIT_TYPES:
        raise fail("malformed_move", "`unit` names a unit type.")
    if not pickable(state, seat, unit):
        raise fail("pick_invalid", f"No further {unit} can join this selection.")

    def do(st: State, s: int, u: str, rng: Rng) -> list[Event]:
        p = st["pending"]
        if p["kind"] == "war_move":
            add(p["units"], u)
        else:
            p["units"].append(u)
        events: list[Event] = [{"type": "unit_picked", "seat": s, "unit": u}]
        if p["kind"] == "attack" and len(p["units"]) == 2:
            return _finish_selection(st, s, rng, events)
        if st["phase"] == flow.PICK:
            flow.ask(st, flow.PICK_MORE, [s])
        return events
    return do, unit


def _check_done(state: State, seat: int, move: Move) -> Plan:
    return (lambda st, s, _, rng: _finish_selection(st, s, rng, [])), None


def _check_cancel(state: State, seat: int, move: Move) -> Plan:
    def do(st: State, s: int, _: Any, rng: Rng) -> list[Event]:
        back = st["pending"]["back"]
        st["pending"] = None
        flow.ask(st, back, [s])
        return [{"type": "selection_cancelled", "seat": s}]
    return do, None


def _check_casualties(state: State, seat: int, move: Move) -> Plan:
    return turn.do_casualties, turn.check_casualties(state, seat, move)


def _check_pass_turn(state: State, seat: int, move: Move) -> Plan:
    def do(st: State, s: int, _: Any, rng: Rng) -> list[Event]:
        events: list[Event] = [{"type": "turn_passed", "seat": s}]
        flow.end_turn(st, rng, events)
        return events
    return do, None


def _check_end_turn(state: State, seat: int, move: Move) -> Plan:
    def do(st: State, s: int, _: Any, rng: Rng) -> list[Event]:
        events: list[Event] = [{"type": "turn_ended", "seat": s}]
        if st["phase"] == flow.CONVERT:
            flow.next_convert(st, rng, events)
        else:
            flow.end_turn(st, rng, events)
        return events
    return do, None


_CHECKS: dict[str, Callable[[State, int, Move], Plan]] = {
    "war_place_initial": _placement(setup.check_place_initial),
    "war_place_rest": _placement(setup.check_place_rest),
    "choose_capital": _check_capital,
    "place_trunk": _check_place_trunk,
    "remove_trunk": _check_remove_trunk,
    "pass": _check_pass,
    "trade_in": _check_trade,
    "war_move": _check_war_move,
    "attack": _check_attack,
    "pick_unit": _check_pick,
    "done": _check_done,
    "cancel": _check_cancel,
    "casualties": _check_casualties,
    "pass_turn": _check_pass_turn,
    "end_turn": _check_end_turn,
}


# --------------------------------------------------------------------------- resign


def do_resign(state: State, seat: int, _: Any, rng: Rng) -> list[Event]:
    """The seat leaves: units to the supply, towns empty, its owed decision skipped (§4.3)."""
    events: list[Event] = [{"type": "resigned", "seat": seat}]
    state["resigned"][seat] = True
    state["eliminated"][seat] = True
    for town in flow.towns_of(state, seat):
        flow.remove_units(state, town, dict(state["garrison"][town]["units"]), to_supply=True)
    for t, k in state["reserve"][seat].items():
        add(state["supply"], t, k)
    state["reserve"][seat] = {}
    state["support"][seat] = {CLOUD: 0, TRUNK: 0}
    phase = state["phase"]
    owed = seat in state["to_act"]
    if phase in flow.SIMULTANEOUS:
        state["submitted"].pop(str(seat), None)
        state["to_act"] = [s for s in state["to_act"] if s != seat]
        if flow.run_checks(state, events):
            return events
        if owed and not state["to_act"]:
            setup.resolve_placements(state, events)
        return events
    fight = state["fight"]
    if phase == flow.CASUALTIES and fight is not None and fight["defender"] == seat:
        turn.after_defence(state, rng, events)
        return events
    if owed and phase in (flow.TURN, flow.PICK, flow.PICK_MORE, flow.ATTACK_AGAIN):
        flow.end_turn(state, rng, events)
        return events
    if flow.run_checks(state, events) or not owed:
        return events
    if phase == flow.CAPITAL:
        setup.next_capital(state, seat + 1, events)
    elif phase == flow.OPENING:
        state["opener"] = (seat + 1) % state["seats"]
        flow.next_opening(state, events)
    elif phase == flow.CONVERT:
        flow.next_convert(state, rng, events)
    return events


def check(state: State, seat: int, move: Any) -> None:
    validate(state, seat, move)


def apply(state: State, seat: int, move: Any, rng: Rng) -> tuple[State, list[Event]]:
    do, plan = validate(state, seat, move)
    return state, do(state, seat, plan, rng)
