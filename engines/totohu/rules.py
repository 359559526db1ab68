"""Totohu rules: setup, decisions, legal moves, apply, scoring (rules/totohu.md §3-§8).

State shape (plain JSON; a *side* is a seat as a string, "0".."2", or "dummy" in solo):

- `step`, `phase` (choose | order | raid | game_over), `round`, `starter`, `to_act` (seats).
- `seats`, `options` (validated, `fleet_data` names the data file, see `fleet.py`).
- `fleets`: side -> ship id -> `ShipState`.
- `resigned`: one bool per seat.
- `choices`: side -> this round's `{"ship", "hide"}` or None. SECRET until the reveal (the
  `hide` flag for ever); the dummy's entry is set when its ship is drawn.
- `reveal`: side -> ship of the last reveal (public), or None before the first.
- `order`: the starter's pairs this round (public), or None.
- `encounters`: the pairs of sides still to resolve this round, in order; while a raid is
  pending its encounter is the first entry and `raid` names the pirate and merchant sides.
- `anchored`: sides whose hunter has anchored this round (a hunter anchors once, §4.2).
- `result`: None, or the result once `phase` is game_over.

Decisions taken where the spec leaves room (each cites its section):
- §5: a move that is not a JSON object is `malformed_move` (it has no type to be unknown); a
  pair in `order` that is not of length 2 is `invalid_order` (the shape "list of lists of
  integers" is met); an `action` that is not a string is `malformed_move`.
- §4.3: a sunk ship loses its cannons and barrels (the counters are set to 0), so views show
  what the ship still carries, i.e. nothing.
- §4.2: the per-round hunter limit applies to the `anchor` effect only: a hunter's second
  anchoring in a round becomes `none`; any other effect of a replacement matrix still applies.
- §5 resign: the seat's ships at sea sink; there is no `fleet_exhausted` event for it (the
  `resigned` event says it); a lapsed raid emits `encounter_skipped` for its encounter.
- §8: `default_move` is None: the spec defines no timeout default (the platform forfeits).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from itertools import permutations
from typing import Any, TypedDict

from engines.contract import (
    Decision,
    Event,
    IllegalMove,
    Move,
    OptionSpec,
    Result,
    Rng,
    State,
    close_decision,
    fill_options,
)
from engines.totohu.fleet import (
    DEFAULT_FLEET,
    MERCHANT,
    PIRATE,
    FleetData,
    FleetDataError,
    ShipType,
    load_fleet,
)

CHOOSE, ORDER, RAID, GAME_OVER = "choose", "order", "raid", "game_over"
SEA, SUNK, PORT, LEFT = "sea", "sunk", "port", "left"
DUMMY = "dummy"
SIDES = ("0", "1", "2")
MIN_PLAYERS, MAX_PLAYERS = 1, 3

OPTIONS: dict[str, OptionSpec] = {
    "hidden_treasure": OptionSpec(
        False, (False, True), "Holds, hiding and robbing (rules/totohu.md §4.4)."
    ),
    "blind": OptionSpec(False, (False, True), "Other fleets are not shown (§7)."),
    "fleet_data": OptionSpec(DEFAULT_FLEET, None, "Id of the fleet/matrix data file (§2)."),
}

#: move type -> (required fields, optional fields) besides "type"
MOVE_FIELDS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "play": (frozenset({"ship"}), frozenset({"hide"})),
    "order": (frozenset({"pairs"}), frozenset()),
    "raid": (frozenset({"action"}), frozenset()),
    "resign": (frozenset(), frozenset()),
}
PHASE_OF_MOVE = {"play": CHOOSE, "order": ORDER, "raid": RAID}
RAID_ACTIONS = ("shoot", "rob")

MESSAGES = {
    "game_over": "The game has ended.",
    "unknown_move": "Unknown move type.",
    "malformed_move": "A field is missing, extra or of the wrong type.",
    "already_chosen": "You have already chosen a ship this round.",
    "not_your_turn": "This seat is not expected to act now.",
    "wrong_phase": "This move type is not accepted in the current phase.",
    "unknown_ship": "Your fleet has no ship with that id.",
    "ship_not_playable": "That ship has sunk, gone to port or left the game.",
    "hide_not_allowed": (
        "Hiding needs the hidden-treasure option and a merchant with an empty hold."
    ),
    "invalid_order": "The pairs must list each pair of the three active seats exactly once.",
    "invalid_raid_action": 'The action must be "shoot" or "rob".',
    "hold_full": "Your pirate's hold is already full; it cannot rob.",
}


class ShipState(TypedDict):
    """One ship's counters (§2.1): `status` is sea | sunk | port | left."""

    status: str
    holes: int
    cannons: int
    deck: int
    hold: int
    anchors: int


def _fail(code: str) -> IllegalMove:
    return IllegalMove(code, MESSAGES[code])


def fleet_of(state: State) -> FleetData:
    """The (cached) data file of a game."""
    return load_fleet(state["options"]["fleet_data"])


# --------------------------------------------------------------------------- options, setup


def validate_options(options: Mapping[str, Any], seats: int) -> dict[str, Any]:
    """Defaults filled in; a bad value, seat count or data file is `invalid_options` (§9)."""
    filled = fill_options(OPTIONS, options)
    if not isinstance(seats, int) or not MIN_PLAYERS <= seats <= MAX_PLAYERS:
        raise IllegalMove("invalid_options", "Totohu is played by 1 to 3 players.")
    try:
        load_fleet(filled["fleet_data"])
    except (FleetDataError, TypeError) as err:
        raise IllegalMove("invalid_options", f"Option 'fleet_data': {err}") from None
    return filled


def new_ship() -> ShipState:
    """A fresh ship: at sea, every counter 0 (§3)."""
    return {"status": SEA, "holes": 0, "cannons": 0, "deck": 0, "hold": 0, "anchors": 0}


def setup(options: Mapping[str, Any], seats: int, rng: Rng) -> State:
    """Fresh fleets for every seat (and the dummy in solo); round 1, starter 0; no draws (§3)."""
    opts = validate_options(options, seats)
    fleet = load_fleet(opts["fleet_data"])
    sides = [*SIDES[:seats], *([DUMMY] if seats == 1 else [])]
    return {
        "step": 0,
        "seats": seats,
        "options": opts,
        "phase": CHOOSE,
        "round": 1,
        "starter": 0,
        "to_act": list(range(seats)),
        "fleets": {side: {t.id: new_ship() for t in fleet.ships} for side in sides},
        "resigned": [False] * seats,
        "choices": dict.fromkeys(sides),
        "reveal": None,
        "order": None,
        "encounters": [],
        "raid": None,
        "anchored": [],
        "result": None,
    }


# --------------------------------------------------------------------------- queries


def decision(state: State) -> Decision:
    """Who acts now; `step_kind` is the phase (§4)."""
    return {"step": state["step"], "step_kind": state["phase"], "to_act": list(state["to_act"])}


def at_sea(ships: Mapping[str, ShipState]) -> bool:
    """Whether a fleet still has a ship at sea (its side is active, §4)."""
    return any(s["status"] == SEA for s in ships.values())


def score(ships: Mapping[str, ShipState]) -> int:
    """Cannons + deck + hold over ships not sunk; anchors score nothing (§8)."""
    return sum(s["cannons"] + s["deck"] + s["hold"] for s in ships.values() if s["status"] != SUNK)


def sunk_count(ships: Mapping[str, ShipState]) -> int:
    """Own ships sunk: the first tie-break (§8)."""
    return sum(s["status"] == SUNK for s in ships.values())


def round_seats(state: State) -> list[int]:
    """The seats that have a choice stored this round (after the reveal: those playing)."""
    choices = state["choices"]
    return [s for s in range(state["seats"]) if choices[SIDES[s]] is not None]


def dummy_faces(fleet: FleetData, dummy: Mapping[str, ShipState]) -> dict[str, str] | None:
    """The solo face map once 3 or more dummy ships are out (§4.5), else None.

    Each ship at sea keeps its own face; the faces of eliminated ships, ascending, are dealt in
    turn to the ships at sea in ascending die-face order. Rebuilt from scratch from the fleet,
    so it is the same map the spec rebuilds at every elimination from the third on.
    """
    sailing = [t for t in fleet.by_face if dummy[t.id]["status"] == SEA]
    out = [t for t in fleet.by_face if dummy[t.id]["status"] != SEA]
    if len(out) < 3 or not sailing:
        return None
    faces = {t.die_face: t.id for t in sailing}
    for i, t in enumerate(out):
        faces[t.die_face] = sailing[i % len(sailing)].id
    return {str(face): faces[face] for face in sorted(faces)}


def result(state: State) -> Result | None:
    """None while the game runs, else winners, scores and reason (§8)."""
    res = state["result"]
    if res is None:
        return None
    return {"winners": list(res["winners"]), "scores": dict(res["scores"]), "reason": res["reason"]}


def _final_result(state: State, reason: str) -> Result:
    """Scores of every side; winners per §8 (a resigned seat never wins, §5)."""
    fleets = state["fleets"]
    scores = {side: score(ships) for side, ships in fleets.items()}
    resigned = state["resigned"]
    if state["seats"] == 1:
        mine = (scores["0"], -sunk_count(fleets["0"]))
        theirs = (scores[DUMMY], -sunk_count(fleets[DUMMY]))
        winners = [0] if not resigned[0] and mine > theirs else []
    else:
        keys = {
            s: (scores[SIDES[s]], -sunk_count(fleets[SIDES[s]]))
            for s in range(state["seats"]) if not resigned[s]
        }
        best = max(keys.values(), default=None)
        winners = [s for s, k in keys.items() if k == best]
    return {"winners": winners, "scores": scores, "reason": reason}


# --------------------------------------------------------------------------- legal moves


def legal_moves(state: State, seat: int) -> Iterator[Move]:
    """Every legal move of `seat` now (§5); nothing for seats not in `to_act`; never resign."""
    if seat not in state["to_act"]:
        return
    phase = state["phase"]
    fleet = fleet_of(state)
    if phase == CHOOSE:
        ships = state["fleets"][SIDES[seat]]
        treasure = state["options"]["hidden_treasure"]
        for t in fleet.ships:
            ship = ships[t.id]
            if ship["status"] != SEA:
                continue
            yield {"type": "play", "ship": t.id}
            if treasure and t.cls == MERCHANT and ship["hold"] == 0:
                yield {"type": "play", "ship": t.id, "hide": True}
    elif phase == ORDER:
        a, b, c = round_seats(state)
        for perm in permutations(([a, b], [a, c], [b, c])):
            yield {"type": "order", "pairs": [list(p) for p in perm]}
    elif phase == RAID:
        yield {"type": "raid", "action": "shoot"}
        if _raid_pirate(state)["hold"] == 0:
            yield {"type": "raid", "action": "rob"}


def _raid_pirate(state: State) -> ShipState:
    """The pirate ship of the pending raid."""
    side = state["raid"]["pirate"]
    ship: ShipState = state["fleets"][side][state["choices"][side]["ship"]]
    return ship


# --------------------------------------------------------------------------- validation


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _well_formed(kind: str, move: Mapping[str, Any]) -> bool:
    """The JSON shape only (§5 `malformed_move`)."""
    required, optional = MOVE_FIELDS[kind]
    keys = move.keys() - {"type"}
    if not required <= keys or not keys <= required | optional:
        return False
    if kind == "play":
        return isinstance(move["ship"], str) and isinstance(move.get("hide", False), bool)
    if kind == "order":
        pairs = move["pairs"]
        return isinstance(pairs, list) and all(
            isinstance(p, list) and all(_is_int(x) for x in p) for p in pairs
        )
    if kind == "raid":
        return isinstance(move["action"], str)
    return True


def validate(state: State, seat: int, move: Any) -> str:
    """Check a move completely, in the spec's error order (§5); return its type."""
    if state["phase"] == GAME_OVER:
        raise _fail("game_over")
    if not isinstance(move, dict):
        raise _fail("malformed_move")
    kind = move.get("type")
    if not isinstance(kind, str) or kind not in MOVE_FIELDS:
        raise _fail("unknown_move")
    if not _well_formed(kind, move):
        raise _fail("malformed_move")
    is_seat = _is_int(seat) and 0 <= seat < state["seats"]
    if kind == "resign":
        if not is_seat or state["resigned"][seat]:
            raise _fail("not_your_turn")
        return kind
    phase = state["phase"]
    if (
        kind == "play" and phase == CHOOSE and is_seat
        and state["choices"][SIDES[seat]] is not None
    ):
        raise _fail("already_chosen")
    if not is_seat or seat not in state["to_act"]:
        raise _fail("not_your_turn")
    if PHASE_OF_MOVE[kind] != phase:
        raise _fail("wrong_phase")
    if kind == "play":
        _validate_play(state, seat, move)
    elif kind == "order":
        a, b, c = round_seats(state)
        given = sorted(sorted(p) for p in move["pairs"])
        if given != [[a, b], [a, c], [b, c]]:
            raise _fail("invalid_order")
    else:
        action = move["action"]
        if action not in RAID_ACTIONS:
            raise _fail("invalid_raid_action")
        if action == "rob" and _raid_pirate(state)["hold"] != 0:
            raise _fail("hold_full")
    return kind


def _validate_play(state: State, seat: int, move: Mapping[str, Any]) -> None:
    fleet = fleet_of(state)
    t = fleet.by_id.get(move["ship"])
    if t is None:
        raise _fail("unknown_ship")
    ship = state["fleets"][SIDES[seat]][t.id]
    if ship["status"] != SEA:
        raise _fail("ship_not_playable")
    if move.get("hide", False) and not (
        state["options"]["hidden_treasure"] and t.cls == MERCHANT and ship["hold"] == 0
    ):
        raise _fail("hide_not_allowed")


# --------------------------------------------------------------------------- apply


def apply(state: State, seat: int, move: Move, rng: Rng) -> tuple[State, list[Event]]:
    """Validate completely, then change `state` in place; return it with the events (§4, §5)."""
    kind = validate(state, seat, move)
    events: list[Event] = []
    fleet = fleet_of(state)
    if kind == "play":
        side = SIDES[seat]
        state["choices"][side] = {"ship": move["ship"], "hide": move.get("hide", False)}
        state["to_act"].remove(seat)
        events.append({"type": "chosen", "seat": seat})
        if not state["to_act"]:
            close_decision(state)
            _reveal(state, fleet, rng, events)
    elif kind == "order":
        close_decision(state)
        pairs = [sorted(p) for p in move["pairs"]]
        state["order"] = pairs
        state["encounters"] = [[SIDES[a], SIDES[b]] for a, b in pairs]
        events.append({"type": "order", "seat": seat, "pairs": [list(p) for p in pairs]})
        _resolve(state, fleet, events)
    elif kind == "raid":
        close_decision(state)
        action = move["action"]
        events.append({"type": "raid", "seat": seat, "action": action})
        a, b = state["encounters"].pop(0)
        state["raid"] = None
        _encounter(state, fleet, a, b, action, events)
        if state["phase"] != GAME_OVER:
            _resolve(state, fleet, events)
    else:
        _resign(state, seat, fleet, rng, events)
    return state, events


def _reveal(state: State, fleet: FleetData, rng: Rng, events: list[Event]) -> None:
    """The choice has closed: reveal, draw the dummy, then pair the ships (§4.1 steps 2-3).

    The `reveal` event lists the seats' ships only; in solo the dummy's ship follows in the
    `dummy_roll` events (the roll comes after the reveal, §4.1 step 2), and `state["reveal"]`
    holds both.
    """
    choices = state["choices"]
    ships = {side: c["ship"] for side, c in choices.items() if c is not None}
    events.append({"type": "reveal", "round": state["round"], "ships": dict(ships)})
    if state["seats"] == 1:
        ship = _draw_dummy(state, fleet, rng, events)
        choices[DUMMY] = {"ship": ship, "hide": False}
        ships[DUMMY] = ship
    state["reveal"] = ships
    sides = list(ships)
    if len(sides) == 3:
        state["phase"] = ORDER
        state["to_act"] = [state["starter"]]
        return
    state["encounters"] = [sides]
    _resolve(state, fleet, events)


def _draw_dummy(state: State, fleet: FleetData, rng: Rng, events: list[Event]) -> str:
    """The dummy's ship for this round: die, rerolls while E <= 2, or the face map (§4.5)."""
    dummy = state["fleets"][DUMMY]
    faces = dummy_faces(fleet, dummy)
    face = rng.roll("solo-dummy-ship", 6)
    if faces is not None:
        events.append({"type": "dummy_roll", "purpose": "solo-dummy-ship", "face": face,
                       "ship": faces[str(face)], "sails": True})
        return faces[str(face)]
    purpose = "solo-dummy-ship"
    while True:
        ship = fleet.by_face[face - 1].id
        sails = dummy[ship]["status"] == SEA
        events.append({"type": "dummy_roll", "purpose": purpose, "face": face, "ship": ship,
                       "sails": sails})
        if sails:
            return ship
        purpose = "solo-dummy-ship-reroll"
        face = rng.roll(purpose, 6)


def _raid_sides(
    state: State, fleet: FleetData, a: str, b: str
) -> tuple[str, str] | None:
    """(pirate side, merchant side) if this encounter needs a raid decision (§4.2 step 2)."""
    if not state["options"]["hidden_treasure"]:
        return None
    choices = state["choices"]
    ca, cb = fleet.by_id[choices[a]["ship"]].cls, fleet.by_id[choices[b]["ship"]].cls
    if ca == PIRATE and cb == MERCHANT and a != DUMMY:
        return a, b
    if cb == PIRATE and ca == MERCHANT and b != DUMMY:
        return b, a
    return None


def _resolve(state: State, fleet: FleetData, events: list[Event]) -> None:
    """Resolve the pending encounters in order until a raid decision or the round's end."""
    encounters = state["encounters"]
    fleets, choices = state["fleets"], state["choices"]
    while encounters:
        a, b = encounters[0]
        sa, sb = choices[a]["ship"], choices[b]["ship"]
        pair = [{"side": a, "ship": sa}, {"side": b, "ship": sb}]
        if fleets[a][sa]["status"] != SEA or fleets[b][sb]["status"] != SEA:
            encounters.pop(0)
            events.append({"type": "encounter_skipped", "ships": pair})
            continue
        events.append({"type": "encounter", "ships": pair})
        raid = _raid_sides(state, fleet, a, b)
        if raid is not None:
            state["raid"] = {"pirate": raid[0], "merchant": raid[1]}
            state["phase"] = RAID
            state["to_act"] = [int(raid[0])]
            return
        encounters.pop(0)
        _encounter(state, fleet, a, b, None, events)
        if state["phase"] == GAME_OVER:
            return
    _next_round(state, events)


def _encounter(
    state: State, fleet: FleetData, a: str, b: str, action: str | None, events: list[Event]
) -> None:
    """Apply both effects together, then departures and the end check (§4.2-§4.4)."""
    fleets, choices = state["fleets"], state["choices"]
    ta, tb = fleet.by_id[choices[a]["ship"]], fleet.by_id[choices[b]["ship"]]
    ea, eb = fleet.matrix[ta.id][tb.id], fleet.matrix[tb.id][ta.id]
    if action == "rob":
        # §4.4: the merchant is spared the hit; a barrel on deck moves to the pirate's hold.
        pirate, merchant = (a, b) if ta.cls == PIRATE else (b, a)
        pship = fleets[pirate][choices[pirate]["ship"]]
        mship = fleets[merchant][choices[merchant]["ship"]]
        taken = mship["deck"] > 0
        if taken:
            mship["deck"] -= 1
            pship["hold"] = 1
        events.append(_event_for(state, {
            "type": "robbery", "pirate": {"side": pirate, "ship": choices[pirate]["ship"]},
            "merchant": {"side": merchant, "ship": choices[merchant]["ship"]}, "taken": taken,
        }, pirate, merchant))
        if pirate == a:
            eb = "robbed" if taken else "spared"
        else:
            ea = "robbed" if taken else "spared"
    departed = []
    for side, t, effect in ((a, ta, ea), (b, tb, eb)):
        ship = fleets[side][t.id]
        events.append(_apply_effect(state, side, t, ship, effect))
    for side, t in ((a, ta), (b, tb)):
        ship = fleets[side][t.id]
        status = _departure(t, ship)
        if status is not None:
            ship["status"] = status
            if status == SUNK:
                ship["cannons"] = ship["deck"] = ship["hold"] = 0
            events.append(_event_for(state, {
                "type": "departure", "side": side, "ship": t.id, "status": status,
            }, side))
            departed.append(side)
    for side in departed:
        _after_departure(state, fleet, side, events)
    if departed:
        live = sum(at_sea(ships) for ships in fleets.values())
        if live <= 1:
            _finish(state, "one_fleet_left" if live else "all_fleets_exhausted", events)


def _event_for(state: State, event: Event, *sides: str) -> Event:
    """Mark an event private to the owners of `sides` in blind play (§7); see `view_event`."""
    if state["options"]["blind"]:
        event["audience"] = [int(s) for s in sides if s != DUMMY]
    return event


def _apply_effect(state: State, side: str, t: ShipType, ship: ShipState, effect: str) -> Event:
    """One ship's effect (§4.2 step 3); returns its `effect` event."""
    event: Event = {"type": "effect", "side": side, "ship": t.id, "effect": effect}
    if effect == "hit":
        ship["holes"] += 1
    elif effect == "cannon":
        ship["cannons"] += 1
    elif effect == "anchor":
        if side in state["anchored"]:
            event["effect"] = "none"
        else:
            ship["anchors"] += 1
            state["anchored"].append(side)
    elif effect in ("barrel", "barrel2"):
        hide = state["choices"][side]["hide"]
        hold = deck = discarded = 0
        for _ in range(2 if effect == "barrel2" else 1):
            if hide and ship["hold"] < t.hold and ship["deck"] < t.deck:
                ship["hold"] += 1
                hold += 1
            elif ship["deck"] < t.deck:
                ship["deck"] += 1
                deck += 1
            else:
                discarded += 1
        event.update(hold=hold, deck=deck, discarded=discarded)
    return _event_for(state, event, side)


def _departure(t: ShipType, ship: ShipState) -> str | None:
    """The status a ship departs to after an encounter, or None (§4.3)."""
    if ship["holes"] >= t.holes:
        return SUNK
    if t.cls == PIRATE:
        return PORT if ship["cannons"] >= t.cannons else None
    if t.cls == MERCHANT:
        return PORT if ship["deck"] >= t.deck else None
    return LEFT if ship["anchors"] >= t.anchors else None


def _after_departure(state: State, fleet: FleetData, side: str, events: list[Event]) -> None:
    """Announce an exhausted side; in solo rebuild the public face map (§4.1 step 4, §4.5)."""
    ships = state["fleets"][side]
    if not at_sea(ships):
        events.append({"type": "fleet_exhausted", "side": side})
    elif side == DUMMY:
        faces = dummy_faces(fleet, ships)
        if faces is not None:
            events.append({"type": "dummy_faces", "faces": faces})


def _next_round(state: State, events: list[Event]) -> None:
    """Rotate the starter past inactive seats and open the next choice (§4.1 step 5)."""
    n = state["seats"]
    fleets = state["fleets"]
    active = [s for s in range(n) if at_sea(fleets[SIDES[s]])]
    starter = state["starter"]
    state["starter"] = next(
        (starter + i) % n for i in range(1, n + 1) if (starter + i) % n in active
    )
    state["round"] += 1
    state["phase"] = CHOOSE
    state["to_act"] = active
    state["choices"] = dict.fromkeys(fleets)
    state["order"] = None
    state["anchored"] = []
    events.append({"type": "round_started", "round": state["round"],
                   "starter": state["starter"], "to_act": list(active)})


def _finish(state: State, reason: str, events: list[Event]) -> None:
    """End the game at once (§8): no one acts, nothing is pending."""
    state["phase"] = GAME_OVER
    state["to_act"] = []
    state["encounters"] = []
    state["raid"] = None
    state["result"] = _final_result(state, reason)
    events.append({"type": "game_over", "result": result(state)})


def _resign(state: State, seat: int, fleet: FleetData, rng: Rng, events: list[Event]) -> None:
    """Sink the seat's ships at sea and let every decision waiting on it lapse (§5 Resign)."""
    side = SIDES[seat]
    state["resigned"][seat] = True
    for ship in state["fleets"][side].values():
        if ship["status"] == SEA:
            ship["status"] = SUNK
            ship["cannons"] = ship["deck"] = ship["hold"] = 0
    events.append({"type": "resigned", "seat": seat})
    if sum(at_sea(ships) for ships in state["fleets"].values()) <= 1:
        _finish(state, "resigned", events)
        return
    phase = state["phase"]
    if phase == CHOOSE:
        state["choices"][side] = None  # discarded unseen
        if seat in state["to_act"]:
            state["to_act"].remove(seat)
            if not state["to_act"]:
                close_decision(state)
                _reveal(state, fleet, rng, events)
    elif phase == ORDER:
        # Any resigning seat in the order phase is one of its three: one pair is left.
        close_decision(state)
        rest = [SIDES[s] for s in round_seats(state) if s != seat]
        state["encounters"] = [rest]
        _resolve(state, fleet, events)
    elif phase == RAID and side in (state["raid"]["pirate"], state["raid"]["merchant"]):
        close_decision(state)
        a, b = state["encounters"].pop(0)
        state["raid"] = None
        choices = state["choices"]
        events.append({"type": "encounter_skipped", "ships": [
            {"side": a, "ship": choices[a]["ship"]}, {"side": b, "ship": choices[b]["ship"]},
        ]})
        _resolve(state, fleet, events)
