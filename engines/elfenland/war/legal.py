"""The war game's legal moves and timeout defaults (spec §4.4; docs/rules/elfenland-war.md).

`legal_moves` lists every legal move of the seat asked, small per decision: movements and
attacks only as their starts (one per origin and path or road where some unit can go and pay),
then one unit pick at a time; the two placements as a few valid examples (free arrangements).
`default_move` is the move of a late seat, one per decision kind.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from engines.contract import Move, State
from engines.elfenland.board import RAFT
from engines.elfenland.cards import sub_multisets
from engines.elfenland.war import flow, rules, setup, turn
from engines.elfenland.war.geo import CLOUD, TRUNK, UNIT_TYPES


def legal_moves(state: State, seat: int) -> Iterator[Move]:
    """Every legal move of `seat` (examples only for the two placements, §4.4)."""
    phase = state["phase"]
    if phase == flow.GAME_OVER or seat not in state["to_act"]:
        return
    if phase == flow.PLACE_INITIAL:
        yield from setup.initial_examples(state, seat)
    elif phase == flow.PLACE_REST:
        yield from setup.rest_examples(state, seat)
    elif phase == flow.CAPITAL:
        for town in state["home"][seat]:
            if flow.owner(state, town) == seat:
                yield {"type": "choose_capital", "town": town}
    elif phase == flow.OPENING:
        yield from _trunk_moves(state, seat)
        yield {"type": "pass"}
    elif phase == flow.TURN:
        yield from _trades(state, seat)
        yield from _move_starts(state, seat)
        yield from _attack_starts(state, seat, None)
        yield from _trunk_moves(state, seat)
        if state["support"][seat][CLOUD]:
            for road in sorted(map(int, state["trunks"])):
                yield {"type": "remove_trunk", "road": road}
        yield {"type": "pass_turn"}
    elif phase in (flow.PICK, flow.PICK_MORE):
        for unit in UNIT_TYPES:
            if rules.pickable(state, seat, unit):
                yield {"type": "pick_unit", "unit": unit}
        yield {"type": "done"} if phase == flow.PICK_MORE else {"type": "cancel"}
    elif phase == flow.CASUALTIES:
        fight = state["fight"]
        garrison = state["garrison"][fight["target"]]["units"]
        for m in sub_multisets(garrison, fight["losses"]):
            yield {"type": "casualties", "units": m}
    elif phase == flow.ATTACK_AGAIN:
        yield from _attack_starts(state, seat, state["fight"])
        yield {"type": "end_turn"}
    elif phase == flow.CONVERT:
        yield from _trades(state, seat)
        yield {"type": "end_turn"}


def _trunk_moves(state: State, seat: int) -> Iterator[Move]:
    if state["support"][seat][TRUNK]:
        trunks = state["trunks"]
        for road in turn.wmap(state).land_roads:
            if str(road) not in trunks:
                yield {"type": "place_trunk", "road": road}


def _trades(state: State, seat: int) -> Iterator[Move]:
    hand = state["hands"][seat]
    own: list[str] | None = None
    for card, k in hand.items():
        if k < 3 or card == RAFT:
            continue
        if card == CLOUD:
            if state["cloud_reserve"] > 0:
                yield {"type": "trade_in", "card": CLOUD}
            continue
        if state["supply"].get(card, 0) <= 0 or \
                state["units_on_board"][seat] >= flow.UNIT_LIMIT:
            continue
        if own is None:
            own = flow.towns_of(state, seat)
        for town in own:
            yield {"type": "trade_in", "card": card, "town": town}


def _move_starts(state: State, seat: int) -> Iterator[Move]:
    wm = turn.wmap(state)
    hand = state["hands"][seat]
    trunks = state["trunks"]
    garrison = state["garrison"]
    for town, g in list(garrison.items()):
        if g["seat"] != seat:
            continue
        units = g["units"]
        for p in wm.paths[town]:
            if str(p.roads[0]) in trunks or (len(p.roads) == 2 and str(p.roads[1]) in trunks):
                continue
            dest = garrison.get(p.to)
            if dest is not None and dest["seat"] != seat:
                continue
            if p.mid is not None:
                mid = garrison.get(p.mid)
                if mid is not None and mid["seat"] != seat:
                    continue
            if any(turn.unit_can_move(wm, hand, p, t, {}) for t in units):
                yield {"type": "war_move", "from": town, "roads": list(p.roads),
                       "units": {}, "cards": {}}


def _attack_starts(state: State, seat: int, fight: dict[str, Any] | None) -> Iterator[Move]:
    wm = turn.wmap(state)
    hand = state["hands"][seat]
    trunks = state["trunks"]
    garrison = state["garrison"]
    for town, g in list(garrison.items()):
        if g["seat"] != seat or (fight is not None and town != fight["from"]):
            continue
        for e in wm.exits[town]:
            if str(e.road) in trunks or (fight is not None and e.to != fight["target"]):
                continue
            target = garrison.get(e.to)
            if target is None or target["seat"] == seat:
                continue
            if any(turn.unit_can_attack(wm, hand, e, t, 0) for t in g["units"]):
                yield {"type": "attack", "from": town, "road": e.road, "units": [], "cards": {}}


# --------------------------------------------------------------------------- defaults


def default_move(state: State, seat: int) -> Move | None:
    """The timeout move of each decision kind (docs/rules/elfenland-war.md "Timeouts")."""
    phase = state["phase"]
    if phase == flow.GAME_OVER or seat not in state["to_act"]:
        return None
    if phase in (flow.PLACE_INITIAL, flow.PLACE_REST, flow.CAPITAL, flow.CASUALTIES):
        return next(legal_moves(state, seat), None)
    return {
        flow.OPENING: {"type": "pass"},
        flow.TURN: {"type": "pass_turn"},
        flow.PICK: {"type": "cancel"},
        flow.PICK_MORE: {"type": "done"},
        flow.ATTACK_AGAIN: {"type": "end_turn"},
        flow.CONVERT: {"type": "end_turn"},
    }.get(phase)
