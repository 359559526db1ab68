"""The war game's actions: trades, trunks, movements, attacks and the unit picks (§5.3-§5.5).

docs/rules/elfenland-war.md "Moves". Each `check_*` validates in the order of §5.6 and returns a
plan without touching the state; each `do_*` carries a plan out. A movement or an attack is sent
either whole (the combined form) or as a start with no units, followed by one `pick_unit` per
unit and `done` (an attack resolves at its second pick): the same thing in small steps (§4.4).
"""

from __future__ import annotations

from typing import Any

from engines.contract import Event, Move, Rng, State
from engines.elfenland.board import RAFT
from engines.elfenland.cards import CARD_TYPES, add, canonical, contains, is_multiset, subtract
from engines.elfenland.war import flow
from engines.elfenland.war.errors import fail
from engines.elfenland.war.geo import CLOUD, TRUNK, UNIT_TYPES, Exit, Path, WarMap, war_map


def wmap(state: State) -> WarMap:
    return war_map(state["options"]["map_data"])


def _town(wm: WarMap, value: Any, field: str) -> str:
    if not isinstance(value, str):
        raise fail("malformed_move", f"`{field}` must be a town id.")
    if value not in wm.exits:
        raise fail("unknown_town", f"No town {value!r}.")
    return value


def _road_id(wm: WarMap, value: Any) -> int:
    if type(value) is not int:
        raise fail("malformed_move", "A road is named by its integer id.")
    if not wm.board.is_road(value):
        raise fail("unknown_road", f"No road {value}.")
    return value


def _cards(move: Move) -> dict[str, int]:
    cards = move.get("cards", {})
    if not is_multiset(cards, CARD_TYPES):
        raise fail("malformed_move", "`cards` is an object {card type: count >= 1}.")
    return dict(cards)


# --------------------------------------------------------------------------- trades, trunks


def check_trade(state: State, seat: int, move: Move) -> tuple[str, str | None]:
    """3 identical non-raft cards for a unit in an own town, or for a cloud (§5.3)."""
    wm = wmap(state)
    card = move.get("card")
    town = move.get("town")
    if not isinstance(card, str):
        raise fail("malformed_move", "`card` names a card type.")
    if town is not None:
        _town(wm, town, "town")
    if card not in CARD_TYPES or card == RAFT:
        raise fail("trade_invalid", f"{card!r} cannot be traded (three of a land type).")
    if card == CLOUD and "town" in move:
        raise fail("trade_invalid", "A magic cloud goes to your support counters: no town.")
    if card != CLOUD and town is None:
        raise fail("malformed_move", "A unit trade names the own town it enters.")
    if state["hands"][seat].get(card, 0) < 3:
        raise fail("cards_not_in_hand", f"You hold fewer than 3 {card} cards.")
    if card == CLOUD:
        if state["cloud_reserve"] <= 0:
            raise fail("supply_empty", "No magic cloud is left in the reserve.")
        return card, None
    if flow.owner(state, town) != seat:
        raise fail("not_own_town", f"{town} is not yours.")
    if state["supply"].get(card, 0) <= 0:
        raise fail("supply_empty", f"No {card} is left in the supply.")
    if state["units_on_board"][seat] >= flow.UNIT_LIMIT:
        raise fail("unit_limit")
    return card, town


def do_trade(state: State, seat: int, plan: tuple[str, str | None]) -> list[Event]:
    card, town = plan
    subtract(state["hands"][seat], {card: 3})
    add(state["war_discard"], card, 3)
    state["war_discard"] = canonical(state["war_discard"])
    if town is None:
        state["cloud_reserve"] -= 1
        state["support"][seat][CLOUD] += 1
    else:
        subtract(state["supply"], {card: 1})
        flow.place_units(state, seat, town, {card: 1})
    return [{"type": "traded", "seat": seat, "card": card, "town": town}]


def check_place_trunk(state: State, seat: int, move: Move) -> int:
    wm = wmap(state)
    road = _road_id(wm, move.get("road"))
    if not wm.board.road(road).land:
        raise fail("road_is_water")
    if state["support"][seat][TRUNK] <= 0:
        raise fail("no_trunk_held")
    if str(road) in state["trunks"]:
        raise fail("road_has_obstacle", f"Road {road} already has a trunk.")
    return road


def do_place_trunk(state: State, seat: int, road: int) -> list[Event]:
    state["support"][seat][TRUNK] -= 1
    state["trunks"][str(road)] = seat
    return [{"type": "trunk_placed", "seat": seat, "road": road}]


def check_remove_trunk(state: State, seat: int, move: Move) -> int:
    road = _road_id(wmap(state), move.get("road"))
    if state["support"][seat][CLOUD] <= 0:
        raise fail("no_cloud_held")
    if str(road) not in state["trunks"]:
        raise fail("no_trunk_on_road", f"There is no trunk on road {road}.")
    return road


def do_remove_trunk(state: State, seat: int, road: int) -> list[Event]:
    state["support"][seat][CLOUD] -= 1
    state["cloud_reserve"] += 1
    del state["trunks"][str(road)]
    return [{"type": "trunk_removed", "seat": seat, "road": road}]


# --------------------------------------------------------------------------- movement


def find_path(wm: WarMap, origin: str, roads: list[int]) -> Path | None:
    """The path of `roads` from `origin`, or None if two connected roads differ in terrain or
    return to the origin (the caller raises `double_move_invalid` after the trunk check,
    §5.6); `road_not_here` if the roads do not connect (§5.4)."""
    b = wm.board
    first = b.road(roads[0])
    if not first.touches(origin):
        raise fail("road_not_here", f"Road {roads[0]} does not touch {origin}.")
    if len(roads) == 2:
        mid = first.other(origin)
        if not b.road(roads[1]).touches(mid):
            raise fail("road_not_here", f"Road {roads[1]} does not touch {mid}.")
    for p in wm.paths[origin]:
        if list(p.roads) == roads:
            return p
    return None


def move_cost(wm: WarMap, path: Path, units: dict[str, int]) -> dict[str, int]:
    """The exact payment of a group on a path (§5.4): one land road is free, two cost twice
    the chart per unit in its own type, water costs rafts per unit and road."""
    if not path.land:
        n = sum(units.values())
        return {RAFT: n * path.rafts} if n else {}
    if len(path.roads) == 1:
        return {}
    out: dict[str, int] = {}
    for t, k in units.items():
        add(out, t, 2 * wm.chart[t][path.terrain] * k)
    return out


def unit_can_move(wm: WarMap, hand: dict[str, int], path: Path, unit: str,
                  group: dict[str, int]) -> bool:
    """True if one more `unit` may join `group` on `path` and still be paid for."""
    if not path.land:
        return hand.get(RAFT, 0) >= (sum(group.values()) + 1) * path.rafts
    if path.terrain not in wm.terrains[unit]:
        return False
    if len(path.roads) == 1:
        return True
    return hand.get(unit, 0) >= (group.get(unit, 0) + 1) * 2 * wm.chart[unit][path.terrain]


def check_war_move(state: State, seat: int, move: Move) -> dict[str, Any]:
    """A movement (§5.4) in its combined form, or its start (`units` empty)."""
    wm = wmap(state)
    origin = move.get("from")
    roads = move.get("roads")
    units = move.get("units", {})
    if not isinstance(roads, list) or len(roads) not in (1, 2):
        raise fail("malformed_move", "`roads` lists 1 or 2 road ids.")
    if not is_multiset(units, UNIT_TYPES):
        raise fail("malformed_move", "`units` is an object {unit type: count >= 1}.")
    cards = _cards(move)
    origin = _town(wm, origin, "from")
    roads = [_road_id(wm, r) for r in roads]
    if not contains(state["hands"][seat], cards):
        raise fail("cards_not_in_hand")
    g = state["garrison"].get(origin)
    if g is None or g["seat"] != seat:
        raise fail("not_own_town", f"{origin} is not yours.")
    if not contains(g["units"], units):
        raise fail("units_not_present", f"{origin} does not hold {canonical(units)}.")
    path = find_path(wm, origin, roads)
    if any(str(r) in state["trunks"] for r in roads):
        raise fail("road_has_trunk")
    if path is None:
        raise fail("double_move_invalid")
    if path.mid is not None and flow.owner(state, path.mid) not in (None, seat):
        raise fail("path_through_enemy", f"{path.mid} belongs to an enemy.")
    if flow.owner(state, path.to) not in (None, seat):
        raise fail("target_enemy", f"{path.to} belongs to an enemy.")
    hand = state["hands"][seat]
    if not units:
        if path.land and not any(path.terrain in wm.terrains[t] for t in g["units"]):
            raise fail("unit_terrain_forbidden", f"No unit in {origin} may use "
                       f"{path.terrain}.")
        if cards or not any(unit_can_move(wm, hand, path, t, {}) for t in g["units"]):
            raise fail("wrong_payment", "Start a movement with no units and no cards, and "
                       "hold the cards for at least one unit.")
        return {"start": True, "from": origin, "path": path}
    if path.land:
        for t in units:
            if path.terrain not in wm.terrains[t]:
                raise fail("unit_terrain_forbidden", f"A {t} cannot use {path.terrain}.")
    cost = move_cost(wm, path, units)
    if cards != cost:
        raise fail("wrong_payment", f"This movement costs {canonical(cost) or 'nothing'}.")
    return {"start": False, "from": origin, "path": path, "units": dict(units), "cards": cost}


def pay(state: State, seat: int, cards: dict[str, int]) -> None:
    """Spent cards: land types to `war_discard`, rafts to the played rafts (§5.4)."""
    if not cards:
        return
    subtract(state["hands"][seat], cards)
    for t, k in cards.items():
        if t == RAFT:
            state["rafts_played"] += k
        else:
            add(state["war_discard"], t, k)
    state["war_discard"] = canonical(state["war_discard"])


def do_war_move(state: State, seat: int, plan: dict[str, Any], rng: Rng) -> list[Event]:
    """Carry a complete movement out and end the turn (§5.4 "Arrival")."""
    path: Path = plan["path"]
    units = plan["units"]
    pay(state, seat, plan["cards"])
    flow.remove_units(state, plan["from"], units, to_supply=False)
    claimed = flow.owner(state, path.to) is None
    flow.place_units(state, seat, path.to, units)
    events: list[Event] = [{"type": "moved", "seat": seat, "from": plan["from"],
                            "roads": list(path.roads), "to": path.to,
                            "units": canonical(units), "cards": canonical(plan["cards"]),
                            "claimed": claimed}]
    if claimed:
        flow.capture_capital(state, seat, path.to, events)
    flow.end_turn(state, rng, events)
    return events


# --------------------------------------------------------------------------- combat


def attack_exit(wm: WarMap, origin: str, road: int) -> Exit:
    for e in wm.exits[origin]:
        if e.road == road:
            return e
    raise fail("road_not_here", f"Road {road} does not touch {origin}.")


def unit_can_attack(wm: WarMap, hand: dict[str, int], e: Exit, unit: str, count: int) -> bool:
    """True if the `count`+1-th attacker may be a `unit` over exit `e` and be paid for."""
    if e.land:
        return e.terrain in wm.terrains[unit]
    return hand.get(RAFT, 0) >= (count + 1) * e.rafts


def check_attack(state: State, seat: int, move: Move) -> dict[str, Any]:
    """An attack (§5.5) in its combined form, or its start (`units` empty)."""
    wm = wmap(state)
    units = move.get("units", [])
    if not isinstance(units, list) or any(u not in UNIT_TYPES for u in units):
        raise fail("malformed_move", "`units` lists unit types.")
    cards = _cards(move)
    origin = _town(wm, move.get("from"), "from")
    road = _road_id(wm, move.get("road"))
    fight = state["fight"]
    if state["phase"] == flow.ATTACK_AGAIN:
        r = wm.board.road(road)
        if origin != fight["from"] or (r.touches(origin) and r.other(origin) != fight["target"]):
            raise fail("wrong_origin", f"Attack {fight['target']} from {fight['from']} again.")
    if not contains(state["hands"][seat], cards):
        raise fail("cards_not_in_hand")
    g = state["garrison"].get(origin)
    if g is None or g["seat"] != seat:
        raise fail("not_own_town", f"{origin} is not yours.")
    need: dict[str, int] = {}
    for u in units:
        add(need, u)
    if not contains(g["units"], need):
        raise fail("units_not_present", f"{origin} does not hold {canonical(need)}.")
    if len(units) > 2:
        raise fail("too_many_attackers")
    e = attack_exit(wm, origin, road)
    if str(road) in state["trunks"]:
        raise fail("road_has_trunk")
    if flow.owner(state, e.to) in (None, seat):
        raise fail("target_not_enemy", f"{e.to} holds no enemy units.")
    hand = state["hands"][seat]
    if not units:
        if e.land and not any(e.terrain in wm.terrains[t] for t in g["units"]):
            raise fail("unit_terrain_forbidden", f"No unit in {origin} may use {e.terrain}.")
        if cards or not any(unit_can_attack(wm, hand, e, t, 0) for t in g["units"]):
            raise fail("wrong_payment", "Start an attack with no units and no cards, and hold "
                       "the rafts for at least one unit.")
        return {"start": True, "from": origin, "exit": e}
    if e.land:
        for u in units:
            if e.terrain not in wm.terrains[u]:
                raise fail("unit_terrain_forbidden", f"A {u} cannot use {e.terrain}.")
    cost = {} if e.land else {RAFT: len(units) * e.rafts}
    if cards != cost:
        raise fail("wrong_payment", f"This attack costs {cost or 'nothing'}.")
    return {"start": False, "from": origin, "exit": e, "units": list(units), "cards": cost}


def do_attack(state: State, seat: int, plan: dict[str, Any], rng: Rng) -> list[Event]:
    """Roll, remove the losses, then capture, casualties or a possible repeat (§5.5)."""
    e: Exit = plan["exit"]
    origin, target, units = plan["from"], e.to, plan["units"]
    pay(state, seat, plan["cards"])
    defender = state["garrison"][target]["seat"]
    held = sum(state["garrison"][target]["units"].values())
    a = len(units)
    d = min(held, a)
    att = sorted((rng.roll("war-attack-dice") for _ in range(a)), reverse=True)
    dfn = sorted((rng.roll("war-defence-dice") for _ in range(d)), reverse=True)
    att_loss = sum(att[i] <= dfn[i] for i in range(d))
    def_loss = d - att_loss
    lost = units[a - att_loss:]
    survivors = units[:a - att_loss]
    dead: dict[str, int] = {}
    for u in lost:
        add(dead, u)
    if dead:
        flow.remove_units(state, origin, dead, to_supply=True)
    event: Event = {"type": "attack", "seat": seat, "defender": defender, "from": origin,
                    "road": e.road, "target": target, "units": list(units),
                    "cards": canonical(plan["cards"]), "attack_dice": att, "defence_dice": dfn,
                    "attacker_losses": canonical(dead), "defender_losses": def_loss}
    events: list[Event] = [event]
    state["fight"] = {"from": origin, "target": target, "attacker": seat,
                      "defender": defender, "units": survivors, "losses": def_loss,
                      "attack_dice": att, "defence_dice": dfn}
    state["pending"] = None
    garrison = state["garrison"][target]["units"]
    if def_loss and len(garrison) >= 2 and def_loss < held:
        flow.ask(state, flow.CASUALTIES, [defender])
        return events
    if def_loss:
        killed = dict(garrison) if def_loss >= held else {next(iter(garrison)): def_loss}
        flow.remove_units(state, target, killed, to_supply=True)
        events.append({"type": "casualties", "seat": defender, "town": target,
                       "units": canonical(killed), "automatic": True})
    after_defence(state, rng, events)
    return events


def after_defence(state: State, rng: Rng, events: list[Event]) -> None:
    """Capture an emptied target, or offer a repeat, or end the turn (§5.5 steps 5-6)."""
    fight = state["fight"]
    seat, origin, target = fight["attacker"], fight["from"], fight["target"]
    if target not in state["garrison"]:
        g = state["garrison"].get(origin)
        moving: dict[str, int] = {}
        for u in fight["units"]:
            if g is not None and g["seat"] == seat and g["units"].get(u, 0) > moving.get(u, 0):
                add(moving, u)
        if moving:
            flow.remove_units(state, origin, moving, to_supply=False)
            flow.place_units(state, seat, target, moving)
            got = flow.draw_cards(state, seat, 1, rng, events)
            events.append({"type": "town_taken", "seat": seat, "town": target,
                           "units": canonical(moving), "drew": got})
            flow.capture_capital(state, seat, target, events)
        flow.end_turn(state, rng, events)
        return
    if can_attack_again(state, seat, origin, target):
        flow.ask(state, flow.ATTACK_AGAIN, [seat])
        return
    flow.end_turn(state, rng, events)


def can_attack_again(state: State, seat: int, origin: str, target: str) -> bool:
    """F still holds a unit that could attack T over a trunk-free road between them (§5.5.6)."""
    if state["eliminated"][seat]:
        return False
    g = state["garrison"].get(origin)
    if g is None or g["seat"] != seat or flow.owner(state, target) in (None, seat):
        return False
    wm = wmap(state)
    for e in wm.exits[origin]:
        if e.to != target or str(e.road) in state["trunks"]:
            continue
        if not e.land or any(e.terrain in wm.terrains[t] for t in g["units"]):
            return True
    return False


def check_casualties(state: State, seat: int, move: Move) -> dict[str, int]:
    units = move.get("units")
    if not is_multiset(units, UNIT_TYPES):
        raise fail("malformed_move", "`units` is an object {unit type: count >= 1}.")
    fight = state["fight"]
    garrison = state["garrison"][fight["target"]]["units"]
    if sum(units.values()) != fight["losses"] or not contains(garrison, units):
        raise fail("casualties_invalid", f"Choose exactly {fight['losses']} of "
                   f"{canonical(garrison)}.")
    return dict(units)


def do_casualties(state: State, seat: int, units: dict[str, int], rng: Rng) -> list[Event]:
    fight = state["fight"]
    flow.remove_units(state, fight["target"], units, to_supply=True)
    events: list[Event] = [{"type": "casualties", "seat": seat, "town": fight["target"],
                            "units": canonical(units), "automatic": False}]
    after_defence(state, rng, events)
    return events
