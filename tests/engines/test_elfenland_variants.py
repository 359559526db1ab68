"""Elfenland race variants: the worked scenarios S16-S25 of docs/rules/elfenland.md (spec §11),
and option validation of the variant combinations (§3.1, §9)."""

from __future__ import annotations

import pytest

from engines.contract import IllegalMove
from engines.elfenland import ENGINE as E
from engines.elfenland import cards
from engines.elfenland.race import flow
from engines.rng import ScriptedRng, SeededRng
from tests.engines.test_elfenland import (
    CLOUD,
    CYC,
    DRAGON,
    PIG,
    RAFT,
    TROLL,
    UNI,
    B,
    at_move,
    at_plan,
    clear,
    do,
    kind_of,
    new_with,
    refused,
)


def enter(st: dict, phase: str) -> None:
    """Resume the round at `phase` (its automatic steps run until a decision)."""
    st["phase"], st["cursor"] = phase, 0
    flow.advance(st, SeededRng(3), [])


def travel(*steps: dict) -> dict:
    return {"type": "travel", "steps": list(steps)}


# --------------------------------------------------------------------------- S16 non-stop


def test_s16_non_stop_chains() -> None:
    st = new_with(3, {"non-stop": True})
    clear(st)
    st["counters"] = {"20": DRAGON, "17": DRAGON, "19": DRAGON, "16": TROLL}
    st["boot"][0] = "feodor"
    st["hand"][0] = {DRAGON: 3, RAFT: 1}
    at_move(st, 0)
    chain = {"roads": [20, 17, 19], "cards": {DRAGON: 1}}
    assert travel(chain) in list(E.legal_moves(st, 0))
    refused(st, 0, travel({"roads": [16, 17], "cards": {DRAGON: 1}}), "chain_invalid")
    refused(st, 0, travel({"roads": [20, 10], "cards": {DRAGON: 1}}), "road_not_here")
    st["obstacles"] = {"17": {"owner": 1, "side": None}}
    refused(st, 0, travel(chain), "wrong_payment")
    del st["obstacles"]["17"]
    do(st, 0, travel(chain))
    assert st["boot"][0] == "mahdavikia" and st["collected"][0] == ["mahdavikia"]
    st["boot"][0] = "elvenhold"
    st["hand"][0] = {RAFT: 3}
    do(st, 0, travel({"roads": [42, 43], "cards": {RAFT: 1}}))
    assert st["boot"][0] == "tichih"
    refused(st, 0, travel({"roads": [43, 42], "cards": {RAFT: 1}}), "wrong_payment")
    do(st, 0, travel({"roads": [43, 42], "cards": {RAFT: 2}}))
    assert st["boot"][0] == "elvenhold"
    st2 = new_with(3, {})
    at_move(st2, 0)
    refused(st2, 0, travel({"roads": [42, 43], "cards": {RAFT: 1}}), "variant_not_enabled")


# --------------------------------------------------------------------------- S17


def test_s17_monopoly_adjusts_the_next_deal() -> None:
    st = new_with(3, {"travel-monopoly": True})
    clear(st)
    st["monopoly"], st["visited"] = ["ixara", "grangor"], [[], [], []]
    st["boot"] = ["virst", "elvenhold", "virst"]
    st["hand"] = [{RAFT: 1}, {RAFT: 1}, {RAFT: 3}]
    at_move(st, 0)
    do(st, 0, travel({"road": 44, "cards": {RAFT: 1}}))
    do(st, 1, {"type": "end_move"})
    for road in (44, 45, 46):
        do(st, 2, travel({"road": road, "cards": {RAFT: 1}}))
    assert st["round"] == 2 and st["adj"] == [1, -1, 2]
    assert [sum(h.values()) for h in st["hand"]] == [9, 7, 10]
    assert len(st["monopoly"]) == 2 and st["visited"] == [[], [], []]


def test_s17_trunk_options() -> None:
    st = new_with(3, {"trunk-first-three-rounds": True})
    clear(st)
    st["round"] = 4
    st["counters"] = {"1": PIG}
    at_plan(st, 0)
    refused(st, 0, {"type": "place_obstacle", "road": 1}, "obstacle_round_forbidden")
    st = new_with(4, {"trunk-round-limit": True})
    clear(st)
    st["counters"] = {"1": PIG, "2": PIG}
    at_plan(st, 0)
    do(st, 0, {"type": "place_obstacle", "road": 1})
    assert kind_of(st)[1] != [1]  # nothing left for seat 1 to do: auto-passed
    at_plan(st, 1)
    refused(st, 1, {"type": "place_obstacle", "road": 2}, "obstacle_round_limit")


# --------------------------------------------------------------------------- S18 Indiana Jones


def test_s18_indiana_jones_bridge() -> None:
    st = new_with(3, {"indiana-jones": True})
    clear(st)
    st["faceup"][2] = {PIG: 1}
    at_plan(st, 0)
    do(st, 0, {"type": "place_obstacle", "road": 18})
    assert st["bridges"] == {"18": 0} and st["obstacle_available"][0] is False
    do(st, 1, {"type": "place_obstacle", "road": 18})
    assert st["obstacles"]["18"]["owner"] == 1
    refused(st, 2, {"type": "place_counter", "road": 18, "counter": PIG, "hidden": False},
            "road_occupied")
    st["boot"][1] = "dagamura"
    st["hand"][1] = {RAFT: 2, DRAGON: 1, TROLL: 2}
    at_move(st, 1)
    refused(st, 1, travel({"road": 18, "caravan": {TROLL: 2, RAFT: 1, DRAGON: 1}}),
            "caravan_not_allowed")
    refused(st, 1, travel({"road": 18, "cards": {RAFT: 1}}), "wrong_payment")
    do(st, 1, travel({"road": 18, "cards": {RAFT: 1, DRAGON: 1}}))
    assert st["boot"][1] == "kihromah"
    assert kind_of(st) == ("discard_public", [1]) or kind_of(st)[1] != [1]
    # a further step in the same travel is refused
    st["boot"][1] = "dagamura"
    st["hand"][1] = {RAFT: 4}
    at_move(st, 1)
    refused(st, 1, travel({"road": 18, "cards": {RAFT: 2}}, {"road": 18, "cards": {RAFT: 2}}),
            "bridge_ends_move")


# --------------------------------------------------------------------------- S19 hellish road


def test_s19_hellish_paths() -> None:
    st = new_with(3, {"hellish-road": True})
    assert flow.land_paths(st, "virst", "yttar") == [[13, 15, 37, 36]]
    assert flow.land_paths(st, "beata", "mahdavikia") == [
        [0, 1, 11, 19], [0, 1, 12, 15], [7, 6, 13, 15]]


def test_s19_hellish_road_lays_counters() -> None:
    st = new_with(3, {"hellish-road": True})
    st["counters"] = {}
    pile = dict(st["pile"])
    towns = ["virst", "yttar"] + [t for t in B.card_towns if t not in ("virst", "yttar")]
    script: list = [towns]
    for want in (DRAGON, PIG, CLOUD, CYC, UNI):
        script.append(cards.expand(pile).index(want))
        cards.remove(pile, want)
        if want == CLOUD:
            cards.add(pile, PIG)  # the pig set aside on road 15 returns
    rng = ScriptedRng(script)
    st["phase"] = "hellish"
    events: list = []
    flow.PHASES["hellish"](st, rng, events)
    assert st["counters"] == {"13": DRAGON, "15": CLOUD, "37": CYC, "36": UNI}
    assert st["pile"] == pile
    assert events[-1]["path"] == [13, 15, 37, 36]
    assert [d["purpose"] for d in rng.draws] == ["hellish-towns"] + ["hellish-counter"] * 5


# --------------------------------------------------------------------------- S20, S21


def test_s20_ferryman() -> None:
    st = new_with(3, {"ferryman": True, "no-caravan": True})
    clear(st)
    st["boot"][0] = "yttar"
    st["hand"][0] = {RAFT: 3, DRAGON: 1, UNI: 2}
    at_move(st, 0)
    listed = list(E.legal_moves(st, 0))
    assert travel({"road": 40, "cards": {RAFT: 1}}) in listed
    assert travel({"road": 40, "ferryman": {}}) in listed
    E.check(st, 0, travel({"road": 40, "cards": {RAFT: 1}}))
    do(st, 0, travel({"road": 40, "ferryman": {DRAGON: 1, UNI: 2}}))
    assert st["boot"][0] == "grangor"
    st["boot"][0] = "elvenhold"
    refused(st, 0, travel({"road": 3, "ferryman": {RAFT: 3}}), "ferryman_not_here")
    refused(st, 0, travel({"road": 3, "cards": {RAFT: 1}}), "wrong_payment")
    do(st, 0, travel({"road": 3, "cards": {RAFT: 2}}))


def test_s21_station_street() -> None:
    st = new_with(3, {"station-street": True})
    clear(st)
    st["counters"] = {"13": TROLL}
    at_plan(st, 0)
    refused(st, 0, {"type": "place_obstacle", "road": 13}, "bad_side")
    refused(st, 0, {"type": "place_obstacle", "road": 13, "side": "lapphalya"}, "bad_side")
    do(st, 0, {"type": "place_obstacle", "road": 13, "side": "ixara"})
    st["hand"][1] = {TROLL: 2, RAFT: 2}
    st["boot"][1] = "ixara"
    at_move(st, 1)
    refused(st, 1, travel({"road": 13, "cards": {TROLL: 1}}), "wrong_payment")
    refused(st, 1, travel({"road": 13, "caravan": {RAFT: 2, TROLL: 1}}), "caravan_wrong_count")
    st["boot"][1] = "virst"
    assert travel({"road": 13, "cards": {TROLL: 1}}) in list(E.legal_moves(st, 1))
    E.check(st, 1, travel({"road": 13, "caravan": {RAFT: 2, TROLL: 1}}))
    st["boot"][1] = "ixara"
    do(st, 1, travel({"road": 13, "cards": {TROLL: 2}}))
    assert st["boot"][1] == "virst"


# --------------------------------------------------------------------------- S22, S23


def test_s22_substitution_and_construction_works() -> None:
    st = new_with(3, {"substitution": True, "construction-works": True})
    clear(st)
    st["counters"] = {"17": DRAGON, "20": DRAGON, "1": PIG}
    st["faceup"][0] = {UNI: 1, PIG: 1}
    st["faceup"][2] = {UNI: 1}
    pile = sum(st["pile"].values())
    at_plan(st, 0)
    refused(st, 0, {"type": "substitute", "road": 20, "counter": PIG}, "terrain_forbidden")
    do(st, 0, {"type": "substitute", "road": 17, "counter": UNI})
    assert st["counters"]["17"] == UNI and st["subst_tokens"] == [1, 2, 2]
    assert sum(st["pile"].values()) == pile + 1
    at_plan(st, 2)
    refused(st, 2, {"type": "substitute", "road": 17, "counter": UNI},
            "road_already_substituted")
    at_plan(st, 0)
    do(st, 0, {"type": "place_obstacle", "road": 1})
    assert st["obstacle_available"][0] is False
    st["hidden"] = [{}, {}, {}]
    st["faceup"] = [{}, {}, {}]
    at_move(st, 2)
    do(st, 2, {"type": "end_move"})
    assert st["round"] == 2 and st["obstacle_available"][0] is True
    assert st["substituted"] == []
    plain = new_with(3, {})
    at_plan(plain, 0)
    refused(plain, 0, {"type": "substitute", "road": 17, "counter": UNI},
            "variant_not_enabled")


def _objection_game(seats: int) -> dict:
    st = new_with(seats, {"objection": True})
    clear(st)
    for s in range(seats):
        st["faceup"][s] = {PIG: 1}
    st["faceup"][1] = {DRAGON: 1}
    at_plan(st, 1)
    do(st, 1, {"type": "place_counter", "road": 17, "counter": DRAGON})
    return st


def test_s23_objection_and_vote() -> None:
    st = _objection_game(3)
    assert kind_of(st) == ("objection_window", [0, 2])
    do(st, 0, {"type": "object"})
    assert kind_of(st) == ("objection_window", [2])
    assert E.view(st, 2)["decision"]["answered"] == [0]
    assert "answer" not in E.view(st, 2)["you"]
    do(st, 2, {"type": "allow"})
    assert st["objections"] == [1, 2, 2] and kind_of(st) == ("vote", [2])
    do(st, 2, {"type": "vote", "allow": False})
    assert "17" not in st["counters"] and st["faceup"][1] == {DRAGON: 1}
    assert kind_of(st) == ("plan", [2]) and st["passes"] == 0
    st = _objection_game(3)
    do(st, 0, {"type": "object"})
    do(st, 2, {"type": "allow"})
    do(st, 2, {"type": "vote", "allow": True})
    assert st["counters"]["17"] == DRAGON
    st = _objection_game(4)
    do(st, 0, {"type": "object"})
    do(st, 2, {"type": "allow"})
    do(st, 3, {"type": "allow"})
    assert kind_of(st) == ("vote", [2, 3])
    do(st, 2, {"type": "vote", "allow": True})
    do(st, 3, {"type": "vote", "allow": False})
    assert st["counters"]["17"] == DRAGON  # 2:2 keeps it
    st = _objection_game(2)
    assert kind_of(st) == ("plan", [0])  # no window with 2 seats


# --------------------------------------------------------------------------- S24 dealing


def _draft_randomly(st: dict, kinds: tuple[str, ...] = ("draft", "qoc_draft")) -> None:
    import random

    chooser = random.Random(1)
    rng = SeededRng(2)
    while kind_of(st)[0] in kinds:
        seat = kind_of(st)[1][0]
        do(st, seat, chooser.choice(list(E.legal_moves(st, seat))), rng)


def test_s24_tickets_on_demand() -> None:
    st = new_with(6, {"tickets-on-demand": True})
    assert [sum(h.values()) for h in st["hand"]] == [12] * 6 and st["deck"] == ""
    _draft_randomly(st)
    assert kind_of(st) == ("discard", [0, 1, 2, 3, 4, 5])
    assert st["dec"]["owed"] == {str(s): 4 for s in range(6)}
    for s in range(6):
        do(st, s, {"type": "discard_random"}, SeededRng(s))
    assert [sum(h.values()) for h in st["hand"]] == [8] * 6


def test_s24_eight_new_tickets() -> None:
    st = new_with(3, {"eight-new-tickets": True})
    clear(st)
    st["hand"] = [{RAFT: 3}, {}, {}]
    at_move(st, 2)
    do(st, 2, {"type": "end_move"})
    assert st["round"] == 2 and [sum(h.values()) for h in st["hand"]] == [11, 8, 8]
    _draft_randomly(st)
    assert kind_of(st) == ("discard", [0]) and st["dec"]["owed"] == {"0": 3}
    refused(st, 0, {"type": "discard", "cards": {RAFT: 2}}, "discard_wrong_count")


def test_s24_quality_of_choice() -> None:
    with pytest.raises(IllegalMove) as err:
        E.validate_options({"quality-of-choice": True, "eight-new-tickets": True}, 3)
    assert err.value.code == "invalid_options"
    st = new_with(3, {"quality-of-choice": True})
    assert [sum(h.values()) for h in st["hand"]] == [4, 4, 4]
    assert len(st["card_display"]) == 3 and len(st["display"]) == 3
    assert kind_of(st) == ("qoc_draft", [0])
    for pick in range(3):
        for seat in (0, 1, 2):
            do(st, seat, {"type": "take_counter", "counter": st["display"][0]}, SeededRng(pick))
    refused(st, 0, {"type": "take_counter", "counter": st["display"][0]}, "draft_quota")
    refused(st, 0, {"type": "draw_counter"}, "draft_quota")
    _draft_randomly(st)
    assert [sum(h.values()) for h in st["hand"]] == [8, 8, 8]
    assert [sum(st["faceup"][s].values()) + sum(st["hidden"][s].values()) for s in range(3)] \
        == [4, 4, 4]


# --------------------------------------------------------------------------- S25 exchanges


def test_s25_junk_exchange() -> None:
    st = new_with(3, {"junk-exchange": True})
    clear(st)
    st["hand"] = [{RAFT: 1, DRAGON: 1}, {PIG: 2}, {UNI: 1}]
    enter(st, "junk")
    assert kind_of(st) == ("junk_exchange", [0, 1, 2])
    refused(st, 0, {"type": "exchange", "left": RAFT, "right": RAFT}, "exchange_invalid")
    do(st, 0, {"type": "exchange", "left": RAFT, "right": DRAGON})
    assert st["hand"][0] == {RAFT: 1, DRAGON: 1}  # nothing moves before everyone answered
    refused(st, 2, {"type": "exchange", "left": UNI, "right": UNI}, "exchange_invalid")
    do(st, 2, {"type": "exchange", "left": UNI})
    do(st, 1, {"type": "exchange", "left": PIG, "right": PIG})
    # C's single card goes left, to A; B's pigs go to C (left) and A (right)
    assert st["hand"] == [{PIG: 1, UNI: 1}, {RAFT: 1}, {DRAGON: 1, PIG: 1}]


def test_s25_centre_and_rotation() -> None:
    st = new_with(3, {"centre": True, "circular-rotation": True})
    clear(st)
    st["start"] = 1
    st["hand"] = [{RAFT: 1}, {DRAGON: 1}, {UNI: 1}]
    st["faceup"] = [{PIG: 1}, {CYC: 1}, {TROLL: 1}]
    enter(st, "centre_put")
    order = []
    for card_of in ({1: DRAGON, 2: UNI, 0: RAFT}):
        assert kind_of(st) == ("centre_put", [card_of])
        order.append(card_of)
        do(st, card_of, {"type": "centre_put", "card": {1: DRAGON, 2: UNI, 0: RAFT}[card_of]})
    assert order == [1, 2, 0] and sorted(st["centre"]) == sorted([DRAGON, UNI, RAFT])
    assert kind_of(st) == ("centre_take", [0])
    refused(st, 0, {"type": "centre_take", "card": PIG}, "card_not_in_centre")
    do(st, 0, {"type": "centre_take", "card": DRAGON})
    assert kind_of(st) == ("centre_take", [2])
    do(st, 2, {"type": "centre_take", "card": UNI})
    assert st["hand"] == [{DRAGON: 1}, {RAFT: 1}, {UNI: 1}]  # B got the last card itself
    assert kind_of(st) == ("rotation", [1])
    do(st, 1, {"type": "pass_counter", "counter": CYC})
    assert kind_of(st) == ("rotation", [2])
    do(st, 2, {"type": "pass_counter", "counter": CYC})
    do(st, 0, {"type": "pass_counter", "counter": CYC})
    assert st["faceup"] == [{PIG: 1}, {CYC: 1}, {TROLL: 1}]
    assert kind_of(st)[0] == "plan"


# --------------------------------------------------------------------------- options


def test_variant_options_validate() -> None:
    every = {v: True for v in ("thief", "non-stop", "hellish-road", "objection",
                               "tickets-on-demand", "lost-tickets", "centre")}
    once = E.validate_options(every, 4)
    assert E.validate_options(once, 4) == once
    for bad in ({"tickets-on-demand": True, "quality-of-choice": True},
                {"rounds": 5}, {"thief": 1}, {"mode": "war", "thief": True},
                {"mode": "race", "war-victory": "conditions"}, {"colours": ["red", "red"]},
                {"colours": ["red", "pink"]}, {"mode": "chess"}, {"map_data": "nope"}):
        with pytest.raises(IllegalMove) as err:
            E.validate_options(bad, 2)
        assert err.value.code == "invalid_options", bad
    with pytest.raises(IllegalMove):
        E.validate_options({}, 7)
    assert E.validate_options({"colours": ["red", "black"]}, 2)["colours"] == ["red", "black"]
    assert "war-victory" not in E.validate_options({"war-victory": "capitals"}, 2)
    for variant in E.variants:
        out = E.validate_options(dict(variant.options), 3)
        assert all(out[k] == v for k, v in variant.options.items())
