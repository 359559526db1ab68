"""Phases 2-6 and the end: cannon fire, boarding, counter-attacks, capture, sail-in, draw (§4.1,
§8), and resigning (§5). Every roll and shuffle is a named audited draw (§6).

The turn runs forward by itself until a seat must decide; `advance` is the one place that
decides which decision opens next, so each move's handler only does its own part.
"""

from __future__ import annotations

from typing import Any

from engines.contract import Event, Rng, State
from engines.stortebeker.data import CardData
from engines.stortebeker.play import start_play
from engines.stortebeker.state import (
    HAND,
    STALL_TURNS_PER_SEAT,
    at_sea,
    attack_bonus,
    game_round,
    is_complete,
    kind_count,
    live_seats,
    missing,
    peek_side,
    score,
    side,
    track,
    trim_pirates,
    visible_harbour,
)

# ---- phase 2: cannon fire ----------------------------------------------------------------


def fire(data: CardData, state: State, rng: Rng, events: list[Event]) -> None:
    """Roll both colour dice; the shots resolve in order (`resolve_shots`)."""
    ship = state["play"]["cannon"]
    dice = [rng.roll("cannon-colour"), rng.roll("cannon-colour")]
    state["shots"] = [{"ship": ship, "die": i + 1, "kind": data.face[d]}
                      for i, d in enumerate(dice)]
    events.append({"type": "cannon_dice", "ship": ship, "dice": dice,
                   "kinds": [data.face[d] for d in dice]})


def candidates(data: CardData, state: State, shot: dict[str, Any]) -> list[tuple[int, str]]:
    """(owner, card) of the opponents' provisions of the shot's kind at its ship, by id."""
    found = []
    for owner, own in state["sides"].get(shot["ship"], {}).items():
        if int(owner) != state["active"]:
            found += [(int(owner), c) for c in own["prov"] if data.cards[c].kind == shot["kind"]]
    return sorted(found, key=lambda oc: oc[1])


def resolve_shots(data: CardData, state: State, events: list[Event]) -> bool:
    """Resolve shots until one needs the active seat's choice; True when all are done."""
    while state["shots"]:
        shot = state["shots"][0]
        found = candidates(data, state, shot)
        if not found:
            state["shots"].pop(0)
            events.append({"type": "cannon_missed", "die": shot["die"], "kind": shot["kind"]})
            continue
        kinds = {(owner, data.cards[c].symbol) for owner, c in found}
        if len(kinds) > 1:
            state["dec"] = {"kind": "cannon_take", "seat": state["active"], "ship": shot["ship"],
                            "die": shot["die"], "loot_kind": shot["kind"],
                            "candidates": [c for _, c in found]}
            return False
        loot(data, state, found[0][0], found[0][1], events)
    return True


def loot(data: CardData, state: State, owner: int, card: str, events: list[Event]) -> None:
    """The shot takes `card` from `owner`: to the shooter's side if it has room, else to the
    discard pile; then the victim's pirates are trimmed."""
    shot = state["shots"].pop(0)
    ship, active = shot["ship"], state["active"]
    side(state, ship, owner)["prov"].remove(card)
    kind = data.cards[card].kind
    own = peek_side(state, ship, active)
    room = kind_count(data, own["prov"] if own else [], kind) < data.ships[ship].requires[kind]
    if room:
        side(state, ship, active)["prov"].append(card)
    else:
        state["discard"].append(card)
    events.append({"type": "cannon_hit", "die": shot["die"], "ship": ship, "from": owner,
                   "card": card, "to": "side" if room else "discard"})
    trimmed = trim_pirates(data, state, ship, owner)
    if trimmed:
        events.append({"type": "pirates_trimmed", "seat": owner, "ship": ship,
                       "cards": trimmed})


# ---- phase 3: boarding; phase 4: counter-attacks -----------------------------------------


def eligible(data: CardData, state: State) -> list[str]:
    a = state["active"]
    return [s for s in at_sea(state)
            if s not in state["attempted"] and is_complete(data, state, s, a)]


def board(data: CardData, state: State, ship: str, rng: Rng, events: list[Event]) -> None:
    """Reveal, roll, compare with the defence; a failure costs provisions by colour dice."""
    a = state["active"]
    state["attempted"].append(ship)
    own = side(state, ship, a)
    own["rev"] = list(own["pir"])
    dice = [rng.roll("boarding-dice"), rng.roll("boarding-dice")]
    value = sum(dice) + attack_bonus(data, own)
    defence = data.ships[ship].defence
    events.append({"type": "boarded", "seat": a, "ship": ship, "dice": dice, "value": value,
                   "defence": defence, "pirates": sorted(data.cards[c].value
                                                         for c in own["pir"]),
                   "success": value >= defence})
    if value >= defence:
        state["counter"] = {"ship": ship, "best": {"seat": a, "value": value},
                            "queue": [s for s in _after(state, a)
                                      if (o := peek_side(state, ship, s)) and o["prov"]]}
        return
    penalty = [rng.roll("penalty-colour"), rng.roll("penalty-colour")]
    lost = []
    for face in penalty:
        kind = data.face[face]
        mine = [c for c in own["prov"] if data.cards[c].kind == kind]
        if mine:
            card = min(mine, key=lambda c: (data.cards[c].symbol, c))
            own["prov"].remove(card)
            state["discard"].append(card)
            lost.append(card)
    events.append({"type": "boarding_penalty", "seat": a, "ship": ship, "dice": penalty,
                   "kinds": [data.face[f] for f in penalty], "cards": lost})
    trimmed = trim_pirates(data, state, ship, a)
    if trimmed:
        events.append({"type": "pirates_trimmed", "seat": a, "ship": ship, "cards": trimmed})
    if state["options"]["failed-boarding-ends"]:
        state["boarding_over"] = True


def _after(state: State, a: int) -> list[int]:
    n = state["n"]
    return [(a + i) % n for i in range(1, n)]


def counter_attack(data: CardData, state: State, seat: int, cards: list[str], rng: Rng,
                   events: list[Event]) -> None:
    counter = state["counter"]
    ship = counter["ship"]
    hand = state["hands"][str(seat)]
    own = side(state, ship, seat)
    for c in cards:
        hand.remove(c)
        own["prov"].append(c)
    own["rev"] = list(own["pir"])
    dice = [rng.roll("counter-attack-dice"), rng.roll("counter-attack-dice")]
    value = sum(dice) + attack_bonus(data, own)
    better = value > counter["best"]["value"]
    if better:
        counter["best"] = {"seat": seat, "value": value}
    counter["queue"].pop(0)
    events.append({"type": "counter_attacked", "seat": seat, "ship": ship, "added": cards,
                   "pirates": sorted(data.cards[c].value for c in own["pir"]), "dice": dice,
                   "value": value, "leads": better})


def capture(data: CardData, state: State, events: list[Event]) -> None:
    """Phase 5: the best seat takes the ship; every card on it goes to the pile by id."""
    counter = state.pop("counter")
    ship, winner = counter["ship"], counter["best"]["seat"]
    cards = sorted(c for own in state["sides"].pop(ship, {}).values()
                   for c in own["prov"] + own["pir"])
    state["discard"].extend(cards)
    state["slots"][state["slots"].index(ship)] = None
    state["captured"][str(winner)].append(ship)
    state["captures_this_turn"] += 1
    if state["armed"]:
        state["final_capture"] = True
    events.append({"type": "captured", "seat": winner, "ship": ship,
                   "points": data.ships[ship].points, "cards": cards,
                   "score": score(data, state, winner)[0]})
    if state["options"]["counter-ends-boarding"] and winner != state["active"]:
        state["boarding_over"] = True


# ---- the flow --------------------------------------------------------------------------


def advance(data: CardData, state: State, rng: Rng, events: list[Event]) -> None:
    """Run the turn on until a seat must decide or the game ends."""
    while state["result"] is None:
        if state["play"] is not None:
            return  # the card play is open (its decision was set when it started)
        if state["shots"] and not resolve_shots(data, state, events):
            return
        counter = state.get("counter")
        if counter is not None:
            queue = counter["queue"]
            while queue and state["resigned"][queue[0]]:
                queue.pop(0)
            if queue:
                s = queue[0]
                state["dec"] = {"kind": "counter_attack", "seat": s, "ship": counter["ship"],
                                "best": dict(counter["best"]),
                                "missing": missing(data, state, counter["ship"], s)}
                return
            capture(data, state, events)
            continue
        a = state["active"]
        if (not state["boarding_over"] and not state["resigned"][a]
                and game_round(state) >= 2 and eligible(data, state)):
            state["dec"] = {"kind": "board", "seat": a, "eligible": eligible(data, state)}
            return
        _end_turn(data, state, rng, events)
        if state["result"] is None and start_play(state):
            return


def _end_turn(data: CardData, state: State, rng: Rng, events: list[Event]) -> None:
    """Sail-in, draw, the end check, then the next seat (a resigned seat's turn passes)."""
    while True:
        a = state["active"]
        _sail_in(state, events)
        if not state["resigned"][a]:
            _draw(state, a, rng, events)
        _count_stall(state)
        if a == state["n"] - 1 and (state["final_capture"] or state["stall_end"]):
            finish(data, state, "final_round_complete" if state["final_capture"]
                   else "stall_limit", events)
            return
        state["turn"] += 1
        state["active"] = (a + 1) % state["n"]
        state.update(attempted=[], boarding_over=False, captures_this_turn=0, shots=[])
        events.append({"type": "turn_started", "seat": state["active"], "turn": state["turn"]})
        if not state["resigned"][state["active"]]:
            return


def _count_stall(state: State) -> None:
    """The house rule `stall-limit`: at 12 turns per seat in a row without a capture the game
    ends with the round, unless a capture comes first (it resets the count). A game begun
    before the option existed has no key for it and keeps the limit it was played with."""
    state["quiet"] = 0 if state["captures_this_turn"] else state["quiet"] + 1
    state["stall_end"] = bool(state["options"].get("stall-limit", True)) and (
        state["quiet"] >= STALL_TURNS_PER_SEAT * state["n"])


def _sail_in(state: State, events: list[Event]) -> None:
    harbour = state["harbour"]
    if not harbour:
        return
    for slot, ship in enumerate(state["slots"]):
        if ship is None and harbour:
            state["slots"][slot] = harbour.pop(0)
            events.append({"type": "sailed_in", "slot": slot, "ship": state["slots"][slot],
                           "harbour": visible_harbour(state)})
            if not harbour:
                state["armed"] = True
                events.append({"type": "last_ship_sailed"})


def _draw(state: State, seat: int, rng: Rng, events: list[Event]) -> None:
    hand = state["hands"][str(seat)]
    hand += state["areas"][str(seat)]
    state["areas"][str(seat)] = []
    drawn: list[str] = []
    while len(hand) + len(drawn) < HAND:
        if not state["deck"]:
            if not state["discard"]:
                break
            order = rng.shuffle("reshuffle", list(range(len(state["discard"]))), secret=True)
            state["deck"] = [state["discard"][i] for i in order]
            state["discard"] = []
            events.append({"type": "reshuffled", "cards": len(state["deck"])})
        drawn.append(state["deck"].pop(0))
    hand += drawn
    if drawn:
        events.append({"type": "drew", "seat": seat, "cards": drawn})


def finish(data: CardData, state: State, reason: str, events: list[Event]) -> None:
    """§8: most points, then most ships; resigned seats never win."""
    totals = {s: score(data, state, s) for s in range(state["n"])}
    live = live_seats(state)
    if reason == "resigned":
        winners = live
    else:
        best = max((sum(totals[s]), len(state["captured"][str(s)])) for s in live)
        winners = [s for s in live
                   if (sum(totals[s]), len(state["captured"][str(s)])) == best]
    state["result"] = {"winners": winners, "reason": reason,
                       "scores": {str(s): sum(t) for s, t in totals.items()}}
    state["dec"] = {"kind": "game_over", "seat": None}
    state["play"] = None
    state["shots"] = []
    events.append({"type": "game_ended", "reason": reason, "winners": winners, "seats": [
        {"seat": s, "points": totals[s][0], "bonus": totals[s][1],
         "ships": len(state["captured"][str(s)]), "track": track(sum(totals[s]))}
        for s in range(state["n"])]})


def resign(data: CardData, state: State, seat: int, rng: Rng, events: list[Event]) -> None:
    """§5: the seat is out; its hand and exchange area leave play, its cards at ships stay."""
    state["resigned"][seat] = True
    state.setdefault("out", []).extend(state["hands"][str(seat)] + state["areas"][str(seat)])
    state["hands"][str(seat)], state["areas"][str(seat)] = [], []
    events.append({"type": "resigned", "seat": seat})
    live = live_seats(state)
    if len(live) == 1:
        finish(data, state, "resigned", events)
        return
    counter = state.get("counter")
    if counter is None and seat == state["active"]:
        # the rest of the turn is skipped up to sail-in (a success already rolled keeps its
        # counter-attacks and capture: the counter branch above)
        state["play"] = None
        state["shots"] = []
        state["boarding_over"] = True
    advance(data, state, rng, events)
