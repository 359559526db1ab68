"""The war game's setup: the automatic deals, then placements, capitals and the opening (§3.3).

docs/rules/elfenland-war.md "Setup". The automatic steps draw in the spec's order with its
purposes; the two unit placements are simultaneous secret moves (their submissions are kept in
`submitted` until the last seat has answered, then resolved together), the capitals are chosen
one seat after another, and the opening is a rotation of `place_trunk` / `pass`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from engines.contract import Event, Move, Rng, State
from engines.elfenland.board import RAFT, TRANSPORTS
from engines.elfenland.cards import add, canonical, remove
from engines.elfenland.war import flow
from engines.elfenland.war.conditions import condition_set
from engines.elfenland.war.errors import fail
from engines.elfenland.war.geo import CLOUD, TRUNK, UNIT_TYPES, war_map
from engines.elfenland.war.options import validate_war_options

SUPPORT_CLOUDS = 6


def setup(options: Mapping[str, Any], seats: int, rng: Rng) -> State:
    """Steps 1-6 of §3.3 (automatic), then the `war_place_initial` decision."""
    opts = validate_war_options(options, seats)
    wm = war_map(opts["map_data"])
    b = wm.board
    n = seats
    colours = opts["colours"] or list(b.colours[:n])
    # 1. support pile: 6 clouds and the trunks, k each, one at a time in turn order
    pile = [CLOUD] * SUPPORT_CLOUDS + [TRUNK] * b.obstacles
    pile = rng.shuffle("war-support-pile", pile, secret=True)
    k = 3 if n <= 4 else 2
    support: list[dict[str, int]] = [{CLOUD: 0, TRUNK: 0} for _ in range(n)]
    for i in range(k * n):
        support[i % n][pile[i]] += 1
    # 2. units: the 40 land-unit counters, floor(40/n) each; the rest is the supply
    counters = [t for t in UNIT_TYPES for _ in range(b.counter_counts[t])]
    counters = rng.shuffle("war-units", counters)
    per = len(counters) // n
    reserve: list[dict[str, int]] = [{} for _ in range(n)]
    for i in range(per * n):
        add(reserve[i % n], counters[i])
    supply: dict[str, int] = {}
    for t in counters[per * n:]:
        add(supply, t)
    # 3. rafts; 4. the victory deck (the land-type cards and leftover rafts)
    rafts = b.card_counts[RAFT] // n
    left_rafts = b.card_counts[RAFT] - rafts * n
    hands: list[dict[str, int]] = [{RAFT: rafts} if rafts else {} for _ in range(n)]
    deck = [t for t in TRANSPORTS for _ in range(b.card_counts[t])] + [RAFT] * left_rafts
    deck = rng.shuffle("war-victory-deck", deck, secret=True)
    # 5. towns by town cards, floor(12/n) each, one at a time in turn order
    town_cards = rng.shuffle("war-town-cards", list(b.card_towns))
    per_town = len(town_cards) // n
    home: list[list[str]] = [[] for _ in range(n)]
    for i in range(per_town * n):
        home[i % n].append(town_cards[i])
    # 6. condition cards
    conditions = None
    if opts["war-victory"] == "conditions":
        ids = [c.id for c in condition_set(opts["war-conditions"]).cards]
        conditions = rng.shuffle("war-condition-cards", ids, secret=True)[:n]
    return {
        "mode": "war",
        "step": 0,
        "seats": n,
        "options": opts,
        "phase": flow.PLACE_INITIAL,
        "to_act": list(range(n)),
        "round": 0,
        "start": 0,
        "active": None,
        "order": [],
        "turn": 0,
        "opener": 0,
        "passes_in_row": 0,
        "live": False,
        "colours": colours,
        "home": home,
        "garrison": {},
        "reserve": reserve,
        "units_on_board": [0] * n,
        "capital": [None] * n,
        "trophies": [[] for _ in range(n)],
        "supply": canonical(supply),
        "cloud_reserve": b.counter_counts[CLOUD] - SUPPORT_CLOUDS,
        "support": support,
        "trunks": {},
        "hands": hands,
        "deck": deck,
        "war_discard": {},
        "rafts_played": 0,
        "conditions": conditions,
        "eliminated": [False] * n,
        "resigned": [False] * n,
        "submitted": {},
        "pending": None,
        "fight": None,
        "convert": [],
        "result": None,
    }


# --------------------------------------------------------------------------- placements


def check_place_initial(state: State, seat: int, move: Move) -> dict[str, str]:
    """Exactly one of the seat's units in each of its towns (§3.3 step 7)."""
    towns = move.get("towns")
    if not isinstance(towns, dict) or not all(isinstance(v, str) for v in towns.values()):
        raise fail("malformed_move", "`towns` maps each of your towns to one unit type.")
    if set(towns) != set(state["home"][seat]):
        raise fail("placement_invalid", "Name each of your towns exactly once: "
                   f"{sorted(state['home'][seat])}.")
    need: dict[str, int] = {}
    for unit in towns.values():
        if unit not in UNIT_TYPES:
            raise fail("placement_invalid", f"{unit!r} is not a unit type.")
        add(need, unit)
    have = state["reserve"][seat]
    if any(have.get(t, 0) < k for t, k in need.items()):
        raise fail("placement_invalid", "You do not have those units.")
    return dict(towns)


def check_place_rest(state: State, seat: int, move: Move) -> dict[str, dict[str, int]]:
    """Every remaining unit, in own towns only (§3.3 step 9)."""
    units = move.get("units")
    if not isinstance(units, dict) or not all(
            isinstance(m, dict) and all(isinstance(t, str) and type(k) is int and k >= 1
                                        for t, k in m.items()) for m in units.values()):
        raise fail("malformed_move", "`units` maps towns to {unit: count} objects.")
    total: dict[str, int] = {}
    for town, m in units.items():
        if town not in state["home"][seat] or flow.owner(state, town) != seat:
            raise fail("placement_invalid", f"{town!r} is not one of your towns.")
        for t, k in m.items():
            if t not in UNIT_TYPES:
                raise fail("placement_invalid", f"{t!r} is not a unit type.")
            add(total, t, k)
    if total != {t: k for t, k in state["reserve"][seat].items() if k}:
        raise fail("placement_invalid", "Place exactly all your remaining units: "
                   f"{canonical(state['reserve'][seat])}.")
    return {town: dict(m) for town, m in units.items() if m}


def submit(state: State, seat: int, content: Any, rng: Rng) -> list[Event]:
    """Store one seat's simultaneous placement; resolve when the last has answered."""
    state["submitted"][str(seat)] = content
    state["to_act"] = [s for s in state["to_act"] if s != seat]
    events: list[Event] = [{"type": "placement_submitted", "seat": seat}]
    if not state["to_act"]:
        resolve_placements(state, events)
    return events


def resolve_placements(state: State, events: list[Event]) -> None:
    """Apply every submitted placement together, then ask the next decision."""
    subs = state["submitted"]
    state["submitted"] = {}
    if state["phase"] == flow.PLACE_INITIAL:
        shown: dict[str, dict[str, str]] = {}
        for key in sorted(subs, key=int):
            s = int(key)
            for town, unit in subs[key].items():
                remove(state["reserve"][s], unit)
                flow.place_units(state, s, town, {unit: 1})
            shown[key] = subs[key]
        events.append({"type": "war_placed_initial", "placements": shown})
        next_capital(state, 0, events)
        return
    shown_rest: dict[str, dict[str, dict[str, int]]] = {}
    for key in sorted(subs, key=int):
        s = int(key)
        for town, m in subs[key].items():
            flow.place_units(state, s, town, m)
        state["reserve"][s] = {}
        shown_rest[key] = subs[key]
    events.append({"type": "war_placed_rest", "placements": shown_rest})
    state["live"] = True
    if flow.run_checks(state, events):
        return
    state["opener"] = 0
    state["passes_in_row"] = 0
    flow.next_opening(state, events)


def next_capital(state: State, first: int, events: list[Event]) -> None:
    """Ask the next seat from `first` to choose its capital; then the rest placement."""
    for s in range(first, state["seats"]):
        if not state["eliminated"][s]:
            state["active"] = s
            flow.ask(state, flow.CAPITAL, [s])
            return
    state["active"] = None
    to_act = [s for s in range(state["seats"])
              if not state["eliminated"][s] and any(state["reserve"][s].values())]
    if to_act:
        flow.ask(state, flow.PLACE_REST, to_act)
    else:
        resolve_placements(state, events)


def check_capital(state: State, seat: int, move: Move) -> str:
    town = move.get("town")
    if not isinstance(town, str):
        raise fail("malformed_move", "`town` names one of your towns.")
    if town not in state["home"][seat] or flow.owner(state, town) != seat:
        raise fail("capital_invalid", f"{town!r} is not one of your towns.")
    return town


def do_capital(state: State, seat: int, town: str) -> list[Event]:
    state["capital"][seat] = town
    events: list[Event] = [{"type": "capital_chosen", "seat": seat, "town": town}]
    next_capital(state, seat + 1, events)
    return events


# --------------------------------------------------------------------------- examples


def initial_examples(state: State, seat: int) -> Iterator[Move]:
    """A few valid initial placements (the choice is a free arrangement, §4.4)."""
    towns = list(state["home"][seat])
    units = [t for t in UNIT_TYPES for _ in range(state["reserve"][seat].get(t, 0))]
    seen: list[dict[str, str]] = []
    for order in (units, units[::-1], units[len(units) // 2:] + units[:len(units) // 2]):
        placement = dict(zip(towns, order, strict=False))
        if len(placement) == len(towns) and placement not in seen:
            seen.append(placement)
            yield {"type": "war_place_initial", "towns": placement}


def rest_examples(state: State, seat: int) -> Iterator[Move]:
    """A few valid rest placements: all in the capital, all in the first town, spread."""
    towns = [t for t in state["home"][seat] if flow.owner(state, t) == seat]
    left = canonical(state["reserve"][seat])
    seen: list[dict[str, dict[str, int]]] = []
    firsts = [state["capital"][seat], towns[0] if towns else None]
    for town in firsts:
        if town is not None and {town: left} not in seen:
            seen.append({town: dict(left)})
    spread: dict[str, dict[str, int]] = {}
    units = [t for t in UNIT_TYPES for _ in range(left.get(t, 0))]
    for i, unit in enumerate(units):
        add(spread.setdefault(towns[i % len(towns)], {}), unit)
    if spread and spread not in seen:
        seen.append(spread)
    for placement in seen:
        yield {"type": "war_place_rest", "units": placement}
