"""Travel in the race game: validating, paying and listing steps (spec §5.2, §9.2).

A `travel` move is a list of steps taken in order from the boot's town; each step names one
road (`road`) or a non-stop chain (`roads`) and its payment in one form: `cards` (the chart's
price; any cards on a bridge), `caravan` (any 3 cards, 4 with an obstacle) or `ferryman` (any 3
cards on Mare Nebulae). `check_travel` validates every step against a scratch hand and returns
the plan that `perform` carries out, so a refused travel changes nothing (§5 "atomic").
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from engines.contract import Event, State
from engines.elfenland import cards
from engines.elfenland.board import RAFT, Board, Road
from engines.elfenland.race import state as S
from engines.elfenland.race.state import fail, opt

FORMS = ("cards", "caravan", "ferryman")
NEBULAE_ROADS_NAME = "Mare Nebulae"


def obstacle_applies(st: State, rid: int, leaving: str) -> int:
    """ob(r, X): 1 if road r has an obstacle that counts when leaving X (§5.2, §9.2.9)."""
    ob = st["obstacles"].get(str(rid))
    if ob is None:
        return 0
    if opt(st, "station-street") and ob["side"] is not None and ob["side"] != leaving:
        return 0
    return 1


def single_cost(st: State, b: Board, road: Road, town: str) -> tuple[str, int] | None:
    """The chart price of one road leaving `town`: (card type, count), obstacle included;
    None if the road carries no transport (a bridge has no chart price)."""
    if road.land:
        kind = st["counters"].get(str(road.id))
        if kind is None:
            return None
        base = cards.cost(b, road, kind, town)
        assert base is not None
        return kind, base + obstacle_applies(st, road.id, town)
    if road.terrain == "lake" and opt(st, "ferryman") and b.lake_of[road.id] == NEBULAE_ROADS_NAME:
        return RAFT, 1
    base = cards.cost(b, road, RAFT, town)
    assert base is not None
    return RAFT, base


def _form(step: dict) -> tuple[str, Any]:
    for form in FORMS:
        if form in step:
            return form, step[form]
    return "", None


def step_shape_ok(step: Any) -> bool:
    """True if a step is one of the §5.2 forms (types only; rules are checked later)."""
    if not isinstance(step, dict):
        return False
    forms = [f for f in FORMS if f in step]
    if len(forms) != 1 or not cards.is_multiset(step[forms[0]]):
        return False
    if "road" in step:
        return set(step) == {"road", forms[0]} and type(step["road"]) is int
    if "roads" in step:
        roads = step["roads"]
        return (set(step) == {"roads", "cards"} and isinstance(roads, list)
                and all(type(r) is int for r in roads))
    return False


def check_travel(st: State, seat: int, steps: list[dict],
                 single: bool) -> list[dict[str, Any]]:
    """Validate a whole travel (§5.2, §5.6 order) and return its plan: one entry per step with
    `road`/`roads`, `pay`, `to`, `bridge`; or, for an opening step with an empty multiset,
    a single entry with `open` (the pick sequence of §4.4)."""
    b = S.the_board(st)
    if not steps:
        raise fail("empty_path", "A travel needs at least one step.")
    if single and len(steps) != 1:
        raise fail("one_step_only", "Exactly one step per turn (thief).")
    hand = dict(st["hand"][seat])
    town = st["boot"][seat]
    plan: list[dict[str, Any]] = []
    bridged = False
    for step in steps:
        form, pay = _form(step)
        if "roads" in step and not opt(st, "non-stop"):
            raise fail("variant_not_enabled", "Chains of roads need the non-stop variant.")
        if form == "ferryman" and not opt(st, "ferryman"):
            raise fail("variant_not_enabled", "The ferryman needs the ferryman variant.")
        ids = step["roads"] if "roads" in step else [step["road"]]
        for rid in ids:
            if not b.is_road(rid):
                raise fail("unknown_road", f"There is no road {rid}.")
        if not cards.contains(hand, pay):
            raise fail("cards_not_in_hand", f"You do not hold {cards.canonical(pay)}"
                       + (" after the earlier steps." if plan else "."))
        if bridged:
            raise fail("bridge_ends_move", "A bridge crossing ends the move; no step may "
                                           "follow it.")
        opening = not pay and form != "cards" or (not pay and _is_bridge(st, ids[0]))
        if opening and len(steps) != 1:
            opening = False
        if "roads" in step:
            entry = _check_chain(st, b, town, ids, pay)
        else:
            entry = _check_road(st, b, town, ids[0], form, pay, opening)
        if entry.get("open"):
            _can_complete(hand, entry)
            return [entry]
        cards.subtract(hand, pay)
        plan.append(entry)
        town = entry["to"]
        bridged = entry["bridge"]
    return plan


def _can_complete(hand: dict, entry: dict[str, Any]) -> None:
    """An opening is legal only with cards enough to pick (§4.4 "listed only if the hand holds
    enough cards"): otherwise the seat would be left at `pick` with nothing to pick."""
    held = cards.size(hand)
    if held < entry["need"]:
        raise fail("cards_not_in_hand", f"Paying road {entry['road']} this way takes "
                                        f"{entry['need']} cards; you hold {held}.")


def _is_bridge(st: State, rid: int) -> bool:
    return str(rid) in st["bridges"]


def _check_road(st: State, b: Board, town: str, rid: int, form: str, pay: dict,
                opening: bool) -> dict[str, Any]:
    road = b.roads[rid]
    if not road.touches(town):
        raise fail("road_not_here", f"Road {rid} does not start at {town}.")
    key = str(rid)
    bridge = key in st["bridges"]
    if road.land and key not in st["counters"] and not bridge:
        raise fail("no_transport", f"Road {rid} carries no transport counter.")
    ob = obstacle_applies(st, rid, town)
    size = sum(pay.values())
    to = road.other(town)
    if form == "caravan":
        if not road.land or bridge or opt(st, "no-caravan"):
            why = "water" if not road.land else ("a bridge" if bridge else "no-caravan")
            raise fail("caravan_not_allowed", f"No caravan on road {rid} ({why}).")
        need = cards.caravan_cost(S.the_board(st), bool(ob))
        if opening:
            return {"open": True, "road": rid, "form": form, "need": need, "from": town}
        if size != need:
            raise fail("caravan_wrong_count", f"A caravan on road {rid} costs {need} cards, "
                                              f"not {size}.")
        return {"road": rid, "pay": pay, "to": to, "bridge": False, "form": form}
    if form == "ferryman":
        if road.terrain != "lake" or b.lake_of[rid] != NEBULAE_ROADS_NAME:
            raise fail("ferryman_not_here", f"The ferryman serves only Mare Nebulae, not road "
                                            f"{rid}.")
        if opening:
            return {"open": True, "road": rid, "form": form, "need": 3, "from": town}
        if size != 3:
            raise fail("wrong_payment", f"The ferryman takes exactly 3 cards, not {size}.")
        return {"road": rid, "pay": pay, "to": to, "bridge": False, "form": form}
    if bridge:
        need = 1 + ob
        if opening:
            return {"open": True, "road": rid, "form": form, "need": need, "from": town}
        if size != need:
            raise fail("wrong_payment", f"Crossing the bridge on road {rid} costs any {need} "
                                        f"card{'s' if need > 1 else ''}, not {size}.")
        return {"road": rid, "pay": pay, "to": to, "bridge": True, "form": form}
    price = single_cost(st, S.the_board(st), road, town)
    assert price is not None
    kind, count = price
    if pay != {kind: count}:
        raise fail("wrong_payment", f"Road {rid} from {town} costs {{{kind!r}: {count}}}, "
                                    f"not {cards.canonical(pay)}.")
    return {"road": rid, "pay": pay, "to": to, "bridge": False, "form": form}


def _check_chain(st: State, b: Board, town: str, ids: list[int],
                 pay: dict) -> dict[str, Any]:
    here = town
    kinds: set[str] = set()
    price = 0
    for rid in ids:
        road = b.roads[rid]
        if not road.touches(here):
            raise fail("road_not_here", f"Road {rid} does not continue the chain at {here}.")
        key = str(rid)
        if road.land and key not in st["counters"] and key not in st["bridges"]:
            raise fail("no_transport", f"Road {rid} carries no transport counter.")
        if road.land and key in st["bridges"] or road.terrain == "lake":
            kinds.add("")
        else:
            cost = single_cost(st, b, road, here)
            assert cost is not None
            kinds.add(cost[0])
            price = max(price, cost[1])
        here = road.other(here)
    if len(ids) < 2 or len(set(ids)) != len(ids) or len(kinds) != 1 or "" in kinds:
        raise fail("chain_invalid", "A non-stop chain is 2 or more distinct connected roads, "
                                    "all with counters of one type or all rivers.")
    kind = kinds.pop()
    if pay != {kind: price}:
        raise fail("wrong_payment", f"This chain costs {{{kind!r}: {price}}}, not "
                                    f"{cards.canonical(pay)}.")
    return {"roads": list(ids), "pay": pay, "to": here, "bridge": False, "form": "cards"}


def perform(st: State, seat: int, plan: list[dict[str, Any]], events: list[Event]) -> None:
    """Carry out a validated travel: pay, move the boot, collect pieces (§5.2 "Effect")."""
    hand = st["hand"][seat]
    collected = st["collected"][seat]
    start = S.the_board(st).start
    for entry in plan:
        pay = entry["pay"]
        cards.subtract(hand, pay)
        cards.merge(st["discards"], pay)
        to = entry["to"]
        st["boot"][seat] = to
        new = to != start and to not in collected
        if new:
            collected.append(to)
        S.note_visit(st, seat, to)
        event = {"type": "travelled", "seat": seat, "to": to, "paid": cards.canonical(pay),
                 "form": entry["form"], "collected": new}
        if "roads" in entry:
            event["roads"] = entry["roads"]
        else:
            event["road"] = entry["road"]
        events.append(event)


def legal_steps(st: State, seat: int) -> Iterator[dict[str, Any]]:
    """Every single-step `travel` the seat may send now (§4.4 "Bounds")."""
    b = S.the_board(st)
    town = st["boot"][seat]
    hand = st["hand"][seat]
    size = sum(hand.values())
    counters = st["counters"]
    no_caravan = opt(st, "no-caravan")
    ferry = opt(st, "ferryman")
    for rid in b.roads_at[town]:
        road = b.roads[rid]
        key = str(rid)
        if road.land:
            if key in st["bridges"]:
                if size >= 1 + obstacle_applies(st, rid, town):
                    yield {"type": "travel", "steps": [{"road": rid, "cards": {}}]}
                continue
            kind = counters.get(key)
            if kind is None:
                continue
            ob = obstacle_applies(st, rid, town)
            count = b.travel_cost[kind][road.terrain] + ob
            if hand.get(kind, 0) >= count:
                yield {"type": "travel", "steps": [{"road": rid, "cards": {kind: count}}]}
            if not no_caravan and size >= b.caravan_cost[1 if ob else 0]:
                yield {"type": "travel", "steps": [{"road": rid, "caravan": {}}]}
            continue
        price = single_cost(st, b, road, town)
        assert price is not None
        if hand.get(RAFT, 0) >= price[1]:
            yield {"type": "travel", "steps": [{"road": rid, "cards": {RAFT: price[1]}}]}
        if ferry and road.terrain == "lake" and b.lake_of[rid] == NEBULAE_ROADS_NAME \
                and size >= 3:
            yield {"type": "travel", "steps": [{"road": rid, "ferryman": {}}]}
    if opt(st, "non-stop"):
        yield from _chains(st, b, town, hand)


def _chains(st: State, b: Board, town: str, hand: dict) -> Iterator[dict[str, Any]]:
    """Non-stop chains from `town` the hand can pay (§9.2.4): DFS over distinct roads."""
    found: list[tuple[list[int], str, int]] = []

    def walk(here: str, kind: str, path: list[int], price: int) -> None:
        for rid in b.roads_at[here]:
            if rid in path:
                continue
            road = b.roads[rid]
            key = str(rid)
            if road.terrain == "lake" or key in st["bridges"]:
                continue
            cost = single_cost(st, b, road, here)
            if cost is None or cost[0] != kind:
                continue
            total = max(price, cost[1])
            if hand.get(kind, 0) < total:
                continue
            path.append(rid)
            if len(path) >= 2:
                found.append((list(path), kind, total))
            walk(road.other(here), kind, path, total)
            path.pop()

    for rid in b.roads_at[town]:
        road = b.roads[rid]
        if road.terrain == "lake" or str(rid) in st["bridges"]:
            continue
        cost = single_cost(st, b, road, town)
        if cost is None or hand.get(cost[0], 0) < cost[1]:
            continue
        walk(road.other(town), cost[0], [rid], cost[1])
    for path, kind, total in found:
        yield {"type": "travel", "steps": [{"roads": path, "cards": {kind: total}}]}


def any_step(st: State, seat: int) -> bool:
    """True if the seat has at least one legal step (the thief's forced step, §9.2.1)."""
    return next(legal_steps(st, seat), None) is not None
