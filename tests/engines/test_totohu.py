"""Totohu engine tests: the worked scenarios of rules/totohu.md §11, the data-file loader,
hidden information (non-interference, blind play), error order and random playouts."""

from __future__ import annotations

import copy
import itertools
import json
import random
from pathlib import Path
from typing import Any

import pytest

from engines.contract import IllegalMove
from engines.rng import NoDraws, ScriptedRng, SeededRng
from engines.totohu import ENGINE as E
from engines.totohu import fleet as fleet_mod
from engines.totohu import rules
from engines.totohu.fleet import FleetDataError, load_fleet, parse_fleet
from tests.engines.playout import random_playout
from tests.engines.refusals import assert_refused

HOUSE = json.loads((fleet_mod.DATA_DIR / "totohu-house-1.json").read_text())
OPTION_COMBOS = [
    {"hidden_treasure": t, "blind": b} for t, b in itertools.product([False, True], repeat=2)
]
COUNTERS = ("holes", "cannons", "deck", "hold", "anchors")


# --------------------------------------------------------------------------- helpers


def game(seats: int = 2, **options: Any) -> dict:
    return E.setup(E.validate_options(options, seats), seats, NoDraws())


def setship(state: dict, side: int | str, ship: str, status: str = "sea", **counters: int) -> None:
    s = state["fleets"][str(side)][ship]
    s["status"] = status
    s.update(counters)


def only_at_sea(state: dict, side: int | str, keep: list[str], status: str = "sunk") -> None:
    """Every ship of the side but `keep` is out (status given); keep's are untouched."""
    for ship_id, s in state["fleets"][str(side)].items():
        if ship_id not in keep:
            s["status"] = status


def assert_ship(
    state: dict, side: int | str, ship: str, status: str = "sea", **expect: int
) -> None:
    """The ship has this status and exactly these counters (unlisted ones are 0)."""
    s = state["fleets"][str(side)][ship]
    got = {k: s[k] for k in COUNTERS}
    want = {k: expect.get(k, 0) for k in COUNTERS}
    assert (s["status"], got) == (status, want), f"{side}.{ship}"


def play(state: dict, seat: int, ship: str, hide: bool = False, rng: Any = None) -> list[dict]:
    move: dict[str, Any] = {"type": "play", "ship": ship}
    if hide:
        move["hide"] = True
    _, events = E.apply(state, seat, move, rng or NoDraws())
    return events


def send(state: dict, seat: int, move: dict, rng: Any = None) -> list[dict]:
    return E.apply(state, seat, move, rng or NoDraws())[1]


def rejects(state: dict, seat: int, move: Any, code: str) -> None:
    assert_refused(E, state, seat, move, code, ScriptedRng([]))
    with pytest.raises(IllegalMove) as err:
        E.check(state, seat, move)
    assert err.value.message == rules.MESSAGES[code]


def of_type(events: list[dict], kind: str) -> list[dict]:
    return [e for e in events if e["type"] == kind]


def dumps(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True)


# --------------------------------------------------------------------------- engine facts


def test_engine_facts_and_options() -> None:
    assert (E.id, E.min_players, E.max_players) == ("totohu", 1, 3)
    assert dict(E.platform_aliases) == {}
    assert {v.id for v in E.variants} >= {"base", "hidden-treasure", "blind-play"}
    assert E.validate_options({}, 2) == {
        "hidden_treasure": False, "blind": False, "fleet_data": "totohu-house-1",
    }
    for bad, seats in [({"blind": 1}, 2), ({"hidden_treasure": "yes"}, 2), ({"x": 1}, 2),
                       ({"fleet_data": "nope"}, 2), ({"fleet_data": "../data/x"}, 2),
                       ({"fleet_data": 7}, 2), ({"fleet_data": ["x"]}, 2), ({}, 0), ({}, 4)]:
        with pytest.raises(IllegalMove) as err:
            E.validate_options(bad, seats)
        assert err.value.code == "invalid_options"
    assert E.is_secret({"type": "play", "ship": "p1"})
    assert not E.is_secret({"type": "order", "pairs": []})
    assert not E.is_secret({"type": "resign"})


def test_setup_is_plain_and_draws_nothing() -> None:
    for seats in (1, 2, 3):
        state = E.setup(E.validate_options({}, seats), seats, NoDraws())
        assert json.loads(json.dumps(state)) == state
        assert E.decision(state) == {"step": 0, "step_kind": "choose",
                                     "to_act": list(range(seats))}
        assert ("dummy" in state["fleets"]) == (seats == 1)
        assert E.default_move(state, 0) is None
        assert E.result(state) is None


def test_legal_move_counts() -> None:
    state = game(2)
    assert len(list(E.legal_moves(state, 0))) == 6
    treasure = game(2, hidden_treasure=True)
    moves = list(E.legal_moves(treasure, 0))
    assert len(moves) == 8
    assert {m["ship"] for m in moves if m.get("hide")} == {"m1", "m2"}
    setship(treasure, 0, "m1", hold=1)
    setship(treasure, 0, "p1", "sunk")
    assert len(list(E.legal_moves(treasure, 0))) == 6
    three = game(3)
    for seat in range(3):
        play(three, seat, "h")
    assert list(E.legal_moves(three, 1)) == [] == list(E.legal_moves(three, 2))
    orders = list(E.legal_moves(three, 0))
    assert len(orders) == 6
    assert all(p[0] < p[1] for m in orders for p in m["pairs"])
    assert len({dumps(m) for m in orders}) == 6


# --------------------------------------------------------------------------- §11 scenarios


def test_s01_class_a_and_secrecy() -> None:
    state = game(2)
    other = game(2)
    ev = play(state, 1, "m2")
    ev_other = play(other, 1, "p1")
    assert E.decision(state) == {"step": 0, "step_kind": "choose", "to_act": [0]}
    assert ev == [{"type": "chosen", "seat": 1}]
    v0 = E.view(state, 0)
    assert v0["chosen"] == {"0": False, "1": True}
    assert v0["my_choice"] is None
    assert E.view(state, 1)["my_choice"] == {"ship": "m2", "hide": False}
    for who in (0, None):
        assert dumps(E.view(state, who)) == dumps(E.view(other, who))
        assert [E.view_event(e, who) for e in ev] == [E.view_event(e, who) for e in ev_other]
    ev = play(state, 0, "p1")
    assert of_type(ev, "reveal") == [{"type": "reveal", "round": 1,
                                      "ships": {"0": "p1", "1": "m2"}}]
    assert_ship(state, 0, "p1", cannons=1)
    assert_ship(state, 1, "m2", holes=1)
    assert E.decision(state) == {"step": 1, "step_kind": "choose", "to_act": [0, 1]}
    assert (state["round"], state["starter"]) == (2, 1)
    assert E.view(state, None)["reveal"] == {"0": "p1", "1": "m2"}


def test_s02_choice_errors() -> None:
    state = game(2)
    setship(state, 0, "m1", "sunk", holes=2)
    play(state, 1, "m2")
    rejects(state, 1, {"type": "play", "ship": "p1"}, "already_chosen")
    rejects(state, 0, {"type": "play", "ship": "x9"}, "unknown_ship")
    rejects(state, 0, {"type": "play", "ship": "m1"}, "ship_not_playable")
    rejects(state, 0, {"type": "raid", "action": "shoot"}, "wrong_phase")
    rejects(state, 0, {"type": "play", "ship": "m2", "hide": True}, "hide_not_allowed")


def test_s03_class_b_double_departure() -> None:
    state = game(2)
    setship(state, 0, "p3", cannons=1)
    setship(state, 1, "p2", holes=2, cannons=1)
    play(state, 0, "p3")
    ev = play(state, 1, "p2")
    assert_ship(state, 0, "p3", "port", cannons=2)
    assert_ship(state, 1, "p2", "sunk", holes=3)
    assert {(e["side"], e["ship"], e["status"]) for e in of_type(ev, "departure")} == {
        ("0", "p3", "port"), ("1", "p2", "sunk")}
    rejects(state, 0, {"type": "play", "ship": "p3"}, "ship_not_playable")


def test_s04_class_c_end_and_score() -> None:
    state = game(2)
    setship(state, 0, "p1", "port", cannons=4)
    setship(state, 0, "p2", "sunk", holes=3)
    setship(state, 0, "p3", holes=1, cannons=1)
    setship(state, 0, "m1", "port", deck=3)
    setship(state, 0, "m2", "sunk", holes=3)
    setship(state, 0, "h", "left", anchors=7)
    setship(state, 1, "p1", cannons=3)
    setship(state, 1, "p2", "port", cannons=3)
    setship(state, 1, "p3", holes=1)
    setship(state, 1, "m1", "sunk", holes=2)
    setship(state, 1, "m2", holes=1, deck=2)
    setship(state, 1, "h", anchors=6)
    play(state, 0, "p3")
    ev = play(state, 1, "p3")
    assert_ship(state, 0, "p3", "sunk", holes=2)
    assert_ship(state, 1, "p3", "sunk", holes=2)
    expected = {"winners": [1], "scores": {"0": 7, "1": 8}, "reason": "one_fleet_left"}
    assert E.result(state) == expected
    assert of_type(ev, "fleet_exhausted") == [{"type": "fleet_exhausted", "side": "0"}]
    assert of_type(ev, "game_over") == [{"type": "game_over", "result": expected}]
    assert E.decision(state) == {"step": 1, "step_kind": "game_over", "to_act": []}
    rejects(state, 0, {"type": "resign"}, "game_over")
    rejects(state, 1, {"type": "no_such"}, "game_over")


def test_s05_class_d() -> None:
    state = game(2)
    setship(state, 0, "h", anchors=6)
    play(state, 0, "h")
    play(state, 1, "p3")
    assert_ship(state, 0, "h", "left", anchors=7)
    assert_ship(state, 1, "p3")


def test_s06_class_e_port() -> None:
    state = game(2)
    setship(state, 0, "m1", deck=2)
    play(state, 0, "m1")
    play(state, 1, "m2")
    assert_ship(state, 0, "m1", "port", deck=3)
    assert_ship(state, 1, "m2", deck=1)


def test_s07_class_f_overflow() -> None:
    state = game(2)
    setship(state, 0, "m2", deck=3)
    setship(state, 1, "h", anchors=2)
    play(state, 0, "m2")
    ev = play(state, 1, "h")
    assert_ship(state, 0, "m2", "port", deck=4)
    assert_ship(state, 1, "h", anchors=3)
    effect = [e for e in of_type(ev, "effect") if e["side"] == "0"][0]
    assert (effect["effect"], effect["deck"], effect["hold"], effect["discarded"]) == (
        "barrel2", 1, 0, 1)


def test_s08_class_g_and_three_hunters() -> None:
    state = game(2)
    play(state, 0, "h")
    play(state, 1, "h")
    assert_ship(state, 0, "h", anchors=1)
    assert_ship(state, 1, "h", anchors=1)
    three = game(3)
    for seat in range(3):
        play(three, seat, "h")
    ev = send(three, 0, {"type": "order", "pairs": [[0, 1], [0, 2], [1, 2]]})
    for seat in range(3):
        assert_ship(three, seat, "h", anchors=1)
    effects = [e["effect"] for e in of_type(ev, "effect")]
    assert effects == ["anchor", "anchor", "none", "anchor", "none", "none"]


def test_s09_sinking_with_cargo() -> None:
    state = game(2)
    setship(state, 1, "m1", holes=1, deck=2)
    play(state, 0, "p2")
    play(state, 1, "m1")
    assert_ship(state, 1, "m1", "sunk", holes=2)
    assert_ship(state, 0, "p2", cannons=1)
    assert E.view(state, None)["scores"] == {"0": 1, "1": 0}


def _scenario_10(pairs: list[list[int]]) -> tuple[dict, list[dict]]:
    state = game(3)
    state["round"], state["starter"] = 5, 1
    setship(state, 0, "m1", holes=1)
    play(state, 0, "m1")
    play(state, 1, "p2")
    play(state, 2, "p3")
    assert E.decision(state) == {"step": 1, "step_kind": "order", "to_act": [1]}
    rejects(state, 0, {"type": "order", "pairs": pairs}, "not_your_turn")
    return state, send(state, 1, {"type": "order", "pairs": pairs})


def test_s10_three_player_order_and_skip() -> None:
    state, ev = _scenario_10([[1, 0], [0, 2], [1, 2]])
    assert_ship(state, 0, "m1", "sunk", holes=2)
    assert_ship(state, 1, "p2", holes=1, cannons=1)
    assert_ship(state, 2, "p3", cannons=1)
    assert of_type(ev, "order")[0]["pairs"] == [[0, 1], [0, 2], [1, 2]]
    kinds = [e["type"] for e in ev if e["type"].startswith("encounter")]
    assert kinds == ["encounter", "encounter_skipped", "encounter"]
    assert (state["round"], state["starter"]) == (6, 2)
    assert E.decision(state) == {"step": 2, "step_kind": "choose", "to_act": [0, 1, 2]}
    state, _ = _scenario_10([[0, 2], [1, 0], [1, 2]])
    assert_ship(state, 2, "p3", "port", cannons=2)
    assert_ship(state, 1, "p2", holes=1)


def test_s11_invalid_orders() -> None:
    state = game(3)
    for seat in range(3):
        play(state, seat, "p1")
    for pairs in ([[0, 1], [0, 1], [1, 2]], [[0, 1], [1, 2]], [[0, 1], [1, 2], [0, 2], [0, 1]],
                  [[0, 1, 2], [1, 2], [0, 2]], [[0, 0], [1, 2], [0, 2]], [[0, 1], [1, 2], [0, 3]],
                  []):
        rejects(state, 0, {"type": "order", "pairs": pairs}, "invalid_order")
    for pairs in ([[0, "1"], [1, 2], [0, 2]], [[0, True], [1, 2], [0, 2]], [(0, 1)], "0-1",
                  [[0, 1.0], [1, 2], [0, 2]]):
        rejects(state, 0, {"type": "order", "pairs": pairs}, "malformed_move")


def test_s12_rotation_past_an_exhausted_seat() -> None:
    state = game(3)
    state["starter"] = 1
    only_at_sea(state, 2, ["m1"])
    setship(state, 2, "m1", holes=1)
    play(state, 0, "h")
    play(state, 1, "p1")
    play(state, 2, "m1")
    ev = send(state, 1, {"type": "order", "pairs": [[1, 2], [0, 1], [0, 2]]})
    assert of_type(ev, "fleet_exhausted") == [{"type": "fleet_exhausted", "side": "2"}]
    assert [e["type"] for e in ev if e["type"].startswith("encounter")] == [
        "encounter", "encounter", "encounter_skipped"]
    assert state["starter"] == 0
    assert E.decision(state)["to_act"] == [0, 1]
    assert E.view(state, None)["active"] == {"0": True, "1": True, "2": False}
    play(state, 0, "p2")
    ev = play(state, 1, "m2")
    assert len(of_type(ev, "encounter")) == 1
    assert state["phase"] == "choose" and state["starter"] == 1
    rejects(state, 2, {"type": "play", "ship": "p1"}, "not_your_turn")


def test_s13_solo_reroll() -> None:
    state = game(1)
    setship(state, "dummy", "p3", "sunk", holes=2)
    setship(state, "dummy", "m1", "port", deck=3)
    rejects(state, 0, {"type": "play", "ship": "x"}, "unknown_ship")  # no draw before a play
    rng = ScriptedRng([3, 4, 1])
    ev = play(state, 0, "p2", rng=rng)
    assert [(d["purpose"], d["result"]) for d in rng.draws] == [
        ("solo-dummy-ship", 3), ("solo-dummy-ship-reroll", 4), ("solo-dummy-ship-reroll", 1)]
    assert [(e["face"], e["ship"], e["sails"]) for e in of_type(ev, "dummy_roll")] == [
        (3, "p3", False), (4, "m1", False), (1, "p1", True)]
    assert state["reveal"] == {"0": "p2", "dummy": "p1"}
    assert_ship(state, 0, "p2", cannons=1)
    assert_ship(state, "dummy", "p1", holes=1)
    assert E.decision(state) == {"step": 1, "step_kind": "choose", "to_act": [0]}
    assert (state["round"], state["starter"]) == (2, 0)


def test_s14_solo_face_map() -> None:
    state = game(1)
    setship(state, "dummy", "p2", "sunk", holes=3)
    setship(state, "dummy", "m1", "port", deck=3)
    setship(state, "dummy", "m2", holes=2)
    ev = play(state, 0, "p1", rng=ScriptedRng([5]))
    assert_ship(state, "dummy", "m2", "sunk", holes=3)
    faces = {"1": "p1", "2": "p1", "3": "p3", "4": "p3", "5": "h", "6": "h"}
    assert of_type(ev, "dummy_faces") == [{"type": "dummy_faces", "faces": faces}]
    assert E.view(state, 0)["dummy_faces"] == faces
    rng = ScriptedRng([5])
    ev = play(state, 0, "m1", rng=rng)  # a 5 sends h at once: no reroll
    assert [d["purpose"] for d in rng.draws] == ["solo-dummy-ship"]
    assert state["reveal"]["dummy"] == "h"
    setship(state, "dummy", "p3", cannons=1)
    ev = play(state, 0, "m2", rng=ScriptedRng([4]))
    assert state["reveal"]["dummy"] == "p3"
    assert_ship(state, "dummy", "p3", "port", cannons=2)
    faces = {"1": "p1", "2": "p1", "3": "h", "4": "p1", "5": "h", "6": "h"}
    assert of_type(ev, "dummy_faces") == [{"type": "dummy_faces", "faces": faces}]
    assert E.view(state, None)["dummy_faces"] == faces


def _raid_game(**options: Any) -> dict:
    return game(2, hidden_treasure=True, **options)


def test_s15_successful_robbery() -> None:
    for action in ("rob", "shoot"):
        state = _raid_game()
        setship(state, 1, "m2", deck=2)
        play(state, 0, "p1")
        ev = play(state, 1, "m2")
        assert E.decision(state) == {"step": 1, "step_kind": "raid", "to_act": [0]}
        assert of_type(ev, "effect") == []
        assert E.view(state, 1)["raid"] == {"seat": 0, "pirate": {"side": "0", "ship": "p1"},
                                             "merchant": {"side": "1", "ship": "m2"}}
        assert sorted(m["action"] for m in E.legal_moves(state, 0)) == ["rob", "shoot"]
        assert list(E.legal_moves(state, 1)) == []
        ev = send(state, 0, {"type": "raid", "action": action})
        assert of_type(ev, "raid") == [{"type": "raid", "seat": 0, "action": action}]
        scores = E.view(state, None)["scores"]
        if action == "rob":
            assert_ship(state, 1, "m2", deck=1)
            assert_ship(state, 0, "p1", cannons=1, hold=1)
            assert scores == {"0": 2, "1": 1}
            assert of_type(ev, "robbery")[0]["taken"] is True
        else:
            assert_ship(state, 1, "m2", holes=1, deck=2)
            assert_ship(state, 0, "p1", cannons=1)
        assert E.decision(state) == {"step": 2, "step_kind": "choose", "to_act": [0, 1]}


def test_s16_failed_robbery_blind() -> None:
    state = _raid_game(blind=True)
    setship(state, 1, "m1", hold=1)
    play(state, 0, "p2")
    play(state, 1, "m1")
    ev = send(state, 0, {"type": "raid", "action": "rob"})
    assert_ship(state, 1, "m1", hold=1)
    assert_ship(state, 0, "p2", cannons=1)
    v0, v1, spectator = E.view(state, 0), E.view(state, 1), E.view(state, None)
    assert v0["fleets"]["0"]["p2"] == {"status": "sea", "holes": 0, "cannons": 1, "deck": 0,
                                        "hold": 0, "anchors": 0}
    assert list(v0["fleets"]) == ["0"] and list(v1["fleets"]) == ["1"]
    assert spectator["fleets"] == {} and spectator["scores"] == {}
    robbery = of_type(ev, "robbery")[0]
    assert E.view_event(robbery, 0) == E.view_event(robbery, 1) == {
        "type": "robbery", "pirate": {"side": "0", "ship": "p2"},
        "merchant": {"side": "1", "ship": "m1"}, "taken": False}
    assert E.view_event(robbery, None) is None
    seen0 = [E.view_event(e, 0) for e in ev]
    seen1 = [E.view_event(e, 1) for e in ev]
    assert {"type": "effect", "side": "0", "ship": "p2", "effect": "cannon"} in seen0
    assert {"type": "effect", "side": "1", "ship": "m1", "effect": "spared"} in seen1
    assert not any(e and e["type"] == "effect" and e["side"] == "1" for e in seen0)
    assert not any(e and e["type"] == "effect" and e["side"] == "0" for e in seen1)
    assert E.view_event(of_type(ev, "raid")[0], None) == {"type": "raid", "seat": 0,
                                                          "action": "rob"}
    # Later: a pirate with a full hold may not rob, but may shoot.
    setship(state, 0, "p1", hold=1)
    play(state, 0, "p1")
    play(state, 1, "m2")
    assert [m["action"] for m in E.legal_moves(state, 0)] == ["shoot"]
    rejects(state, 0, {"type": "raid", "action": "rob"}, "hold_full")
    rejects(state, 0, {"type": "raid", "action": "board"}, "invalid_raid_action")
    rejects(state, 0, {"type": "raid", "action": 1}, "malformed_move")
    send(state, 0, {"type": "raid", "action": "shoot"})
    assert_ship(state, 1, "m2", holes=1)


def test_s17_hiding_a_barrel() -> None:
    for hide, expected in ((True, {"hold": 1, "deck": 3}), (False, {"deck": 3})):
        state = _raid_game()
        setship(state, 0, "m1", deck=2)
        rejects(state, 0, {"type": "play", "ship": "p1", "hide": True}, "hide_not_allowed")
        play(state, 0, "m1", hide=hide)
        play(state, 1, "h")
        assert_ship(state, 0, "m1", "port", **expected)
        assert E.view(state, None)["scores"]["0"] == (4 if hide else 3)
    state = _raid_game()
    setship(state, 0, "m1", hold=1)
    rejects(state, 0, {"type": "play", "ship": "m1", "hide": True}, "hide_not_allowed")


def test_s17_hide_flag_is_never_shown_to_others() -> None:
    state = _raid_game()
    play(state, 0, "m1", hide=True)
    ev = play(state, 1, "h")
    assert "hide" not in dumps([E.view_event(e, 1) for e in ev])
    assert "hide" not in dumps(E.view(state, 1)) + dumps(E.view(state, None))


def test_s18_simultaneous_exhaustion_and_tie() -> None:
    state = game(2)
    for seat, port, counters in ((0, "p1", {"cannons": 4}), (1, "m2", {"deck": 4})):
        only_at_sea(state, seat, ["p2", port, "h"])
        setship(state, seat, "p2", holes=2)
        setship(state, seat, port, "port", **counters)
        setship(state, seat, "h", "left", anchors=7)
    play(state, 0, "p2")
    ev = play(state, 1, "p2")
    assert len(of_type(ev, "fleet_exhausted")) == 2
    assert E.result(state) == {"winners": [0, 1], "scores": {"0": 4, "1": 4},
                               "reason": "all_fleets_exhausted"}


def test_tie_break_fewer_ships_sunk() -> None:
    state = game(2, hidden_treasure=True)
    only_at_sea(state, 0, ["m1", "p2", "h"])
    setship(state, 0, "m1", holes=1)
    setship(state, 0, "p2", "port", cannons=3)
    setship(state, 0, "h", "left", anchors=7)
    only_at_sea(state, 1, ["p1", "h"])
    setship(state, 1, "p1", "port", cannons=4, hold=1)
    setship(state, 1, "h", anchors=6)
    play(state, 0, "m1")
    play(state, 1, "h")
    assert E.result(state) == {"winners": [0], "scores": {"0": 5, "1": 5},
                               "reason": "one_fleet_left"}


def test_solo_result_and_tie_break() -> None:
    for hunter_left, winners in ((False, []), (True, [0])):
        state = game(1)
        only_at_sea(state, 0, ["p1", "p2", "h"])
        setship(state, 0, "p1", "port", cannons=4)
        setship(state, 0, "h", "left" if hunter_left else "sunk", anchors=7)
        only_at_sea(state, "dummy", ["m2", "h"])
        setship(state, "dummy", "m2", "port", deck=4)
        setship(state, "dummy", "h", anchors=6)
        rng = ScriptedRng([2])
        play(state, 0, "p2", rng=rng)  # five dummy ships out: every face is the hunter
        assert state["reveal"] == {"0": "p2", "dummy": "h"}
        assert_ship(state, "dummy", "h", "left", anchors=7)
        assert E.result(state) == {"winners": winners, "scores": {"0": 4, "dummy": 4},
                                   "reason": "one_fleet_left"}


def test_s19_resignation_closes_the_choice() -> None:
    state = game(3)
    play(state, 0, "p1")
    play(state, 2, "m1")
    ev = send(state, 1, {"type": "resign"})
    assert all(s["status"] == "sunk" for s in state["fleets"]["1"].values())
    assert of_type(ev, "reveal") == [{"type": "reveal", "round": 1,
                                      "ships": {"0": "p1", "2": "m1"}}]
    assert len(of_type(ev, "encounter")) == 1 and not of_type(ev, "order")
    assert_ship(state, 0, "p1", cannons=1)
    assert E.decision(state) == {"step": 1, "step_kind": "choose", "to_act": [0, 2]}
    assert state["starter"] == 2  # rotation skips the resigned seat
    for move in ({"type": "resign"}, {"type": "play", "ship": "p2"},
                 {"type": "order", "pairs": [[0, 1], [0, 2], [1, 2]]}):
        rejects(state, 1, move, "not_your_turn")
    play(state, 0, "h")
    play(state, 2, "m2")
    assert state["phase"] == "choose" and state["starter"] == 0


def test_s19_two_player_resignation_ends_the_game() -> None:
    for resigner in (0, 1):
        state = game(2)
        setship(state, resigner, "p1", "port", cannons=4)
        play(state, 1, "p2")
        ev = send(state, resigner, {"type": "resign"})
        assert of_type(ev, "reveal") == []  # the stored choice is never shown
        assert E.result(state) == {"winners": [1 - resigner],
                                   "scores": {str(resigner): 4, str(1 - resigner): 0},
                                   "reason": "resigned"}
        assert E.decision(state)["to_act"] == []


def test_resignation_in_solo_never_wins() -> None:
    state = game(1)
    send(state, 0, {"type": "resign"})
    assert E.result(state) == {"winners": [], "scores": {"0": 0, "dummy": 0},
                               "reason": "resigned"}


def test_resignation_lapses_the_order() -> None:
    state = game(3)
    for seat, ship in enumerate(["p1", "p2", "m1"]):
        play(state, seat, ship)
    assert E.decision(state)["step_kind"] == "order"
    ev = send(state, 2, {"type": "resign"})  # not the starter: the order still lapses
    assert of_type(ev, "order") == []
    assert [e["ships"] for e in of_type(ev, "encounter")] == [
        [{"side": "0", "ship": "p1"}, {"side": "1", "ship": "p2"}]]
    assert_ship(state, 1, "p2", cannons=1)
    assert E.decision(state) == {"step": 2, "step_kind": "choose", "to_act": [0, 1]}


def test_resignation_lapses_a_raid_involving_its_ship() -> None:
    state = game(3, hidden_treasure=True)
    for seat, ship in enumerate(["p1", "m1", "m2"]):
        play(state, seat, ship)
    send(state, 0, {"type": "order", "pairs": [[0, 1], [1, 2], [0, 2]]})
    assert E.decision(state) == {"step": 2, "step_kind": "raid", "to_act": [0]}
    ev = send(state, 2, {"type": "resign"})  # not involved: the raid stays
    assert E.decision(state) == {"step": 2, "step_kind": "raid", "to_act": [0]}
    ev = send(state, 1, {"type": "resign"})  # the merchant's owner: the raid lapses
    assert ev[0] == {"type": "resigned", "seat": 1}
    assert E.result(state)["reason"] == "resigned"
    assert E.result(state)["winners"] == [0]


def test_resignation_of_the_pirate_lapses_the_raid_and_play_goes_on() -> None:
    state = game(3, hidden_treasure=True)
    for seat, ship in enumerate(["p1", "m1", "m2"]):
        play(state, seat, ship)
    send(state, 0, {"type": "order", "pairs": [[0, 1], [1, 2], [0, 2]]})
    ev = send(state, 0, {"type": "resign"})
    assert [e["type"] for e in ev] == [
        "resigned", "encounter_skipped", "encounter", "effect", "effect", "encounter_skipped",
        "round_started"]
    assert_ship(state, 1, "m1", deck=1)
    assert_ship(state, 2, "m2", deck=1)
    assert E.decision(state) == {"step": 3, "step_kind": "choose", "to_act": [1, 2]}


def test_resigning_seat_never_wins() -> None:
    state = game(3)
    setship(state, 0, "p1", "port", cannons=4)
    send(state, 0, {"type": "resign"})
    send(state, 2, {"type": "resign"})
    assert E.result(state) == {"winners": [1], "scores": {"0": 4, "1": 0, "2": 0},
                               "reason": "resigned"}


# --------------------------------------------------------------------------- error order


def test_error_order() -> None:
    state = game(2, hidden_treasure=True)
    rejects(state, 0, {"type": "fly"}, "unknown_move")
    rejects(state, 0, {}, "unknown_move")
    rejects(state, 0, {"type": ["play"]}, "unknown_move")
    rejects(state, 0, "play p1", "malformed_move")
    for bad in ({"type": "play"}, {"type": "play", "ship": 1},
                {"type": "play", "ship": "p1", "hide": 1}, {"type": "play", "ship": "p1", "x": 1},
                {"type": "resign", "why": "bored"}, {"type": "raid"}, {"type": "order"}):
        rejects(state, 0, bad, "malformed_move")
    play(state, 1, "p1")
    rejects(state, 1, {"type": "play", "ship": "nope", "hide": True}, "already_chosen")
    rejects(state, 1, {"type": "play", "ship": "p1", "x": 1}, "malformed_move")
    rejects(state, 1, {"type": "raid", "action": "rob"}, "not_your_turn")
    rejects(state, 5, {"type": "play", "ship": "p1"}, "not_your_turn")
    rejects(state, 5, {"type": "resign"}, "not_your_turn")
    rejects(state, 0, {"type": "order", "pairs": [[0, 1]]}, "wrong_phase")
    rejects(state, 0, {"type": "play", "ship": "nope", "hide": True}, "unknown_ship")
    setship(state, 0, "p2", "sunk")
    rejects(state, 0, {"type": "play", "ship": "p2", "hide": True}, "ship_not_playable")
    play(state, 0, "m1")
    assert E.decision(state)["to_act"] == [1]
    rejects(state, 0, {"type": "raid", "action": "rob"}, "not_your_turn")
    rejects(state, 1, {"type": "play", "ship": "nope"}, "wrong_phase")
    rejects(state, 1, {"type": "order", "pairs": [[0, 1]]}, "wrong_phase")


def test_steps_per_decision() -> None:
    state = game(3, hidden_treasure=True)
    play(state, 0, "p1")
    play(state, 1, "m1")
    assert state["step"] == 0
    play(state, 2, "h")
    assert state["step"] == 1
    send(state, 0, {"type": "order", "pairs": [[0, 1], [0, 2], [1, 2]]})
    assert E.decision(state) == {"step": 2, "step_kind": "raid", "to_act": [0]}
    send(state, 0, {"type": "raid", "action": "shoot"})
    assert E.decision(state) == {"step": 3, "step_kind": "choose", "to_act": [0, 1, 2]}


# --------------------------------------------------------------------------- data file


def _house() -> dict:
    return copy.deepcopy(HOUSE)


def _ship(data: dict, ship_id: str) -> dict:
    return next(s for s in data["fleet"] if s["id"] == ship_id)


def test_house_data_matches_the_spec() -> None:
    data = load_fleet("totohu-house-1")
    assert [(t.id, t.cls, t.strength, t.holes, t.die_face) for t in data.ships] == [
        ("p1", "pirate", 1, 3, 1), ("p2", "pirate", 2, 3, 2), ("p3", "pirate", 3, 2, 3),
        ("m1", "merchant", None, 2, 4), ("m2", "merchant", None, 3, 5),
        ("h", "hunter", None, 3, 6)]
    assert sum(t.cannons + t.deck for t in data.ships) == 16
    assert sum(t.cannons + t.deck + t.hold for t in data.ships) == 21
    assert data.by_id["h"].anchors == 7
    assert data.matrix["m1"]["h"] == "barrel2" and data.matrix["p2"]["p1"] == "cannon"


def _mutations() -> list[tuple[str, Any]]:
    def cell(r: str, c: str, v: Any) -> Any:
        def f(d: dict) -> None:
            d["matrix"][r][c] = v
        return f

    def field(ship: str, key: str, v: Any) -> Any:
        def f(d: dict) -> None:
            _ship(d, ship)[key] = v
        return f

    def drop_cell(d: dict) -> None:
        del d["matrix"]["p1"]["h"]

    def extra_cell(d: dict) -> None:
        d["matrix"]["p1"]["x"] = "none"

    def drop_ship(d: dict) -> None:
        d["fleet"].pop()

    def extra_key(d: dict) -> None:
        d["comment"] = "x"

    def drop_field(d: dict) -> None:
        del _ship(d, "p1")["die_face"]

    def dup_id(d: dict) -> None:
        _ship(d, "p2")["id"] = "p1"

    return [
        ("missing cell", drop_cell), ("unknown column", extra_cell), ("five ships", drop_ship),
        ("unknown top key", extra_key), ("missing ship field", drop_field),
        ("duplicate id", dup_id),
        ("unknown effect", cell("m1", "m1", "boom")),
        ("class A pirate", cell("p1", "m1", "none")),
        ("class A merchant", cell("m2", "p3", "barrel")),
        ("class B", cell("p2", "p1", "hit")),
        ("class B weaker", cell("p1", "p3", "none")),
        ("class C", cell("p2", "p2", "cannon")),
        ("class D pirate", cell("p3", "h", "hit")),
        ("class D hunter", cell("h", "p1", "none")),
        ("idle pair", lambda d: d["matrix"]["m1"].update(m2="none") or d["matrix"]["m2"].update(
            m1="none")),
        ("idle self pair", cell("h", "h", "none")),
        ("cannon on merchant", cell("m1", "m2", "cannon")),
        ("barrel on hunter", cell("h", "m1", "barrel")),
        ("anchor on merchant", cell("m1", "h", "anchor")),
        ("no cannon slots", field("p1", "cannons", 0)),
        ("no deck slots", field("m1", "deck", 0)),
        ("no holes", field("m2", "holes", 0)),
        ("pirate deck", field("p1", "deck", 2)),
        ("hunter anchors 6", field("h", "anchors", 6)),
        ("hunter hold", field("h", "hold", 1)),
        ("pirate hold 0", field("p2", "hold", 0)),
        ("merchant hold 2", field("m1", "hold", 2)),
        ("merchant anchors", field("m1", "anchors", 1)),
        ("merchant strength", field("m1", "strength", 0)),
        ("pirate without strength", field("p1", "strength", None)),
        ("bool as int", field("p1", "holes", True)),
        ("float", field("p1", "holes", 3.0)),
        ("die face 7", field("h", "die_face", 7)),
        ("die face twice", field("h", "die_face", 1)),
        ("bad class", field("h", "class", "navy")),
        ("bad ship id", field("h", "id", "H/1")),
        ("empty name", field("h", "name", "")),
        ("not an object", lambda d: d.update(fleet="six ships")),
    ]


@pytest.mark.parametrize(("name", "mutate"), _mutations(), ids=[m[0] for m in _mutations()])
def test_loader_rejects(name: str, mutate: Any) -> None:
    data = _house()
    mutate(data)
    with pytest.raises(FleetDataError) as err:
        parse_fleet(data, "totohu-house-1")
    assert str(err.value)


def test_loader_accepts_the_house_file_and_a_valid_replacement() -> None:
    parse_fleet(_house(), "totohu-house-1")
    data = _house()
    _ship(data, "p1")["cannons"] = 5
    _ship(data, "m2")["holes"] = 4
    data["matrix"]["h"]["h"] = "hit"  # a house cell: any allowed effect
    parsed = parse_fleet(data)
    assert parsed.by_id["p1"].cannons == 5


def test_data_file_ids_and_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fleet_mod, "DATA_DIR", tmp_path)
    load_fleet.cache_clear()
    try:
        (tmp_path / "broken-json.json").write_text("{")
        (tmp_path / "wrong-id.json").write_text(json.dumps(_house()))
        bad = _house()
        bad["matrix"]["p1"]["m1"] = "hit"
        (tmp_path / "bad-cell.json").write_text(json.dumps({**bad, "id": "bad-cell"}))
        good = {**_house(), "id": "variant-2"}
        _ship(good, "m1")["deck"] = 2
        (tmp_path / "variant-2.json").write_text(json.dumps(good))
        for fid, words in (("broken-json", "not valid JSON"), ("wrong-id", "is not"),
                           ("bad-cell", "rulebook"), ("missing", "Unknown fleet data"),
                           ("../etc", "not a valid")):
            with pytest.raises(IllegalMove) as err:
                E.validate_options({"fleet_data": fid}, 2)
            assert err.value.code == "invalid_options"
            assert words in err.value.message
        # A valid replacement file changes the rules without code changes.
        state = E.setup(E.validate_options({"fleet_data": "variant-2"}, 2), 2, NoDraws())
        setship(state, 0, "m1", deck=1)
        play(state, 0, "m1")
        play(state, 1, "m2")
        assert_ship(state, 0, "m1", "port", deck=2)
        random_playout(E, {"fleet_data": "variant-2"}, 2, seed=1, check=True)
    finally:
        load_fleet.cache_clear()


# --------------------------------------------------------------------------- hidden information


def _choose_positions(seats: int, options: dict, games: int) -> list[tuple[dict, int]]:
    """Random reachable positions in `choose` where some seat may choose and is not the last."""
    out = []
    for seed in range(games):
        chooser = random.Random(seed)
        rng = SeededRng(seed)
        state = E.setup(E.validate_options(options, seats), seats, rng)
        while E.result(state) is None:
            d = E.decision(state)
            if d["step_kind"] == "choose" and len(d["to_act"]) >= 2 and chooser.random() < 0.3:
                out.append((copy.deepcopy(state), chooser.choice(d["to_act"])))
            seat = chooser.choice(d["to_act"])
            E.apply(state, seat, chooser.choice(list(E.legal_moves(state, seat))), rng)
    return out


@pytest.mark.parametrize("options", OPTION_COMBOS)
@pytest.mark.parametrize("seats", [2, 3])
def test_non_interference_of_a_secret_choice(seats: int, options: dict) -> None:
    positions = _choose_positions(seats, options, 12)
    assert positions
    for state, seat in positions:
        moves = list(E.legal_moves(state, seat))
        outcomes = []
        for move in moves:
            s = copy.deepcopy(state)
            _, events = E.apply(s, seat, move, NoDraws())
            assert s["step"] == state["step"]
            outcomes.append((s, events))
        for who in [None, *[o for o in range(seats) if o != seat]]:
            seen = {
                dumps([E.view(s, who), [E.view_event(e, who) for e in ev]])
                for s, ev in outcomes
            }
            assert len(seen) == 1, f"seat {who} can tell {seat}'s choice apart"
            assert len({E.render_text(E.view(s, who)) for s, _ in outcomes}) == 1


@pytest.mark.parametrize("seats", [1, 2, 3])
def test_blind_views_hide_other_fleets_until_the_end(seats: int) -> None:
    for seed in range(6):
        game_ = random_playout(E, {"blind": True, "hidden_treasure": True}, seats, seed)
        rng = SeededRng(seed)
        state = E.setup(game_.options, seats, rng)
        for seat, move in game_.moves:
            _, events = E.apply(state, seat, move, rng)
            over = E.result(state) is not None
            for who in [None, *range(seats)]:
                v = E.view(state, who)
                own = [] if who is None else [str(who)]
                if not over:
                    assert sorted(v["fleets"]) == own and sorted(v["scores"]) == own
                else:
                    assert sorted(v["fleets"]) == sorted(state["fleets"])
                for e in events:
                    seen = E.view_event(e, who)
                    if e["type"] in ("effect", "departure"):
                        assert (seen is not None) == (e["side"] == (own or [None])[0])
                    if e["type"] == "robbery":
                        parties = {e["pirate"]["side"], e["merchant"]["side"]}
                        assert (seen is not None) == bool(set(own) & parties)
                    assert seen is None or "audience" not in seen


def test_blind_views_do_not_depend_on_hidden_counters() -> None:
    """Two blind games that differ only in seat 1's hidden counters look alike to others."""
    a = game(3, blind=True, hidden_treasure=True)
    b = copy.deepcopy(a)
    setship(b, 1, "m2", deck=2, hold=1, holes=1)
    setship(b, 1, "p1", cannons=2)
    setship(b, 2, "h", anchors=3)
    for who in (None, 0):
        assert dumps(E.view(a, who)) == dumps(E.view(b, who))
    assert dumps(E.view(a, 1)) != dumps(E.view(b, 1))


def test_open_play_shows_everything() -> None:
    state = _raid_game()
    play(state, 0, "p1")
    play(state, 1, "m2")
    ev = send(state, 0, {"type": "raid", "action": "rob"})
    for who in (None, 0, 1):
        v = E.view(state, who)
        assert sorted(v["fleets"]) == ["0", "1"]
        assert [E.view_event(e, who) for e in ev] == ev


def test_blind_solo_hides_the_dummy() -> None:
    state = game(1, blind=True)
    ev = play(state, 0, "p2", rng=ScriptedRng([1]))
    dummy_effects = [e for e in ev if e.get("side") == "dummy"]
    assert dummy_effects and all(E.view_event(e, 0) is None for e in dummy_effects)
    assert E.view_event(of_type(ev, "dummy_roll")[0], None)["ship"] == "p1"
    assert list(E.view(state, 0)["fleets"]) == ["0"]


def test_render_text() -> None:
    state = game(3, blind=True, hidden_treasure=True)
    play(state, 0, "m1", hide=True)
    text = E.render_text(E.view(state, 0))
    assert "round 1" in text and "Player 1 (you)" in text
    assert "your choice this round: m1 (hide)" in text
    assert "Player 2: active, not chosen; fleet hidden." in text
    assert "hold 0/1" in text
    other = E.render_text(E.view(state, 1))
    assert "m1 (hide)" not in other and "Player 1: active, chosen; fleet hidden." in other
    solo = game(1)
    for _ in range(3):
        play(solo, 0, "h", rng=ScriptedRng([6, 1, 2, 3, 4, 5]))
    text = E.render_text(E.view(solo, None))
    assert "Dummy: active" in text and "Last reveal:" in text
    send(solo, 0, {"type": "resign"})
    assert "Game over: the dummy won." in E.render_text(E.view(solo, 0))


# --------------------------------------------------------------------------- random playouts


MAX_ROUNDS = {(1, False): 62, (2, False): 62, (3, False): 93,
              (1, True): 78, (2, True): 78, (3, True): 126}


def _check_finished(state: dict, seats: int, options: dict) -> None:
    treasure = options["hidden_treasure"]
    fleet = rules.fleet_of(state)
    res = E.result(state)
    assert res is not None and E.decision(state)["to_act"] == []
    assert state["round"] <= MAX_ROUNDS[(seats, treasure)]
    live = [side for side, ships in state["fleets"].items() if rules.at_sea(ships)]
    assert len(live) <= 1
    assert res["reason"] == ("one_fleet_left" if live else "all_fleets_exhausted")
    for side, ships in state["fleets"].items():
        assert res["scores"][side] == rules.score(ships) <= (21 if treasure else 16)
        for ship_id, s in ships.items():
            t = fleet.by_id[ship_id]
            assert s["holes"] <= t.holes and s["cannons"] <= t.cannons
            assert s["deck"] <= t.deck and s["anchors"] <= t.anchors
            assert s["hold"] <= (t.hold if treasure else 0)
            if s["status"] == "sunk":
                assert s["holes"] == t.holes and s["cannons"] + s["deck"] + s["hold"] == 0
    assert res["winners"] == sorted(res["winners"])
    if seats > 1:
        assert res["winners"]


def _run_playouts(seats: int, options: dict, games: int, first_seed: int = 0) -> int:
    moves = 0
    for seed in range(first_seed, first_seed + games):
        played = random_playout(E, options, seats, seed)
        _check_finished(played.state, seats, played.options)
        moves += len(played.moves)
    return moves


CONFIGS = [(seats, opts) for seats in (1, 2, 3) for opts in OPTION_COMBOS]


@pytest.mark.parametrize(("seats", "options"), CONFIGS)
def test_random_playouts(seats: int, options: dict) -> None:
    _run_playouts(seats, options, 200)


@pytest.mark.parametrize(("seats", "options"), CONFIGS)
def test_checked_random_playouts(seats: int, options: dict) -> None:
    for seed in range(1000, 1010):
        played = random_playout(E, options, seats, seed, check=True)
        _check_finished(played.state, seats, played.options)


@pytest.mark.slow
@pytest.mark.parametrize(("seats", "options"), CONFIGS)
def test_many_random_playouts(seats: int, options: dict) -> None:
    _run_playouts(seats, options, 3000, first_seed=10_000)


# --------------------------------------------------------------------------- contract v2


def test_default_moves_order_in_seat_order_and_shoot() -> None:
    """A late ship choice forfeits; a late order fights in seat order; a late raid shoots."""
    state = game(3)
    state["round"], state["starter"] = 5, 1
    assert E.default_move(state, 0) is None
    setship(state, 0, "m1", holes=1)
    for seat, ship in ((0, "m1"), (1, "p2"), (2, "p3")):
        play(state, seat, ship)
    assert E.default_move(state, 1) == {"type": "order", "pairs": [[0, 1], [0, 2], [1, 2]]}
    raid = _raid_game()
    setship(raid, 1, "m2", deck=2)
    play(raid, 0, "p1")
    play(raid, 1, "m2")
    default = E.default_move(raid, 0)
    assert default == {"type": "raid", "action": "shoot"}
    send(raid, 0, default)
    assert_ship(raid, 1, "m2", "sea", holes=1, deck=2)


def test_notation_reads_and_writes_every_move_kind() -> None:
    for text, move in [
        ("play m2", {"type": "play", "ship": "m2"}),
        ("play m1 hide", {"type": "play", "ship": "m1", "hide": True}),
        ("order 1-2 0-1 0-2", {"type": "order", "pairs": [[1, 2], [0, 1], [0, 2]]}),
        ("raid rob", {"type": "raid", "action": "rob"}),
        ("resign", {"type": "resign"}),
    ]:
        assert E.parse_move(f"  {text} ") == move
        assert E.format_move(move) == text
    for bad in ("play", "play m-2", "raid sink", "order 0-1 0-2", "order 0-1 0-2 x", "m2"):
        with pytest.raises(IllegalMove) as err:
            E.parse_move(bad)
        assert err.value.code == "bad_notation"
