"""Störtebeker's moves: who decides, what is legal, checking and applying (spec §4.3, §5).

`check` runs every test `apply` runs, in the spec's order, and changes nothing; `apply` checks
the same way, then mutates. Each move closes one decision (the step advances once per move).
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Callable, Iterator
from itertools import product
from typing import Any

from engines.contract import Decision, Event, Move, Result, Rng, State, close_decision
from engines.stortebeker import play as steps
from engines.stortebeker import turn
from engines.stortebeker.data import CardData
from engines.stortebeker.state import data_of, missing
from engines.stortebeker.texts import fail

#: move type -> (decision kind it answers, required fields with their JSON types)
FIELDS: dict[str, tuple[str | None, dict[str, type | tuple[type, ...]]]] = {
    "place": ("play_cards", {"card": str, "ship": str}),
    "exchange_discard": ("play_cards", {"cards": list}),
    "exchange_take": ("play_cards", {"card": str}),
    "fire_cannon": ("play_cards", {"card": str, "ship": str}),
    "end_play": ("play_cards", {}),
    "finish_play": ("play_cards", {}),
    "play_cards": ("play_cards", {}),
    "cannon_take": ("cannon_take", {"card": str}),
    "board": ("board", {"ship": str}),
    "end_boarding": ("board", {}),
    "counter_attack": ("counter_attack", {"complete": list}),
    "decline_counter": ("counter_attack", {}),
    "resign": (None, {}),
}
STEP_TYPES = ("place", "exchange_discard", "exchange_take", "fire_cannon", "end_play")


def decision(state: State) -> Decision:
    dec = state["dec"]
    return {"step": state["step"], "step_kind": dec["kind"],
            "to_act": [] if dec["seat"] is None else [dec["seat"]],
            "legal_moves_complete": True}


def legal_moves(state: State, seat: int) -> Iterator[Move]:
    """The moves of the seat to act (§4.3); shorthands and `resign` are never listed, and
    cards the rules cannot tell apart may be listed once (a counter-attack's completions)."""
    dec = state["dec"]
    if state["result"] is not None or dec["seat"] != seat:
        return
    data = data_of(state)
    kind = dec["kind"]
    if kind == "play_cards":
        yield from steps.legal_steps(data, state, seat)
    elif kind == "cannon_take":
        for card in dec["candidates"]:
            yield {"type": "cannon_take", "card": card}
    elif kind == "board":
        for ship in dec["eligible"]:
            yield {"type": "board", "ship": ship}
        yield {"type": "end_boarding"}
    elif kind == "counter_attack":
        for complete in _completions(data, state, seat):
            yield {"type": "counter_attack", "complete": complete}
        yield {"type": "decline_counter"}


def _completions(data: CardData, state: State, seat: int) -> list[list[str]]:
    """Every way the hand completes the seat's load at the attacked ship, once per choice the
    rules can tell apart: per missing kind, how many of its cards carry the pirate symbol (one
    adds 1 to this attack but leaves the hand). Equal cards are named by their lowest ids."""
    hand = sorted(state["hands"][str(seat)])
    per_kind = [_kind_choices(data, hand, kind, count)
                for kind, count in state["dec"]["missing"].items()]
    return [sorted(c for part in choice for c in part) for choice in product(*per_kind)]


def _kind_choices(data: CardData, hand: list[str], kind: str, count: int) -> list[list[str]]:
    """The `count` cards of `kind` the hand can add, fewest symbol cards first."""
    plain = [c for c in hand if data.cards[c].kind == kind and not data.cards[c].symbol]
    marked = [c for c in hand if data.cards[c].kind == kind and data.cards[c].symbol]
    return [plain[:count - n] + marked[:n] for n in range(count + 1)
            if n <= len(marked) and count - n <= len(plain)]


# ---- checking ----------------------------------------------------------------------------


def _shape(state: State, seat: Any, move: Any) -> str:
    """The platform's checks and the move's JSON shape (§5: malformed, over, turn, decision)."""
    kind = move.get("type") if isinstance(move, dict) else None
    if kind not in FIELDS:
        raise fail("malformed_move", f"Unknown move type {kind!r}.")
    answers, fields = FIELDS[kind]
    for name, typ in fields.items():
        if not isinstance(move.get(name), typ):
            raise fail("malformed_move", f"`{name}` is missing or of the wrong type.")
    if kind == "play_cards" and not _combined_shape(move):
        raise fail("malformed_move", "`place` is a list of {card, ship}; `exchange` is "
                                     "{discard, take}; `cannon` is {card, ship} or null.")
    if state["result"] is not None:
        raise fail("game_over")
    if not isinstance(seat, int) or not 0 <= seat < state["n"]:
        raise fail("not_your_turn", f"No seat {seat!r}.")
    if kind == "resign":
        if state["resigned"][seat]:
            raise fail("not_your_turn", "You have resigned already.")
        return kind
    dec = state["dec"]
    if dec["seat"] != seat:
        raise fail("not_your_turn")
    if answers != dec["kind"]:
        raise fail("wrong_decision", f"The decision now is {dec['kind']}.")
    return kind


def _combined_shape(move: Move) -> bool:
    def card_ship(x: Any) -> bool:
        return isinstance(x, dict) and set(x) == {"card", "ship"} and all(
            isinstance(v, str) for v in x.values())

    places, exchange, cannon = move.get("place"), move.get("exchange"), move.get("cannon")
    return ((places is None or (isinstance(places, list) and all(map(card_ship, places))))
            and (exchange is None or (isinstance(exchange, dict)
                                      and isinstance(exchange.get("discard"), list)
                                      and isinstance(exchange.get("take", []), list)))
            and (cannon is None or card_ship(cannon)))


def check(state: State, seat: int, move: Any) -> None:
    """Raise `IllegalMove` exactly when `apply` would; change nothing."""
    kind = _shape(state, seat, move)
    if kind in ("play_cards", "finish_play"):
        _run_sequence(state, seat, kind, move, None, dry=True)
    elif kind != "resign":
        CHECKS[kind](data_of(state), state, seat, move)


def _check_step(data: CardData, state: State, seat: int, move: Move,
                look_ahead: bool = True) -> None:
    kind = move["type"]
    if kind == "place":
        steps.check_place(data, state, seat, move["card"], move["ship"], look_ahead)
    elif kind == "exchange_discard":
        steps.check_discard(state, seat, move["cards"], look_ahead)
    elif kind == "exchange_take":
        steps.check_take(state, move["card"])
    elif kind == "fire_cannon":
        steps.check_fire(state, seat, move["card"], move["ship"], look_ahead)
    else:
        code = steps.end_allowed(data, state, seat)
        if code:
            raise fail(code)


def _check_loot(data: CardData, state: State, seat: int, move: Move) -> None:
    if move["card"] not in state["dec"]["candidates"]:
        raise fail("invalid_loot_choice", repr(move["card"]))


def _check_board(data: CardData, state: State, seat: int, move: Move) -> None:
    if move["ship"] not in state["slots"]:
        raise fail("unknown_ship", repr(move["ship"]))
    if move["ship"] not in state["dec"]["eligible"]:
        raise fail("ship_not_eligible", move["ship"])


def _check_counter(data: CardData, state: State, seat: int, move: Move) -> None:
    cards = move["complete"]
    hand = state["hands"][str(seat)]
    for c in cards:
        if c not in hand:
            raise fail("card_not_in_hand", repr(c))
    if len(set(cards)) != len(cards):
        raise fail("duplicate_card")
    if any(data.cards[c].is_pirate for c in cards):
        raise fail("no_new_pirates")
    if len(cards) > 3:
        raise fail("completion_too_many")
    want = missing(data, state, state["dec"]["ship"], seat)
    if Counter(data.cards[c].kind for c in cards) != Counter(want):
        raise fail("completion_mismatch", f"You miss {want}.")


def _nothing(data: CardData, state: State, seat: int, move: Move) -> None:
    return None


CHECKS: dict[str, Callable[[CardData, State, int, Move], None]] = {
    **{t: _check_step for t in STEP_TYPES}, "cannon_take": _check_loot, "board": _check_board,
    "end_boarding": _nothing, "counter_attack": _check_counter, "decline_counter": _nothing,
}


# ---- applying ----------------------------------------------------------------------------


def apply(state: State, seat: int, move: Any, rng: Rng) -> tuple[State, list[Event]]:
    kind = _shape(state, seat, move)
    data = data_of(state)
    events: list[Event] = []
    if kind in ("play_cards", "finish_play"):
        _run_sequence(state, seat, kind, move, rng, dry=False)
        close_decision(state)
        _after_step(data, state, rng, events, state.pop("_events"))
        return state, events
    if kind != "resign":
        CHECKS[kind](data, state, seat, move)
    close_decision(state)
    if kind in STEP_TYPES:
        _after_step(data, state, rng, events, [_do_step(data, state, seat, move)])
    elif kind == "cannon_take":
        owner = next(o for o, c in turn.candidates(data, state, state["shots"][0])
                     if c == move["card"])
        turn.loot(data, state, owner, move["card"], events)
        turn.advance(data, state, rng, events)
    elif kind == "board":
        turn.board(data, state, move["ship"], rng, events)
        turn.advance(data, state, rng, events)
    elif kind == "end_boarding":
        state["boarding_over"] = True
        events.append({"type": "boarding_ended", "seat": seat})
        turn.advance(data, state, rng, events)
    elif kind == "counter_attack":
        turn.counter_attack(data, state, seat, sorted(move["complete"]), rng, events)
        turn.advance(data, state, rng, events)
    elif kind == "decline_counter":
        state["counter"]["queue"].pop(0)
        events.append({"type": "counter_declined", "seat": seat})
        turn.advance(data, state, rng, events)
    else:
        turn.resign(data, state, seat, rng, events)
    return state, events


def _do_step(data: CardData, state: State, seat: int, move: Move) -> Event:
    kind = move["type"]
    if kind == "place":
        return steps.do_place(data, state, seat, move["card"], move["ship"])
    if kind == "exchange_discard":
        return steps.do_discard(state, seat, list(move["cards"]))
    if kind == "exchange_take":
        return steps.do_take(state, seat, move["card"])
    if kind == "fire_cannon":
        return steps.do_fire(state, seat, move["card"], move["ship"])
    return {"type": "play_ended", "seat": seat}


def _after_step(data: CardData, state: State, rng: Rng, events: list[Event],
                done: list[Event]) -> None:
    """After a step: the play goes on, or it ended (end_play or the cannon) and the turn runs."""
    events += done
    play = state["play"]
    ended = done and done[-1]["type"] in ("play_ended", "cannon_fired")
    if not ended:
        return
    if play["cannon"] is not None:
        turn.fire(data, state, rng, events)
    state["play"] = None
    turn.advance(data, state, rng, events)


def _run_sequence(state: State, seat: int, kind: str, move: Move, rng: Rng | None,
                  dry: bool) -> None:
    """A shorthand (`play_cards`, `finish_play`) as its steps, checked on a scratch copy of
    the few parts they touch, so a refusal changes nothing; applied for real when `dry` is
    False (the steps' events are left in `state["_events"]`)."""
    data = data_of(state)
    play = state["play"]
    if kind == "play_cards":
        if play["u"] or play["exchanged"] or play["taken"]:
            raise fail("wrong_decision", "A combined play_cards comes before any step.")
        sequence = steps.combined_steps(data, move)
        _check_combined(data, state, seat, move)
    else:
        sequence = steps.finish_steps(data, state, seat)
    scratch = _scratch(state, seat)
    done: list[Event] = []
    for step in sequence:
        _check_step(data, scratch, seat, step, look_ahead=kind == "finish_play")
        done.append(_do_step(data, scratch, seat, step))
        if step["type"] == "fire_cannon":
            break
    if kind == "play_cards":
        _check_total(data, scratch, seat)
    if not dry:
        for part in ("hands", "areas", "sides", "discard", "play"):
            state[part] = scratch[part]
        state["_events"] = done


def _scratch(state: State, seat: int) -> State:
    """A copy of what a card play may change, sharing everything else with `state`."""
    out = dict(state)
    out["hands"] = {**state["hands"], str(seat): list(state["hands"][str(seat)])}
    out["areas"] = {**state["areas"], str(seat): list(state["areas"][str(seat)])}
    out["sides"] = copy.deepcopy(state["sides"])
    out["discard"] = list(state["discard"])
    out["play"] = copy.deepcopy(state["play"])
    return out


def _check_combined(data: CardData, state: State, seat: int, move: Move) -> None:
    """§5's first checks over the whole move: every card in hand and named once, ships."""
    places = move.get("place") or []
    exchange = move.get("exchange") or {}
    cannon = move.get("cannon")
    named = [p["card"] for p in places] + list(exchange.get("discard", [])) + (
        [cannon["card"]] if cannon else [])
    hand = state["hands"][str(seat)]
    for c in named:
        if c not in hand:
            raise fail("card_not_in_hand", repr(c))
    if len(set(named)) != len(named):
        raise fail("duplicate_card")
    for ship in [p["ship"] for p in places] + ([cannon["ship"]] if cannon else []):
        if ship not in state["slots"]:
            raise fail("unknown_ship", repr(ship))
    if len(exchange.get("take") or []) > 2:
        raise fail("exchange_take_count")


def _check_total(data: CardData, scratch: State, seat: int) -> None:
    play = scratch["play"]
    if play["u"] == play["k"]:
        return
    if play["u"] == 0:
        if steps.end_allowed(data, scratch, seat) is None:
            return
        raise fail("must_play_cards")
    raise fail("wrong_card_count")


# ---- timeouts, secrecy, result -----------------------------------------------------------


def default_move(state: State, seat: int) -> Move | None:
    """The timeout move of each decision kind (docs/rules/stortebeker.md "Timeouts")."""
    dec = state["dec"]
    if state["result"] is not None or dec["seat"] != seat:
        return None
    kind = dec["kind"]
    if kind == "play_cards":
        return {"type": "finish_play"}
    if kind == "cannon_take":
        return {"type": "cannon_take", "card": dec["candidates"][0]}
    if kind == "board":
        return {"type": "end_boarding"}
    return {"type": "decline_counter"}


def is_secret(move: Move) -> bool:
    """A pirate goes face down (§7): its placement, a combined play holding one, and the
    timeout's `finish_play` (which may place one) are secret moves."""
    if not isinstance(move, dict):
        return False
    kind = move.get("type")
    if kind == "place":
        return str(move.get("card", "")).startswith("pirate")
    if kind == "play_cards":
        places = move.get("place") or []
        return any(str(p.get("card", "")).startswith("pirate") for p in places
                   if isinstance(p, dict))
    return kind == "finish_play"


def result(state: State) -> Result | None:
    found: Result | None = state["result"]
    return found
