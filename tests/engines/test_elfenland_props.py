"""Elfenland race properties: every error code provoked with nothing changed, hidden information
(non-interference, no leak in views, events or texts), resigning, defaults, notation, state size,
and random playouts over the variant combinations (docs/rules/elfenland.md)."""

from __future__ import annotations

import copy
import itertools
import json
import random

import pytest

from engines.contract import IllegalMove
from engines.elfenland import ENGINE as E
from engines.elfenland import cards
from engines.elfenland import options as O
from engines.elfenland.race.fields import MOVE_FIELDS
from engines.rng import SeededRng
from tests.engines.playout import random_playout
from tests.engines.test_elfenland import (
    CLOUD,
    DRAGON,
    PIG,
    RAFT,
    TROLL,
    at_move,
    at_plan,
    clear,
    do,
    dump,
    kind_of,
    new,
    new_with,
    refused,
)

# --------------------------------------------------------------------------- error codes


def test_every_remaining_code_is_provoked() -> None:
    st = new(3)
    refused(st, 1, {"type": "draw_counter"}, "not_your_turn")
    refused(st, 0, {"type": "fly"}, "unknown_move_type")
    refused(st, 0, {"type": "take_counter"}, "malformed_move")
    refused(st, 0, {"type": "take_counter", "counter": 3}, "malformed_move")
    refused(st, 0, "draw", "malformed_move")
    refused(st, 0, {"type": "pass"}, "wrong_decision")
    st["faceup"][0] = {PIG: 4}
    refused(st, 0, {"type": "draw_counter"}, "counter_limit")
    st["faceup"][0] = {}
    st["pile"] = {}
    refused(st, 0, {"type": "draw_counter"}, "pile_empty")
    st = new(3)
    clear(st)
    at_plan(st, 0)
    refused(st, 0, {"type": "place_counter", "road": 99, "counter": PIG}, "unknown_road")
    refused(st, 0, {"type": "place_counter", "road": 1, "counter": PIG}, "counter_not_held")
    refused(st, 0, {"type": "place_counter", "road": 1, "counter": PIG, "hidden": True},
            "counter_not_held")
    at_move(st, 0)
    refused(st, 0, {"type": "travel", "steps": []}, "empty_path")
    refused(st, 0, {"type": "travel", "steps": [{"road": 1, "cards": {DRAGON: 1}}]},
            "cards_not_in_hand")
    refused(st, 0, {"type": "travel", "steps": [{"road": 1}]}, "malformed_move")
    st = new_with(3, {"substitution": True})
    clear(st)
    st["faceup"][0] = {PIG: 1}
    at_plan(st, 0)
    refused(st, 0, {"type": "substitute", "road": 1, "counter": PIG}, "nothing_to_substitute")
    st["subst_tokens"][0] = 0
    st["counters"]["1"] = TROLL
    refused(st, 0, {"type": "substitute", "road": 1, "counter": PIG},
            "no_substitution_tokens")
    st = new_with(3, {"quality-of-choice": True})
    card = next(c for c in cards.CARD_TYPES if c not in st["card_display"])
    refused(st, 0, {"type": "take_card", "card": card}, "card_not_face_up")
    saved = st["deck"]
    st["deck"] = ""
    refused(st, 0, {"type": "draw_card"}, "deck_empty")
    st["deck"] = saved
    st = new_with(3, {"tickets-on-demand": True})
    st["phase"], st["pending"] = "centre_put", {}
    st["dec"] = {"kind": "discard", "to_act": [0, 1], "owed": {"0": 1, "1": 1}}
    card0 = next(iter(st["hand"][0]))
    do(st, 0, {"type": "discard", "cards": {card0: 1}})
    refused(st, 0, {"type": "discard", "cards": {card0: 1}}, "already_submitted")
    st["result"] = {"winners": [0], "scores": {}, "reason": "x"}
    refused(st, 1, {"type": "discard_random"}, "game_over")


def test_error_codes_cover_the_race_table() -> None:
    spec_codes = {
        "game_over", "not_your_turn", "already_submitted", "unknown_move_type",
        "malformed_move", "wrong_decision", "variant_not_enabled", "unknown_road",
        "cards_not_in_hand", "counter_not_held", "counter_not_face_up", "pile_empty",
        "counter_limit", "card_not_face_up", "deck_empty", "draft_quota", "road_is_water",
        "road_occupied", "terrain_forbidden", "obstacle_used", "obstacle_needs_transport",
        "road_has_obstacle", "obstacle_round_forbidden", "obstacle_round_limit", "bad_side",
        "no_substitution_tokens", "nothing_to_substitute", "road_already_substituted",
        "empty_path", "one_step_only", "bridge_ends_move", "road_not_here", "no_transport",
        "caravan_not_allowed", "caravan_wrong_count", "ferryman_not_here", "chain_invalid",
        "wrong_payment", "discard_wrong_count", "keep_invalid", "invalid_victim",
        "exchange_invalid", "card_not_in_centre", "invalid_options", "bad_notation"}
    assert spec_codes <= set(E.error_codes)


# --------------------------------------------------------------------------- hidden information


def _hide_differently(st: dict, me: int, seed: int, answers: bool = True) -> dict:
    """A copy differing only in what `me` may not see: other hands (same sizes), other
    face-down counters (same counts, the pile compensating), the deck's order, other
    destinations, and (with `answers`) other seats' pending votes and picks. A seat whose
    pending answer names its cards keeps its hand, so the copy stays a consistent game."""
    other = copy.deepcopy(st)
    chooser = random.Random(seed)
    for s in range(st["n"]):
        if s == me or (str(s) in other["pending"] and other["pending"][str(s)][0] != "vote"):
            continue
        size = sum(other["hand"][s].values())
        other["hand"][s] = {}
        for _ in range(size):
            cards.add(other["hand"][s], chooser.choice(cards.CARD_TYPES))
        hidden = other["hidden"][s]
        for kind in list(hidden):
            swap = next((k for k in cards.COUNTER_TYPES if k != kind and other["pile"].get(k)),
                        None)
            if swap is not None and hidden.get(kind):
                cards.remove(hidden, kind)
                cards.add(other["pile"], kind)
                cards.remove(other["pile"], swap)
                cards.add(hidden, swap)
        if "destination" in other:
            other["destination"][s] = chooser.choice(["yttar", "beata", "tichih"])
        pending = other["pending"].get(str(s))
        if answers and pending is not None and pending[0] == "vote":
            pending[1] = not pending[1]
    deck = list(other["deck"])
    chooser.shuffle(deck)
    other["deck"] = "".join(deck)
    if answers and other["travel"] is not None and me not in other["dec"]["to_act"]:
        other["travel"]["picked"] = {}
    return other


@pytest.mark.parametrize("options", [{}, {"destination": True, "objection": True},
                                     {"thief": True, "junk-exchange": True}])
def test_non_interference(options: dict) -> None:
    """A seat's view, and its view of the events of its own moves, are the same whatever the
    other seats' hidden things are."""
    chooser = random.Random(5)
    rng = SeededRng(5)
    st = new_with(4, options, seed=5)
    checked = 0
    while E.result(st) is None:
        decision = E.decision(st)
        seat = chooser.choice(decision["to_act"])
        for me in range(4):
            other = _hide_differently(st, me, checked)
            assert E.view(st, me) == E.view(other, me)
            assert E.render_text(E.view(st, me)) == E.render_text(E.view(other, me))
        moves = list(E.legal_moves(st, seat))
        move = chooser.choice(moves)
        other = _hide_differently(st, seat, checked, answers=False)
        if move in list(E.legal_moves(other, seat)):
            r1, r2 = SeededRng(checked), SeededRng(checked)
            after, ev1 = E.apply(copy.deepcopy(st), seat, copy.deepcopy(move), r1)
            try:
                _, ev2 = E.apply(other, seat, copy.deepcopy(move), r2)
            except IllegalMove:
                ev2 = None
            # the end reveals destinations (§7): compare only while the game runs
            if ev2 is not None and not r1.draws and not r2.draws and E.result(after) is None:
                assert [E.view_event(e, seat) for e in ev1] == \
                    [E.view_event(e, seat) for e in ev2]
        E.apply(st, seat, move, rng)
        checked += 1
    assert checked > 50


def _assert_no_leak(st: dict, events: list[dict]) -> None:
    n = st["n"]
    for me in [None, *range(n)]:
        view = E.view(st, me)
        text = json.dumps(view)
        if me is None:
            assert "you" not in view
        else:
            assert view["you"]["hand"] == cards.canonical(st["hand"][me])
        for key in ("pile", "deck", "pending", "hidden_hands"):
            assert f'"{key}"' not in text
        for p in view["players"]:
            assert set(p) >= {"hand_size", "hidden_count"} and "hand" not in p
        for event in events:
            seen = E.view_event(event, me)
            private = event.get("private") or {}
            assert "private" not in seen
            if me is None or str(me) not in private:
                assert "yours" not in seen
            else:
                assert seen["yours"] == private[str(me)]


@pytest.mark.parametrize("options", [{"destination": True}, {"quality-of-choice": True,
                                                             "thief": True}])
def test_no_view_or_event_leaks(options: dict) -> None:
    chooser = random.Random(2)
    rng = SeededRng(2)
    st = new_with(3, options, seed=2)
    while E.result(st) is None:
        seat = chooser.choice(E.decision(st)["to_act"])
        _, events = E.apply(st, seat, chooser.choice(list(E.legal_moves(st, seat))), rng)
        _assert_no_leak(st, events)


def test_secret_moves() -> None:
    for t in ("discard", "object", "allow", "vote", "exchange", "finish_round", "pick"):
        assert E.is_secret({"type": t})
    for t in ("discard_public", "travel", "place_counter", "draw_counter", "steal", "resign"):
        assert not E.is_secret({"type": t})


# --------------------------------------------------------------------------- resigning


def test_resign_two_seats_ends_the_game() -> None:
    st = new(2)
    do(st, 1, {"type": "resign"})
    assert E.result(st)["winners"] == [0] and E.result(st)["reason"] == "resigned"
    refused(st, 0, {"type": "resign"}, "game_over")


def test_resign_out_of_turn_and_in_a_simultaneous_decision() -> None:
    st = new(3)
    hand = sum(st["hand"][2].values())
    deck = len(st["deck"])
    step = st["step"]
    do(st, 2, {"type": "resign"})
    assert st["resigned"][2] and st["hand"][2] == {} and len(st["deck"]) == deck + hand
    assert st["step"] == step and kind_of(st) == ("draft", [0])
    refused(st, 2, {"type": "resign"}, "not_your_turn")
    st = new_with(3, {"tickets-on-demand": True})
    st["phase"], st["pending"] = "centre_put", {}
    st["dec"] = {"kind": "discard", "to_act": [0, 1], "owed": {"0": 1, "1": 1}}
    do(st, 0, {"type": "discard_random"})
    do(st, 1, {"type": "resign"})
    assert kind_of(st)[0] == "plan" and sum(st["hand"][0].values()) == 11


def test_resign_of_the_seat_on_turn_skips_it() -> None:
    st = new(3)
    clear(st)
    st["hand"] = [{RAFT: 1}, {RAFT: 1}, {RAFT: 1}]
    at_move(st, 0)
    do(st, 0, {"type": "resign"})
    assert kind_of(st) == ("move", [1])
    do(st, 1, {"type": "end_move"})
    do(st, 2, {"type": "end_move"})
    assert st["round"] == 2 and st["start"] == 1
    assert st["hand"][0] == {} and kind_of(st)[1] != [0]
    do(st, 2, {"type": "resign"})
    assert E.result(st)["winners"] == [1]


# --------------------------------------------------------------------------- defaults, notation


@pytest.mark.parametrize("options", [{}, {"thief": True, "objection": True, "junk-exchange": True,
                                          "lost-tickets": True},
                                     {"quality-of-choice": True, "centre": True,
                                      "circular-rotation": True, "indiana-jones": True}])
def test_every_decision_kind_has_a_default(options: dict) -> None:
    kinds = set()
    for seed in range(3):
        chooser = random.Random(seed)
        rng = SeededRng(seed)
        st = new_with(4, options, seed)
        while E.result(st) is None:
            decision = E.decision(st)
            for late in decision["to_act"]:
                default = E.default_move(st, late)
                assert default is not None, decision
                E.check(st, late, default)
                kinds.add(decision["step_kind"])
            seat = chooser.choice(decision["to_act"])
            if chooser.random() < 0.3:
                move = E.default_move(st, seat)
            else:
                move = chooser.choice(list(E.legal_moves(st, seat)))
            E.apply(st, seat, move, rng)
    assert {"draft", "plan", "move"} <= kinds or {"qoc_draft", "plan", "move"} <= kinds


def test_notation_round_trips_and_refuses() -> None:
    samples = [
        {"type": "travel", "steps": [{"road": 1, "cards": {PIG: 1}},
                                     {"road": 10, "cards": {TROLL: 2}}]},
        {"type": "travel", "steps": [{"road": 8, "caravan": {RAFT: 1, DRAGON: 1, CLOUD: 1}}]},
        {"type": "travel", "steps": [{"roads": [20, 17, 19], "cards": {DRAGON: 1}}]},
        {"type": "travel", "steps": [{"road": 40, "ferryman": {}}]},
        {"type": "place_counter", "road": 13, "counter": TROLL, "hidden": True},
        {"type": "place_obstacle", "road": 13, "side": "ixara"},
        {"type": "finish_round", "keep": {"counter": DRAGON, "hidden": False},
         "discard": {RAFT: 2}},
        {"type": "finish_round", "keep": None},
        {"type": "vote", "allow": False}, {"type": "exchange", "left": RAFT},
        {"type": "steal", "victim": 2}, {"type": "discard_public", "cards": {RAFT: 3}},
    ]
    for move in samples:
        assert E.parse_move(E.format_move(move)) == move
    for t in MOVE_FIELDS:
        required, _ = MOVE_FIELDS[t]
        if not required:
            assert E.parse_move(E.format_move({"type": t})) == {"type": t}
    for text in ["travel 1", "place x y", "finish keep=", "vote maybe", "take", "zzz"]:
        with pytest.raises(IllegalMove) as err:
            E.parse_move(text)
        assert err.value.code == "bad_notation"


# --------------------------------------------------------------------------- playouts


COMBOS = [
    {},
    {"rounds": 3, "destination": True},
    {v: True for v, _ in O.TRAVEL_VARIANTS},
    {"tickets-on-demand": True, "lost-tickets": True, "junk-exchange": True, "centre": True,
     "circular-rotation": True, "travel-monopoly": True},
    {"eight-new-tickets": True, "thief": True, "non-stop": True, "ferryman": True},
    {"quality-of-choice": True, "objection": True, "substitution": True, "indiana-jones": True,
     "station-street": True, "hellish-road": True},
]


@pytest.mark.parametrize(("options", "seats"), list(itertools.product(COMBOS, [2, 4, 6])))
def test_playouts_keep_the_contract(options: dict, seats: int) -> None:
    game = random_playout(E, options, seats, seed=seats, check=True)
    assert E.result(game.state) is not None
    assert len(dump(game.state)) < 16_000


SINGLE = [{v: True} for v in O.VARIANT_IDS] + [{"destination": True}, {"rounds": 3}]


@pytest.mark.slow
@pytest.mark.parametrize(("options", "games"), [(c, 70) for c in COMBOS]
                         + [(c, 20) for c in SINGLE])
def test_many_playouts(options: dict, games: int) -> None:
    """About 900 random games over the combinations and every single variant."""
    biggest = 0
    for seed in range(games):
        seats = 2 + seed % 5
        game = random_playout(E, options, seats, seed)
        assert E.result(game.state) is not None
        biggest = max(biggest, len(dump(game.state)))
    assert biggest < 16_000


def test_random_variant_mixes() -> None:
    chooser = random.Random(8)
    exclusive = set(O.EXCLUSIVE_DEALS)
    for seed in range(20):
        flags = {v: chooser.random() < 0.4 for v in O.VARIANT_IDS if v not in exclusive}
        flags[chooser.choice(O.EXCLUSIVE_DEALS)] = chooser.random() < 0.7
        game = random_playout(E, flags, 2 + seed % 5, seed)
        assert E.result(game.state) is not None


BUSY = ("travel", "place_counter", "place_obstacle", "substitute", "steal", "object")


@pytest.mark.parametrize(("options", "seats"), [
    ({"thief": True, "indiana-jones": True, "non-stop": True}, 3),
    ({"quality-of-choice": True, "ferryman": True, "station-street": True,
      "indiana-jones": True}, 4),
    ({"tickets-on-demand": True, "junk-exchange": True, "centre": True, "objection": True,
      "circular-rotation": True, "lost-tickets": True, "substitution": True}, 5),
])
def test_busy_playouts_keep_the_contract(options: dict, seats: int) -> None:
    """Random games that prefer travelling, placing and stealing (uniform play mostly passes),
    so caravans, picks, bridges, thefts, forced steps and objections all happen, checked
    against the contract at every step."""
    from tests.engines.playout import ContractChecker

    chooser = random.Random(seats)
    rng = SeededRng(seats)
    st = new_with(seats, options, seed=seats)
    checker = ContractChecker(E, seats, chooser)
    seen: set[str] = set()
    while E.result(st) is None:
        decision = E.decision(st)
        seat = chooser.choice(decision["to_act"])
        moves = list(E.legal_moves(st, seat))
        busy = [m for m in moves if m["type"] in BUSY]
        move = chooser.choice(busy if busy and chooser.random() < 0.9 else moves)
        checker.before(st, seat, decision, moves, move)
        _, events = E.apply(st, seat, move, rng)
        checker.after(st, seat, decision)
        seen.add(decision["step_kind"])
        _assert_no_leak(st, events)
    assert {"move", "pick", "plan"} <= seen
