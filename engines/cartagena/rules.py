"""Cartagena's moves: decisions, legal moves, checking and applying (spec §4, §5, §8).

`check` runs `_validate` (every test of `apply`, in §5.7's order) and changes nothing; `apply`
validates the same way and then mutates. A turn is one decision that the active seat answers
with 1-3 actions, so every action closes a decision and the step advances; the Rascals discard
is one decision the asked seats answer in parallel, one or several cards per move, and the step
advances only when the last of them is done (contract v2 point 1).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from engines.cartagena import board as B
from engines.cartagena import witch
from engines.cartagena.data import TileData, symbol_of
from engines.cartagena.texts import fail
from engines.contract import (
    Decision,
    Event,
    IllegalMove,
    Move,
    Result,
    Rng,
    State,
    close_decision,
)

LOCATIONS = ("prison", "wreck", "ship", "cove")
#: move type -> (phase it answers, required fields)
FIELDS: dict[str, tuple[str | None, tuple[str, ...]]] = {
    "play": ("action", ("card", "from")), "back": ("action", ("from",)),
    "morgan": ("action", ("seat", "from")), "sail": ("action", ()),
    "pass": ("action", ()), "end_turn": ("action", ()),
    "discard": ("discard", ("cards",)), "discard_random": ("discard", ()),
    "spell": ("action", ("cards",)), "pistol_take": ("pistol_take", ("card",)),
    "rum_deal": ("rum_deal", ("keep", "give")), "lantern_keep": ("lantern_keep",
                                                                 ("keep", "return")),
    "resign": (None, ()),
}


def decision(state: State) -> Decision:
    return {"step": state["step"], "step_kind": state["phase"],
            "to_act": list(state["to_act"]),
            "legal_moves_complete": state["phase"] != "rum_deal"}


# ---- checking ----------------------------------------------------------------------------


def _location(state: State, value: Any) -> int | str:
    if isinstance(value, bool):
        raise fail("malformed_move", "A location is a square number or a place name.")
    if isinstance(value, int) and 1 <= value < len(state["squares"]):
        return value
    if value in LOCATIONS:
        return str(value)
    raise fail("malformed_move", f"No location {value!r}.")


def _validate(state: State, seat: Any, move: Any) -> tuple[str, Any]:
    """Every check of §5.7 in order; returns (move type, what `apply` needs)."""
    if state["result"] is not None:
        raise fail("game_over")
    if not isinstance(seat, int) or not 0 <= seat < state["n"] or state["resigned"][seat]:
        raise fail("not_your_turn")
    kind = move.get("type") if isinstance(move, dict) else None
    if kind not in FIELDS:
        raise fail("unknown_move_type", repr(kind))
    if kind == "resign":
        return kind, None
    if seat not in state["to_act"]:
        raise fail("not_your_turn")
    answers, fields = FIELDS[kind]
    if any(f not in move for f in fields):
        raise fail("malformed_move", f"{kind} needs {', '.join(fields)}.")
    if answers != state["phase"]:
        raise fail("decision_pending", f"The decision now is {state['phase']}.")
    return kind, CHECKS[kind](state, seat, move)


def _own_at(state: State, seat: int, loc: int | str) -> None:
    if not state["pirates"][str(seat)].get(B.loc_key(loc)):
        raise fail("no_pirate_there", f"{loc!r}.")


def _check_play(state: State, seat: int, move: Move) -> Any:
    card = move["card"]
    if not isinstance(card, str):
        raise fail("malformed_move", "`card` is a card id.")
    loc = _location(state, move["from"])
    if card not in state["hands"][str(seat)]:
        raise fail("card_not_in_hand", card)
    _own_at(state, seat, loc)
    return loc, B.forward(state, seat, loc, symbol_of(card))


def _mode_allows(state: State, loc: int | str, mode: str) -> bool:
    return state["options"]["draw_mode"][B.part_of(state, loc)] in (mode, "both")


def _check_back(state: State, seat: int, move: Move) -> Any:
    loc = _location(state, move["from"])
    _own_at(state, seat, loc)
    if not _mode_allows(state, loc, "back"):
        raise fail("back_not_allowed")
    return loc, B.back(state, loc)


def _check_morgan(state: State, seat: int, move: Move) -> Any:
    target = move["seat"]
    if not isinstance(target, int) or isinstance(target, bool):
        raise fail("malformed_move", "`seat` is a seat number.")
    loc = _location(state, move["from"])
    if not 0 <= target < state["n"] or state["resigned"][target]:
        raise fail("invalid_seat", repr(target))
    _own_at(state, target, loc)
    if not _mode_allows(state, loc, "morgan"):
        raise fail("morgan_not_allowed")
    if target == seat:
        raise fail("morgan_own_pirate")
    return loc, B.morgan_dest(state, target, loc)


def _check_sail(state: State, seat: int, move: Move) -> Any:
    if state["route"] != "complete":
        raise fail("variant_not_enabled", "Sailing is part of the complete escape.")
    own = state["pirates"][str(seat)]
    if state["shore"] == "cartagena":
        if not own.get("ship"):
            raise fail("sail_needs_pirate_aboard")
    elif not own.get("prison") and not any(
            k.isdigit() and int(k) <= state["tunnel"] for k in own):
        raise fail("sail_needs_pirate_in_tunnel")
    return None


def _check_pass(state: State, seat: int, move: Move) -> Any:
    if state["actions"]:
        raise fail("pass_after_action")
    if state["hands"][str(seat)]:
        raise fail("pass_hand_not_empty")
    return None


def _check_end(state: State, seat: int, move: Move) -> Any:
    if not state["actions"]:
        raise fail("end_turn_too_early")
    return None


def _check_discard(state: State, seat: int, move: Move) -> Any:
    cards = move["cards"]
    if not isinstance(cards, list) or not all(isinstance(c, str) for c in cards):
        raise fail("malformed_move", "`cards` is a list of card ids.")
    hand = state["hands"][str(seat)]
    for c in cards:
        if c not in hand:
            raise fail("card_not_in_hand", c)
    if len(set(cards)) != len(cards):
        raise fail("duplicate_card")
    if not 1 <= len(cards) <= state["owed"][str(seat)]:
        raise fail("discard_wrong_count")
    return None


def _check_spell(state: State, seat: int, move: Move) -> Any:
    return witch.check_spell(state, seat, move, _location)


def _check_answer(kind: str) -> Any:
    def checker(state: State, seat: int, move: Move) -> None:
        witch.check_answer(state, seat, kind, move)
    return checker


CHECKS = {"play": _check_play, "back": _check_back, "morgan": _check_morgan,
          "sail": _check_sail, "pass": _check_pass, "end_turn": _check_end,
          "discard": _check_discard, "discard_random": lambda s, seat, m: None,
          "spell": _check_spell, **{k: _check_answer(k) for k in witch.FOLLOW_KINDS}}


def check(state: State, seat: int, move: Any) -> None:
    _validate(state, seat, move)


# ---- applying ----------------------------------------------------------------------------


def apply(state: State, seat: int, move: Any, rng: Rng) -> tuple[State, list[Event]]:
    kind, checked = _validate(state, seat, move)
    events: list[Event] = []
    if kind == "resign":
        close_decision(state)
        _resign(state, seat, rng, events)
    elif kind in ("discard", "discard_random"):
        cards = move["cards"] if kind == "discard" else _random_discard(state, seat, rng)
        _discard(state, seat, cards, events)
    elif kind in witch.FOLLOW_KINDS:
        close_decision(state)
        dark = state["follow"].get("dark", False)
        witch.answer(state, seat, kind, move, rng, events)
        _after_action(state, dark, events)
    else:
        close_decision(state)
        _action(state, seat, kind, move, checked, rng, events)
    return state, events


def _action(state: State, seat: int, kind: str, move: Move, checked: Any, rng: Rng,
            events: list[Event]) -> None:
    if kind == "end_turn":
        _next_turn(state, events)
        return
    if kind == "pass":
        B.draw(state, seat, 1, rng, events)
        events.append({"type": "passed", "seat": seat})
        _next_turn(state, events)
        return
    dark = False
    if kind == "sail":
        free = state["captain"] and not state["actions"] and not state["free_sail_used"]
        state["shore"] = "tortuga" if state["shore"] == "cartagena" else "cartagena"
        events.append({"type": "sailed", "seat": seat, "shore": state["shore"], "free": free})
        if free:
            state["free_sail_used"] = True
            return
    elif kind == "play":
        loc, dest = checked
        card = move["card"]
        state["hands"][str(seat)].remove(card)
        state["discard"].append(card)
        dark = card in _data(state).dark
        B.move_pirate(state, seat, loc, dest)
        events.append({"type": "played", "seat": seat, "card": card, "from": loc, "to": dest})
    elif kind == "back":
        loc, (dest, count) = checked
        B.move_pirate(state, seat, loc, dest)
        events.append({"type": "moved_back", "seat": seat, "from": loc, "to": dest,
                       "draws": count})
        B.draw(state, seat, count, rng, events)
    elif kind == "spell":
        state["actions"] += 1
        dark = any(c in _data(state).dark for c in checked["cards"])
        if witch.cast(state, seat, checked, rng, events):
            state["follow"]["dark"] = dark
            return  # the follow-up decision answers first (§4 "After each action")
        _after_action(state, dark, events)
        return
    else:  # morgan
        loc, (dest, count) = checked
        B.move_pirate(state, move["seat"], loc, dest)
        events.append({"type": "morgan", "seat": seat, "pirate_of": move["seat"], "from": loc,
                       "to": dest, "draws": count})
        B.draw(state, seat, count, rng, events)
    state["actions"] += 1
    _after_action(state, dark, events)


def _after_action(state: State, dark: bool, events: list[Event]) -> None:
    """§4 "After each action" (a spell's once its follow-up is answered): the win check, the
    Rascals check, the end of the turn after the third action."""
    if _win_check(state, events):
        return
    if dark and state["options"]["rascals"] and _open_discard(state, events):
        return
    if state["actions"] == 3:
        _next_turn(state, events)



def _data(state: State) -> TileData:
    return B.data_of(state)


def _win_check(state: State, events: list[Event]) -> bool:
    finish, crew = B.FINISH[state["route"]], state["options"]["pirates"]
    pirates = state["pirates"]
    for s in range(state["n"]):
        if pirates[str(s)].get(finish) == crew and not state["resigned"][s]:
            _finish(state, [s], "all_pirates_escaped", events)
            return True
    return False


def _open_discard(state: State, events: list[Event]) -> bool:
    """Rascals (§5.4): every other seat with more than 7 cards must discard down to 7."""
    owed = {str(s): len(state["hands"][str(s)]) - 7 for s in range(state["n"])
            if s != state["active"] and not state["resigned"][s]
            and len(state["hands"][str(s)]) > 7}
    if not owed:
        return False
    state["phase"] = "discard"
    state["owed"] = owed
    state["pending"] = {s: [] for s in owed}
    state["to_act"] = sorted(int(s) for s in owed)
    events.append({"type": "discard_owed", "owed": dict(owed)})
    return True


def _random_discard(state: State, seat: int, rng: Rng) -> list[str]:
    """The timeout's discard: the first cards of a secret shuffle of the hand (§5.9)."""
    hand = sorted(state["hands"][str(seat)])
    order = rng.shuffle("discard-default", list(range(len(hand))), secret=True)
    return [hand[i] for i in order[:state["owed"][str(seat)]]]


def _discard(state: State, seat: int, cards: list[str], events: list[Event]) -> None:
    """Named cards leave the hand for `pending`; the last seat done closes the decision."""
    key = str(seat)
    for c in cards:
        state["hands"][key].remove(c)
    state["pending"][key] += cards
    state["owed"][key] -= len(cards)
    events.append({"type": "discard_named", "seat": seat, "cards": list(cards)})
    if not state["owed"][key]:
        state["to_act"].remove(seat)
    if not state["to_act"]:
        _close_discard(state, events)


def _close_discard(state: State, events: list[Event]) -> None:
    close_decision(state)
    shown = {}
    for s in sorted(state["pending"], key=int):
        state["discard"] += state["pending"][s]
        shown[s] = state["pending"][s]
    state.update(owed={}, pending={}, phase="action", to_act=[state["active"]])
    events.append({"type": "discarded", "cards": shown})
    if state["end_after_discard"] or state["actions"] == 3:
        _next_turn(state, events)


def _next_turn(state: State, events: list[Event]) -> None:
    n = state["n"]
    nxt = (state["active"] + 1) % n
    while state["resigned"][nxt]:
        nxt = (nxt + 1) % n
    most = max((B.aboard(state, s) for s in range(n) if not state["resigned"][s]), default=0)
    state.update(active=nxt, actions=0, free_sail_used=False, phase="action", to_act=[nxt],
                 end_after_discard=False,
                 captain=B.aboard(state, nxt) >= 1 and B.aboard(state, nxt) == most)
    events.append({"type": "turn_started", "seat": nxt, "captain": state["captain"]})


def _finish(state: State, winners: list[int], reason: str, events: list[Event]) -> None:
    finish = B.FINISH[state["route"]]
    scores = {str(s): state["pirates"][str(s)].get(finish, 0) for s in range(state["n"])}
    state["result"] = {"winners": winners, "scores": scores, "reason": reason}
    state.update(phase="game_over", to_act=[])
    events.append({"type": "game_ended", "winners": winners, "reason": reason})


def _resign(state: State, seat: int, rng: Rng, events: list[Event]) -> None:
    """§5.8: the crew leaves the board, hand and pending cards go face up to the pile."""
    key = str(seat)
    state["resigned"][seat] = True
    for loc, count in state["pirates"][key].items():
        if loc.isdigit():
            state["occ"][int(loc)] -= count
    state["pirates"][key] = {}
    state["discard"] += sorted(state["hands"][key] + state["pending"].pop(key, []))
    state["hands"][key] = []
    state["owed"].pop(key, None)
    events.append({"type": "resigned", "seat": seat})
    live = [s for s in range(state["n"]) if not state["resigned"][s]]
    if len(live) == 1:
        _finish(state, live, "resigned", events)
        return
    follow = state.get("follow")
    if follow is not None and seat == state["active"]:
        witch.drop_follow(state)
        state["phase"] = "action"
    elif follow is not None and follow.get("target") == seat:
        state.pop("follow")  # a pistol on a seat that leaves ends without effect
        state["phase"] = "action"
        _after_action(state, follow.get("dark", False), events)
        return
    if state["phase"] == "discard":
        if seat in state["to_act"]:
            state["to_act"].remove(seat)
        if seat == state["active"]:
            state["end_after_discard"] = True
        if not state["to_act"]:
            _close_discard(state, events)
    elif seat == state["active"]:
        _next_turn(state, events)


# ---- listing, defaults, secrecy, result --------------------------------------------------


def _kinds(data: TileData, cards: list[str]) -> list[str]:
    """The lowest id of each kind of card (symbol and background), sorted."""
    first: dict[tuple[str, bool], str] = {}
    kind = data.kind
    for c in sorted(cards):
        k = kind[c]
        if k not in first:
            first[k] = c
    return sorted(first.values())


def legal_moves(state: State, seat: int) -> Iterator[Move]:
    """Every action, one card of each kind standing for its kind; built as a list (cheaper
    than a generator's ~30 resumptions per decision where Morgan is on)."""
    if state["result"] is not None or seat not in state["to_act"]:
        return iter(())
    data = _data(state)
    hand = state["hands"][str(seat)]
    if state["phase"] == "discard":
        return iter([{"type": "discard", "cards": [c]} for c in _kinds(data, hand)])
    if state["phase"] in witch.FOLLOW_KINDS:
        return iter(witch.answers(state, seat))
    own = [int(k) if k.isdigit() else k for k in state["pirates"][str(seat)]]
    kinds = _kinds(data, hand)
    reach = {loc: B.forward_all(state, seat, loc) for loc in own} if kinds else {}
    out: list[Move] = [{"type": "play", "card": card, "from": loc} for card in kinds
                       for loc in own if data.kind[card][0] in reach[loc]]
    spans = B.spans(state)
    modes = state["options"]["draw_mode"]
    out += [{"type": "back", "from": loc} for loc in own
            if modes[part := B.part_of(state, loc)] != "morgan" and spans[part].can_back(loc)]
    if any(mode != "back" for mode in modes.values()):
        out += _morgans(state, seat, spans, modes)
    if state["options"]["witch"]:
        out += witch.spells(state, seat, kinds, data, reach)
    if state["route"] == "complete" and _ok(_check_sail, state, seat, {}):
        out.append({"type": "sail"})
    if not hand and not state["actions"]:
        out.append({"type": "pass"})
    if state["actions"]:
        out.append({"type": "end_turn"})
    return iter(out)


def _morgans(state: State, seat: int, spans: dict[str, B.Span], modes: dict[str, str]
             ) -> list[Move]:
    out: list[Move] = []
    single = None if state["route"] == "complete" else next(iter(spans.values()))
    for other in range(state["n"]):
        if other == seat or state["resigned"][other]:
            continue
        for key in state["pirates"][str(other)]:
            loc = int(key) if key.isdigit() else key
            if single is None:
                part = B.part_of(state, loc)
                if modes[part] == "back" or not spans[part].can_morgan(state, other, loc):
                    continue
            elif not single.can_morgan(state, other, loc):
                continue
            out.append({"type": "morgan", "seat": other, "from": loc})
    return out


def _ok(checker: Any, *args: Any) -> bool:
    """Whether a check passes (for listing the few moves where an exception is cheap)."""
    try:
        checker(*args)
    except IllegalMove:
        return False
    return True


def default_move(state: State, seat: int) -> Move | None:
    """§5.9: end or pass where the rules allow it; a random secret discard; else none."""
    if state["result"] is not None or seat not in state["to_act"]:
        return None
    if state["phase"] == "discard":
        return {"type": "discard_random"}
    if state["phase"] in witch.FOLLOW_KINDS:
        return witch.default_answer(state, seat)
    if state["actions"]:
        return {"type": "end_turn"}
    if not state["hands"][str(seat)]:
        return {"type": "pass"}
    return None


def is_secret(move: Move) -> bool:
    """A Rascals discard comes from a hidden hand (the others see it when all are done); the
    witch's follow-ups name cards only the caster (and a recipient) may see."""
    return isinstance(move, dict) and move.get("type") in (
        "discard", "discard_random", *witch.FOLLOW_KINDS)


def result(state: State) -> Result | None:
    found: Result | None = state["result"]
    return found
