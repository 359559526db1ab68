"""Phase 4 of the race: placing counters and obstacles, substitution, objections (§4.1 R4, §5.1,
§9.2.2-3, 6, 9, 11, 12).

Each `check_*` validates one move in the order of §5.6 and returns the effect that `apply` runs;
a refused move raises before anything changes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import cache
from typing import Any

from engines.contract import Event, Move, Rng, State
from engines.elfenland import cards
from engines.elfenland.board import LAND_TERRAINS, board
from engines.elfenland.race import state as S
from engines.elfenland.race.state import fail, opt

Effect = Callable[[Rng, list[Event]], None]


def _take_counter(st: State, seat: int, kind: str, hidden: bool) -> None:
    cards.remove(st["hidden" if hidden else "faceup"][seat], kind)


def _counter_held(st: State, seat: int, move: Move) -> tuple[str, bool]:
    kind, hidden = move["counter"], bool(move.get("hidden", False))
    if st["hidden" if hidden else "faceup"][seat].get(kind, 0) < 1:
        where = "face-down" if hidden else "face-up"
        raise fail("counter_not_held", f"You hold no {where} {kind} counter.")
    return kind, hidden


def _land_road(st: State, rid: Any) -> Any:
    b = S.the_board(st)
    if not b.is_road(rid):
        raise fail("unknown_road", f"There is no road {rid!r}.")
    return b.roads[rid]


def _after_placement(st: State, seat: int) -> None:
    st["passes"] = 0
    st["plan_seat"] = S.next_active(st, seat)


def check_place_counter(st: State, seat: int, move: Move) -> Effect:
    """`place_counter` (§5.1): a held counter onto an empty land road its type may use."""
    b = S.the_board(st)
    road = _land_road(st, move["road"])
    kind, hidden = _counter_held(st, seat, move)
    if not road.land:
        raise fail("road_is_water", f"Road {road.id} is a {road.terrain}: counters go on land.")
    key = str(road.id)
    if key in st["counters"] or key in st["bridges"]:
        raise fail("road_occupied", f"Road {road.id} already carries a counter or a bridge.")
    if not cards.allowed(b, kind, road.terrain):
        raise fail("terrain_forbidden", f"A {kind} cannot be placed on {road.terrain}.")

    def effect(rng: Rng, events: list[Event]) -> None:
        _take_counter(st, seat, kind, hidden)
        st["counters"][key] = kind
        events.append({"type": "counter_placed", "seat": seat, "road": road.id,
                       "counter": kind, "was_hidden": hidden})
        _after_placement(st, seat)
        if opt(st, "objection") and len(S.active(st)) >= 3:
            _open_objection(st, seat, road.id, kind, hidden)
    return effect


def _open_objection(st: State, seat: int, rid: int, kind: str, hidden: bool) -> None:
    """After a placement (objection variant, 3+ seats): the seats with an objection left, in
    turn order after the placer, may object (§9.2.12)."""
    left = st.get("objections", [0] * st["n"])
    others = [s for s in S.order_from(st, S.next_active(st, seat)) if s != seat and left[s] > 0]
    if others:
        st["objection"] = {"placer": seat, "road": rid, "counter": kind,
                           "hidden": hidden, "seats": others, "objector": None}
        st["phase"] = "objection"


def obstacle_problem(st: State, seat: int, rid: int) -> tuple[str, str] | None:
    """Why the seat's obstacle may not go on road `rid` now (code, message), ignoring `side`;
    None if it may (§5.1 `place_obstacle`, §9.2.2-3, §9.2.6)."""
    road = S.the_board(st).roads[rid]
    if not road.land:
        return "road_is_water", f"Road {rid} is a {road.terrain}: obstacles go on land."
    if not st["obstacle_available"][seat]:
        return "obstacle_used", "Your obstacle is not available."
    key = str(rid)
    carried = key in st["counters"] or key in st["bridges"]
    if not carried and not opt(st, "indiana-jones"):
        return ("obstacle_needs_transport", f"Road {rid} carries no transport counter.")
    if key in st["obstacles"]:
        return "road_has_obstacle", f"Road {rid} already has an obstacle."
    if opt(st, "trunk-first-three-rounds") and st["round"] > 3:
        return "obstacle_round_forbidden", "Obstacles may be placed only in rounds 1-3."
    if opt(st, "trunk-round-limit") and st["placed"] >= (2 if st["n"] >= 5 else 1):
        return "obstacle_round_limit", "This round's obstacle limit is reached."
    return None


def _obstacle_open(st: State, seat: int) -> bool:
    """The road-independent half of `obstacle_problem`: the seat's obstacle is available and
    the trunk variants allow one now (worked out once per listing, not once per road)."""
    if not st["obstacle_available"][seat]:
        return False
    if opt(st, "trunk-first-three-rounds") and st["round"] > 3:
        return False
    return not (opt(st, "trunk-round-limit") and st["placed"] >= (2 if st["n"] >= 5 else 1))


def may_place_obstacle(st: State, seat: int) -> bool:
    """True if the seat's obstacle has a legal road now (public facts only, §4.4)."""
    if not _obstacle_open(st, seat):
        return False
    counters, bridges, obstacles = st["counters"], st["bridges"], st["obstacles"]
    anywhere = bool(opt(st, "indiana-jones"))
    return any((anywhere or key in counters or key in bridges) and key not in obstacles
               for _rid, key, _terrain, _a, _b in land_roads(st["options"]["map_data"]))


def _needs_side(st: State, rid: int) -> bool:
    key = str(rid)
    return bool(opt(st, "station-street")) and (key in st["counters"] or key in st["bridges"])


def check_place_obstacle(st: State, seat: int, move: Move) -> Effect:
    """`place_obstacle` (§5.1): one obstacle per seat per game (construction-works: per round)."""
    road = _land_road(st, move["road"])
    problem = obstacle_problem(st, seat, road.id)
    if problem is not None:
        raise fail(*problem)
    side = move.get("side")
    key = str(road.id)
    if _needs_side(st, road.id):
        if side is None or not road.touches(side):
            raise fail("bad_side", f"Name the end of road {road.id} the obstacle lies at: "
                                   f"{road.a} or {road.b}.")
    elif side is not None:
        raise fail("bad_side", "This obstacle takes no side.")
    bridge = key not in st["counters"] and key not in st["bridges"]

    def effect(rng: Rng, events: list[Event]) -> None:
        st["obstacle_available"][seat] = False
        st["placed"] += 1
        if bridge:
            st["bridges"][key] = seat
        else:
            st["obstacles"][key] = {"owner": seat, "side": side}
        events.append({"type": "bridge_built" if bridge else "obstacle_placed", "seat": seat,
                       "road": road.id, "side": side})
        _after_placement(st, seat)
    return effect


def check_substitute(st: State, seat: int, move: Move) -> Effect:
    """`substitute` (§9.2.11): a token replaces a road's counter with one of the seat's."""
    if not opt(st, "substitution"):
        raise fail("variant_not_enabled", "Substitution is not part of this game.")
    b = S.the_board(st)
    road = _land_road(st, move["road"])
    kind, hidden = _counter_held(st, seat, move)
    if not road.land:
        raise fail("road_is_water", f"Road {road.id} is a {road.terrain}: counters go on land.")
    if not cards.allowed(b, kind, road.terrain):
        raise fail("terrain_forbidden", f"A {kind} cannot be placed on {road.terrain}.")
    if st["subst_tokens"][seat] < 1:
        raise fail("no_substitution_tokens", "You have no substitution token left.")
    key = str(road.id)
    if key not in st["counters"]:
        raise fail("nothing_to_substitute", f"Road {road.id} carries no transport counter.")
    if road.id in st["substituted"]:
        raise fail("road_already_substituted", f"Road {road.id} was already substituted this "
                                               f"round.")

    def effect(rng: Rng, events: list[Event]) -> None:
        _take_counter(st, seat, kind, hidden)
        old = st["counters"][key]
        cards.add(st["pile"], old)
        st["counters"][key] = kind
        st["substituted"].append(road.id)
        st["subst_tokens"][seat] -= 1
        events.append({"type": "substituted", "seat": seat, "road": road.id, "removed": old,
                       "counter": kind, "was_hidden": hidden})
        _after_placement(st, seat)
    return effect


def check_pass(st: State, seat: int, move: Move) -> Effect:
    """`pass` at `plan`: always legal; n passes in a row end the phase (§4.1 R4)."""
    def effect(rng: Rng, events: list[Event]) -> None:
        st["passes"] += 1
        st["plan_seat"] = S.next_active(st, seat)
        events.append({"type": "passed", "seat": seat, "automatic": False})
    return effect


@cache
def land_roads(map_name: str) -> tuple[tuple[int, str, str, str, str], ...]:
    """The land roads of a map as (id, state key, terrain, a, b), ascending: the only roads
    `plan` offers, unpacked once per map instead of once per listing."""
    return tuple((r.id, str(r.id), r.terrain, r.a, r.b) for r in board(map_name).roads if r.land)


@cache
def _kinds_on(map_name: str) -> dict[str, frozenset[str]]:
    """Land terrain -> the counter types the map's chart lets onto it (`cards.allowed`)."""
    b = board(map_name)
    return {t: frozenset(k for k in cards.COUNTER_TYPES if cards.allowed(b, k, t))
            for t in LAND_TERRAINS}


def plan_moves(st: State, seat: int) -> Iterator[Move]:
    """Every legal move at `plan` (§4.4 "Bounds"), road by road in id order. The tests are those
    of the `check_*` functions, with what does not depend on the road worked out once."""
    name = st["options"]["map_data"]
    faceup, hidden = st["faceup"][seat], st["hidden"][seat]
    held = ([(k, False) for k in cards.COUNTER_TYPES if faceup.get(k)]
            + [(k, True) for k in cards.COUNTER_TYPES if hidden.get(k)])
    fits = {t: [(k, h) for k, h in held if k in kinds] for t, kinds in _kinds_on(name).items()}
    counters, bridges = st["counters"], st["bridges"]
    subst = opt(st, "substitution") and st["subst_tokens"][seat] > 0
    obstacle = _obstacle_open(st, seat)
    # the road half of `obstacle_problem`: a transport (or indiana-jones), no obstacle yet
    anywhere, obstacles = bool(opt(st, "indiana-jones")), st["obstacles"]
    sides = bool(opt(st, "station-street"))
    for rid, key, terrain, a, b in land_roads(name):
        on_counter = key in counters
        carried = on_counter or key in bridges
        if not carried:
            for kind, face_down in fits[terrain]:
                yield {"type": "place_counter", "road": rid, "counter": kind,
                       "hidden": face_down}
        elif subst and on_counter and rid not in st["substituted"]:
            for kind, face_down in fits[terrain]:
                yield {"type": "substitute", "road": rid, "counter": kind, "hidden": face_down}
        if obstacle and (carried or anywhere) and key not in obstacles:
            if sides and carried:
                yield {"type": "place_obstacle", "road": rid, "side": a}
                yield {"type": "place_obstacle", "road": rid, "side": b}
            else:
                yield {"type": "place_obstacle", "road": rid}
    yield {"type": "pass"}


def resolve_window(st: State, rng: Rng, events: list[Event], pending: dict[str, Any]) -> None:
    """The objection window closed: the first objector after the placer spends an objection
    and a vote follows, or the placement stands (§9.2.12)."""
    obj = st["objection"]
    objector = next((s for s in obj["seats"] if pending.get(str(s)) == "object"), None)
    events.append({"type": "objection_answers",
                   "answers": {k: v for k, v in sorted(pending.items())},
                   "objector": objector})
    if objector is None:
        close_objection(st, events, stands=True)
        return
    st["objections"][objector] -= 1
    obj["objector"] = objector
    voters = [s for s in S.active(st) if s not in (obj["placer"], objector)]
    if not voters:
        close_objection(st, events, stands=True)
        return
    obj["voters"] = voters


def resolve_vote(st: State, rng: Rng, events: list[Event], pending: dict[str, Any]) -> None:
    """The vote closed: forbid > allow sends the counter back to the placer (§9.2.12)."""
    allow = 1 + sum(1 for v in pending.values() if v)
    forbid = 1 + sum(1 for v in pending.values() if not v)
    events.append({"type": "vote_result", "votes": {k: v for k, v in sorted(pending.items())},
                   "allow": allow, "forbid": forbid})
    close_objection(st, events, stands=forbid <= allow)


def close_objection(st: State, events: list[Event], stands: bool) -> None:
    obj = st["objection"]
    key = str(obj["road"])
    placer = obj["placer"]
    if not stands and st["counters"].get(key) == obj["counter"]:
        del st["counters"][key]
        if st["resigned"][placer]:
            cards.add(st["pile"], obj["counter"])
        else:
            cards.add(st["faceup"][placer], obj["counter"])
        events.append({"type": "counter_refused", "seat": placer, "road": obj["road"],
                       "counter": obj["counter"]})
    st["objection"] = None
    st["phase"] = "plan"
