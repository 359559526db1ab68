"""Elfenland race: the worked scenarios S1-S15 of docs/rules/elfenland.md (spec §11), and the
scene-setting functions the other race test files use. Draws are forced with `ScriptedRng`;
scenarios start from a real setup and then set the fields they name."""

from __future__ import annotations

import json
from typing import Any

import pytest

from engines.contract import IllegalMove
from engines.elfenland import ENGINE as E
from engines.elfenland import cards
from engines.elfenland.board import board
from engines.rng import NoDraws, ScriptedRng, SeededRng

B = board()
PIG, CYC, CLOUD, UNI, TROLL, DRAGON, RAFT = cards.CARD_TYPES


# --------------------------------------------------------------------------- setting scenes


def new(seats: int = 3, seed: int = 0, **options: Any) -> dict:
    """A game at its first draft decision (options by their ids: pass a dict for hyphens)."""
    return E.setup(E.validate_options(options, seats), seats, SeededRng(seed))


def opts(**flags: bool) -> dict:
    """Variant flags with underscores turned into the options' hyphens."""
    return {k.replace("_", "-"): v for k, v in flags.items()}


def new_with(seats: int, options: dict, seed: int = 0) -> dict:
    return E.setup(E.validate_options(options, seats), seats, SeededRng(seed))


def clear(st: dict) -> None:
    """One raft in every hand; no counters held or on roads (the pile is left as it is)."""
    for s in range(st["n"]):
        st["hand"][s], st["hidden"][s], st["faceup"][s] = {RAFT: 1}, {}, {}
    st["counters"], st["obstacles"], st["bridges"] = {}, {}, {}


def at_plan(st: dict, seat: int, passes: int = 0) -> None:
    st["phase"], st["plan_seat"], st["passes"], st["pending"] = "plan", seat, passes, {}
    st["dec"] = {"kind": "plan", "to_act": [seat], "passes": passes}


def at_move(st: dict, seat: int) -> None:
    st["phase"], st["cursor"], st["mstage"], st["travel"] = "move", (
        seat - st["start"]) % st["n"], 1, None
    st["pending"] = {}
    st["dec"] = {"kind": "move", "to_act": [seat]}


def dump(st: dict) -> str:
    return json.dumps(st, sort_keys=True)


def refused(st: dict, seat: int, move: dict, code: str) -> None:
    """`check` and `apply` refuse the move with `code` and change nothing."""
    before = dump(st)
    with pytest.raises(IllegalMove) as err:
        E.check(st, seat, move)
    assert err.value.code == code, err.value.message
    with pytest.raises(IllegalMove) as err2:
        E.apply(st, seat, move, NoDraws())
    assert err2.value.code == code
    assert dump(st) == before


def do(st: dict, seat: int, move: dict, rng: Any = None) -> list[dict]:
    E.check(st, seat, move)
    _, events = E.apply(st, seat, move, rng or SeededRng(9))
    return events


def kind_of(st: dict) -> tuple[str, list[int]]:
    d = E.decision(st)
    return d["step_kind"], d["to_act"]


def pile_index(pile: dict, kind: str) -> int:
    """The first index of `kind` in the canonical expansion of the pile (§2.3 draws)."""
    return cards.expand(pile).index(kind)


# --------------------------------------------------------------------------- S1 setup


def test_s1_setup_with_scripted_draws() -> None:
    deck_order = list(range(72))
    rng = ScriptedRng([0, 0, 0, 0, 0, deck_order, 0, 0, 0])
    st = E.setup(E.validate_options({}, 3), 3, rng)
    purposes = [d["purpose"] for d in rng.draws]
    assert purposes == ["counter-reveal"] * 5 + ["travel-deck"] + ["counter-secret"] * 3
    assert all(d["secret"] for d in rng.draws)
    assert st["display"] == [PIG] * 5
    assert sum(st["pile"].values()) == 40
    assert len(st["deck"]) == 48
    assert [sum(h.values()) for h in st["hand"]] == [8, 8, 8]
    # dealt one at a time A, B, C, A, ...: the canonical deck gives A cards 0, 3, 6, ...
    expanded = cards.expand(cards.full_deck(B))
    assert st["hand"][0] == cards.canonical(
        {k: expanded[0:24:3].count(k) for k in set(expanded[0:24:3])})
    assert st["boot"] == ["elvenhold"] * 3
    assert kind_of(st) == ("draft", [0])
    assert [sum(h.values()) for h in st["hidden"]] == [1, 1, 1]


# --------------------------------------------------------------------------- S2 draft


def test_s2_draft() -> None:
    st = new(3)
    # the display of §11 S2: the five shown counters; the rest of the box is the pile
    st["pile"] = cards.full_pile(B)
    for s in range(3):
        for k in st["hidden"][s]:
            cards.remove(st["pile"], k)
    st["display"] = [PIG, CYC, UNI, TROLL, DRAGON]
    for k in st["display"]:
        cards.remove(st["pile"], k)
    refill = pile_index(st["pile"], PIG)
    do(st, 0, {"type": "take_counter", "counter": DRAGON}, ScriptedRng([refill]))
    assert st["faceup"][0] == {DRAGON: 1} and len(st["display"]) == 5
    assert st["display"].count(PIG) == 2
    blind = pile_index(st["pile"], CLOUD)
    events = do(st, 1, {"type": "draw_counter"}, ScriptedRng([blind]))
    assert st["faceup"][1] == {CLOUD: 1}
    assert any(e["type"] == "counter_drawn" and e["counter"] == CLOUD for e in events)
    refused(st, 2, {"type": "take_counter", "counter": CLOUD}, "counter_not_face_up")
    rng = SeededRng(4)
    for _ in range(7):
        seat = E.decision(st)["to_act"][0]
        do(st, seat, {"type": "draw_counter"}, rng)
    for s in range(3):
        assert sum(st["hidden"][s].values()) == 1 and sum(st["faceup"][s].values()) == 3
    assert kind_of(st) == ("plan", [0])


# --------------------------------------------------------------------------- S3, S4 planning


def test_s3_placement() -> None:
    st = new(3)
    clear(st)
    st["faceup"][0] = {TROLL: 1, UNI: 1, PIG: 1}
    st["hidden"][0] = {DRAGON: 1}
    st["faceup"][1] = {CYC: 1}
    st["faceup"][2] = {CYC: 1}
    at_plan(st, 0)
    refused(st, 0, {"type": "place_counter", "road": 13, "counter": UNI}, "terrain_forbidden")
    refused(st, 0, {"type": "place_counter", "road": 44, "counter": TROLL}, "road_is_water")
    do(st, 0, {"type": "place_counter", "road": 13, "counter": TROLL})
    assert st["counters"] == {"13": TROLL} and kind_of(st) == ("plan", [1])
    refused(st, 1, {"type": "place_counter", "road": 13, "counter": CYC}, "road_occupied")
    refused(st, 1, {"type": "place_obstacle", "road": 12}, "obstacle_needs_transport")
    do(st, 1, {"type": "place_obstacle", "road": 13})
    assert st["obstacles"] == {"13": {"owner": 1, "side": None}}
    refused(st, 2, {"type": "place_obstacle", "road": 13}, "road_has_obstacle")
    do(st, 2, {"type": "pass"})
    at_plan(st, 1)
    refused(st, 1, {"type": "place_obstacle", "road": 1}, "obstacle_used")
    at_plan(st, 0)
    events = do(st, 0, {"type": "place_counter", "road": 17, "counter": DRAGON,
                        "hidden": True})
    assert st["counters"]["17"] == DRAGON and st["hidden"][0] == {}
    view = E.view(st, 2)
    assert {"road": 17, "counter": DRAGON} in view["roads"]
    assert events[0]["counter"] == DRAGON and events[0]["was_hidden"] is True


def test_s4_passing_ends_the_phase() -> None:
    st = new(3)
    clear(st)
    for s in range(3):
        st["faceup"][s] = {PIG: 2}
        st["hand"][s] = {RAFT: 1}
    at_plan(st, 0)
    do(st, 0, {"type": "pass"})
    assert st["passes"] == 1
    do(st, 1, {"type": "place_counter", "road": 1, "counter": PIG})
    assert st["passes"] == 0
    do(st, 2, {"type": "pass"})
    do(st, 0, {"type": "pass"})
    assert kind_of(st) == ("plan", [1]) and st["passes"] == 2
    do(st, 1, {"type": "pass"})
    assert st["phase"] != "plan" and kind_of(st)[0] == "move"
    assert st["faceup"][0] == {PIG: 2}


def test_s4_auto_pass_counts() -> None:
    st = new(3)
    clear(st)
    st["faceup"][0] = {PIG: 1}
    st["hand"] = [{RAFT: 1}] * 3
    st["obstacle_available"] = [False, False, False]
    at_plan(st, 2)
    do(st, 2, {"type": "pass"})
    assert kind_of(st) == ("plan", [0]) and st["passes"] == 1
    do(st, 0, {"type": "pass"})
    # seats 1 and 2 hold nothing and have no obstacle: auto-passed, so the phase ends
    assert kind_of(st)[0] == "move"


# --------------------------------------------------------------------------- S5-S10 travel


def test_s5_terrain_costs_in_one_travel() -> None:
    st = new(3)
    clear(st)
    st["counters"] = {"1": PIG, "10": TROLL, "20": DRAGON, "17": UNI, "19": CLOUD}
    st["hand"][0] = {PIG: 1, TROLL: 2, DRAGON: 1, UNI: 2, CLOUD: 1, RAFT: 1}
    st["discards"] = {}
    at_move(st, 0)
    path = [{"road": 1, "cards": {PIG: 1}}, {"road": 10, "cards": {TROLL: 2}},
            {"road": 20, "cards": {DRAGON: 1}}, {"road": 17, "cards": {UNI: 2}},
            {"road": 19, "cards": {CLOUD: 1}}, {"road": 46, "cards": {RAFT: 1}}]
    bad = [dict(s) for s in path]
    bad[1] = {"road": 10, "cards": {TROLL: 1}}
    refused(st, 0, {"type": "travel", "steps": bad}, "wrong_payment")
    do(st, 0, {"type": "travel", "steps": path})
    assert st["boot"][0] == "grangor" and st["hand"][0] == {}
    assert st["collected"][0] == ["lapphalya", "feodor", "albaran", "dagamura", "mahdavikia",
                                  "grangor"]
    assert sum(st["discards"].values()) == 8
    # an empty hand ends the move at once; 8 cards paid, none left to discard
    assert kind_of(st) == ("move", [1])


def test_s6_river_up_and_downstream() -> None:
    st = new(3)
    clear(st)
    st["boot"][0] = "virst"
    st["hand"][0] = {RAFT: 4}
    at_move(st, 0)
    do(st, 0, {"type": "travel", "steps": [{"road": 44, "cards": {RAFT: 1}}]})
    assert st["boot"][0] == "ixara"
    refused(st, 0, {"type": "travel", "steps": [{"road": 44, "cards": {RAFT: 1}}]},
            "wrong_payment")
    assert {"type": "travel", "steps": [{"road": 45, "cards": {RAFT: 1}}]} in list(
        E.legal_moves(st, 0))
    do(st, 0, {"type": "travel", "steps": [{"road": 44, "cards": {RAFT: 2}}]})
    assert st["boot"][0] == "virst" and st["hand"][0] == {RAFT: 1}


def test_s7_lake() -> None:
    st = new(3)
    clear(st)
    st["hand"][0] = {RAFT: 4, DRAGON: 3, CLOUD: 1}
    st["counters"] = {"6": CLOUD}
    at_move(st, 0)
    refused(st, 0, {"type": "travel", "steps": [{"road": 4, "caravan": {DRAGON: 3}}]},
            "caravan_not_allowed")
    do(st, 0, {"type": "travel", "steps": [{"road": 4, "cards": {RAFT: 2}}]})
    assert st["boot"][0] == "strykhaven"
    listed = list(E.legal_moves(st, 0))
    assert {"type": "travel", "steps": [{"road": 5, "cards": {RAFT: 2}}]} in listed
    assert {"type": "travel", "steps": [{"road": 6, "cards": {CLOUD: 1}}]} in listed
    do(st, 0, {"type": "travel", "steps": [{"road": 6, "cards": {CLOUD: 1}}]})
    assert st["boot"][0] == "virst"


def test_s8_obstacle_adds_a_card() -> None:
    st = new(3)
    clear(st)
    st["counters"] = {"18": PIG}
    st["obstacles"] = {"18": {"owner": 1, "side": None}}
    st["boot"][0] = "dagamura"
    st["hand"][0] = {PIG: 2, RAFT: 2, DRAGON: 1}
    at_move(st, 0)
    refused(st, 0, {"type": "travel", "steps": [{"road": 18, "cards": {PIG: 1}}]},
            "wrong_payment")
    refused(st, 0, {"type": "travel", "steps": [{"road": 18, "caravan": {RAFT: 2, DRAGON: 1}}]},
            "caravan_wrong_count")
    do(st, 0, {"type": "travel", "steps": [{"road": 18, "cards": {PIG: 2}}]})
    assert st["boot"][0] == "kihromah"


def test_s9_caravan_combined_and_picked() -> None:
    st = new(3)
    clear(st)
    st["counters"] = {"10": TROLL, "8": CYC}
    st["boot"][0] = "feodor"
    st["hand"][0] = {TROLL: 2, RAFT: 1, DRAGON: 1, UNI: 1}
    at_move(st, 0)
    do(st, 0, {"type": "travel", "steps": [{"road": 10, "cards": {TROLL: 2}}]})
    assert st["boot"][0] == "lapphalya"
    refused(st, 0, {"type": "travel", "steps": [{"road": 12, "cards": {DRAGON: 1}}]},
            "no_transport")
    refused(st, 0, {"type": "travel", "steps": [{"road": 12, "caravan": {RAFT: 1, DRAGON: 1,
                                                                          UNI: 1}}]},
            "no_transport")
    snapshot = dump(st)
    do(st, 0, {"type": "travel", "steps": [{"road": 8, "caravan": {RAFT: 1, DRAGON: 1,
                                                                    UNI: 1}}]})
    combined = json.loads(dump(st))
    # the same step as an opening and three picks
    st = json.loads(snapshot)
    opening = {"type": "travel", "steps": [{"road": 8, "caravan": {}}]}
    assert opening in list(E.legal_moves(st, 0))
    do(st, 0, opening)
    assert kind_of(st) == ("pick", [0])
    assert E.view(st, 1)["decision"]["picked_count"] == 0 and "you" not in E.view(st, None)
    assert E.is_secret({"type": "pick", "card": RAFT})
    for card in (RAFT, DRAGON, UNI):
        do(st, 0, {"type": "pick", "card": card})
    refused_state = json.loads(snapshot)
    assert st["boot"][0] == "virst" == combined["boot"][0]
    assert st["hand"] == combined["hand"] and st["discards"] == combined["discards"]
    assert refused_state["boot"][0] == "lapphalya"


def test_s10_discard_after_moving() -> None:
    st = new(3)
    clear(st)
    st["hand"][0] = {RAFT: 4, DRAGON: 3}
    at_move(st, 0)
    do(st, 0, {"type": "end_move"})
    assert kind_of(st) == ("discard_public", [0])
    assert E.view(st, 1)["decision"]["owed"] == {"0": 3}
    refused(st, 0, {"type": "discard_public", "cards": {RAFT: 2}}, "discard_wrong_count")
    refused(st, 0, {"type": "discard", "cards": {RAFT: 3}}, "wrong_decision")
    assert not E.is_secret({"type": "discard_public", "cards": {RAFT: 3}})
    do(st, 0, {"type": "discard_public", "cards": {RAFT: 3}})
    assert st["hand"][0] == {RAFT: 1, DRAGON: 3} and st["discards"][RAFT] >= 3
    assert kind_of(st) == ("move", [1])


# --------------------------------------------------------------------------- S11-S14 ends


def _last_mover(st: dict) -> int:
    seat = (st["start"] + st["n"] - 1) % st["n"]
    at_move(st, seat)
    return seat


def test_s11_round_end_keeps_one_counter() -> None:
    st = new(3)
    clear(st)
    st["hidden"][0] = {DRAGON: 1}
    st["faceup"][0] = {UNI: 1}
    st["faceup"][1] = {PIG: 1}
    st["counters"] = {"1": TROLL}
    st["obstacles"] = {"1": {"owner": 2, "side": None}}
    st["obstacle_available"][2] = False
    for s in range(3):
        st["hand"][s] = {RAFT: 2}
    pile_before = sum(st["pile"].values())
    seat = _last_mover(st)
    do(st, seat, {"type": "end_move"})
    assert kind_of(st) == ("finish_round", [0])
    refused(st, 0, {"type": "finish_round", "keep": None}, "keep_invalid")
    refused(st, 0, {"type": "finish_round", "keep": {"counter": DRAGON}}, "keep_invalid")
    assert E.is_secret({"type": "finish_round", "keep": None})
    do(st, 0, {"type": "finish_round", "keep": {"counter": DRAGON, "hidden": True}},
       SeededRng(1))
    assert st["round"] == 2 and st["start"] == 1
    assert st["counters"] == {} and st["obstacles"] == {}
    assert st["obstacle_available"] == [True, True, False]
    assert st["hidden"][0].get(DRAGON, 0) >= 1 and UNI not in st["faceup"][0]
    assert st["faceup"][1] == {PIG: 1}
    # UNI and the road's troll went back; 3 new secret counters came out
    assert sum(st["pile"].values()) == pile_before + 2 - 3
    assert [sum(h.values()) for h in st["hand"]] == [8, 8, 8]
    assert kind_of(st) == ("draft", [1])


def _finish_round_four(st: dict) -> None:
    st["round"] = 4
    for s in range(st["n"]):
        st["hidden"][s], st["faceup"][s] = {}, {}
    seat = _last_mover(st)
    do(st, seat, {"type": "end_move"})


def test_s12_ranking_and_tie_break() -> None:
    towns = list(B.piece_towns)
    st = new(3)
    clear(st)
    st["collected"] = [towns[:15], towns[:15], towns[:12]]
    st["hand"] = [{RAFT: 3}, {RAFT: 4}, {}]
    _finish_round_four(st)
    assert E.result(st) == {"winners": [1], "scores": {"0": 15, "1": 15, "2": 12},
                            "reason": "rounds_complete"}
    assert kind_of(st) == ("game_over", [])
    st = new(3)
    clear(st)
    st["collected"] = [towns[:15], towns[:15], towns[:12]]
    st["hand"] = [{RAFT: 3}, {DRAGON: 3}, {}]
    _finish_round_four(st)
    assert E.result(st)["winners"] == [0, 1]


def test_s13_early_end_after_the_phase() -> None:
    towns = [t for t in B.piece_towns if t != "beata"]
    st = new(3)
    clear(st)
    st["round"], st["start"] = 3, 2
    st["collected"][0] = list(towns)
    st["counters"] = {"0": PIG}
    st["hand"][0] = {PIG: 1}
    st["hand"][1] = {RAFT: 1}
    at_move(st, 0)
    do(st, 0, {"type": "travel", "steps": [{"road": 0, "cards": {PIG: 1}}]})
    assert len(st["collected"][0]) == 20 and E.result(st) is None
    assert kind_of(st) == ("move", [1])
    do(st, 1, {"type": "end_move"})
    res = E.result(st)
    assert res is not None and res["reason"] == "all_towns_collected" and res["winners"] == [0]


def test_s14_destination_scoring() -> None:
    towns = list(B.piece_towns)
    st = new(3, destination=True)
    clear(st)
    st["destination"] = ["yttar", "wylhien", "beata"]
    st["collected"] = [towns[:17], towns[:14], towns[:3]]
    st["boot"] = ["kihromah", "wylhien", "elvenhold"]
    _finish_round_four(st)
    res = E.result(st)
    assert res["scores"] == {"0": 13, "1": 14, "2": 2} and res["winners"] == [1]
    assert E.view(st, 2)["destinations"] == ["yttar", "wylhien", "beata"]


def test_destination_is_secret_until_the_end() -> None:
    st = new(3, destination=True)
    mine = E.view(st, 0)["you"]["destination"]
    assert mine == st["destination"][0]
    for seat in (1, 2, None):
        text = json.dumps(E.view(st, seat))
        assert "destinations" not in text
        if seat is not None:
            assert E.view(st, seat)["you"]["destination"] == st["destination"][seat]


# --------------------------------------------------------------------------- S15 thief


def test_s15_thief() -> None:
    st = new(3, thief=True)
    clear(st)
    st["round"], st["start"] = 4, 0
    st["boot"] = ["elvenhold", "lapphalya", "virst"]
    st["counters"] = {"1": PIG, "8": CYC}
    st["hand"] = [{PIG: 1, RAFT: 1}, {UNI: 2, DRAGON: 1}, {TROLL: 1}]
    st["phase"] = "thief"
    st["thief"] = {"passed": [False] * 3, "stolen": None, "stage": None}
    st["mover"] = 0
    st["dec"] = {"kind": "move", "to_act": [0]}
    refused(st, 0, {"type": "travel", "steps": [{"road": 1, "cards": {PIG: 1}},
                                                {"road": 1, "cards": {RAFT: 1}}]},
            "one_step_only")
    do(st, 0, {"type": "travel", "steps": [{"road": 1, "cards": {PIG: 1}}]})
    assert kind_of(st) == ("steal", [0])
    refused(st, 0, {"type": "steal", "victim": 2}, "invalid_victim")
    rng = ScriptedRng([2, 0])
    events = do(st, 0, {"type": "steal", "victim": 1}, rng)
    assert [d["purpose"] for d in rng.draws] == ["thief-steal", "thief-penalty"]
    assert st["hand"][0] == {} and st["hand"][1] == {UNI: 2, DRAGON: 1, RAFT: 1}
    assert kind_of(st) == ("move", [1])
    stolen = next(e for e in events if e["type"] == "stolen")
    assert E.view_event(stolen, 2).get("yours") is None
    assert E.view_event(stolen, 1)["yours"] == {"card": DRAGON}
