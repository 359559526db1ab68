"""Stratego engine: the worked scenarios S1-S21 of `rules/stratego.md` §11, plus views that
never leak, rejected moves that change nothing, legal-move regression counts and random
playouts."""

from __future__ import annotations

import copy
import json
import random
from collections import Counter
from typing import Any

import pytest

from engines.contract import IllegalMove
from engines.rng import NoDraws
from engines.stratego import ENGINE, rules
from tests.engines.playout import random_playout

RNG = NoDraws()  # Stratego draws nothing (§6): any draw would fail the test
PIECES = set(rules.RANK)
BACKGROUND = {"a1": (0, "flag"), "b1": (0, "sergeant"), "j10": (1, "flag"), "i10": (1, "sergeant")}


# --- helpers --------------------------------------------------------------------------------


def parse(text: str) -> dict[str, tuple[int, str]]:
    """'R colonel e5, B major e6' -> {"e5": (0, "colonel"), "e6": (1, "major")} (§11)."""
    out = {}
    for item in text.split(","):
        side, piece, square = item.split()
        out[square] = ({"R": 0, "B": 1}[side], piece)
    return out


def position(text: str, only: bool = False, active: int = 0) -> dict[str, Any]:
    """A play-phase scenario position, with the §11 background pieces unless `only`."""
    placement = parse(text) if only else {**BACKGROUND, **parse(text)}
    return rules.position_state(placement, active=active)


def mv(frm: str, to: str) -> dict[str, str]:
    return {"type": "move", "from": frm, "to": to}


def play(state: dict, seat: int, frm: str, to: str) -> list[dict]:
    _, events = ENGINE.apply(state, seat, mv(frm, to), RNG)
    return events


def rejected(state: dict, seat: int, move: Any) -> str:
    """The error code of a rejected move; the state must be unchanged byte for byte."""
    before = json.dumps(state, sort_keys=True)
    with pytest.raises(IllegalMove) as err:
        ENGINE.apply(state, seat, move, RNG)
    assert json.dumps(state, sort_keys=True) == before
    assert err.value.message
    return err.value.code


def legal(state: dict, seat: int | None = None) -> set[tuple[str, str]]:
    seat = state["active"] if seat is None else seat
    return {(m["from"], m["to"]) for m in ENGINE.legal_moves(state, seat)}


def at(state: dict, square: str, seat: int | None = 0) -> dict | None:
    return ENGINE.view(state, seat)["board"].get(square)


def new_game(army: str = "original") -> dict:
    return ENGINE.setup({"army": army}, 2, RNG)


def placement(army: str, seat: int, which: int = 0) -> dict[str, str]:
    return list(rules.placements(rules.ARMIES[army], seat))[which]


def started(army: str = "original", red: int = 0, blue: int = 0) -> dict:
    state = new_game(army)
    ENGINE.apply(state, 0, {"type": "setup", "placement": placement(army, 0, red)}, RNG)
    ENGINE.apply(state, 1, {"type": "setup", "placement": placement(army, 1, blue)}, RNG)
    return state


# --- options, contract facts ---------------------------------------------------------------


def test_options_defaults_and_invalid_values() -> None:
    assert ENGINE.validate_options({}, 2) == {"army": "original", "red_player": "random"}
    assert ENGINE.validate_options({"army": "duel", "red_player": "joined"}, 2) == {
        "army": "duel", "red_player": "joined"}
    for bad in [{"army": "junior"}, {"red_player": "blue"}, {"army": 1}, {"clock": 5}]:
        with pytest.raises(IllegalMove) as err:
            ENGINE.validate_options(bad, 2)
        assert err.value.code == "invalid_options"
    with pytest.raises(IllegalMove) as err:
        ENGINE.validate_options({}, 3)
    assert err.value.code == "invalid_options"
    assert dict(ENGINE.platform_aliases) == {"red_player": "seat_order"}
    assert [(v.id, dict(v.options)) for v in ENGINE.variants] == [
        ("original", {"army": "original"}), ("duel", {"army": "duel"})]
    assert (ENGINE.min_players, ENGINE.max_players) == (2, 2)


def test_setup_works_without_red_player_and_draws_nothing() -> None:
    state = ENGINE.setup({"army": "duel"}, 2, RNG)
    assert state["options"] == {"army": "duel"}
    assert ENGINE.decision(state) == {"step": 0, "step_kind": "setup", "to_act": [0, 1],
                                      "legal_moves_complete": False}
    assert ENGINE.setup({}, 2, RNG)["options"] == {"army": "original"}
    assert json.loads(json.dumps(state)) == state


def test_armies_come_from_the_data_file() -> None:
    assert sum(rules.ARMIES["original"].values()) == 40
    assert sum(rules.ARMIES["duel"].values()) == 10
    assert rules.ARMIES["duel"] == {
        "marshal": 1, "general": 1, "colonel": 0, "major": 0, "captain": 0, "lieutenant": 0,
        "sergeant": 0, "miner": 2, "scout": 2, "spy": 1, "bomb": 2, "flag": 1}


def test_secret_moves_and_no_default() -> None:
    assert ENGINE.is_secret({"type": "setup", "placement": {}})
    assert not ENGINE.is_secret(mv("e4", "e5"))
    assert not ENGINE.is_secret({"type": "resign"})
    state = started()
    assert ENGINE.default_move(state, 0) is None
    assert ENGINE.default_move(new_game(), 1) is None


# --- S1, S2: setup ---------------------------------------------------------------------------


def test_s1_original_setup() -> None:
    state = new_game()
    good = placement("original", 0)
    wrong_row = {sq: p for sq, p in good.items() if p != "flag"} | {"e5": "flag"}
    assert rejected(state, 0, {"type": "setup", "placement": wrong_row}) == "setup_wrong_rows"
    scouts = [sq for sq, p in good.items() if p == "scout"]
    seven = good | {scouts[0]: "bomb"}
    assert Counter(seven.values())["bomb"] == 7 and Counter(seven.values())["scout"] == 7
    assert rejected(state, 0, {"type": "setup", "placement": seven}) == "setup_wrong_pieces"
    off = {("k1" if sq == "a1" else sq): p for sq, p in good.items()}
    assert rejected(state, 0, {"type": "setup", "placement": off}) == "off_board"
    tank = good | {"a1": "tank"}
    assert rejected(state, 0, {"type": "setup", "placement": tank}) == "unknown_piece"
    assert state["step"] == 0

    _, events = ENGINE.apply(state, 0, {"type": "setup", "placement": good}, RNG)
    assert events == [{"type": "setup_submitted", "seat": 0}]
    assert ENGINE.decision(state)["to_act"] == [1]
    assert state["step"] == 0  # the simultaneous decision is still open
    blue = ENGINE.view(state, 1)
    assert blue["board"] == {} and blue["setups"] == {"1": None}
    assert blue["submitted"] == {"0": True, "1": False}
    assert not any(f'"{p}"' in json.dumps(blue) for p in PIECES)
    assert ENGINE.view(state, 0)["setups"] == {"0": good}
    assert rejected(state, 0, {"type": "setup", "placement": good}) == "setup_already_submitted"
    assert rejected(state, 0, mv("a4", "a5")) == "wrong_phase"
    assert list(ENGINE.legal_moves(state, 0)) == []

    _, events = ENGINE.apply(
        state, 1, {"type": "setup", "placement": placement("original", 1)}, RNG)
    assert [e["type"] for e in events] == ["setup_submitted", "play_started"]
    assert (state["phase"], state["active"], state["step"]) == ("play", 0, 1)
    assert ENGINE.decision(state) == {"step": 1, "step_kind": "play", "to_act": [0],
                                      "legal_moves_complete": True}
    red = ENGINE.view(state, 0)
    assert len(red["board"]) == 80
    assert [p["uid"] for p in red["board"].values()] == sorted(state["pieces"])
    assert red["setups"] == {"0": good} and ENGINE.view(state, None)["setups"] == {}
    assert all(p["piece"] is None for p in red["board"].values() if p["owner"] == 1)
    assert all(p["piece"] is not None for p in red["board"].values() if p["owner"] == 0)
    assert red["board"]["a1"]["uid"] == "r-a1" and red["board"]["j10"]["uid"] == "b-j10"


def test_setup_checks_run_in_order_over_all_entries() -> None:
    state = new_game()
    good = placement("original", 0)
    # "tank" comes before "k1" in the placement, but off_board is checked first (§5.7)
    both = {"a1": "tank"} | {("k1" if sq == "j4" else sq): p for sq, p in good.items()
                             if sq != "a1"}
    assert rejected(state, 0, {"type": "setup", "placement": both}) == "off_board"
    rows_and_piece = good | {"e5": "scout", "a1": "tank"}
    assert rejected(state, 0, {"type": "setup", "placement": rows_and_piece}) == "unknown_piece"
    for bad in [None, [], {"a1": 3}, "a1=flag"]:
        assert rejected(state, 0, {"type": "setup", "placement": bad}) == "malformed_move"
    assert rejected(state, 0, {"type": "setup"}) == "malformed_move"
    assert rejected(state, 0, {"type": "setup", "placement": {}}) == "setup_wrong_pieces"
    assert rejected(state, 0, {"type": "setup", "placement": placement("original", 1)}) == (
        "setup_wrong_rows")


def test_s2_duel_setup() -> None:
    state = new_game("duel")
    red = {"a1": "flag", "a2": "bomb", "b1": "bomb", "b2": "spy", "c1": "scout", "a3": "scout",
           "c2": "miner", "b3": "miner", "d1": "general", "a4": "marshal"}
    assert rejected(state, 0, {"type": "setup", "placement": red | {"e1": "colonel"}}) == (
        "setup_wrong_pieces")
    moved = {sq: p for sq, p in red.items() if sq != "a4"} | {"a5": "marshal"}
    assert rejected(state, 0, {"type": "setup", "placement": moved}) == "setup_wrong_rows"
    ENGINE.apply(state, 0, {"type": "setup", "placement": red}, RNG)
    blue = {"a10": "flag", "b10": "bomb", "c10": "bomb", "d10": "spy", "e10": "scout",
            "f10": "scout", "g10": "miner", "h10": "miner", "i10": "general", "j10": "marshal"}
    ENGINE.apply(state, 1, {"type": "setup", "placement": blue}, RNG)
    assert state["phase"] == "play"
    # the Flag can be reached only through a Bomb
    assert {state["pieces"][state["board"][n]]["piece"] for n in rules.NEIGHBORS["a1"]} == {
        "bomb"}


def test_setup_listing_offers_valid_examples() -> None:
    for army in ("original", "duel"):
        state = new_game(army)
        for seat in (0, 1):
            offers = list(ENGINE.legal_moves(state, seat))
            assert len(offers) == 3 and len({json.dumps(o) for o in offers}) == 3
            for offer in offers:
                trial = copy.deepcopy(state)
                ENGINE.apply(trial, seat, offer, RNG)
                assert trial["to_act"] == [1 - seat]


# --- S3-S6: moves --------------------------------------------------------------------------


def test_s3_one_square_moves() -> None:
    state = position("R lieutenant e4, R captain d4, R bomb f4")
    cases = {
        ("e3", "e5"): "no_piece_at_source", ("j10", "j9"): "not_your_piece",
        ("e4", "e4"): "same_square", ("e4", "e11"): "off_board",
        ("f4", "f5"): "immovable_piece", ("d4", "d5"): "into_lake",
        ("e4", "f5"): "diagonal_move", ("e4", "e6"): "too_far",
        ("e4", "f4"): "own_piece_at_target",
    }
    for (frm, to), code in cases.items():
        assert rejected(state, 0, mv(frm, to)) == code, (frm, to)
    assert rejected(state, 1, mv("i10", "i9")) == "not_your_turn"
    assert ("e4", "e5") in legal(state)
    events = play(state, 0, "e4", "e5")
    assert events[0] == {"type": "ply", "ply": 1, "seat": 0, "uid": "r-e4", "from": "e4",
                         "to": "e5", "battle": None}
    assert at(state, "e5", 1) == {"uid": "r-e4", "owner": 0, "piece": None, "revealed": False,
                                  "moved": True}
    assert state["active"] == 1 and state["step"] == 2


def test_move_shape_and_square_names() -> None:
    state = position("R lieutenant e4")
    for bad in [{"type": "move", "from": "e4"}, {"type": "move", "to": "e5"},
                {"type": "move", "from": 4, "to": "e5"}, {"type": "move", "from": "e4",
                                                           "to": None}]:
        assert rejected(state, 0, bad) == "malformed_move"
    for sq in ["k1", "a0", "E4", "e04", "e4 ", ""]:
        assert rejected(state, 0, mv("e4", sq)) == "off_board"
    assert rejected(state, 0, "e4-e5") == "malformed_move"
    assert rejected(state, 0, {}) == "unknown_move_type"
    assert rejected(state, 0, {"type": 3}) == "unknown_move_type"
    assert rejected(state, 0, {"type": "pass"}) == "unknown_move_type"
    # not_your_turn comes before malformed_move (§5.7)
    assert rejected(state, 1, {"type": "move"}) == "not_your_turn"
    # unknown extra fields are ignored (§5)
    ENGINE.apply(state, 0, mv("e4", "e5") | {"comment": "hi"}, RNG)
    assert state["board"]["e5"] == "r-e4"


def test_s4_scout_long_move_and_attack() -> None:
    text = "R scout a2, B sergeant a7"
    state = position(text)
    assert at(state, "a2", 1)["piece"] is None
    play(state, 0, "a2", "a6")
    assert at(state, "a6", 1) == {"uid": "r-a2", "owner": 0, "piece": "scout", "revealed": True,
                                  "moved": True}
    assert at(state, "a6", None)["piece"] is None  # spectators see no ids
    assert at(state, "a6", None)["revealed"] is True

    state = position(text)
    events = play(state, 0, "a2", "a7")
    assert events[0]["battle"] == {
        "attacker": "r-a2", "defender": "b-a7", "attacker_piece": "scout",
        "defender_piece": "sergeant", "result": "defender_wins", "removed": ["r-a2"]}
    assert "a2" not in state["board"] and state["removed"]["0"] == ["r-a2"]
    assert at(state, "a7", 0) == {"uid": "b-a7", "owner": 1, "piece": "sergeant",
                                  "revealed": True, "moved": False}

    state = position(text)
    assert rejected(state, 0, mv("a2", "a8")) == "blocked_path"


def test_s5_scout_captures_the_flag() -> None:
    state = position("R scout j2")
    events = play(state, 0, "j2", "j10")
    assert events[-1] == {"type": "game_over", "result": {
        "winners": [0], "scores": {"0": 1, "1": 0}, "reason": "flag_captured"}}
    assert ENGINE.result(state) == {"winners": [0], "scores": {"0": 1, "1": 0},
                                    "reason": "flag_captured"}
    assert ENGINE.decision(state)["to_act"] == [] and state["phase"] == "game_over"
    for seat, move in [(1, mv("i10", "i9")), (0, mv("j10", "j9")), (1, {"type": "resign"}),
                       (0, {"type": "no_such"})]:
        assert rejected(state, seat, move) == "game_over"
    assert list(ENGINE.legal_moves(state, 0)) == list(ENGINE.legal_moves(state, 1)) == []


def test_s6_scout_paths() -> None:
    state = position("R scout a3, R scout c2, R scout e2, R miner e4, B lieutenant c7, "
                     "B sergeant a6")
    cases = {("c2", "c7"): "lake_in_path", ("c2", "c5"): "into_lake",
             ("e2", "e6"): "blocked_path", ("a3", "a7"): "blocked_path",
             ("e2", "f3"): "scout_path_not_straight"}
    for (frm, to), code in cases.items():
        assert rejected(state, 0, mv(frm, to)) == code, (frm, to)
    moves = legal(state)
    assert {("c2", "c4"), ("a3", "a6")} <= moves
    assert not {("c2", "c5"), ("c2", "c7"), ("e2", "e6"), ("a3", "a7")} & moves
    events = play(state, 0, "a3", "a6")
    assert events[0]["battle"]["result"] == "defender_wins"


# --- S7-S11: battles -----------------------------------------------------------------------


def test_s7_rank_battles() -> None:
    state = position("R colonel e5, B major e6")
    events = play(state, 0, "e5", "e6")
    assert events[0]["battle"]["result"] == "attacker_wins"
    assert at(state, "e6", 1)["piece"] == "colonel" and at(state, "e6", 1)["revealed"]
    assert ENGINE.view(state, 0)["removed"] == {"0": [], "1": ["major"]}

    state = position("R captain e5, B general e6")
    assert play(state, 0, "e5", "e6")[0]["battle"]["result"] == "defender_wins"
    assert at(state, "e6", 0) == {"uid": "b-e6", "owner": 1, "piece": "general",
                                  "revealed": True, "moved": False}
    assert "e5" not in state["board"]

    state = position("R major e5, B major e6")
    battle = play(state, 0, "e5", "e6")[0]["battle"]
    assert battle["result"] == "both_removed" and battle["removed"] == ["r-e5", "b-e6"]
    assert "e5" not in state["board"] and "e6" not in state["board"]


def test_s8_bomb_kills_attackers() -> None:
    state = position("R general e6, R scout e2, B bomb e7")
    assert play(state, 0, "e6", "e7")[0]["battle"]["result"] == "defender_wins"
    assert "e6" not in state["board"]
    assert at(state, "e7", 0) == {"uid": "b-e7", "owner": 1, "piece": "bomb", "revealed": True,
                                  "moved": False}
    play(state, 1, "i10", "i9")
    assert play(state, 0, "e2", "e7")[0]["battle"]["removed"] == ["r-e2"]
    assert state["board"]["e7"] == "b-e7"
    assert ENGINE.view(state, 1)["removed"]["0"] == ["general", "scout"]


def test_s9_miner_defuses() -> None:
    state = position("R miner e6, B bomb e7, B lieutenant f7")
    assert play(state, 0, "e6", "e7")[0]["battle"]["result"] == "attacker_wins"
    assert state["board"]["e7"] == "r-e6" and state["removed"]["1"] == ["b-e7"]
    battle = play(state, 1, "f7", "e7")[0]["battle"]
    assert battle["result"] == "attacker_wins" and battle["removed"] == ["r-e6"]
    assert state["board"]["e7"] == "b-f7"


def test_s10_spy_attacks_the_marshal() -> None:
    state = position("R spy e6, B marshal e7")
    assert play(state, 0, "e6", "e7")[0]["battle"]["result"] == "attacker_wins"
    assert state["board"]["e7"] == "r-e6" and state["removed"]["1"] == ["b-e7"]


@pytest.mark.parametrize(("text", "active", "frm", "to", "code", "removed"), [
    ("R marshal e6, B spy e7", 0, "e6", "e7", "attacker_wins", ["b-e7"]),
    ("B marshal e7, R spy e6", 1, "e7", "e6", "attacker_wins", ["r-e6"]),
    ("R spy e6, B general e7", 0, "e6", "e7", "defender_wins", ["r-e6"]),
    ("R spy e6, B spy e7", 0, "e6", "e7", "both_removed", ["r-e6", "b-e7"]),
])
def test_s11_the_spy_otherwise(
    text: str, active: int, frm: str, to: str, code: str, removed: list[str]
) -> None:
    state = position(text, active=active)
    battle = play(state, active, frm, to)[0]["battle"]
    assert (battle["result"], battle["removed"]) == (code, removed)


# --- S12-S15: two-square and more-square rules ---------------------------------------------


def test_s12_two_square_rule() -> None:
    state = position("R major e5")
    blue = [("i10", "i9"), ("i9", "i10"), ("i10", "i9")]
    for (frm, to), b in zip([("e5", "e6"), ("e6", "e5"), ("e5", "e6")], blue, strict=True):
        play(state, 0, frm, to)
        play(state, 1, *b)
    assert rejected(state, 0, mv("e6", "e5")) == "two_square_rule"
    assert ("e6", "e5") not in legal(state)
    assert ("e6", "f6") in legal(state)
    play(state, 0, "e6", "f6")

    state = position("R major e5")
    red = [("e5", "e6"), ("e6", "e5"), ("b1", "c1"), ("e5", "e6")]
    blue = [("i10", "i9"), ("i9", "h9"), ("h9", "h8"), ("h8", "g8")]
    for r, b in zip(red, blue, strict=True):
        play(state, 0, *r)
        play(state, 1, *b)
    assert ("e6", "e5") in legal(state)
    play(state, 0, "e6", "e5")


def test_s13_who_started_stops_first() -> None:
    state = position("R captain b6, B lieutenant b8, B bomb a8, B bomb b9, B bomb c9, "
                     "B bomb d8")
    plies = [(0, "b6", "b7"), (1, "b8", "c8"), (0, "b7", "c7"), (1, "c8", "b8"),
             (0, "c7", "b7"), (1, "b8", "c8"), (0, "b7", "c7")]
    for seat, frm, to in plies:
        assert (frm, to) in legal(state, seat)
        play(state, seat, frm, to)
    assert rejected(state, 1, mv("c8", "b8")) == "two_square_rule"
    assert legal(state, 1) >= {("c8", "c7"), ("i10", "h10")}
    assert ("c8", "b8") not in legal(state, 1)
    play(state, 1, "i10", "h10")
    assert rejected(state, 0, mv("c7", "b7")) == "two_square_rule"
    battle = play(state, 0, "c7", "c8")[0]["battle"]
    assert (battle["attacker_piece"], battle["defender_piece"], battle["result"]) == (
        "captain", "lieutenant", "attacker_wins")


def test_s14_scout_shuttle() -> None:
    state = position("R scout e2")
    blue = [("i10", "i9"), ("i9", "h9"), ("h9", "h8")]
    for r, b in zip([("e2", "e6"), ("e6", "e3"), ("e3", "e5")], blue, strict=True):
        play(state, 0, *r)
        play(state, 1, *b)
    assert rejected(state, 0, mv("e5", "e4")) == "two_square_rule"
    assert rejected(state, 0, mv("e5", "e3")) == "two_square_rule"
    moves = legal(state)
    assert {("e5", "e9"), ("e5", "f5"), ("e5", "e6")} <= moves
    assert not {("e5", "e4"), ("e5", "e3"), ("e5", "e2")} & moves


def test_s15_more_square_rule() -> None:
    state = position("R colonel e5, B major f6")
    plies = [(0, "e5", "f5"), (1, "f6", "e6"), (0, "f5", "f6"), (1, "e6", "e5"),
             (0, "f6", "e6"), (1, "e5", "f5"), (0, "e6", "e5"), (1, "f5", "f6")]
    start = state["positions"][0]
    for seat, frm, to in plies:
        assert (frm, to) in legal(state, seat)
        play(state, seat, frm, to)
    assert state["positions"][-1] == start  # ply 8 recreated B0
    assert state["chase"]["fled"] == ["e5", "e6", "f5", "f6"]
    assert rejected(state, 0, mv("e5", "f5")) == "more_square_rule"
    assert rules._two_square_ban(state["recent"]["0"])[0] is None  # four different edges
    moves = legal(state)
    assert ("e5", "f5") not in moves
    assert {("e5", "e6"), ("e5", "e4")} <= moves
    play(state, 0, "e5", "e6")


def test_more_square_rule_needs_three_fled_squares() -> None:
    # S13's ply 5 repeats B1 while chasing, but F = {b8, c8}: allowed
    state = position("R captain b6, B lieutenant b8, B bomb a8, B bomb b9, B bomb c9, "
                     "B bomb d8")
    for seat, frm, to in [(0, "b6", "b7"), (1, "b8", "c8"), (0, "b7", "c7"), (1, "c8", "b8")]:
        play(state, seat, frm, to)
    assert state["chase"]["evades"] and state["chase"]["fled"] == ["b8", "c8"]
    play(state, 0, "c7", "b7")
    assert state["positions"][-1] == state["positions"][1]


def test_two_square_rule_beats_more_square_rule() -> None:
    # A Red scout chases two Blue pieces (F = {d3, d4, f3, f4}) while crossing e3|e4 a
    # fourth time: both rules are broken, and two_square_rule is reported (§5.5).
    state = position("R scout e2, B sergeant f4, B lieutenant d3")
    for seat, frm, to in [(0, "e2", "e4"), (1, "f4", "f3"), (0, "e4", "e3"), (1, "d3", "d4"),
                          (0, "e3", "e4"), (1, "d4", "d3")]:
        play(state, seat, frm, to)
    assert state["chase"]["fled"] == ["d3", "d4", "f3", "f4"]
    assert rules._MoreSquare(state).banned("r-e2", "e4", "e3")
    assert rejected(state, 0, mv("e4", "e3")) == "two_square_rule"
    assert ("e4", "e3") not in legal(state)
    assert ("e4", "e5") in legal(state)


# --- S16-S21: endings ----------------------------------------------------------------------


def test_s16_no_movable_piece() -> None:
    state = position("R flag a1, R colonel e6, B flag j10, B bomb j9, B bomb i10, "
                     "B sergeant e7", only=True)
    events = play(state, 0, "e6", "e7")
    assert events[0]["battle"]["removed"] == ["b-e7"]
    assert ENGINE.result(state) == {"winners": [0], "scores": {"0": 1, "1": 0},
                                    "reason": "no_legal_move"}
    assert ENGINE.decision(state)["to_act"] == []
    assert events[-1]["type"] == "game_over"


def _walled_blue() -> dict[str, str]:
    bombs = ["a7", "b7", "e7", "f7", "i7", "j7"]
    rest = [sq for sq in sorted(rules.HOME[1], key=rules.ORDER.get) if sq not in bombs]
    others = [p for p, n in rules.ARMIES["original"].items() if p != "bomb" for _ in range(n)]
    return dict.fromkeys(bombs, "bomb") | dict(zip(rest, others, strict=True))


def _walled_red() -> dict[str, str]:
    return {rules.AT[(x, 11 - y)]: p for sq, p in _walled_blue().items()
            for x, y in [rules.COORD[sq]]}


def test_s17_walled_in() -> None:
    state = new_game()
    red = placement("original", 0)
    assert red["a4"] == "scout"
    ENGINE.apply(state, 0, {"type": "setup", "placement": red}, RNG)
    ENGINE.apply(state, 1, {"type": "setup", "placement": _walled_blue()}, RNG)
    assert state["phase"] == "play"
    assert list(rules._play_moves(state, 1)) == []
    events = play(state, 0, "a4", "a7")
    assert events[0]["battle"]["result"] == "defender_wins"
    assert ENGINE.result(state) == {"winners": [0], "scores": {"0": 0, "1": 1},
                                    "reason": "no_legal_move"}


def test_s17_mirrored_wall_loses_before_the_first_move() -> None:
    state = new_game()
    ENGINE.apply(state, 0, {"type": "setup", "placement": _walled_red()}, RNG)
    _, events = ENGINE.apply(
        state, 1, {"type": "setup", "placement": placement("original", 1)}, RNG)
    assert [e["type"] for e in events] == ["setup_submitted", "play_started", "game_over"]
    assert ENGINE.result(state) == {"winners": [1], "scores": {"0": 0, "1": 0},
                                    "reason": "no_legal_move"}
    assert state["step"] == 1 and ENGINE.decision(state)["to_act"] == []

    state = new_game()
    ENGINE.apply(state, 1, {"type": "setup", "placement": _walled_blue()}, RNG)
    ENGINE.apply(state, 0, {"type": "setup", "placement": _walled_red()}, RNG)
    assert ENGINE.result(state)["reason"] == "both_immobile"


def test_s18_both_immobile() -> None:
    state = position("R flag a1, R bomb a2, R bomb b1, R major e5, B flag j10, B bomb j9, "
                     "B bomb i10, B major e6", only=True)
    play(state, 0, "e5", "e6")
    assert ENGINE.result(state) == {"winners": [], "scores": {"0": 1, "1": 1},
                                    "reason": "both_immobile"}


def test_s19_resignation() -> None:
    state = position("R major e5", active=1)
    step = state["step"]
    _, events = ENGINE.apply(state, 0, {"type": "resign"}, RNG)
    assert events == [{"type": "resigned", "seat": 0}, {"type": "game_over", "result": {
        "winners": [1], "scores": {"0": 0, "1": 0}, "reason": "resigned"}}]
    assert ENGINE.result(state)["winners"] == [1] and state["step"] == step + 1
    assert rejected(state, 1, mv("i10", "i9")) == "game_over"
    assert rejected(state, 0, {"type": "resign"}) == "game_over"


def test_resign_during_setup() -> None:
    state = new_game()
    ENGINE.apply(state, 1, {"type": "setup", "placement": placement("original", 1)}, RNG)
    ENGINE.apply(state, 1, {"type": "resign"}, RNG)
    assert ENGINE.result(state) == {"winners": [0], "scores": {"0": 0, "1": 0},
                                    "reason": "resigned"}
    assert state["step"] == 1 and state["phase"] == "game_over"


def test_s20_views_after_s7a() -> None:
    state = position("R colonel e5, B major e6")
    events = play(state, 0, "e5", "e6")
    blue = ENGINE.view(state, 1)
    assert blue["board"]["e6"] == {"uid": "r-e5", "owner": 0, "piece": "colonel",
                                   "revealed": True, "moved": True}
    assert blue["removed"] == {"0": [], "1": ["major"]}
    assert blue["board"]["a1"]["piece"] is None and blue["board"]["b1"]["piece"] is None
    assert blue["board"]["i10"]["piece"] == "sergeant"

    spectator = ENGINE.view(state, None)
    assert spectator["board"]["e6"]["piece"] is None
    assert all(p["piece"] is None for p in spectator["board"].values())
    battle = {"attacker": "r-e5", "defender": "b-e6", "attacker_piece": None,
              "defender_piece": None, "result": "attacker_wins", "removed": ["b-e6"]}
    assert spectator["ply"] == 1
    assert spectator["last_ply"] == {"uid": "r-e5", "from": "e5", "to": "e6", "battle": battle}
    assert spectator["removed"] == {"0": 0, "1": 1}
    assert spectator["setups"] == {}
    assert ENGINE.view_event(events[0], None)["battle"] == battle
    assert ENGINE.view_event(events[0], 1)["battle"]["attacker_piece"] == "colonel"

    ENGINE.apply(state, 1, {"type": "resign"}, RNG)
    for who in (None, 0, 1):
        view = ENGINE.view(state, who)
        assert all(p["piece"] is not None for p in view["board"].values())
        assert view["last_ply"]["battle"]["attacker_piece"] == "colonel"
        assert view["removed"] == {"0": [], "1": ["major"]}
        assert view["setups"]["0"] == {"a1": "flag", "b1": "sergeant", "e5": "colonel"}
        assert view["setups"]["1"] == {"e6": "major", "i10": "sergeant", "j10": "flag"}


def test_s21_no_battle_limit() -> None:
    state = position("R flag a1, R major e5, B flag j10, B major e8", only=True)
    red = ["e5", "f5", "f4", "e4"]
    blue = ["e8", "f8", "f9", "e9"]
    for ply in range(1, 201):
        seat, loop = (0, red) if ply % 2 else (1, blue)
        i = (ply - 1) // 2 % 4
        play(state, seat, loop[i], loop[(i + 1) % 4])
        if ply == 199:
            assert state["phase"] == "play" and ENGINE.view(state, None)[
                "plies_without_battle"] == 199
    assert ENGINE.result(state) == {"winners": [], "scores": {"0": 0, "1": 0},
                                    "reason": "no_battle_limit"}


# --- steps, views, events ------------------------------------------------------------------


def test_each_ply_advances_the_step_by_one() -> None:
    state = started("duel")
    for n in range(20):
        if state["phase"] != "play":
            break
        step = state["step"]
        ENGINE.apply(state, state["active"], next(ENGINE.legal_moves(state, state["active"])),
                     RNG)
        assert state["step"] == step + 1, n


def test_view_event_redaction() -> None:
    assert ENGINE.view_event({"type": "setup_submitted", "seat": 0}, 1) == {
        "type": "setup_submitted", "seat": 0}
    assert ENGINE.view_event({"type": "setup_submitted", "seat": 0, "placement": {"a1": "flag"}},
                             None) == {"type": "setup_submitted", "seat": 0}
    assert ENGINE.view_event({"type": "no_such"}, 0) is None


def test_render_text_from_each_side() -> None:
    state = position("R colonel e5, B major e6")
    play(state, 0, "e5", "e6")
    red = ENGINE.render_text(ENGINE.view(state, 0))
    blue = ENGINE.render_text(ENGINE.view(state, 1))
    spectator = ENGINE.render_text(ENGINE.view(state, None))
    assert red.splitlines()[2].startswith("10  ") and blue.splitlines()[2].startswith(" 1  ")
    assert "rF" in red and "r?" in blue and "b4" in blue and "r8" in blue
    assert "rF" not in spectator and "r8" not in spectator and "Blue 1" in spectator
    assert "~~" in red and "Blue to move" in red
    assert "attacks b-e6" in red and "Removed: Red -; Blue 7" in red
    setup_text = ENGINE.render_text(ENGINE.view(new_game(), 0))
    assert "waiting for Red, Blue" in setup_text


# --- views never leak ----------------------------------------------------------------------

_MOBILITY = ({"marshal", "general", "colonel", "major", "captain", "lieutenant", "sergeant",
              "miner", "spy"}, {"scout"}, {"bomb", "flag"})


def _shuffled_like(place: dict[str, str], seed: int) -> dict[str, str]:
    """The same squares with piece ids permuted within each mobility class."""
    rnd = random.Random(seed)
    out = dict(place)
    for group in _MOBILITY:
        squares = [sq for sq, p in place.items() if p in group]
        ids = [place[sq] for sq in squares]
        rnd.shuffle(ids)
        out.update(zip(squares, ids, strict=True))
    return out


def _audiences(state: dict, events: list[dict]) -> list[str]:
    """What Blue and spectators get: views, events, and Blue's legal moves."""
    return [json.dumps([ENGINE.view(state, who), [ENGINE.view_event(e, who) for e in events],
                        list(ENGINE.legal_moves(state, 1)) if who == 1 else None],
                       sort_keys=True) for who in (1, None)]


@pytest.mark.parametrize(("army", "seed"), [("original", 1), ("original", 2), ("duel", 3),
                                             ("duel", 4)])
def test_views_do_not_depend_on_reds_secret_ids(army: str, seed: int) -> None:
    red_a = placement(army, 0, seed % 3)
    red_b = _shuffled_like(red_a, seed)
    assert red_a != red_b and red_a.keys() == red_b.keys()
    differing = {"r-" + sq for sq in red_a if red_a[sq] != red_b[sq]}
    a, b = new_game(army), new_game(army)
    compared = 0
    chooser = random.Random(seed)
    for seat, move in [(0, {"type": "setup", "placement": red_a}),
                       (1, {"type": "setup", "placement": placement(army, 1, 1)})]:
        move_b = move if seat else {"type": "setup", "placement": red_b}
        _, ev_a = ENGINE.apply(a, seat, move, RNG)
        _, ev_b = ENGINE.apply(b, seat, move_b, RNG)
        assert _audiences(a, ev_a) == _audiences(b, ev_b)
    while a["phase"] == "play":
        # battles of the permuted pieces would show their ids, so random play avoids them
        board = a["board"]
        moves = [m for m in ENGINE.legal_moves(a, a["active"])
                 if m["to"] not in board or not {board[m["from"]], board[m["to"]]} & differing]
        if not moves:
            break
        seat, move = a["active"], chooser.choice(moves)
        _, ev_a = ENGINE.apply(a, seat, move, RNG)
        _, ev_b = ENGINE.apply(b, seat, copy.deepcopy(move), RNG)
        if a["phase"] == "game_over":  # from now on everything is public (§7)
            break
        assert _audiences(a, ev_a) == _audiences(b, ev_b)
        compared += 1
    assert compared >= 80  # a game of some length (the shortest of these seeds: 88 moves)


def _assert_no_leak(state: dict) -> None:
    """Spectators see no ids; a seat sees no unrevealed opponent id (§7)."""
    if state["phase"] == "game_over":
        return
    spectator = ENGINE.view(state, None)
    assert all(p["piece"] is None for p in spectator["board"].values())
    assert all(isinstance(n, int) for n in spectator["removed"].values())
    last = spectator["last_ply"]
    assert last is None or last["battle"] is None or last["battle"]["attacker_piece"] is None
    assert spectator["setups"] == {}
    for seat in (0, 1):
        view = ENGINE.view(state, seat)
        assert list(view["setups"]) == [str(seat)]
        for p in view["board"].values():
            assert (p["piece"] is not None) == (p["owner"] == seat or p["revealed"])


# --- legality cross-checks and regression counts ------------------------------------------


def _accepted(state: dict, seat: int) -> set[tuple[str, str]]:
    """Every (from, to) that `apply`'s validation accepts, tried over all land squares."""
    out = set()
    for frm in rules.LAND:
        for to in rules.LAND:
            try:
                rules.check(state, seat, mv(frm, to))
            except IllegalMove:
                continue
            out.add((frm, to))
    return out


def _midgame(army: str, seed: int, plies: int) -> dict:
    state = started(army, seed % 3, (seed + 1) % 3)
    chooser = random.Random(seed)
    for _ in range(plies):
        if state["phase"] != "play":
            break
        seat = state["active"]
        ENGINE.apply(state, seat, chooser.choice(list(ENGINE.legal_moves(state, seat))), RNG)
    return state


@pytest.mark.parametrize(("army", "seed", "plies"), [
    ("original", 5, 40), ("original", 10, 150), ("duel", 7, 30), ("duel", 8, 90)])
def test_legal_moves_equal_what_apply_accepts(army: str, seed: int, plies: int) -> None:
    state = _midgame(army, seed, plies)
    assert state["phase"] == "play"
    listed = [(m["from"], m["to"]) for m in ENGINE.legal_moves(state, state["active"])]
    assert len(listed) == len(set(listed))
    assert set(listed) == _accepted(state, state["active"])
    assert list(ENGINE.legal_moves(state, 1 - state["active"])) == []


def test_legal_moves_equal_what_apply_accepts_under_both_bans() -> None:
    state = position("R colonel e5, B major f6")
    for seat, frm, to in [(0, "e5", "f5"), (1, "f6", "e6"), (0, "f5", "f6"), (1, "e6", "e5"),
                          (0, "f6", "e6"), (1, "e5", "f5"), (0, "e6", "e5"), (1, "f5", "f6")]:
        play(state, seat, frm, to)
    assert legal(state) == _accepted(state, 0)
    state = position("R scout e2")
    for seat, frm, to in [(0, "e2", "e6"), (1, "i10", "i9"), (0, "e6", "e3"), (1, "i9", "h9"),
                          (0, "e3", "e5"), (1, "h9", "h8")]:
        play(state, seat, frm, to)
    assert legal(state) == _accepted(state, 0)


#: (army, red placement, blue placement, random plies, seed) -> number of legal moves; the
#: random plies choose from the listing, so a change of its order (the squares' sorted order
#: since `key_order_free`) leads elsewhere: each count is also checked against what `apply`
#: accepts
REGRESSION = [
    (("original", 0, 0, 0, 0), 6),
    (("duel", 0, 0, 0, 0), 23),
    (("original", 1, 2, 0, 0), 6),
    (("original", 1, 2, 60, 11), 27),
    (("duel", 2, 1, 40, 12), 13),
    (("original", 2, 0, 200, 13), 35),
]


def _seeded(army: str, red: int, blue: int, plies: int, seed: int) -> dict:
    state = started(army, red, blue)
    chooser = random.Random(seed)
    for _ in range(plies):
        seat = state["active"]
        ENGINE.apply(state, seat, chooser.choice(list(ENGINE.legal_moves(state, seat))), RNG)
    return state


@pytest.mark.parametrize(("key", "count"), REGRESSION)
def test_legal_move_counts_of_seeded_positions(key: tuple, count: int) -> None:
    state = _seeded(*key)
    moves = list(ENGINE.legal_moves(state, state["active"]))
    assert len(moves) == count
    assert {(m["from"], m["to"]) for m in moves} == _accepted(state, state["active"])


# --- random playouts -----------------------------------------------------------------------


def _check_finished(state: dict) -> None:
    result = ENGINE.result(state)
    assert result is not None and ENGINE.decision(state)["to_act"] == []
    removed = state["removed"]
    assert result["scores"] == {"0": len(removed["1"]), "1": len(removed["0"])}
    assert state["board"] == {p["square"]: uid for uid, p in state["pieces"].items()
                              if p["square"] is not None}
    gone = {u for seat in removed.values() for u in seat}
    assert gone == {uid for uid, p in state["pieces"].items() if p["square"] is None}
    assert json.loads(json.dumps(state)) == state
    if result["reason"] == "flag_captured":
        loser = 1 - result["winners"][0]
        assert removed[str(loser)][-1] == rules.LETTER[loser] + "-" + next(
            sq for sq, p in state["setups"][str(loser)].items() if p == "flag")


@pytest.mark.parametrize(("army", "games"), [("duel", 300), ("original", 50)])
def test_random_playouts(army: str, games: int) -> None:
    reasons: Counter[str] = Counter()
    for seed in range(games):
        game = random_playout(ENGINE, {"army": army}, 2, seed)
        _check_finished(game.state)
        reasons[game.state["result"]["reason"]] += 1
    assert reasons["flag_captured"] > 0


@pytest.mark.parametrize(("army", "games"), [
    ("duel", 20), ("original", 3),
    pytest.param("duel", 200, marks=pytest.mark.slow),
    pytest.param("original", 30, marks=pytest.mark.slow),
])
def test_random_playouts_never_leak(army: str, games: int) -> None:
    for seed in range(1000, 1000 + games):
        chooser = random.Random(seed)
        state = ENGINE.setup({"army": army}, 2, RNG)
        while state["phase"] != "game_over":
            seat = chooser.choice(state["to_act"])
            ENGINE.apply(state, seat, chooser.choice(list(ENGINE.legal_moves(state, seat))), RNG)
            _assert_no_leak(state)
        _check_finished(state)


def test_state_and_view_do_not_grow_with_the_game() -> None:
    """The state keeps the latest ply and a count, not the history (docs/rules/stratego.md,
    "Decisions"): a long game's state stays under the 16 KB budget and its view under the
    opening view's size."""
    for seed in range(100):
        chooser = random.Random(seed)
        state = ENGINE.setup({"army": "original"}, 2, RNG)
        sizes, views = [], []
        while state["phase"] != "game_over":
            seat = chooser.choice(state["to_act"])
            ENGINE.apply(state, seat, chooser.choice(list(ENGINE.legal_moves(state, seat))), RNG)
            sizes.append(len(json.dumps(state, separators=(",", ":"))))
            views.append(len(json.dumps(ENGINE.view(state, 0))))
        if len(sizes) >= 600:
            break
    assert len(sizes) >= 600, "no random game long enough in 100 seeds"
    assert state["ply"] == len(sizes) - 2  # two setups, then plies
    assert max(sizes) <= 16 * 1024
    assert max(views[300:]) <= max(views[:300]) + 200


def test_notation_reads_plays_setups_and_resign() -> None:
    assert ENGINE.parse_move("e4-e5") == {"type": "move", "from": "e4", "to": "e5"}
    assert ENGINE.parse_move(" a10 x a9 ") == {"type": "move", "from": "a10", "to": "a9"}
    assert ENGINE.format_move({"type": "move", "from": "j10", "to": "j9"}) == "j10-j9"
    assert ENGINE.parse_move("resign") == {"type": "resign"}
    setup = ENGINE.parse_move("setup a1=F b1=bomb c1=s d1=M e1=2")
    assert setup == {"type": "setup", "placement": {
        "a1": "flag", "b1": "bomb", "c1": "spy", "d1": "marshal", "e1": "scout"}}
    assert ENGINE.format_move(setup) == "setup a1=F b1=B c1=S d1=M e1=2"
    for bad in ("e4-e11", "k1-k2", "e4e5", "setup", "setup a1=Q", "setup a1=F a1=B", "move"):
        with pytest.raises(IllegalMove) as err:
            ENGINE.parse_move(bad)
        assert err.value.code == "bad_notation", bad
