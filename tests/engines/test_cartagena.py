"""Cartagena: the spec's worked scenarios (§11) for the routes, Morgan and Rascals, with options,
notation, hidden information and random playouts of every variant."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from engines.cartagena import ENGINE as E
from engines.contract import IllegalMove
from engines.rng import NoDraws, ScriptedRng, SeededRng
from tests.engines.refusals import assert_refused


def _words(text: str) -> list[str]:
    return text.split()


BOARD_B = _words("""
hook pistol lantern rum parrot chest parrot lantern hook chest rum pistol pistol hook rum
lantern chest parrot parrot chest rum pistol lantern hook rum parrot chest hook pistol
lantern chest rum pistol parrot lantern hook
""")
BOARD_M = _words("""
lantern chest parrot pistol hook rum hook parrot lantern chest pistol rum parrot chest
lantern rum hook pistol lantern chest parrot hook rum pistol rum hook chest pistol parrot
lantern hook parrot pistol rum lantern chest
""")


def game(n: int, squares: list[str], pirates: dict[int, dict[Any, int]], hands: dict[int, list],
         deck: list[str] = (), active: int = 0, **options: Any) -> dict:
    """A position: the board's symbols, pirates by seat and location, hands and deck top."""
    opts = E.validate_options({"pirates": options.pop("crew", 6), **options}, n)
    state = E.setup(opts, n, SeededRng(1))
    state["squares"] = [""] + list(squares)
    state["occ"] = [0] * len(state["squares"])
    if state["route"] == "complete":
        state["tunnel"] = 18
    start = "wreck" if state["route"] == "tortuga" else "prison"
    for s in range(n):
        placed = pirates.get(s, {})
        rest = opts["pirates"] - sum(placed.values())
        state["pirates"][str(s)] = {str(k): v for k, v in placed.items() if v}
        if rest:
            state["pirates"][str(s)][start] = rest
        for loc, count in placed.items():
            if isinstance(loc, int):
                state["occ"][loc] += count
        state["hands"][str(s)] = list(hands.get(s, []))
    state["deck"], state["discard"] = list(deck), []
    state.update(active=active, to_act=[active])
    return state


def send(state: dict, seat: int, move: dict, rng: Any = None) -> list[dict]:
    return E.apply(state, seat, move, rng or NoDraws())[1]


def rejects(state: dict, seat: int, move: Any, code: str) -> None:
    assert_refused(E, state, seat, move, code)


def at(state: dict, seat: int) -> dict:
    return state["pirates"][str(seat)]


def _s1() -> dict:
    return game(3, BOARD_B, {0: {7: 1, 9: 1}, 1: {1: 1, 11: 1, 19: 1, 36: 1},
                             2: {14: 1, 15: 1, 19: 1, 24: 1}},
                {0: ["rum-05", "hook-04", "pistol-03"]}, ["lantern-07", "parrot-09"])


def test_s1_rulebook_example_one() -> None:
    state = _s1()
    rejects(state, 0, {"type": "end_turn"}, "end_turn_too_early")
    send(state, 0, {"type": "play", "card": "rum-05", "from": 7})
    assert at(state, 0) == {"9": 1, "21": 1, "prison": 4}
    send(state, 0, {"type": "back", "from": 21})
    assert at(state, 0)["19"] == 1 and state["occ"][19] == 3
    assert sorted(state["hands"]["0"]) == ["hook-04", "lantern-07", "parrot-09", "pistol-03"]
    send(state, 0, {"type": "play", "card": "hook-04", "from": "prison"})
    assert at(state, 0)["28"] == 1
    assert state["active"] == 1 and E.decision(state)["to_act"] == [1]
    state["hands"]["1"] = ["hook-06"]
    send(state, 1, {"type": "play", "card": "hook-06", "from": "prison"})
    assert at(state, 1)["ship"] == 1


def test_s2_rulebook_example_two() -> None:
    state = game(3, BOARD_B, {0: {9: 1, 16: 1, 30: 1, 36: 1}, 1: {11: 1, 13: 1, "ship": 1},
                              2: {9: 1, 23: 1, 35: 1}},
                 {1: ["lantern-10"]}, ["pistol-11", "parrot-12", "chest-13"], active=1)
    send(state, 1, {"type": "back", "from": 11})
    assert at(state, 1).get("9") == 1
    send(state, 1, {"type": "back", "from": "ship"})
    assert at(state, 1).get("36") == 1 and "ship" not in at(state, 1)
    assert sorted(state["hands"]["1"]) == ["chest-13", "lantern-10", "parrot-12", "pistol-11"]
    send(state, 1, {"type": "play", "card": "lantern-10", "from": 13})
    assert at(state, 1)["ship"] == 1 and state["active"] == 2


def test_s3_limits_on_moving_back() -> None:
    state = game(3, BOARD_B, {0: {2: 1, 12: 1}, 1: {9: 1, 11: 1}, 2: {9: 1}}, {}, ["rum-01"])
    rejects(state, 0, {"type": "back", "from": "prison"}, "no_square_behind")
    rejects(state, 0, {"type": "back", "from": 2}, "no_square_behind")
    events = send(state, 0, {"type": "back", "from": 12})
    assert at(state, 0).get("11") == 1 and state["hands"]["0"] == ["rum-01"]
    assert events[0]["draws"] == 1


def test_s4_turn_control_and_passing() -> None:
    state = _s1()
    send(state, 0, {"type": "play", "card": "rum-05", "from": 7})
    send(state, 0, {"type": "end_turn"})
    rejects(state, 0, {"type": "play", "card": "hook-04", "from": 9}, "not_your_turn")
    empty = game(3, BOARD_B, {}, {0: []}, ["rum-03"])
    assert E.default_move(empty, 0) == {"type": "pass"}
    send(empty, 0, {"type": "pass"})
    assert empty["hands"]["0"] == ["rum-03"] and empty["active"] == 1
    full = game(3, BOARD_B, {}, {0: ["rum-03"]})
    rejects(full, 0, {"type": "pass"}, "pass_hand_not_empty")
    assert E.default_move(full, 0) is None


def test_s5_reshuffle_when_the_deck_is_empty() -> None:
    state = game(3, BOARD_B, {0: {2: 1, 12: 1}, 1: {9: 1, 11: 1}, 2: {9: 1, 11: 1}}, {}, [])
    state["discard"] = ["pistol-05", "rum-08", "hook-12"]
    events = E.apply(state, 0, {"type": "back", "from": 12}, ScriptedRng([[1, 2, 0]]))[1]
    assert sorted(state["hands"]["0"]) == ["hook-12", "rum-08"]
    assert state["deck"] == ["pistol-05"] and state["discard"] == []
    assert {"type": "deck_reshuffled", "cards": 3} in events


def test_s6_the_win() -> None:
    state = game(2, BOARD_B, {0: {"ship": 3, 34: 1}, 1: {35: 1}}, {0: ["lantern-03"]}, crew=4)
    send(state, 0, {"type": "play", "card": "lantern-03", "from": 34})
    assert E.result(state) == {"winners": [0], "scores": {"0": 4, "1": 0},
                               "reason": "all_pirates_escaped"}
    rejects(state, 1, {"type": "end_turn"}, "game_over")


def test_s7_morgan_in_the_base_game() -> None:
    state = game(3, BOARD_B, {0: {5: 1}, 1: {30: 1, 33: 1}, 2: {31: 3}}, {},
                 ["rum-01", "rum-02", "rum-03"],
                 draw_mode={"tunnel": "morgan", "jungle": "back"})
    rejects(state, 0, {"type": "back", "from": 5}, "back_not_allowed")
    rejects(state, 0, {"type": "morgan", "seat": 0, "from": 5}, "morgan_own_pirate")
    send(state, 0, {"type": "morgan", "seat": 1, "from": 30})
    assert at(state, 1).get("33") == 2 and len(state["hands"]["0"]) == 1
    send(state, 0, {"type": "morgan", "seat": 1, "from": 33})
    assert at(state, 1).get("ship") == 1 and len(state["hands"]["0"]) == 3


def _board_m(pirates: dict, hands: dict, active: int = 0, n: int = 3, **options: Any) -> dict:
    return game(n, BOARD_M, pirates, hands, ["rum-01", "rum-02", "rum-03", "rum-04"],
                active=active, route="complete", **options)


def test_s8_sailing_morgan_and_the_hook_in_the_complete_escape() -> None:
    both = {"tunnel": "morgan", "jungle": "morgan"}
    state = _board_m({0: {19: 2, 6: 1, 12: 1}, 1: {"ship": 2, 7: 1}, 2: {"ship": 1, 16: 1,
                                                                            17: 1}},
                     {1: ["hook-03"]}, active=1, draw_mode=both)
    state["captain"] = True
    events = send(state, 1, {"type": "sail"})
    assert events[0]["free"] and state["shore"] == "tortuga" and state["actions"] == 0
    send(state, 1, {"type": "morgan", "seat": 2, "from": "ship"})
    assert at(state, 2).get("19") == 1 and state["actions"] == 1
    send(state, 1, {"type": "sail"})
    assert state["shore"] == "cartagena" and state["actions"] == 2
    send(state, 1, {"type": "play", "card": "hook-03", "from": 7})
    assert at(state, 1)["ship"] == 3 and state["active"] == 2


def test_s9_morgan_example_two_with_four_seats() -> None:
    both = {"tunnel": "morgan", "jungle": "morgan"}
    state = _board_m({0: {6: 1, 12: 1, 16: 1}, 1: {10: 2, "ship": 2}, 2: {20: 1, 35: 1},
                      3: {7: 1}}, {0: ["rum-07"]}, active=0, n=4, draw_mode=both)
    send(state, 0, {"type": "play", "card": "rum-07", "from": "prison"})
    assert at(state, 0)["ship"] == 1 and at(state, 0)["prison"] == 2
    send(state, 0, {"type": "morgan", "seat": 2, "from": 35})
    assert at(state, 2).get("cove") == 1 and "35" not in at(state, 2)
    assert len(state["hands"]["0"]) == 2
    send(state, 0, {"type": "morgan", "seat": 3, "from": 7})
    assert at(state, 3) == {"10": 1, "prison": 5} and state["occ"][10] == 3
    assert len(state["hands"]["0"]) == 4 and state["active"] == 1


def test_s10_ship_limits() -> None:
    state = _board_m({2: {"ship": 3, 15: 1}, 0: {6: 1, 12: 1}}, {0: ["rum-08"]},
                     draw_mode={"tunnel": "both", "jungle": "back"})
    rejects(state, 0, {"type": "morgan", "seat": 2, "from": 15}, "ship_crew_limit")
    state["shore"] = "tortuga"
    moved = json.loads(json.dumps(state))
    send(moved, 0, {"type": "play", "card": "rum-08", "from": "prison"})
    assert at(moved, 0).get("16") == 1
    state["occ"][16] = 1
    state["pirates"]["1"]["16"] = 1
    rejects(state, 0, {"type": "play", "card": "rum-08", "from": "prison"},
            "ship_not_at_cartagena")
    aboard = _board_m({0: {"ship": 1}}, {0: ["rum-08"]})
    rejects(aboard, 0, {"type": "play", "card": "rum-08", "from": "ship"}, "ship_not_at_tortuga")


def test_s11_sailing_rules() -> None:
    state = _board_m({0: {"ship": 2, 3: 1}, 1: {"ship": 2}, 2: {4: 1}}, {0: ["parrot-05"],
                                                                         2: ["lantern-08"]},
                     active=2)
    rejects(state, 2, {"type": "sail"}, "sail_needs_pirate_aboard")
    send(state, 2, {"type": "play", "card": "lantern-08", "from": 4})
    send(state, 2, {"type": "end_turn"})
    assert state["active"] == 0 and state["captain"] is True
    assert send(state, 0, {"type": "sail"})[0]["free"]
    assert not send(state, 0, {"type": "sail"})[0]["free"]
    send(state, 0, {"type": "sail"})
    assert state["shore"] == "tortuga" and state["actions"] == 2
    send(state, 0, {"type": "play", "card": "parrot-05", "from": "ship"})
    assert at(state, 0).get("21") == 1 and state["active"] == 1
    flat = game(2, BOARD_B, {}, {0: ["rum-01"]})
    rejects(flat, 0, {"type": "sail"}, "variant_not_enabled")


def test_s12_no_moving_back_across_the_sea() -> None:
    state = _board_m({1: {"ship": 1, 21: 1, "cove": 1}, 0: {35: 1}}, {}, active=1)
    state["shore"] = "tortuga"
    rejects(state, 1, {"type": "back", "from": "ship"}, "cannot_move_back_from_ship")
    rejects(state, 1, {"type": "back", "from": 21}, "no_square_behind")
    send(state, 1, {"type": "back", "from": "cove"})
    assert at(state, 1).get("35") == 1


def test_s13_rascals() -> None:
    cards = [f"{s}-{i:02d}" for s in ("rum", "pistol", "lantern") for i in range(3, 12)]
    state = game(4, BOARD_B, {}, {1: ["hook-01"], 0: cards[:9], 2: cards[9:16],
                                  3: cards[16:24]}, active=1, rascals=True)
    send(state, 1, {"type": "play", "card": "hook-01", "from": "prison"})
    assert at(state, 1).get("1") == 1
    assert E.decision(state)["step_kind"] == "discard" and state["to_act"] == [0, 3]
    step = state["step"]
    rejects(state, 1, {"type": "end_turn"}, "not_your_turn")
    rejects(state, 0, {"type": "discard", "cards": cards[:3]}, "discard_wrong_count")
    assert E.is_secret({"type": "discard", "cards": cards[:1]})
    events = send(state, 0, {"type": "discard", "cards": [cards[0]]})
    assert E.view_event(events[0], 3) is None
    assert state["to_act"] == [0, 3] and state["step"] == step
    assert E.view(state, 3)["hand_sizes"]["0"] == 9 and state["discard"] == ["hook-01"]
    send(state, 0, {"type": "discard", "cards": [cards[1]]})
    assert state["to_act"] == [3] and state["step"] == step
    assert E.default_move(state, 3) == {"type": "discard_random"}
    send(state, 3, {"type": "discard", "cards": [cards[16]]})
    assert state["discard"] == ["hook-01", cards[0], cards[1], cards[16]]
    assert state["phase"] == "action" and state["to_act"] == [1] and state["actions"] == 1
    assert state["step"] == step + 1


def test_s20_resigning() -> None:
    state = _s1()
    send(state, 2, {"type": "resign"})
    assert at(state, 2) == {} and state["occ"][15] == 0
    send(state, 0, {"type": "play", "card": "rum-05", "from": 7})
    assert at(state, 0).get("15") == 1
    send(state, 1, {"type": "resign"})
    assert E.result(state) == {"winners": [0], "scores": {"0": 0, "1": 0, "2": 0},
                               "reason": "resigned"}


def test_s19_tortuga() -> None:
    jungle = _words("""
    chest rum hook lantern pistol parrot pistol lantern rum parrot chest hook rum pistol
    chest parrot lantern hook parrot hook lantern chest rum pistol
    """)
    state = game(2, jungle, {0: {"wreck": 5, "cove": 1}, 1: {23: 1}}, {0: ["rum-06"]},
                 ["hook-01"], route="tortuga", tiles=4)
    rejects(state, 0, {"type": "back", "from": "wreck"}, "no_square_behind")
    send(state, 0, {"type": "play", "card": "rum-06", "from": "wreck"})
    assert at(state, 0).get("2") == 1
    send(state, 0, {"type": "back", "from": "cove"})
    assert at(state, 0).get("23") == 1


def test_options_and_variants() -> None:
    assert E.validate_options({}, 2)["tiles"] == 6
    assert E.validate_options({"route": "complete"}, 2)["tiles"] == {"tunnel": 3, "jungle": 3}
    for opts in ({}, {"route": "complete"}, {"route": "tortuga", "tiles": 4}):
        once = E.validate_options(opts, 3)
        assert E.validate_options(once, 3) == once
    for bad in ({"tiles": 9}, {"pirates": 3}, {"route": "complete", "tiles": 6},
                {"route": "complete", "tiles": {"tunnel": 2, "jungle": 3}},
                {"draw_mode": {"tunnel": "fly", "jungle": "back"}}, {"witch": 1}):
        with pytest.raises(IllegalMove) as err:
            E.validate_options(bad, 3)
        assert err.value.code == "invalid_options"


def test_setup_is_audited_and_secret_where_it_deals() -> None:
    rng = SeededRng(5)
    state = E.setup(E.validate_options({"route": "complete"}, 3), 3, rng)
    purposes = [(d["purpose"], d["secret"]) for d in rng.draws]
    assert purposes[0] == ("board-tiles", False)
    assert purposes.count(("tile-orientation", False)) == 6
    assert purposes[-1] == ("deck-initial", True)
    assert len(state["squares"]) == 37 and state["tunnel"] == 18
    assert [len(state["hands"][s]) for s in "012"] == [6, 6, 6] and len(state["deck"]) == 84


def test_notation_round_trips() -> None:
    for text, move in [("play rum-05 7", {"type": "play", "card": "rum-05", "from": 7}),
                       ("play hook-03 prison", {"type": "play", "card": "hook-03",
                                                "from": "prison"}),
                       ("back ship", {"type": "back", "from": "ship"}),
                       ("morgan 1 30", {"type": "morgan", "seat": 1, "from": 30}),
                       ("sail", {"type": "sail"}), ("end", {"type": "end_turn"}),
                       ("discard hook-01 rum-04", {"type": "discard",
                                                   "cards": ["hook-01", "rum-04"]}),
                       ("discard-random", {"type": "discard_random"})]:
        assert E.parse_move(text) == move and E.format_move(move) == text
    for bad in ("", "play rum", "back nowhere", "morgan x 3", "fly"):
        with pytest.raises(IllegalMove):
            E.parse_move(bad)


def _hidden(state: dict, seat: int | None) -> set[str]:
    out = set(state["deck"])
    for s in range(state["n"]):
        if s != seat:
            out |= set(state["hands"][str(s)]) | set(state["pending"].get(str(s), []))
    if seat is not None and seat == state.get("known_by"):
        out -= set(state.get("known_deck") or [])  # the lantern showed them to this seat
    follow = state.get("follow") or {}
    if "target" in follow and seat == state["active"]:
        out -= set(state["hands"][str(follow["target"])])  # the pistol shows the caster
    return out


@pytest.mark.parametrize("variant", [v.id for v in E.variants])
def test_random_games_end_and_never_show_hidden_cards(variant: str) -> None:
    """...and the state stays under 16 KB of JSON at every step."""
    options = dict(next(v for v in E.variants if v.id == variant).options)
    for seats in (2, 3, 5):
        rng, chooser = SeededRng(seats), random.Random(seats)
        state = E.setup(E.validate_options(options, seats), seats, rng)
        for _ in range(20000):
            if E.result(state) is not None:
                break
            seat = E.decision(state)["to_act"][0]
            move = chooser.choice(list(E.legal_moves(state, seat)))
            before = {w: _hidden(state, w) for w in (None, *range(seats))}
            state, events = E.apply(state, seat, move, rng)
            assert len(json.dumps(state, separators=(",", ":"))) < 16 * 1024  # issue target
            if any(e["type"] == "deck_reshuffled" for e in events):
                continue
            for who in (None, *range(seats)):
                shown = json.dumps([E.view(state, who), [E.view_event(e, who) for e in events],
                                    E.render_text(E.view(state, who))])
                leaked = {c for c in before[who] & _hidden(state, who) if f'"{c}"' in shown
                          or f" {c}" in shown}
                assert not leaked, (variant, who, leaked, move)
        assert E.result(state) is not None


# ---- the Caribbean Witch (S14-S18) -------------------------------------------------------


def test_s14_the_hook_moves_two_pirates() -> None:
    state = _board_m({1: {"ship": 2, 7: 1}}, {1: ["hook-05", "lantern-04"]}, active=1,
                     witch=True)
    state["shore"] = "tortuga"
    spell = {"type": "spell", "cards": ["hook-05", "lantern-04"], "from": 7}
    rejects(state, 1, spell, "hook_needs_two_pirates")
    send(state, 1, {**spell, "from": "ship"})
    assert at(state, 1).get("19") == 2 and state["actions"] == 1


def test_s15_the_pistol() -> None:
    state = game(3, BOARD_B, {}, {1: ["pistol-07"], 0: ["rum-03", "chest-05"]}, ["parrot-10"],
                 active=1, witch=True)
    rejects(state, 1, {"type": "spell", "cards": ["pistol-07"], "target": 1},
            "pistol_bad_target")
    send(state, 1, {"type": "spell", "cards": ["pistol-07"], "target": 0})
    assert E.decision(state)["step_kind"] == "pistol_take"
    assert E.view(state, 1)["spell"]["target_hand"] == ["chest-05", "rum-03"]
    assert "target_hand" not in E.view(state, 2)["spell"]
    assert "rum-03" not in json.dumps(E.view(state, 2))
    rejects(state, 1, {"type": "play", "card": "pistol-07", "from": "prison"},
            "decision_pending")
    rejects(state, 1, {"type": "pistol_take", "card": "hook-01"}, "not_in_target_hand")
    events = send(state, 1, {"type": "pistol_take", "card": "chest-05"})
    assert state["hands"]["1"] == ["chest-05"] and state["hands"]["0"] == ["rum-03", "parrot-10"]
    assert E.view_event(events[0], 2) == {"type": "pistol_took", "seat": 1, "target": 0}
    assert E.is_secret({"type": "pistol_take", "card": "chest-05"})


def test_s16_rum_and_lantern() -> None:
    state = game(3, BOARD_B, {}, {1: ["rum-09"]}, ["hook-10", "lantern-11", "pistol-12",
                                                     "chest-14"], active=1, witch=True)
    send(state, 1, {"type": "spell", "cards": ["rum-09"]})
    assert E.view(state, 1)["spell"]["drawn"] == ["chest-14", "hook-10", "lantern-11",
                                                  "pistol-12"]
    rejects(state, 1, {"type": "rum_deal", "keep": ["hook-10", "chest-14"],
                       "give": [{"seat": 0, "card": "lantern-11"},
                                {"seat": 0, "card": "pistol-12"}]}, "rum_bad_split")
    events = send(state, 1, {"type": "rum_deal", "keep": ["hook-10", "chest-14"],
                             "give": [{"seat": 0, "card": "lantern-11"},
                                      {"seat": 2, "card": "pistol-12"}]})
    assert state["hands"]["1"] == ["hook-10", "chest-14"]
    assert state["hands"]["0"] == ["lantern-11"] and state["hands"]["2"] == ["pistol-12"]
    dealt = next(e for e in events if e["type"] == "rum_dealt")
    assert E.view_event(dealt, 0)["give"] == [{"seat": 0, "card": "lantern-11"}, {"seat": 2}]
    lantern = game(3, BOARD_B, {}, {1: ["lantern-06"]}, ["rum-10", "parrot-11", "hook-12",
                                                          "pistol-13", "chest-15"],
                   active=1, witch=True)
    send(lantern, 1, {"type": "spell", "cards": ["lantern-06"]})
    rejects(lantern, 1, {"type": "lantern_keep", "keep": "parrot-11",
                         "return": ["pistol-13", "rum-10"]}, "lantern_bad_split")
    send(lantern, 1, {"type": "lantern_keep", "keep": "parrot-11",
                      "return": ["pistol-13", "rum-10", "hook-12"]})
    assert lantern["deck"] == ["pistol-13", "rum-10", "hook-12", "chest-15"]
    assert [k["depth"] for k in E.view(lantern, 1)["known_deck"]] == [0, 1, 2]
    assert "known_deck" not in E.view(lantern, 0)


def test_s17_the_parrot_wild_card() -> None:
    state = game(3, BOARD_B, {1: {13: 1}, 0: {14: 1}}, {1: ["parrot-03", "parrot-08",
                                                             "rum-11"]}, active=1, witch=True)
    rejects(state, 1, {"type": "spell", "cards": ["parrot-03", "rum-11"], "symbol": "hook",
                       "from": 13}, "spell_card_mismatch")
    rejects(state, 1, {"type": "spell", "cards": ["parrot-03", "parrot-08"], "symbol": "parrot",
                       "from": 13}, "invalid_wild_symbol")
    send(state, 1, {"type": "spell", "cards": ["parrot-03", "parrot-08"], "symbol": "hook",
                    "from": 13})
    assert at(state, 1).get("24") == 1


def test_s18_chests_and_the_snake() -> None:
    state = game(3, BOARD_B, {1: {17: 1, 20: 1}, 0: {15: 1}},
                 {1: ["chest-03", "chest-04", "chest-05"]},
                 ["rum-01", "rum-02", "rum-03"], active=1, witch=True)
    state["chests"] = {"6": "treasure-1a", "10": "empty", "17": "snake", "20": "treasure-2b",
                       "27": "treasure-3a", "31": "treasure-1b"}
    state["chests_aside"] = ["treasure-2a", "treasure-3b"]
    assert E.view(state, 0)["chests"] == {"squares": [6, 10, 17, 20, 27, 31], "aside": 2,
                                          "opened": []}
    send(state, 1, {"type": "spell", "cards": ["chest-03"], "from": 20})
    assert state["chests_opened"] == ["treasure-2b"] and len(state["hands"]["1"]) == 4
    rejects(state, 1, {"type": "spell", "cards": ["chest-04"], "from": 12}, "no_pirate_there")
    order = ["empty", "snake", "treasure-1a", "treasure-1b", "treasure-2a", "treasure-2b",
             "treasure-3a", "treasure-3b"]
    E.apply(state, 1, {"type": "spell", "cards": ["chest-04"], "from": 17},
            ScriptedRng([order]))
    assert at(state, 1).get("11") == 1 and state["chests_opened"] == []
    assert sorted(state["chests"]) == ["10", "17", "20", "27", "31", "6"]
    assert len(state["chests_aside"]) == 2
    state["active"], state["actions"], state["to_act"] = 1, 0, [1]
    rejects(state, 1, {"type": "spell", "cards": ["chest-05"], "from": 11}, "no_chest_here")


#: BOARD_M with squares 20 and 23 swapped: in the jungle (19-36) the chest on 23 has one rum
#: square behind it (20), and the tunnel's rum squares (6, 12, 16) lie further back
BOARD_J = BOARD_M[:19] + ["rum"] + BOARD_M[20:22] + ["chest"] + BOARD_M[23:]
TOKENS = ["empty", "snake", "treasure-1a", "treasure-1b", "treasure-2a", "treasure-2b",
          "treasure-3a", "treasure-3b"]


def _snake_in_the_jungle(shore: str, aboard: int) -> tuple[dict, list[dict]]:
    """Seat 1 opens the snake on jungle square 23; the only jungle rum behind (20) is taken."""
    crew = {23: 1, "ship": aboard} if aboard else {23: 1}
    state = game(2, BOARD_J, {1: crew, 0: {20: 1}}, {1: ["chest-05"]}, active=1,
                 route="complete", witch=True)
    assert [q for q in range(19, 24) if BOARD_J[q - 1] in ("rum", "chest")] == [20, 23]
    state["shore"] = shore
    state["chests"], state["chests_aside"] = {"10": "empty", "23": "snake"}, TOKENS[2:]
    events = E.apply(state, 1, {"type": "spell", "cards": ["chest-05"], "from": 23},
                     ScriptedRng([TOKENS]))[1]
    return state, events


def test_the_snake_in_the_jungle_stops_at_the_jungles_start() -> None:
    """Decision 14: the way back ends at the shore of Tortuga, never in the tunnel's rum 16."""
    state, events = _snake_in_the_jungle("tortuga", 0)
    assert at(state, 1) == {"ship": 1, "prison": 5} and state["occ"][23] == 0
    assert {"type": "snake", "seat": 1, "from": 23, "to": "ship"} in events
    assert state["occ"][16] == 0 and state["actions"] == 1


@pytest.mark.parametrize(("shore", "aboard"), [("cartagena", 0), ("tortuga", 3)])
def test_a_jungle_start_out_of_reach_leaves_the_pirate_in_place(shore: str,
                                                                    aboard: int) -> None:
    """The ship at Cartagena, or full of the colour, cannot take it: the pirate stays."""
    state, events = _snake_in_the_jungle(shore, aboard)
    assert at(state, 1)["23"] == 1 and state["occ"][23] == 1 and state["occ"][16] == 0
    assert at(state, 1).get("ship", 0) == aboard
    assert not [e for e in events if e["type"] == "snake"]
    assert {"type": "chests_reshuffled"} in events and "23" in state["chests"]


def test_two_card_spells_list_every_pair_of_kinds() -> None:
    """A dark and a light parrot are two choices under Rascals: every pair of kinds is listed,
    once, and `check` accepts each."""
    hand = ["parrot-01", "parrot-10", "parrot-15", "hook-11"]
    state = game(2, BOARD_B, {0: {5: 2}}, {0: hand}, witch=True, rascals=True)
    listed = [m for m in E.legal_moves(state, 0) if m["type"] == "spell"]
    for move in listed:
        E.check(state, 0, move)
    pairs = {tuple(m["cards"]) for m in listed if len(m["cards"]) == 2}
    assert pairs == {("parrot-01", "parrot-10"), ("parrot-10", "parrot-15"),
                     ("hook-11", "parrot-01"), ("hook-11", "parrot-10")}
    wild = [m for m in listed if m["cards"] == ["parrot-10", "parrot-15"] and m["from"] == 5]
    assert sorted(m["symbol"] for m in wild) == ["chest", "hook", "lantern", "pistol", "rum"]


def test_hook_pairs_of_two_hooks_are_listed_once() -> None:
    state = game(2, BOARD_B, {0: {5: 2}}, {0: ["hook-01", "hook-02", "hook-09", "rum-03"]},
                 witch=True)
    pairs = [tuple(m["cards"]) for m in E.legal_moves(state, 0)
             if m["type"] == "spell" and len(m["cards"]) == 2 and m["from"] == 5]
    assert sorted(pairs) == [("hook-01", "hook-02"), ("hook-01", "hook-09"),
                             ("hook-01", "rum-03"), ("hook-09", "rum-03")]


def test_a_pistol_take_is_listed_once_per_kind() -> None:
    state = game(3, BOARD_B, {}, {1: ["pistol-07"], 0: ["rum-01", "rum-03", "rum-04"]},
                 ["parrot-10"], active=1, witch=True)
    send(state, 1, {"type": "spell", "cards": ["pistol-07"], "target": 0})
    assert [m["card"] for m in E.legal_moves(state, 1)] == ["rum-01", "rum-03"]
