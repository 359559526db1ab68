"""Battle for Elfland: playouts, hidden information, options, notation, defaults and resigning.

Random playouts end (the round limit included) and keep the contract at every step; a seat's
view and events do not depend on the other seats' hidden cards (non-interference); the options
are stable; every listed move round-trips through the notation; every decision kind's default
settles the late seat; resigning works at any decision.
"""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

from engines.elfenland.war import WAR, flow, validate_war_options
from engines.rng import SeededRng
from tests.engines.playout import random_playout
from tests.engines.test_elfenland_war import A, B, C, ForcedRng, play, war_state


class WarOnly:
    """`WAR` with the ruleset's option handling, for the shared playout function."""

    def __getattr__(self, name: str) -> Any:
        return getattr(WAR, name)

    def validate_options(self, options: dict[str, Any], seats: int) -> dict[str, Any]:
        return validate_war_options({"mode": "war", **options}, seats)


ENGINES: list[Any] = [WarOnly()]
try:  # through the ruleset's dispatch once it knows the war mode
    from engines.elfenland import ENGINE as _ELFENLAND
    if any(v.options.get("mode") == "war" for v in _ELFENLAND.variants):
        ENGINES.append(_ELFENLAND)
except ImportError:  # pragma: no cover - the race package is built alongside
    pass

COMBOS = [(seats, victory) for seats in range(2, 7) for victory in ("capitals", "conditions")]


@pytest.mark.parametrize(("seats", "victory"), COMBOS)
def test_checked_playouts_end(seats: int, victory: str) -> None:
    engine = ENGINES[-1]
    game = random_playout(engine, {"mode": "war", "war-victory": victory,
                                   "war-max-rounds": 8}, seats, seed=seats, check=True)
    result = engine.result(game.state)
    assert result is not None and result["reason"] in {
        "capitals_captured", "condition_fulfilled", "last_army_standing", "round_limit"}
    assert engine.decision(game.state)["to_act"] == []


@pytest.mark.parametrize(("seats", "victory"), COMBOS)
def test_unchecked_playouts_end_within_the_round_limit(seats: int, victory: str) -> None:
    reasons = set()
    for seed in range(4):
        game = random_playout(ENGINES[0], {"war-victory": victory}, seats, seed)
        assert game.state["round"] <= 30
        reasons.add(game.state["result"]["reason"])
        assert sum(game.state["units_on_board"]) + sum(game.state["supply"].values()) + sum(
            sum(r.values()) for r in game.state["reserve"]) == 40
    assert reasons


@pytest.mark.slow
@pytest.mark.parametrize(("seats", "victory"), COMBOS)
def test_many_playouts_end(seats: int, victory: str) -> None:
    for seed in range(10, 30):
        game = random_playout(ENGINES[0], {"war-victory": victory}, seats, seed)
        assert game.state["result"] is not None


def test_replay_is_byte_for_byte() -> None:
    game = random_playout(ENGINES[0], {"war-victory": "conditions"}, 4, seed=9)
    rng = SeededRng(9)
    state = WAR.setup(game.options, 4, rng)
    for seat, move in game.moves:
        state, _ = WAR.apply(state, seat, copy.deepcopy(move), rng)
    assert json.dumps(state, sort_keys=True) == json.dumps(game.state, sort_keys=True)


# --------------------------------------------------------------------------- hidden information


def scramble(state: dict[str, Any], keep: int, rnd: random.Random) -> dict[str, Any]:
    """A copy differing only in what `keep` may not see: the other seats' hands (same sizes),
    cloud/trunk splits (same totals), condition cards and unresolved placements. (The deck
    order is nobody's: it decides the viewer's own draws, so it stays.)"""
    other = copy.deepcopy(state)
    kinds = ["giant_pig", "elfcycle", "magic_cloud", "unicorn", "troll_wagon", "dragon", "raft"]
    for s in range(state["seats"]):
        if s == keep:
            continue
        size = sum(state["hands"][s].values())
        hand: dict[str, int] = {}
        for _ in range(size):
            k = rnd.choice(kinds)
            hand[k] = hand.get(k, 0) + 1
        other["hands"][s] = hand
        total = sum(state["support"][s].values())
        clouds = rnd.randint(0, total)
        other["support"][s] = {"magic_cloud": clouds, "trunk": total - clouds}
        if other["conditions"] is not None:
            other["conditions"][s] = rnd.choice(["swineherds", "river-elves", "sea-elves"])
        if str(s) in other["submitted"]:
            other["submitted"][str(s)] = {"scrambled": True}
    return other


@pytest.mark.parametrize("victory", ["capitals", "conditions"])
def test_non_interference_along_a_playout(victory: str) -> None:
    """Whatever the other seats hold, a seat sees the same views and the same events."""
    game = random_playout(ENGINES[0], {"war-victory": victory}, 3, seed=5)
    rnd = random.Random(1)
    rng = SeededRng(5)
    state = WAR.setup(game.options, 3, rng)
    checked = 0
    for seat, move in game.moves:
        if WAR.result(state) is None:
            twin = scramble(state, seat, rnd)
            for who in (seat, None):
                assert WAR.view(state, who) == WAR.view(twin, who)
                assert WAR.render_text(WAR.view(state, who)) == \
                    WAR.render_text(WAR.view(twin, who))
            if move["type"] not in ("war_place_initial", "war_place_rest"):
                mine = copy.deepcopy(state)
                twin_rng = copy.deepcopy(rng)
                _, ev1 = WAR.apply(mine, seat, copy.deepcopy(move), copy.deepcopy(rng))
                _, ev2 = WAR.apply(twin, seat, copy.deepcopy(move), twin_rng)
                strip = [e for e in ev1 if e["type"] != "game_ended"]
                assert strip == [e for e in ev2 if e["type"] != "game_ended"]
                assert [WAR.view_event(e, seat) for e in strip] == strip
                if WAR.result(mine) is None:  # condition cards are public once it ends
                    assert WAR.view(mine, seat) == WAR.view(twin, seat)
                checked += 1
        state, _ = WAR.apply(state, seat, move, rng)
    assert checked > 50


def test_views_hold_no_other_hand_and_no_deck() -> None:
    game = random_playout(ENGINES[0], {"war-victory": "conditions"}, 4, seed=2)
    rng = SeededRng(2)
    state = WAR.setup(game.options, 4, rng)
    for seat, move in game.moves[:300]:
        for who in (0, 1, None):
            v = WAR.view(state, who)
            assert "deck" not in v and "hands" not in v and "support_split" not in v
            assert v.get("conditions") is None  # only at the end
            if who is None:
                assert "hand" not in v and "condition" not in v and "support" not in v
            else:
                assert v["hand"] == {k: n for k, n in state["hands"][who].items() if n}
        state, events = WAR.apply(state, seat, move, rng)
        for e in events:
            assert "hand" not in json.dumps(e) or e["type"] == "game_ended"


def test_placements_stay_secret_until_all_have_answered() -> None:
    state = WAR.setup({"mode": "war"}, 3, SeededRng(8))
    moves = [list(WAR.legal_moves(state, s)) for s in range(3)]
    twin = copy.deepcopy(state)
    play(state, A, moves[A][0])
    play(twin, A, moves[A][-1] if len(moves[A]) > 1 else moves[A][0])
    assert WAR.view(state, B) == WAR.view(twin, B)
    assert WAR.view(state, A)["my_submission"] == moves[A][0]["towns"]
    assert WAR.view(state, B)["submitted"] == [True, False, False]
    assert WAR.is_secret(moves[A][0]) and WAR.is_secret({"type": "trade_in", "card": "dragon"})
    assert not WAR.is_secret({"type": "attack", "from": "x", "road": 1})


# --------------------------------------------------------------------------- options, notation


@pytest.mark.parametrize("options", [
    {"mode": "war"}, {"mode": "war", "war-victory": "conditions", "war-max-rounds": 5},
    {"mode": "war", "colours": ["red", "black", "green"], "rounds": 4, "thief": False},
])
def test_options_are_stable(options: dict[str, Any]) -> None:
    once = validate_war_options(options, 3)
    assert validate_war_options(once, 3) == once
    assert "rounds" not in once and "thief" not in once and once["mode"] == "war"
    assert once["war-conditions"] == "elfenland_war_conditions"


def test_colours_follow_the_option() -> None:
    state = WAR.setup({"mode": "war", "colours": ["red", "black"]}, 2, SeededRng(1))
    assert state["colours"] == ["red", "black"]
    assert WAR.setup({"mode": "war"}, 2, SeededRng(1))["colours"] == ["blue", "yellow"]


def test_notation_round_trips_every_kind() -> None:
    samples = [
        {"type": "war_move", "from": "virst", "roads": [44], "units": {"giant_pig": 2,
                                                                      "unicorn": 1},
         "cards": {"raft": 3}},
        {"type": "war_move", "from": "feodor", "roads": [20, 17], "units": {}, "cards": {}},
        {"type": "attack", "from": "ixara", "road": 15, "units": ["dragon", "unicorn"],
         "cards": {}},
        {"type": "attack", "from": "grangor", "road": 40, "units": [], "cards": {}},
        {"type": "pick_unit", "unit": "dragon"}, {"type": "done"}, {"type": "cancel"},
        {"type": "casualties", "units": {"unicorn": 1, "dragon": 1}},
        {"type": "trade_in", "card": "magic_cloud"},
        {"type": "trade_in", "card": "dragon", "town": "virst"},
        {"type": "place_trunk", "road": 26}, {"type": "remove_trunk", "road": 26},
        {"type": "war_place_initial", "towns": {"virst": "dragon", "ixara": "unicorn"}},
        {"type": "choose_capital", "town": "virst"},
        {"type": "war_place_rest", "units": {"virst": {"dragon": 2}, "ixara": {"elfcycle": 1}}},
        {"type": "pass"}, {"type": "pass_turn"}, {"type": "end_turn"}, {"type": "resign"},
    ]
    for m in samples:
        assert WAR.parse_move(WAR.format_move(m)) == m
    assert WAR.format_move(samples[0]) == "move virst 44 giant_pig*2,unicorn pay raft*3"
    from jsonschema import Draft202012Validator
    validator = Draft202012Validator(dict(WAR.move_schema))
    for m in samples:
        validator.validate(m)
    assert not validator.is_valid({"type": "attack", "from": "x", "road": 1, "units": [
        "dragon", "dragon", "dragon"]})


# --------------------------------------------------------------------------- defaults, resign


def test_every_decision_kind_has_a_settling_default() -> None:
    seen: set[str] = set()
    for seed in range(3):
        game = random_playout(ENGINES[0], {"war-victory": "capitals"}, 3, seed)
        rng = SeededRng(seed)
        state = WAR.setup(game.options, 3, rng)
        for seat, move in game.moves:
            d = WAR.decision(state)
            for late in d["to_act"]:
                default = WAR.default_move(state, late)
                assert default is not None, d["step_kind"]
                scratch = copy.deepcopy(state)
                WAR.apply(scratch, late, default, SeededRng(1))
                after = WAR.decision(scratch)
                assert after["step"] != d["step"] or late not in after["to_act"]
                seen.add(d["step_kind"])
            state, _ = WAR.apply(state, seat, move, rng)
    assert seen >= {"war_place_initial", "war_capital", "war_place_rest", "war_opening",
                    "war_turn", "war_pick", "war_pick_more", "war_convert"}


def test_casualties_default_is_the_first_listed_choice() -> None:
    state = war_state(garrison={"grangor": (B, {"giant_pig": 2, "troll_wagon": 1}),
                                "yttar": (A, {"dragon": 1, "unicorn": 2}),
                                "tichih": (C, {"troll_wagon": 1})},
                      hands={B: {"raft": 4}}, active=B)
    rng = ForcedRng({"war-attack-dice": [6, 2], "war-defence-dice": [4, 3]})
    play(state, B, {"type": "attack", "from": "grangor", "road": 40,
                    "units": ["giant_pig", "giant_pig"], "cards": {"raft": 4}}, rng)
    assert WAR.default_move(state, A) == {"type": "casualties", "units": {"unicorn": 1}}
    assert WAR.default_move(state, B) is None


def test_resign_of_the_defender_hands_over_the_town() -> None:
    state = war_state(garrison={"grangor": (B, {"giant_pig": 2, "troll_wagon": 1}),
                                "yttar": (A, {"dragon": 1, "unicorn": 2}),
                                "virst": (A, {"dragon": 1}),
                                "tichih": (C, {"troll_wagon": 1})},
                      hands={B: {"raft": 4}}, active=B)
    rng = ForcedRng({"war-attack-dice": [6, 2], "war-defence-dice": [4, 3]})
    play(state, B, {"type": "attack", "from": "grangor", "road": 40,
                    "units": ["giant_pig", "giant_pig"], "cards": {"raft": 4}}, rng)
    events = play(state, A, {"type": "resign"})
    assert state["garrison"]["yttar"] == {"seat": B, "units": {"giant_pig": 1}}
    assert any(e["type"] == "town_taken" for e in events)
    assert "virst" not in state["garrison"] and state["eliminated"][A]
    assert state["to_act"] == [C]


def test_resign_during_setup_and_the_last_army() -> None:
    state = WAR.setup({"mode": "war"}, 3, SeededRng(2))
    play(state, A, next(WAR.legal_moves(state, A)))
    play(state, B, {"type": "resign"})
    assert state["to_act"] == [C] and sum(state["supply"].values()) == 14
    play(state, C, next(WAR.legal_moves(state, C)))
    assert state["phase"] == "war_capital" and state["to_act"] == [A]
    play(state, A, {"type": "resign"})
    assert WAR.result(state) == {"winners": [C], "scores": {"0": 0, "1": 0, "2": 4},
                                 "reason": "last_army_standing"}


def test_resign_of_the_active_seat_passes_the_turn() -> None:
    state = war_state(garrison={"virst": (A, {"troll_wagon": 1}),
                                "yttar": (B, {"troll_wagon": 1}),
                                "tichih": (C, {"troll_wagon": 1})})
    play(state, A, {"type": "war_move", "from": "virst", "roads": [8], "units": {}, "cards": {}})
    play(state, A, {"type": "resign"})
    assert state["to_act"] == [B] and state["phase"] == flow.TURN
    assert state["supply"].get("troll_wagon", 0) >= 1


def test_opening_auto_passes_a_seat_without_support() -> None:
    state = WAR.setup({"mode": "war"}, 2, SeededRng(6))
    for s in (A, B):
        play(state, s, next(WAR.legal_moves(state, s)))
    for s in (A, B):
        play(state, s, next(WAR.legal_moves(state, s)))
    state2 = copy.deepcopy(state)
    for s in (A, B):
        play(state, s, next(WAR.legal_moves(state, s)))
    assert state["phase"] == "war_opening"
    state2["support"][A] = {"magic_cloud": 0, "trunk": 0}
    for s in (A, B):
        play(state2, s, next(WAR.legal_moves(state2, s)))
    assert state2["to_act"] == [B]
    play(state2, B, {"type": "pass"})
    assert state2["phase"] == "war_turn" and state2["round"] == 1


# --------------------------------------------------------------------------- listings


def _first_turn_listing(seats: int, seed: int) -> dict[str, int]:
    chooser = random.Random(seed)
    rng = SeededRng(seed)
    engine = ENGINES[0]
    state = WAR.setup(engine.validate_options({}, seats), seats, rng)
    while state["phase"] != "war_turn":
        seat = chooser.choice(WAR.decision(state)["to_act"])
        state, _ = WAR.apply(state, seat, chooser.choice(list(WAR.legal_moves(state, seat))),
                             rng)
    counts: dict[str, int] = {}
    for m in WAR.legal_moves(state, state["active"]):
        counts[m["type"]] = counts.get(m["type"], 0) + 1
    return counts


def test_legal_move_counts_of_seeded_positions() -> None:
    """Regression data: the first turn's listing of seeded games (python-chess's perft idea)."""
    assert _first_turn_listing(2, 0) == {"war_move": 22, "attack": 7, "remove_trunk": 4,
                                         "pass_turn": 1}
    assert _first_turn_listing(6, 0) == {"war_move": 2, "attack": 4, "pass_turn": 1}


def test_listings_stay_small() -> None:
    """§4.4: every decision lists at most a few hundred moves (starts and single picks)."""
    biggest = 0
    for seats in (2, 3, 6):
        chooser = random.Random(seats)
        rng = SeededRng(seats)
        state = WAR.setup(ENGINES[0].validate_options({}, seats), seats, rng)
        while WAR.result(state) is None:
            seat = chooser.choice(WAR.decision(state)["to_act"])
            moves = list(WAR.legal_moves(state, seat))
            biggest = max(biggest, len(moves))
            if state["phase"] in ("war_pick", "war_pick_more"):
                assert len(moves) <= 7
            state, _ = WAR.apply(state, seat, chooser.choice(moves), rng)
    assert 0 < biggest <= 300


@pytest.mark.parametrize("seats", [2, 3, 5])
def test_resigning_at_random_moments(seats: int) -> None:
    """Resigns injected anywhere (setup, picks, casualties, conversions): the game goes on, the
    units are conserved, every state asks somebody until it ends."""
    for seed in range(20):
        chooser = random.Random(seed)
        rng = SeededRng(seed)
        opts = {"war-victory": "conditions" if seed % 2 else "capitals"}
        state = WAR.setup(ENGINES[0].validate_options(opts, seats), seats, rng)
        for _ in range(5000):
            if WAR.result(state) is not None:
                break
            to_act = WAR.decision(state)["to_act"]
            assert to_act
            if chooser.random() < (0.1 if state["round"] == 0 else 0.01):
                seat = chooser.choice([s for s in range(seats) if not state["resigned"][s]])
                move: dict[str, Any] = {"type": "resign"}
            else:
                seat = chooser.choice(to_act)
                move = chooser.choice(list(WAR.legal_moves(state, seat)))
            WAR.check(state, seat, move)
            state, _ = WAR.apply(state, seat, move, rng)
            placed = sum(state["units_on_board"]) + sum(state["supply"].values()) + sum(
                sum(r.values()) for r in state["reserve"])
            assert placed == 40
            assert state["units_on_board"] == [
                sum(sum(g["units"].values()) for g in state["garrison"].values()
                    if g["seat"] == s) for s in range(seats)]
        assert WAR.result(state) is not None
        assert WAR.decision(state)["to_act"] == []


def test_resign_of_the_attacker_while_the_defender_chooses() -> None:
    state = war_state(garrison={"grangor": (B, {"giant_pig": 2, "troll_wagon": 1}),
                                "yttar": (A, {"dragon": 1, "unicorn": 2}),
                                "tichih": (C, {"troll_wagon": 1})},
                      hands={B: {"raft": 4}}, active=B)
    rng = ForcedRng({"war-attack-dice": [6, 2], "war-defence-dice": [4, 3]})
    play(state, B, {"type": "attack", "from": "grangor", "road": 40,
                    "units": ["giant_pig", "giant_pig"], "cards": {"raft": 4}}, rng)
    play(state, B, {"type": "resign"})
    assert state["phase"] == "war_casualties" and state["to_act"] == [A]
    play(state, A, {"type": "casualties", "units": {"dragon": 1}})
    assert state["phase"] == "war_turn" and state["to_act"] == [C]
    assert "grangor" not in state["garrison"]
