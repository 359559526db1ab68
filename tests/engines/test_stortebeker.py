"""Störtebeker: the spec's worked scenarios (§11 S1-S20) as tests, with options and notation."""

from __future__ import annotations

import copy
import itertools

import pytest

from engines.contract import IllegalMove
from engines.rng import ScriptedRng
from engines.stortebeker import ENGINE as E
from engines.stortebeker.state import attack_bonus
from engines.stortebeker.turn import finish
from tests.engines.stortebeker_helpers import (
    DATA,
    captured,
    discard,
    game,
    hand,
    harbour,
    of_type,
    put,
    rejects,
    sea,
    send,
    side_of,
    to_board,
    turn_of,
)

SHIPS = list(DATA.ship_order)
CARDS = list(DATA.card_order)


# ---- setup and options (S1, S2, §9) ------------------------------------------------------


def test_s1_setup_three_players() -> None:
    state = game(3)
    assert state["slots"] == SHIPS[:4]
    assert state["harbour"] == SHIPS[4:19] and state["removed"] == SHIPS[19:]
    assert [state["hands"][s] for s in "012"] == [CARDS[0:6], CARDS[6:12], CARDS[12:18]]
    assert len(state["deck"]) == 48 and state["discard"] == []
    assert E.decision(state) == {"step": 0, "step_kind": "play_cards", "to_act": [0],
                                 "legal_moves_complete": True}
    assert E.view(state, 1)["harbour"] == {"count": 15, "visible": [SHIPS[4]]}


def test_s2_two_players_three_ships_and_open_harbour() -> None:
    state = game(2, **{"two-player-three-ships": True, "open-harbour": True})
    assert state["slots"] == SHIPS[:3] and state["harbour"] == SHIPS[3:15]
    assert E.view(state, None)["harbour"]["visible"] == SHIPS[3:6]
    assert len(state["removed"]) == 15 and len(state["deck"]) == 54
    with pytest.raises(IllegalMove) as err:
        E.validate_options({"two-player-three-ships": True, "open-harbour": True}, 3)
    assert err.value.code == "invalid_options" and "2 players" in err.value.message


def test_options_extended_preset_and_stability() -> None:
    four = E.validate_options({"extended": True}, 4)
    assert all(four[r] for r in ("colour-bonus", "open-harbour", "failed-boarding-ends",
                                 "counter-ends-boarding"))
    assert four["two-player-three-ships"] is False
    assert E.validate_options({"extended": True}, 2)["two-player-three-ships"] is True
    assert four["stall-limit"] is False and E.validate_options({}, 3)["stall-limit"] is False
    stall = E.validate_options({"stall-limit": True, "extended": True}, 3)
    assert stall["stall-limit"] is True and E.validate_options(stall, 3) == stall
    for opts, seats in (({}, 2), ({"extended": True}, 3), ({"colour-bonus": True}, 4)):
        once = E.validate_options(opts, seats)
        assert E.validate_options(once, seats) == once
    for bad in ({"colour-bonus": 1}, {"no-such-rule": True}, {"card_data": "nope"},
                {"card_data": "../x"}):
        with pytest.raises(IllegalMove) as err:
            E.validate_options(bad, 3)
        assert err.value.code == "invalid_options"
    assert {v.id: dict(v.options) for v in E.variants} == {
        "basic": {}, "extended": {"extended": True}}


# ---- S3: the rulebook's black ship --------------------------------------------------------


def _s3() -> dict:
    state = game(3)
    sea(state, "black-4", "green-1", "blue-1", "red-1")
    harbour(state, "yellow-6", "blue-2", "green-2")
    captured(state, 0, "black-6", "black-1")  # 10
    captured(state, 1, "red-6", "blue-3")  # 12
    captured(state, 2, "red-5")  # 7
    put(state, 0, "black-4", "rum-03")
    hand(state, 0, "rum-04", "beans-05", "water-07", "biscuits-05", "bananas-03", "pirate2-1")
    put(state, 1, "black-4", "rum-05", "rum-06", "meat-04", "pirate4-1")
    hand(state, 1, "beans-06", fill=True)
    put(state, 2, "black-4", "meat-01")
    turn_of(state, 0, 7)  # round 3
    return state


def test_s3_cannon_boarding_and_counter_attack() -> None:
    state = _s3()
    assert [E.view(state, s)["scores"][str(s)]["points"] for s in range(3)] == [10, 12, 7]
    send(state, 0, {"type": "place", "card": "rum-04", "ship": "black-4"})
    send(state, 0, {"type": "place", "card": "beans-05", "ship": "black-4"})
    events = send(state, 0, {"type": "fire_cannon", "card": "water-07", "ship": "black-4"},
                  dice=[4, 1])
    assert of_type(events, "cannon_dice")[0]["kinds"] == ["meat", "water"]
    assert E.decision(state)["step_kind"] == "cannon_take"
    assert E.view(state, 2)["decision"]["candidates"] == ["meat-01", "meat-04"]
    events = send(state, 0, {"type": "cannon_take", "card": "meat-01"})
    assert of_type(events, "cannon_hit")[0]["to"] == "side"
    assert side_of(state, "black-4", 0)["prov"] == ["rum-03", "rum-04", "beans-05", "meat-01"]
    assert side_of(state, "black-4", 2)["prov"] == []
    assert of_type(events, "cannon_missed")[0]["kind"] == "water"
    assert state["dec"] == {"kind": "board", "seat": 0, "eligible": ["black-4"]}
    events = send(state, 0, {"type": "board", "ship": "black-4"}, dice=[3, 4])
    assert of_type(events, "boarded")[0] | {} == {
        "type": "boarded", "seat": 0, "ship": "black-4", "dice": [3, 4], "value": 8,
        "defence": 8, "pirates": [], "success": True}
    assert state["dec"] == {"kind": "counter_attack", "seat": 1, "ship": "black-4",
                            "best": {"seat": 0, "value": 8}, "missing": {"beans": 1}}
    events = send(state, 1, {"type": "counter_attack", "complete": ["beans-06"]}, dice=[2, 4])
    assert of_type(events, "counter_attacked")[0]["value"] == 10
    capture = of_type(events, "captured")[0]
    assert (capture["seat"], capture["score"]) == (1, 17)
    assert state["discard"] == ["water-07", "beans-05", "beans-06", "meat-01", "meat-04",
                                "pirate4-1", "rum-03", "rum-04", "rum-05", "rum-06"]
    assert state["slots"][0] == "yellow-6" and E.view(state, 1)["harbour"]["visible"] == [
        "blue-2"]
    assert len(state["hands"]["0"]) == 6 and len(state["hands"]["1"]) == 5
    assert state["dec"] == {"kind": "play_cards", "seat": 1}


def test_s3_with_counter_ends_boarding_is_the_same() -> None:
    state = _s3()
    state["options"]["counter-ends-boarding"] = True
    send(state, 0, {"type": "play_cards",
                    "place": [{"card": "rum-04", "ship": "black-4"},
                              {"card": "beans-05", "ship": "black-4"}],
                    "cannon": {"card": "water-07", "ship": "black-4"}}, dice=[4, 1])
    send(state, 0, {"type": "cannon_take", "card": "meat-01"})
    send(state, 0, {"type": "board", "ship": "black-4"}, dice=[3, 4])
    send(state, 1, {"type": "counter_attack", "complete": ["beans-06"]}, dice=[2, 4])
    assert state["captured"]["1"][-1] == "black-4"
    assert state["dec"] == {"kind": "play_cards", "seat": 1}


# ---- S4, S5: scoring ------------------------------------------------------------------------


def _ended(state: dict) -> dict:
    finish(DATA, state, "final_round_complete", [])
    return E.result(state)


def test_s4_colour_bonus() -> None:
    state = game(3, **{"colour-bonus": True})
    captured(state, 1, "yellow-1", "yellow-2", "yellow-6", "black-4", "black-6", "blue-6",
             "green-3")
    captured(state, 0, "red-6", "red-5", "blue-5", "blue-4", "green-6", "green-5", "black-5")
    captured(state, 2, "blue-1", "red-4", "yellow-4")
    assert _ended(state) == {"winners": [1], "scores": {"0": 46, "1": 48, "2": 12},
                             "reason": "final_round_complete"}
    assert E.view(state, None)["scores"]["1"]["track"] == 4
    state["options"]["colour-bonus"] = False
    state["result"] = None
    assert _ended(state)["winners"] == [0]


def test_s5_tie_break_by_ships_then_shared() -> None:
    state = game(2)
    captured(state, 0, "black-1", "blue-1", "green-1", "red-6", "green-6", "black-6")
    captured(state, 1, "black-5", "blue-5", "green-5", "red-5", "yellow-4")
    assert _ended(state) == {"winners": [0], "scores": {"0": 30, "1": 30},
                             "reason": "final_round_complete"}
    captured(state, 1, "black-5", "blue-5", "green-5", "red-5", "black-2", "red-1")
    state["result"] = None
    assert _ended(state)["winners"] == [0, 1]


# ---- S6, S7: placement, cannon and exchange errors -------------------------------------


def _s6() -> dict:
    state = game(3)
    sea(state, "red-1", "blue-3", "red-3", "green-1")
    put(state, 0, "red-1", "meat-03")
    hand(state, 0, "water-09", "meat-05", "pirate3-2", "rum-08", "beans-09", "bananas-04")
    turn_of(state, 0, 4)
    return state


def test_s6_placement_and_cannon_errors() -> None:
    state = _s6()

    def play(place: list[tuple[str, str]], **rest: object) -> dict:
        return {"type": "play_cards", "place": [{"card": c, "ship": s} for c, s in place],
                **rest}

    rejects(state, 0, play([("water-09", "red-1")]), "provision_not_required")
    rejects(state, 0, play([("meat-05", "red-1"), ("beans-09", "blue-3"),
                            ("bananas-04", "blue-3")]), "provision_limit_exceeded")
    rejects(state, 0, play([("pirate3-2", "blue-3")],
                           exchange={"discard": ["rum-08", "water-09"]}), "too_many_pirates")
    rejects(state, 0, play([("beans-09", "blue-3")]), "wrong_card_count")
    rejects(state, 0, play([("beans-09", "blue-3"), ("bananas-04", "blue-3")],
                           cannon={"card": "rum-08", "ship": "red-3"}),
            "cannon_needs_own_provision")
    rejects(state, 0, {"type": "place", "card": "water-09", "ship": "red-1"},
            "provision_not_required")
    rejects(state, 0, {"type": "place", "card": "pirate3-2", "ship": "blue-3"},
            "too_many_pirates")
    rejects(state, 0, {"type": "place", "card": "rum-08", "ship": "no-ship"}, "unknown_ship")
    rejects(state, 0, {"type": "place", "card": "rum-01", "ship": "red-3"}, "card_not_in_hand")
    legal = play([("beans-09", "blue-3"), ("pirate3-2", "blue-3")],
                 cannon={"card": "rum-08", "ship": "blue-3"})
    assert E.is_secret(legal)
    send(state, 0, legal, dice=[6, 6])
    assert side_of(state, "blue-3", 0) == {"prov": ["beans-09"], "pir": ["pirate3-2"],
                                           "rev": []}


def test_s7_exchange_and_its_errors() -> None:
    state = _s6()
    discard(state, "pirate4-2", "meat-06", "water-10")
    rejects(state, 0, {"type": "exchange_discard", "cards": ["water-09"]},
            "exchange_discard_count")
    send(state, 0, {"type": "exchange_discard", "cards": ["bananas-04", "beans-09",
                                                          "water-09"]})
    rejects(state, 0, {"type": "exchange_take", "card": "beans-09"}, "exchange_take_invalid")
    rejects(state, 0, {"type": "place", "card": "meat-05", "ship": "red-3"}, "wrong_decision")
    send(state, 0, {"type": "exchange_take", "card": "pirate4-2"})
    send(state, 0, {"type": "exchange_take", "card": "meat-06"})
    rejects(state, 0, {"type": "exchange_take", "card": "water-10"}, "exchange_take_count")
    assert state["discard"] == ["water-10", "bananas-04", "beans-09", "water-09"]
    assert state["areas"]["0"] == ["pirate4-2", "meat-06"] and len(state["hands"]["0"]) == 3
    assert E.view(state, 1)["exchange_areas"]["0"] == ["pirate4-2", "meat-06"]
    send(state, 0, {"type": "end_play"})
    assert state["dec"] == {"kind": "board", "seat": 0, "eligible": ["red-1"]}
    events = send(state, 0, {"type": "end_boarding"})
    assert len(state["hands"]["0"]) == 6
    assert len(of_type(events, "drew")[0]["cards"]) == 1
    combined = game(3)
    discard(combined, "pirate4-2", "meat-06", "water-10")
    hand(combined, 0, "water-09", "meat-05", "pirate3-2", "rum-08", "beans-09", "bananas-04")
    turn_of(combined, 0, 4)
    rejects(combined, 0, {"type": "play_cards", "exchange": {
        "discard": ["bananas-04", "beans-09", "water-09"],
        "take": ["pirate4-2", "meat-06", "water-10"]}}, "exchange_take_count")


# ---- S8-S10: cannon double, first round, failed boarding -----------------------------------


def test_s8_cannon_double_without_room_trims_the_victim() -> None:
    state = game(3)
    sea(state, "blue-2", "red-1", "green-1", "yellow-1")
    put(state, 0, "blue-2", "water-05", "rum-07")
    put(state, 1, "blue-2", "rum-02", "pirate2-2")
    put(state, 2, "blue-2", "rum-03", "water-08")
    hand(state, 0, "beans-01", fill=True)
    turn_of(state, 0, 4)
    state["play"]["u"] = 2  # two cards already used: the cannon is the last
    send(state, 0, {"type": "fire_cannon", "card": "beans-01", "ship": "blue-2"}, dice=[5, 5])
    assert state["dec"]["kind"] == "cannon_take"
    assert state["dec"]["candidates"] == ["rum-02", "rum-03"]
    events = send(state, 0, {"type": "cannon_take", "card": "rum-02"})
    hits = of_type(events, "cannon_hit")
    assert [(h["card"], h["to"]) for h in hits] == [("rum-02", "discard"), ("rum-03", "discard")]
    assert of_type(events, "pirates_trimmed") == [
        {"type": "pirates_trimmed", "seat": 1, "ship": "blue-2", "cards": ["pirate2-2"]}]
    assert side_of(state, "blue-2", 2)["prov"] == ["water-08"]
    assert side_of(state, "blue-2", 1) == {"prov": [], "pir": [], "rev": []}


def test_s9_no_boarding_in_the_first_round() -> None:
    state = game(3)
    sea(state, "green-1", "red-1", "blue-1", "yellow-1")
    hand(state, 1, "beans-03", "water-04", "water-05", "water-06", "water-08", "water-09")
    turn_of(state, 1, 2)
    send(state, 1, {"type": "place", "card": "beans-03", "ship": "green-1"})
    send(state, 1, {"type": "exchange_discard", "cards": ["water-04", "water-05"]})
    send(state, 1, {"type": "end_play"})
    assert state["active"] == 2 and state["dec"]["kind"] == "play_cards"


def _s10(**options: object) -> dict:
    state = game(3, **options)
    sea(state, "green-4", "yellow-1", "red-1", "blue-1")
    put(state, 0, "green-4", "water-03", "meat-02", "beans-07", "pirate2-1", "pirate3-1")
    put(state, 0, "yellow-1", "beans-08")
    to_board(state, 0, 4)
    return state


def test_s10_failed_boarding_pays_and_trims() -> None:
    state = _s10()
    assert state["dec"]["eligible"] == ["green-4", "yellow-1"]
    events = send(state, 0, {"type": "board", "ship": "green-4"}, dice=[1, 1, 4, 1])
    boarded = of_type(events, "boarded")[0]
    assert (boarded["value"], boarded["defence"], boarded["success"]) == (8, 9, False)
    assert of_type(events, "boarding_penalty")[0]["cards"] == ["meat-02", "water-03"]
    assert of_type(events, "pirates_trimmed")[0]["cards"] == ["pirate2-1"]
    assert side_of(state, "green-4", 0) == {"prov": ["beans-07"], "pir": ["pirate3-1"],
                                            "rev": ["pirate3-1"]}
    assert state["dec"] == {"kind": "board", "seat": 0, "eligible": ["yellow-1"]}
    assert E.view(state, 1)["sea"][0]["sides"]["0"]["pirates"] == [
        {"face_down": True, "value": 3, "revealed": True}]
    rejects(state, 0, {"type": "board", "ship": "green-4"}, "ship_not_eligible")


def test_s10_with_failed_boarding_ends() -> None:
    state = _s10(**{"failed-boarding-ends": True})
    send(state, 0, {"type": "board", "ship": "green-4"}, dice=[1, 1, 4, 1])
    assert state["active"] == 1 and state["dec"]["kind"] == "play_cards"


# ---- S11-S13: counter-attacks ------------------------------------------------------------


def _s11(**options: object) -> dict:
    state = game(4, **options)
    sea(state, "red-2", "green-1", "blue-1", "yellow-1")
    put(state, 0, "red-2", "water-01", "beans-04")
    put(state, 1, "red-2", "water-11", "beans-03")
    put(state, 2, "red-2", "water-12")
    hand(state, 2, "beans-10", "water-13", "pirate3-3")
    to_board(state, 0, 5)
    return state


def test_s11_counter_attack_order_and_tie() -> None:
    state = _s11()
    send(state, 0, {"type": "board", "ship": "red-2"}, dice=[4, 3])
    assert state["dec"]["seat"] == 1 and state["dec"]["missing"] == {}
    send(state, 1, {"type": "counter_attack", "complete": []}, dice=[6, 3])
    assert state["dec"]["seat"] == 2 and state["dec"]["best"] == {"seat": 1, "value": 9}
    events = send(state, 2, {"type": "counter_attack", "complete": ["beans-10"]}, dice=[4, 5])
    assert of_type(events, "counter_attacked")[0]["leads"] is False
    assert of_type(events, "captured")[0]["seat"] == 1 and state["captured"]["1"] == ["red-2"]


def test_s12_counter_attack_errors() -> None:
    state = _s11()
    send(state, 0, {"type": "board", "ship": "red-2"}, dice=[4, 3])
    send(state, 1, {"type": "counter_attack", "complete": []}, dice=[6, 3])
    rejects(state, 2, {"type": "counter_attack", "complete": ["beans-10", "water-13"]},
            "completion_mismatch")
    rejects(state, 2, {"type": "counter_attack", "complete": ["pirate3-3"]}, "no_new_pirates")
    rejects(state, 2, {"type": "counter_attack", "complete": ["beans-05"]}, "card_not_in_hand")
    rejects(state, 0, {"type": "board", "ship": "red-2"}, "not_your_turn")
    hand(state, 2, "water-13", "pirate3-3")
    assert list(E.legal_moves(state, 2)) == [{"type": "decline_counter"}]


def test_counter_attack_lists_each_completion_the_rules_tell_apart() -> None:
    """A symbol card adds 1 to the counter-attack but leaves the hand: which card completes
    the load is a real choice, so both are listed; a second plain card is the same choice."""
    state = game(3)
    sea(state, "green-2", "green-1", "blue-1", "yellow-1")
    put(state, 0, "green-2", "water-03", "biscuits-03")
    put(state, 1, "green-2", "water-04")
    hand(state, 1, "biscuits-01", "biscuits-05", "biscuits-06", "rum-04")
    to_board(state, 0, 4)
    send(state, 0, {"type": "board", "ship": "green-2"}, dice=[4, 3])
    assert list(E.legal_moves(state, 1)) == [
        {"type": "counter_attack", "complete": ["biscuits-05"]},
        {"type": "counter_attack", "complete": ["biscuits-01"]}, {"type": "decline_counter"}]
    E.check(state, 1, {"type": "counter_attack", "complete": ["biscuits-06"]})
    plain = copy.deepcopy(state)
    events = send(plain, 1, {"type": "counter_attack", "complete": ["biscuits-05"]}, dice=[3, 4])
    assert of_type(events, "captured")[0]["seat"] == 0 and "biscuits-01" in plain["hands"]["1"]
    events = send(state, 1, {"type": "counter_attack", "complete": ["biscuits-01"]}, dice=[3, 4])
    assert of_type(events, "counter_attacked")[0]["value"] == 8
    assert of_type(events, "captured")[0]["seat"] == 1


def test_counter_attack_completions_combine_the_missing_kinds() -> None:
    state = game(3)
    sea(state, "black-5", "green-1", "blue-1", "yellow-1")
    put(state, 0, "black-5", "water-03", "biscuits-03", "meat-03")
    put(state, 1, "black-5", "water-04")
    hand(state, 1, "biscuits-01", "biscuits-05", "meat-01", "meat-04", "meat-05")
    to_board(state, 0, 4)
    send(state, 0, {"type": "board", "ship": "black-5"}, dice=[6, 4])
    assert state["dec"]["missing"] == {"biscuits": 1, "meat": 1}
    listed = [m["complete"] for m in E.legal_moves(state, 1) if m["type"] == "counter_attack"]
    assert sorted(listed) == [["biscuits-01", "meat-01"], ["biscuits-01", "meat-04"],
                              ["biscuits-05", "meat-01"], ["biscuits-05", "meat-04"]]
    hand(state, 1, "biscuits-01", "meat-05")
    assert list(E.legal_moves(state, 1)) == [
        {"type": "counter_attack", "complete": ["biscuits-01", "meat-05"]},
        {"type": "decline_counter"}]


def test_s13_counter_ends_boarding() -> None:
    for option, expect in ((True, "play_cards"), (False, "board")):
        state = _s11(**{"counter-ends-boarding": option})
        put(state, 0, "green-1", "beans-02")
        to_board(state, 0, 5)
        send(state, 0, {"type": "board", "ship": "red-2"}, dice=[4, 3])
        send(state, 1, {"type": "counter_attack", "complete": []}, dice=[6, 3])
        send(state, 2, {"type": "decline_counter"})
        assert state["dec"]["kind"] == expect
        if expect == "board":
            assert state["dec"]["eligible"] == ["green-1"]


def test_the_penalty_and_the_trim_keep_the_strongest_load() -> None:
    """The engine chooses for the player: of two biscuits the plain one goes, of three pirates
    the weakest, so what stays attacks highest of every choice the player could make."""
    state = game(3)
    sea(state, "blue-6", "green-1", "red-1", "yellow-1")
    pirates = ["pirate2-1", "pirate2-2", "pirate3-1"]
    put(state, 0, "blue-6", "water-03", "biscuits-01", "biscuits-05", "meat-03", *pirates)
    to_board(state, 0, 4)
    events = send(state, 0, {"type": "board", "ship": "blue-6"}, dice=[1, 1, 3, 1])
    assert of_type(events, "boarding_penalty")[0]["cards"] == ["biscuits-05", "water-03"]
    assert of_type(events, "pirates_trimmed")[0]["cards"] == ["pirate2-1"]
    kept = side_of(state, "blue-6", 0)
    assert (kept["prov"], kept["pir"]) == (["biscuits-01", "meat-03"], ["pirate2-2", "pirate3-1"])
    choices = [attack_bonus(DATA, {"prov": [biscuit, "meat-03"], "pir": list(two)})
               for biscuit in ("biscuits-01", "biscuits-05")
               for two in itertools.combinations(pirates, 2)]
    assert attack_bonus(DATA, kept) == max(choices) == 6


# ---- S14-S16: harbour, end, reshuffle ----------------------------------------------------


def test_s14_two_captures_and_the_last_ship() -> None:
    state = game(3)
    sea(state, "green-2", "green-1", "blue-1", "yellow-1")
    harbour(state, "red-5")
    put(state, 0, "green-1", "beans-02")
    put(state, 0, "yellow-1", "beans-03")
    to_board(state, 0, 4)
    send(state, 0, {"type": "board", "ship": "green-1"}, dice=[6, 6])
    events = send(state, 0, {"type": "board", "ship": "yellow-1"}, dice=[6, 6])
    # nothing is eligible any more: boarding is over by itself, and sail-in follows
    assert state["slots"] == ["green-2", "red-5", "blue-1", None]
    assert of_type(events, "last_ship_sailed") and state["armed"]
    assert state["final_capture"] is False


def test_s15_the_end_after_the_last_seat_of_the_round() -> None:
    for capturer, ends_at_once in ((0, False), (2, True)):
        state = game(3)
        sea(state, "green-1", "blue-1", "red-1", "yellow-1")
        harbour(state)
        state["armed"] = True
        put(state, capturer, "green-1", "beans-02")
        to_board(state, capturer, 6 + capturer)
        send(state, capturer, {"type": "board", "ship": "green-1"}, dice=[6, 6])
        assert state["final_capture"] and state["slots"][0] is None
        if ends_at_once:
            assert E.result(state)["reason"] == "final_round_complete"
            continue
        assert E.result(state) is None
        for seat in (1, 2):
            assert state["active"] == seat
            send(state, seat, {"type": "finish_play"})
            if state["dec"]["kind"] == "board":
                send(state, seat, {"type": "end_boarding"})
        assert E.result(state)["reason"] == "final_round_complete"


def _pass_turn(state: dict, seat: int) -> None:
    """The seat's turn, done the plainest way: `finish_play`, then no boarding."""
    assert state["active"] == seat and state["dec"] == {"kind": "play_cards", "seat": seat}
    send(state, seat, {"type": "finish_play"})
    if state["dec"]["kind"] == "board":
        send(state, seat, {"type": "end_boarding"})


def test_without_the_stall_limit_a_game_without_captures_goes_on() -> None:
    state = game(3)
    state["quiet"] = 100
    turn_of(state, 2, 6)
    _pass_turn(state, 2)
    assert E.result(state) is None and state["quiet"] == 101 and not state["stall_end"]
    assert (state["active"], state["turn"]) == (0, 7)


def test_the_stall_limit_ends_the_game_with_the_round() -> None:
    state = game(3, **{"stall-limit": True})
    state["quiet"] = 12 * 3 - 1
    turn_of(state, 0, 4)
    _pass_turn(state, 0)
    assert state["stall_end"] and E.result(state) is None
    _pass_turn(state, 1)
    _pass_turn(state, 2)
    assert E.result(state)["reason"] == "stall_limit"


def test_a_capture_before_the_round_ends_resets_the_stall_limit() -> None:
    state = game(3, **{"stall-limit": True})
    sea(state, "green-1", "red-1", "blue-1", "yellow-1")
    put(state, 1, "green-1", "beans-02")
    state["quiet"] = 12 * 3 - 1
    turn_of(state, 0, 4)
    _pass_turn(state, 0)
    assert state["stall_end"]
    send(state, 1, {"type": "finish_play"})
    send(state, 1, {"type": "board", "ship": "green-1"}, dice=[6, 6])
    assert state["captured"]["1"] == ["green-1"]
    assert state["quiet"] == 0 and not state["stall_end"]
    _pass_turn(state, 2)
    assert E.result(state) is None and state["active"] == 0


def test_s16_reshuffle_only_when_a_card_must_be_drawn() -> None:
    state = game(3)
    pile = [c for c in CARDS if c not in state["hands"]["0"]][:18]
    hand(state, 0, *state["hands"]["0"][:6])
    state["deck"] = [pile[0]]
    discard(state, *pile[1:])
    turn_of(state, 0, 1)
    used = state["hands"]["0"][:3]
    send(state, 0, {"type": "exchange_discard", "cards": used})
    assert len(state["discard"]) == 20
    events = E.apply(state, 0, {"type": "end_play"}, ScriptedRng([list(range(20))]))[1]
    reshuffled = of_type(events, "reshuffled")[0]
    assert reshuffled["cards"] == 20 and len(state["hands"]["0"]) == 6
    assert state["hands"]["0"][-3:] == [pile[0], pile[1], pile[2]]
    assert len(state["deck"]) == 18 and state["discard"] == []


def test_s16_counter_case_no_reshuffle_when_the_deck_just_empties() -> None:
    state = game(3)
    hand(state, 0, *state["hands"]["0"][:6])
    state["deck"] = state["deck"][:3]
    turn_of(state, 0, 1)
    send(state, 0, {"type": "exchange_discard", "cards": state["hands"]["0"][:3]})
    send(state, 0, {"type": "end_play"})
    assert state["deck"] == [] and len(state["discard"]) == 3


# ---- S17, S18: short hands, boarding errors -----------------------------------------------


def test_s17_short_hand() -> None:
    state = game(3)
    sea(state, "black-1", "red-1", "blue-1", "yellow-1")
    hand(state, 1, "water-02", "rum-04")
    turn_of(state, 1, 5)
    assert state["play"]["k"] == 2
    rejects(state, 1, {"type": "play_cards", "place": [{"card": "water-02", "ship": "black-1"}]},
            "wrong_card_count")
    send(state, 1, {"type": "play_cards", "exchange": {"discard": ["water-02", "rum-04"]}})
    lonely = game(3)
    sea(lonely, "green-1", "red-1", "blue-1", "yellow-1")
    hand(lonely, 1, "pirate2-3")
    turn_of(lonely, 1, 5)
    assert list(E.legal_moves(lonely, 1)) == [{"type": "end_play"}]
    send(lonely, 1, {"type": "play_cards"})
    busy = game(3)
    sea(busy, "green-1", "red-1", "blue-1", "yellow-1")
    hand(busy, 1, "beans-03")
    turn_of(busy, 1, 5)
    rejects(busy, 1, {"type": "end_play"}, "must_play_cards")
    rejects(busy, 1, {"type": "play_cards"}, "must_play_cards")


def test_s18_boarding_errors() -> None:
    state = _s10()
    rejects(state, 0, {"type": "board", "ship": "red-1"}, "ship_not_eligible")
    rejects(state, 0, {"type": "board", "ship": "black-1"}, "unknown_ship")
    rejects(state, 0, {"type": "place", "card": "water-02", "ship": "red-1"}, "wrong_decision")


# ---- S19, S20: views and resignation -----------------------------------------------------


def test_s19_views_hide_pirates_until_revealed() -> None:
    state = _s6()
    events = send(state, 0, {"type": "place", "card": "pirate3-2", "ship": "red-1"})
    assert E.is_secret({"type": "place", "card": "pirate3-2", "ship": "red-1"})
    assert E.view_event(events[0], 1) == {"type": "placed", "seat": 0, "ship": "red-1",
                                          "pirate": True}
    assert E.view_event(events[0], 0)["card"] == "pirate3-2"
    assert E.view(state, 1)["sea"][0]["sides"]["0"] == {
        "provisions": ["meat-03"], "pirates": [{"face_down": True}]}
    assert E.view(state, 0)["sea"][0]["sides"]["0"]["pirates"] == [
        {"id": "pirate3-2", "value": 3, "revealed": False}]
    for seat in (1, 2, None):
        text = str(E.view(state, seat)) + E.render_text(E.view(state, seat))
        assert "pirate3-2" not in text
        assert not any(c in text for c in state["deck"] + state["hands"]["0"])
        assert not any(s in text for s in state["removed"] + state["harbour"][1:])


def test_s20_resignation() -> None:
    state = game(3)
    sea(state, "red-2", "green-1", "blue-1", "yellow-1")
    put(state, 0, "red-2", "water-01", "beans-04")
    put(state, 1, "red-2", "water-11")
    to_board(state, 0, 4)
    step = state["step"]
    send(state, 1, {"type": "resign"})
    assert state["step"] == step + 1 and state["hands"]["1"] == []
    assert side_of(state, "red-2", 1)["prov"] == ["water-11"]
    send(state, 0, {"type": "board", "ship": "red-2"}, dice=[6, 6])
    assert state["captured"]["0"] == ["red-2"]
    quiet = state["quiet"]
    send(state, 0, {"type": "end_boarding"}) if state["dec"]["kind"] == "board" else None
    assert state["active"] == 2 and state["turn"] == 6
    assert state["quiet"] == quiet  # seat 1's turn passed (a capture turn reset it first)
    send(state, 2, {"type": "resign"})
    assert E.result(state) == {"winners": [0], "reason": "resigned",
                               "scores": {"0": 3, "1": 0, "2": 0}}


# ---- timeouts and notation ---------------------------------------------------------------


def test_default_moves_per_decision_kind() -> None:
    state = _s3()
    assert E.default_move(state, 0) == {"type": "finish_play"}
    assert E.is_secret({"type": "finish_play"})
    send(state, 0, {"type": "finish_play"})
    assert state["dec"]["seat"] != 0 or state["dec"]["kind"] != "play_cards"
    s10 = _s10()
    assert E.default_move(s10, 0) == {"type": "end_boarding"}
    s11 = _s11()
    send(s11, 0, {"type": "board", "ship": "red-2"}, dice=[4, 3])
    assert E.default_move(s11, 1) == {"type": "decline_counter"}
    s8 = _s3()
    send(s8, 0, {"type": "place", "card": "rum-04", "ship": "black-4"})
    send(s8, 0, {"type": "place", "card": "beans-05", "ship": "black-4"})
    send(s8, 0, {"type": "fire_cannon", "card": "water-07", "ship": "black-4"}, dice=[4, 1])
    assert E.default_move(s8, 0) == {"type": "cannon_take", "card": "meat-01"}


def test_notation_round_trips() -> None:
    for text, move in [
        ("place rum-04 black-4", {"type": "place", "card": "rum-04", "ship": "black-4"}),
        ("discard water-07 biscuits-05", {"type": "exchange_discard",
                                          "cards": ["water-07", "biscuits-05"]}),
        ("take pirate4-2", {"type": "exchange_take", "card": "pirate4-2"}),
        ("fire water-07 black-4", {"type": "fire_cannon", "card": "water-07",
                                   "ship": "black-4"}),
        ("end", {"type": "end_play"}), ("finish", {"type": "finish_play"}),
        ("loot meat-01", {"type": "cannon_take", "card": "meat-01"}),
        ("board black-4", {"type": "board", "ship": "black-4"}),
        ("end-boarding", {"type": "end_boarding"}),
        ("counter beans-06", {"type": "counter_attack", "complete": ["beans-06"]}),
        ("counter -", {"type": "counter_attack", "complete": []}),
        ("decline", {"type": "decline_counter"}), ("resign", {"type": "resign"}),
        ("play place=rum-04@black-4 discard=a-1,b-2 take=c-3 cannon=water-07@black-4",
         {"type": "play_cards", "place": [{"card": "rum-04", "ship": "black-4"}],
          "exchange": {"discard": ["a-1", "b-2"], "take": ["c-3"]},
          "cannon": {"card": "water-07", "ship": "black-4"}}),
    ]:
        assert E.parse_move(text) == move
        assert E.format_move(move) == text
    for bad in ("", "place", "board", "play take=x", "jump x", "place a+ b"):
        with pytest.raises(IllegalMove) as err:
            E.parse_move(bad)
        assert err.value.code == "bad_notation"
