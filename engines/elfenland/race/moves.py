"""Validating and applying race moves (spec §5, §5.6 order), and resigning.

`validate(state, seat, move)` raises `IllegalMove` with the first failing code and otherwise
returns the move's effect; `check` stops there, `apply` runs the effect. A sequential decision
closes with its move; a simultaneous one keeps each answer in `pending` (secret) until the last
seat has answered, then its resolver runs. Either way `flow.advance` then plays on.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engines.contract import Event, Move, Rng, State, close_decision
from engines.elfenland import cards
from engines.elfenland.race import flow, planning, travel
from engines.elfenland.race import state as S
from engines.elfenland.race.fields import ACCEPTS, MOVE_FIELDS, SIMULTANEOUS, fields_ok
from engines.elfenland.race.state import COUNTER_LIMIT, fail, opt

Effect = Callable[[Rng, list[Event]], None]
#: a simultaneous answer: the payload kept in `pending` until the decision resolves
Answer = tuple[str, Any]


def _types_ok(move: Move) -> bool:
    """Field types (§5 "Format"); rules come later."""
    t = move["type"]
    for name in ("counter", "card", "left"):
        if name in move and not isinstance(move[name], str):
            return False
    if "right" in move and move["right"] is not None and not isinstance(move["right"], str):
        return False
    if "road" in move and type(move["road"]) is not int:
        return False
    if "hidden" in move and type(move["hidden"]) is not bool:
        return False
    if "side" in move and move["side"] is not None and not isinstance(move["side"], str):
        return False
    if t == "vote" and type(move["allow"]) is not bool:
        return False
    if t == "steal" and type(move["victim"]) is not int:
        return False
    if "cards" in move and not cards.is_multiset(move["cards"]):
        return False
    if t == "travel":
        steps = move["steps"]
        return isinstance(steps, list) and all(travel.step_shape_ok(s) for s in steps)
    if t == "finish_round":
        keep = move["keep"]
        if keep is not None and not (
                isinstance(keep, dict) and set(keep) <= {"counter", "hidden"}
                and isinstance(keep.get("counter"), str)
                and type(keep.get("hidden", False)) is bool):
            return False
        if "discard" in move and not cards.is_multiset(move["discard"]):
            return False
    return True


def validate(st: State, seat: int, move: Any) -> Effect | Answer:
    """The effect of a legal move, or an `Answer` for a simultaneous decision (§5.6 order)."""
    if st["result"] is not None:
        raise fail("game_over", "The game has ended.")
    if not isinstance(move, dict) or not isinstance(move.get("type"), str):
        raise fail("malformed_move", "A move is an object with a string 'type'.")
    t = move["type"]
    if t == "resign":
        return _check_resign(st, seat, move)
    dec = st["dec"]
    if seat not in dec["to_act"]:
        if str(seat) in st["pending"]:
            raise fail("already_submitted", "You already answered this decision.")
        raise fail("not_your_turn", f"Seat {seat} is not asked to act now.")
    if t not in MOVE_FIELDS:
        raise fail("unknown_move_type", f"Unknown move type {t!r}.")
    if not fields_ok(move) or not _types_ok(move):
        raise fail("malformed_move", f"A field of {t!r} is missing, unknown or of the wrong "
                                     f"type.")
    kind = dec["kind"]
    if t not in ACCEPTS[kind]:
        raise fail("wrong_decision", f"{t!r} is not accepted at the {kind!r} decision.")
    return CHECKS[t](st, seat, move)


# ---- draft --------------------------------------------------------------------------------------

def _draft_done(st: State, seat: int, counter: bool) -> None:
    if "quota" in st and st["phase"] == "qoc":
        st["quota"][seat][0 if counter else 1] += 1 if counter else -1
    st["cursor"] += 1


def _room(st: State, seat: int) -> None:
    if S.held(st, seat) >= COUNTER_LIMIT:
        raise fail("counter_limit", "You would hold more than 5 counters.")


def _counter_quota(st: State, seat: int) -> None:
    if st["dec"]["kind"] == "qoc_draft" and st["quota"][seat][0] >= 3:
        raise fail("draft_quota", "You already took 3 counters this round.")


def _check_take_counter(st: State, seat: int, move: Move) -> Effect:
    kind = move["counter"]
    if kind not in st["display"]:
        raise fail("counter_not_face_up", f"No {kind} counter is in the face-up display.")
    _room(st, seat)
    _counter_quota(st, seat)

    def effect(rng: Rng, events: list[Event]) -> None:
        st["display"].remove(kind)
        cards.add(st["faceup"][seat], kind)
        events.append({"type": "counter_taken", "seat": seat, "counter": kind})
        S.refill_display(st, rng, events, "counter-refill")
        _draft_done(st, seat, True)
    return effect


def _check_draw_counter(st: State, seat: int, move: Move) -> Effect:
    if not st["pile"]:
        raise fail("pile_empty", "The face-down counter pile is empty.")
    _room(st, seat)
    _counter_quota(st, seat)

    def effect(rng: Rng, events: list[Event]) -> None:
        kind = S.draw_counter(st, rng, "counter-blind")
        assert kind is not None
        cards.add(st["faceup"][seat], kind)
        events.append({"type": "counter_drawn", "seat": seat, "counter": kind,
                       "pile": sum(st["pile"].values())})
        _draft_done(st, seat, True)
    return effect


def _card_quota(st: State, seat: int) -> None:
    if st["quota"][seat][1] <= 0:
        raise fail("draft_quota", "You already took your cards this round.")


def _check_take_card(st: State, seat: int, move: Move) -> Effect:
    card = move["card"]
    if card not in st["card_display"]:
        raise fail("card_not_face_up", f"No {card} card is in the face-up card display.")
    _card_quota(st, seat)

    def effect(rng: Rng, events: list[Event]) -> None:
        st["card_display"].remove(card)
        cards.add(st["hand"][seat], card)
        if st["deck"]:
            st["card_display"].append(S.deck_pop(st))
        events.append({"type": "card_taken", "seat": seat, "card": card,
                       "card_display": list(st["card_display"]), "deck": len(st["deck"])})
        _draft_done(st, seat, False)
    return effect


def _check_draw_card(st: State, seat: int, move: Move) -> Effect:
    if not st["deck"]:
        raise fail("deck_empty", "The travel deck is empty.")
    _card_quota(st, seat)

    def effect(rng: Rng, events: list[Event]) -> None:
        card = S.deck_pop(st)
        cards.add(st["hand"][seat], card)
        events.append({"type": "card_drawn", "seat": seat, "deck": len(st["deck"]),
                       "private": {str(seat): {"card": card}}})
        _draft_done(st, seat, False)
    return effect


# ---- discards, finish_round ---------------------------------------------------------------------

def _owed(st: State, seat: int) -> int:
    return st["dec"]["owed"][str(seat)]


def _check_cards_owed(st: State, seat: int, chosen: dict) -> None:
    if not cards.contains(st["hand"][seat], chosen):
        raise fail("cards_not_in_hand", f"You do not hold {cards.canonical(chosen)}.")
    need = _owed(st, seat)
    if cards.size(chosen) != need:
        raise fail("discard_wrong_count", f"Discard exactly {need} cards, not "
                                          f"{cards.size(chosen)}.")


def _check_discard(st: State, seat: int, move: Move) -> Answer:
    _check_cards_owed(st, seat, move["cards"])
    return ("discard", cards.canonical(move["cards"]))


def _discard_now(st: State, seat: int, chosen: dict, events: list[Event], why: str) -> None:
    cards.subtract(st["hand"][seat], chosen)
    cards.merge(st["discards"], chosen)
    events.append({"type": "discarded", "seat": seat, "cards": cards.canonical(chosen),
                   "why": why})


def _check_discard_public(st: State, seat: int, move: Move) -> Effect:
    _check_cards_owed(st, seat, move["cards"])

    def effect(rng: Rng, events: list[Event]) -> None:
        _discard_now(st, seat, move["cards"], events, "hand_limit")
    return effect


def random_cards(hand: dict, count: int, rng: Rng) -> dict[str, int]:
    """`count` cards of a hand chosen by secret draws (a timed-out seat's discard)."""
    left = dict(hand)
    out: dict[str, int] = {}
    for _ in range(count):
        kind = cards.nth(left, rng.randint("discard-random", 0, cards.size(left) - 1,
                                           secret=True))
        cards.remove(left, kind)
        cards.add(out, kind)
    return out


def _check_discard_random(st: State, seat: int, move: Move) -> Effect | Answer:
    count = _owed(st, seat)
    if st["dec"]["kind"] == "discard":
        return ("discard_random", count)

    def effect(rng: Rng, events: list[Event]) -> None:
        _discard_now(st, seat, random_cards(st["hand"][seat], count, rng), events, "hand_limit")
    return effect


def _check_finish_round(st: State, seat: int, move: Move) -> Answer:
    chosen = move.get("discard")
    if chosen is not None and not opt(st, "lost-tickets"):
        raise fail("variant_not_enabled", "Discarding at the round's end needs lost-tickets.")
    if chosen and not cards.contains(st["hand"][seat], chosen):
        raise fail("cards_not_in_hand", f"You do not hold {cards.canonical(chosen)}.")
    keep = move["keep"]
    if S.held(st, seat) >= 2:
        if keep is None:
            raise fail("keep_invalid", "Name the counter you keep.")
        hidden = keep.get("hidden", False)
        if st["hidden" if hidden else "faceup"][seat].get(keep["counter"], 0) < 1:
            raise fail("keep_invalid", f"You hold no {'face-down' if hidden else 'face-up'} "
                                       f"{keep['counter']} counter.")
        keep = {"counter": keep["counter"], "hidden": hidden}
    elif keep is not None:
        raise fail("keep_invalid", "You keep your only counter (or none) automatically.")
    return ("finish_round", {"keep": keep, "discard": cards.canonical(chosen or {})})


# ---- plan-phase windows, exchanges, centre, rotation --------------------------------------------

def _check_object(st: State, seat: int, move: Move) -> Answer:
    return ("window", "object" if move["type"] == "object" else "allow")


def _check_vote(st: State, seat: int, move: Move) -> Answer:
    return ("vote", move["allow"])


def _check_exchange(st: State, seat: int, move: Move) -> Answer:
    hand = st["hand"][seat]
    left, right = move["left"], move.get("right")
    want: dict[str, int] = {left: 1}
    if right is not None:
        cards.add(want, right)
    size = cards.size(hand)
    if (right is None) != (size == 1) or not cards.contains(hand, want):
        raise fail("exchange_invalid", "Give exactly one held card to each neighbour (only "
                                       "'left' with a single card).")
    return ("exchange", {"left": left, "right": right})


def _check_centre_put(st: State, seat: int, move: Move) -> Effect:
    card = move["card"]
    if st["hand"][seat].get(card, 0) < 1:
        raise fail("cards_not_in_hand", f"You hold no {card} card.")

    def effect(rng: Rng, events: list[Event]) -> None:
        cards.remove(st["hand"][seat], card)
        st["centre"].append(card)
        st["putters"].append(seat)
        events.append({"type": "centre_put", "seat": seat, "card": card})
        st["cursor"] += 1
    return effect


def _check_centre_take(st: State, seat: int, move: Move) -> Effect:
    card = move["card"]
    if card not in st["centre"]:
        raise fail("card_not_in_centre", f"No {card} card is in the centre.")

    def effect(rng: Rng, events: list[Event]) -> None:
        st["centre"].remove(card)
        cards.add(st["hand"][seat], card)
        events.append({"type": "centre_taken", "seat": seat, "card": card, "automatic": False})
        st["cursor"] += 1
    return effect


def _check_pass_counter(st: State, seat: int, move: Move) -> Effect:
    kind = move["counter"]
    if st["faceup"][seat].get(kind, 0) < 1:
        raise fail("counter_not_held", f"You hold no face-up {kind} counter.")

    def effect(rng: Rng, events: list[Event]) -> None:
        to = S.next_active(st, seat)
        cards.remove(st["faceup"][seat], kind)
        cards.add(st["faceup"][to], kind)
        events.append({"type": "counter_passed", "seat": seat, "to": to, "counter": kind})
        st["cursor"] += 1
    return effect


# ---- moving, thief ------------------------------------------------------------------------------

def _check_travel(st: State, seat: int, move: Move) -> Effect:
    single = "thief" in st
    plan = travel.check_travel(st, seat, move["steps"], single)

    def effect(rng: Rng, events: list[Event]) -> None:
        if plan[0].get("open"):
            entry = plan[0]
            st["travel"] = {"road": entry["road"], "form": entry["form"],
                            "need": entry["need"], "picked": {}}
            events.append({"type": "payment_started", "seat": seat, "road": entry["road"],
                           "form": entry["form"], "need": entry["need"]})
            return
        _travelled(st, seat, plan, rng, events)
    return effect


def _travelled(st: State, seat: int, plan: list[dict], rng: Rng, events: list[Event]) -> None:
    travel.perform(st, seat, plan, events)
    bridged = plan[-1]["bridge"]
    if "thief" not in st:
        if bridged:
            st["mstage"] = 2
        return
    th = st["thief"]
    th["stolen"] = None
    if bridged:
        th["passed"][seat] = True
        flow.end_thief_turn(st, seat)
        return
    here = st["boot"][seat]
    victims = [v for v in S.active(st) if v != seat and st["boot"][v] == here and st["hand"][v]]
    if victims:
        th["stage"], th["victims"] = "steal", victims
    else:
        flow.end_thief_turn(st, seat)


def _check_pick(st: State, seat: int, move: Move) -> Effect:
    card = move["card"]
    pending = st["travel"]
    if st["hand"][seat].get(card, 0) - pending["picked"].get(card, 0) < 1:
        raise fail("cards_not_in_hand", f"You hold no further {card} card.")

    def effect(rng: Rng, events: list[Event]) -> None:
        cards.add(pending["picked"], card)
        events.append({"type": "picked", "seat": seat,
                       "private": {str(seat): {"card": card}}})
        if cards.size(pending["picked"]) < pending["need"]:
            return
        step = {"road": pending["road"], pending["form"]: pending["picked"]}
        st["travel"] = None
        plan = travel.check_travel(st, seat, [step], False)
        _travelled(st, seat, plan, rng, events)
    return effect


def _check_end_move(st: State, seat: int, move: Move) -> Effect:
    def effect(rng: Rng, events: list[Event]) -> None:
        events.append({"type": "move_ended", "seat": seat})
        if "thief" in st:
            st["thief"]["passed"][seat] = True
            flow.end_thief_turn(st, seat)
        else:
            st["mstage"] = 2
    return effect


def _check_steal(st: State, seat: int, move: Move) -> Effect:
    victim = move["victim"]
    if victim not in st["dec"]["victims"]:
        raise fail("invalid_victim", f"Seat {victim} has no boot with cards here, or is you.")

    def effect(rng: Rng, events: list[Event]) -> None:
        hand = st["hand"][victim]
        card = cards.nth(hand, rng.randint("thief-steal", 0, cards.size(hand) - 1,
                                           secret=True))
        cards.remove(hand, card)
        cards.add(st["hand"][seat], card)
        th = st["thief"]
        th["stolen"] = {"victim": victim, "card": card}
        th["stage"] = "forced"
        th.pop("victims", None)
        private = {str(seat): {"card": card}, str(victim): {"card": card}}
        events.append({"type": "stolen", "seat": seat, "victim": victim, "private": private})
    return effect


def _check_no_steal(st: State, seat: int, move: Move) -> Effect:
    def effect(rng: Rng, events: list[Event]) -> None:
        events.append({"type": "no_steal", "seat": seat})
        flow.end_thief_turn(st, seat)
    return effect


# ---- resigning ----------------------------------------------------------------------------------

def _check_resign(st: State, seat: int, move: Move) -> Effect:
    if type(seat) is not int or not 0 <= seat < st["n"] or st["resigned"][seat]:
        raise fail("not_your_turn", f"Seat {seat} is not playing.")
    if set(move) != {"type"}:
        raise fail("malformed_move", "'resign' takes no fields.")

    def effect(rng: Rng, events: list[Event]) -> None:
        resign(st, seat, rng, events)
    return effect


def resign(st: State, seat: int, rng: Rng, events: list[Event]) -> None:
    """The seat drops out (docs/rules/elfenland.md "Resigning"): its hand goes under the deck
    unseen, its counters into the pile unseen, its unused obstacle out of the game; counters,
    obstacles and bridges it laid stay; its turns and answers are skipped."""
    from engines.elfenland.race.scoring import finish_game

    st["resigned"][seat] = True
    S.deck_bottom(st, cards.expand(st["hand"][seat]))
    st["hand"][seat] = {}
    cards.merge(st["pile"], st["hidden"][seat])
    cards.merge(st["pile"], st["faceup"][seat])
    st["hidden"][seat], st["faceup"][seat] = {}, {}
    st["obstacle_available"][seat] = False
    events.append({"type": "resigned", "seat": seat})
    left = S.active(st)
    if len(left) <= 1:
        finish_game(st, events, "resigned")
        return
    dec = st["dec"]
    if seat not in dec["to_act"]:
        st["pending"].pop(str(seat), None)
        if "thief" in st:
            st["thief"]["passed"][seat] = True
        return
    dec["to_act"].remove(seat)
    if dec["kind"] in SIMULTANEOUS:
        if dec["to_act"]:
            return
        _resolve(st, rng, events)
    else:
        _skip_turn(st, seat)
    close_decision(st)
    flow.advance(st, rng, events)


def _skip_turn(st: State, seat: int) -> None:
    """A sequential decision owed by a resigning seat is skipped (its phase moves on)."""
    kind = st["dec"]["kind"]
    st["travel"] = None
    if kind in ("draft", "qoc_draft", "centre_put", "centre_take", "rotation"):
        st["cursor"] += 1
    elif kind in ("move", "pick", "discard_public") and "thief" not in st:
        st["cursor"] += 1
        st["mstage"] = 0
    elif "thief" in st and kind in ("move", "pick", "steal", "forced_step"):
        st["thief"]["passed"][seat] = True
        flow.end_thief_turn(st, seat)
    # plan: the rotation skips resigned seats by itself


# ---- simultaneous decisions ---------------------------------------------------------------------

def _resolve(st: State, rng: Rng, events: list[Event]) -> None:
    """Every seat has answered: apply the answers together (§4 "Simultaneous decisions")."""
    kind = st["dec"]["kind"]
    pending = st["pending"]
    st["pending"] = {}
    answers = {k: pending[k] for k in sorted(pending, key=int)}
    if kind == "discard":
        for key, (form, value) in answers.items():
            s = int(key)
            chosen = random_cards(st["hand"][s], value, rng) if form == "discard_random" \
                else value
            _discard_now(st, s, chosen, events, "deal_limit")
    elif kind == "objection_window":
        planning.resolve_window(st, rng, events, {k: v for k, (_f, v) in answers.items()})
    elif kind == "vote":
        planning.resolve_vote(st, rng, events, {k: v for k, (_f, v) in answers.items()})
    elif kind == "junk_exchange":
        _resolve_exchange(st, events, {int(k): v for k, (_f, v) in answers.items()})
    elif kind == "finish_round":
        flow.cleanup(st, rng, events, {k: v for k, (_f, v) in answers.items()})


def _resolve_exchange(st: State, events: list[Event], gifts: dict[int, dict]) -> None:
    moves = []
    for s, gift in gifts.items():
        moves.append((s, S.next_active(st, s, 1), gift["left"]))
        if gift["right"] is not None:
            moves.append((s, S.next_active(st, s, -1), gift["right"]))
    for giver, _to, card in moves:
        cards.remove(st["hand"][giver], card)
    private: dict[str, dict[str, list]] = {}
    for giver, to, card in moves:
        cards.add(st["hand"][to], card)
        private.setdefault(str(giver), {"gave": [], "got": []})["gave"].append([to, card])
        private.setdefault(str(to), {"gave": [], "got": []})["got"].append([giver, card])
    events.append({"type": "cards_exchanged",
                   "given": {str(s): 1 + (g["right"] is not None) for s, g in gifts.items()},
                   "private": private})


def apply(st: State, seat: int, move: Move, rng: Rng) -> tuple[State, list[Event]]:
    """Validate, then change the state in place (contract: `apply` = `check` + the changes)."""
    outcome = validate(st, seat, move)
    events: list[Event] = []
    if isinstance(outcome, tuple):
        st["pending"][str(seat)] = list(outcome)
        st["dec"]["to_act"].remove(seat)
        events.append({"type": "answered", "seat": seat, "decision": st["dec"]["kind"]})
        if st["dec"]["to_act"]:
            return st, events
        _resolve(st, rng, events)
        close_decision(st)
        flow.advance(st, rng, events)
        return st, events
    outcome(rng, events)
    if move["type"] != "resign":
        close_decision(st)
        flow.advance(st, rng, events)
    return st, events


CHECKS: dict[str, Callable[[State, int, Move], Effect | Answer]] = {
    "take_counter": _check_take_counter, "draw_counter": _check_draw_counter,
    "take_card": _check_take_card, "draw_card": _check_draw_card,
    "place_counter": planning.check_place_counter,
    "place_obstacle": planning.check_place_obstacle,
    "substitute": planning.check_substitute, "pass": planning.check_pass,
    "object": _check_object, "allow": _check_object, "vote": _check_vote,
    "travel": _check_travel, "end_move": _check_end_move, "pick": _check_pick,
    "discard": _check_discard, "discard_public": _check_discard_public,
    "discard_random": _check_discard_random, "finish_round": _check_finish_round,
    "steal": _check_steal, "no_steal": _check_no_steal, "exchange": _check_exchange,
    "centre_put": _check_centre_put, "centre_take": _check_centre_take,
    "pass_counter": _check_pass_counter,
}
