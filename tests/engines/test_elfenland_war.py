"""Battle for Elfland (the `elfenland` war mode): the worked scenarios S26-S32 of the spec (§11).

The functions here build war states directly (garrisons, hands, the decision) and force draws by
purpose, so each scenario starts exactly where the spec's "Given" line puts it. The other war
test files import them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from engines.elfenland.war import WAR, flow
from engines.rng import SeededRng, _Logged
from tests.engines.refusals import assert_refused

A, B, C = 0, 1, 2


class ForcedRng(_Logged):
    """Forced results for some purposes (in order), seeded draws for every other purpose."""

    def __init__(self, forced: Mapping[str, list[Any]] | None = None, seed: int = 0) -> None:
        super().__init__()
        self.forced = {k: list(v) for k, v in (forced or {}).items()}
        self.base = SeededRng(seed)

    def randint(self, purpose: str, lo: int, hi: int, *, secret: bool = False) -> int:
        queue = self.forced.get(purpose)
        if queue:
            value = queue.pop(0)
            assert lo <= value <= hi, (purpose, value)
        else:
            assert queue is None or purpose not in self.forced, f"{purpose} ran out"
            value = self.base.randint(purpose, lo, hi)
        self._log(purpose, "randint", {"lo": lo, "hi": hi}, value, secret)
        return value

    def shuffle(self, purpose: str, items: list[Any], *, secret: bool = False) -> list[Any]:
        queue = self.forced.get(purpose)
        if queue:
            value = list(queue.pop(0))
            assert sorted(map(repr, value)) == sorted(map(repr, items)), purpose
        else:
            value = self.base.shuffle(purpose, items)
        self._log(purpose, "shuffle", {"items": list(items)}, value, secret)
        return value

    def used_up(self) -> bool:
        return all(not q for q in self.forced.values())


def war_state(seats: int = 3, garrison: Mapping[str, tuple[int, Mapping[str, int]]] = (),
              hands: Mapping[int, Mapping[str, int]] | None = None, *, active: int = A,
              phase: str = flow.TURN, victory: str = "capitals",
              capitals: list[str | None] | None = None, support: Any = None,
              conditions: list[str] | None = None, supply: Mapping[str, int] | None = None,
              trunks: Mapping[int, int] | None = None) -> dict[str, Any]:
    """A war state in round 1 with exactly these garrisons, hands and decision."""
    state = WAR.setup({"mode": "war", "war-victory": victory}, seats, SeededRng(0))
    n = seats
    state["garrison"] = {t: {"seat": s, "units": dict(u)} for t, (s, u) in dict(garrison).items()}
    state["units_on_board"] = [0] * n
    for g in state["garrison"].values():
        state["units_on_board"][g["seat"]] += sum(g["units"].values())
    state["reserve"] = [{} for _ in range(n)]
    state["home"] = [[] for _ in range(n)]
    state["hands"] = [dict((hands or {}).get(s, {})) for s in range(n)]
    state["support"] = [dict(support[s]) if support else {"magic_cloud": 0, "trunk": 0}
                        for s in range(n)]
    state["capital"] = list(capitals) if capitals else [None] * n
    if supply is not None:
        state["supply"] = dict(supply)
    if conditions is not None:
        state["conditions"] = list(conditions)
    state["trunks"] = {str(r): s for r, s in (trunks or {}).items()}
    state["live"] = True
    state["round"] = 1
    state["order"] = flow.rotation(state, 0)
    state["turn"] = state["order"].index(active)
    state["active"] = active
    state["phase"] = phase
    state["to_act"] = [active]
    return state


def dump(state: Mapping[str, Any]) -> str:
    return json.dumps(state, sort_keys=True)


def refuse(state: dict[str, Any], seat: int, move: Any, code: str) -> None:
    """`check` and `apply` both refuse `move` with `code`, and nothing changes."""
    assert_refused(WAR, state, seat, move, code, ForcedRng())


def play(state: dict[str, Any], seat: int, move: dict[str, Any],
         rng: Any = None) -> list[dict[str, Any]]:
    WAR.check(state, seat, move)
    _, events = WAR.apply(state, seat, move, rng or ForcedRng())
    return events


def units(state: Mapping[str, Any], town: str) -> dict[str, int] | None:
    g = state["garrison"].get(town)
    return None if g is None else dict(g["units"])


# --------------------------------------------------------------------------- S26 setup

S26_TOWNS = ["virst", "grangor", "tichih", "ixara", "yttar", "jaccaranda", "beata",
             "mahdavikia", "wylhien", "strykhaven", "usselen", "ergeren"]
#: support pile with a trunk first for everybody: dealt A, B, C, A, B, C, A, B, C
S26_SUPPORT = ["trunk"] * 3 + ["magic_cloud"] * 3 + ["trunk"] * 3 + ["magic_cloud"] * 3


def s26_setup() -> dict[str, Any]:
    rng = ForcedRng({"war-town-cards": [S26_TOWNS], "war-support-pile": [S26_SUPPORT]})
    state = WAR.setup({"mode": "war", "colours": ["blue", "yellow", "green"]}, 3, rng)
    assert rng.used_up()
    purposes = [d["purpose"] for d in rng.draws]
    assert purposes == ["war-support-pile", "war-units", "war-victory-deck", "war-town-cards"]
    assert [d["secret"] for d in rng.draws] == [True, False, True, False]
    return state


def test_s26_setup_deals() -> None:
    state = s26_setup()
    assert [sum(s.values()) for s in state["support"]] == [3, 3, 3]
    assert state["support"][A] == {"trunk": 2, "magic_cloud": 1}
    assert [sum(r.values()) for r in state["reserve"]] == [13, 13, 13]
    assert sum(state["supply"].values()) == 1
    assert state["hands"] == [{"raft": 4}] * 3
    assert len(state["deck"]) == 60 and "raft" not in state["deck"]
    assert state["cloud_reserve"] == 2
    assert state["home"] == [["virst", "ixara", "beata", "strykhaven"],
                             ["grangor", "yttar", "mahdavikia", "usselen"],
                             ["tichih", "jaccaranda", "wylhien", "ergeren"]]
    assert WAR.decision(state) == {"step": 0, "step_kind": "war_place_initial",
                                   "to_act": [0, 1, 2], "legal_moves_complete": False}


def test_five_seats_leftovers() -> None:
    state = WAR.setup({"mode": "war"}, 5, SeededRng(3))
    assert [sum(r.values()) for r in state["reserve"]] == [8] * 5
    assert sum(state["supply"].values()) == 0
    assert state["hands"] == [{"raft": 2}] * 5
    assert len(state["deck"]) == 62 and state["deck"].count("raft") == 2
    assert [len(h) for h in state["home"]] == [2] * 5
    assert [sum(s.values()) for s in state["support"]] == [2] * 5


def _place_all_initial(state: dict[str, Any]) -> None:
    for s in range(3):
        play(state, s, next(WAR.legal_moves(state, s)))


def test_s26_placements_capitals_and_opening() -> None:
    state = s26_setup()
    three = dict(list(next(WAR.legal_moves(state, A))["towns"].items())[:3])
    refuse(state, A, {"type": "war_place_initial", "towns": three}, "placement_invalid")
    _place_all_initial(state)
    assert WAR.decision(state)["step_kind"] == "war_capital"
    assert state["to_act"] == [A]
    assert all(len(units(state, t) or {}) == 1 for t in state["home"][A])
    refuse(state, A, {"type": "choose_capital", "town": "yttar"}, "capital_invalid")
    for s, town in enumerate(["virst", "yttar", "tichih"]):
        play(state, s, {"type": "choose_capital", "town": town})
    assert state["capital"] == ["virst", "yttar", "tichih"]
    assert state["phase"] == "war_place_rest" and state["to_act"] == [0, 1, 2]
    for s in range(3):
        play(state, s, {"type": "war_place_rest",
                        "units": {state["capital"][s]: dict(state["reserve"][s])}})
    assert state["units_on_board"] == [13, 13, 13]
    assert state["phase"] == "war_opening" and state["to_act"] == [A]
    play(state, A, {"type": "pass"})
    play(state, B, {"type": "pass"})
    refuse(state, C, {"type": "place_trunk", "road": 43}, "road_is_water")
    refuse(state, C, {"type": "remove_trunk", "road": 26}, "wrong_decision")
    play(state, C, {"type": "place_trunk", "road": 26})
    assert state["trunks"] == {"26": C} and state["passes_in_row"] == 0
    # the trunk blocks everyone, its owner included
    state["garrison"]["tichih"]["units"] = {"dragon": 1}
    assert not any(m.get("roads") == [26] for m in WAR.legal_moves(state, C))
    while state["phase"] == "war_opening":
        play(state, state["to_act"][0], {"type": "pass"})
    assert state["phase"] == "war_turn" and state["round"] == 1 and state["to_act"] == [A]


# --------------------------------------------------------------------------- S27 movement


def test_s27_movement() -> None:
    state = war_state(garrison={"virst": (A, {"troll_wagon": 3, "unicorn": 1, "giant_pig": 2}),
                                "feodor": (A, {"dragon": 2}),
                                "yttar": (B, {"troll_wagon": 1}),
                                "tichih": (C, {"troll_wagon": 1})},
                      hands={A: {"raft": 4, "dragon": 4}})
    refuse(state, A, {"type": "war_move", "from": "virst", "roads": [8],
                      "units": {"unicorn": 1}, "cards": {}}, "unit_terrain_forbidden")
    refuse(state, A, {"type": "war_move", "from": "virst", "roads": [44],
                      "units": {"giant_pig": 2, "unicorn": 1}, "cards": {"raft": 2}},
           "wrong_payment")
    refuse(state, A, {"type": "war_move", "from": "feodor", "roads": [10, 8],
                      "units": {"dragon": 2}, "cards": {}}, "double_move_invalid")
    refuse(state, A, {"type": "war_move", "from": "feodor", "roads": [20, 17],
                      "units": {"dragon": 2}, "cards": {"dragon": 2}}, "wrong_payment")
    trial = json.loads(dump(state))
    play(trial, A, {"type": "war_move", "from": "virst", "roads": [44],
                    "units": {"giant_pig": 2, "unicorn": 1}, "cards": {"raft": 3}})
    assert units(trial, "ixara") == {"giant_pig": 2, "unicorn": 1}
    assert trial["rafts_played"] == 3 and trial["hands"][A] == {"dragon": 4, "raft": 1}
    trial = json.loads(dump(state))
    play(trial, A, {"type": "war_move", "from": "feodor", "roads": [20, 17],
                    "units": {"dragon": 2}, "cards": {"dragon": 4}})
    assert units(trial, "dagamura") == {"dragon": 2} and units(trial, "albaran") is None
    assert trial["war_discard"] == {"dragon": 4} and units(trial, "feodor") is None
    events = play(state, A, {"type": "war_move", "from": "virst", "roads": [8],
                             "units": {"troll_wagon": 2}, "cards": {}})
    assert units(state, "lapphalya") == {"troll_wagon": 2}
    assert units(state, "virst") == {"troll_wagon": 1, "unicorn": 1, "giant_pig": 2}
    assert events[0]["claimed"] is True and state["hands"][A] == {"raft": 4, "dragon": 4}
    assert state["to_act"] == [B]  # one movement per turn


def test_s27_step_by_step_selection_means_the_combined_move() -> None:
    state = war_state(garrison={"virst": (A, {"troll_wagon": 3, "unicorn": 1, "giant_pig": 2}),
                                "yttar": (B, {"troll_wagon": 1}),
                                "tichih": (C, {"troll_wagon": 1})},
                      hands={A: {"raft": 3}})
    combined = json.loads(dump(state))
    play(combined, A, {"type": "war_move", "from": "virst", "roads": [44],
                       "units": {"giant_pig": 2, "unicorn": 1}, "cards": {"raft": 3}})
    start = {"type": "war_move", "from": "virst", "roads": [44], "units": {}, "cards": {}}
    assert start in list(WAR.legal_moves(state, A))
    play(state, A, start)
    assert state["phase"] == "war_pick"
    assert {"type": "done"} not in list(WAR.legal_moves(state, A))
    refuse(state, A, {"type": "done"}, "wrong_decision")
    play(state, A, {"type": "pick_unit", "unit": "giant_pig"})
    assert state["phase"] == "war_pick_more"  # a new decision: done instead of cancel
    assert {"type": "cancel"} not in list(WAR.legal_moves(state, A))
    step = state["step"]
    for unit in ("unicorn", "giant_pig"):
        play(state, A, {"type": "pick_unit", "unit": unit})
        assert state["step"] == step  # further picks stay at one step (contract v2 point 1)
    # three rafts pay for three units: no fourth unit can be paid
    assert [m for m in WAR.legal_moves(state, A) if m["type"] == "pick_unit"] == []
    refuse(state, A, {"type": "pick_unit", "unit": "troll_wagon"}, "pick_invalid")
    play(state, A, {"type": "done"})
    strip = ("step",)
    assert {k: v for k, v in state.items() if k not in strip} == \
        {k: v for k, v in combined.items() if k not in strip}


def test_cancel_returns_to_the_turn() -> None:
    state = war_state(garrison={"virst": (A, {"troll_wagon": 1}),
                                "yttar": (B, {"troll_wagon": 1}),
                                "tichih": (C, {"troll_wagon": 1})})
    before = state["step"]
    play(state, A, {"type": "war_move", "from": "virst", "roads": [8], "units": {}, "cards": {}})
    assert WAR.default_move(state, A) == {"type": "cancel"}
    play(state, A, {"type": "cancel"})
    assert state["phase"] == "war_turn" and state["pending"] is None
    assert state["step"] == before + 2 and units(state, "virst") == {"troll_wagon": 1}
    play(state, A, {"type": "war_move", "from": "virst", "roads": [8], "units": {}, "cards": {}})
    play(state, A, {"type": "pick_unit", "unit": "troll_wagon"})
    assert WAR.default_move(state, A) == {"type": "done"}
    refuse(state, A, {"type": "cancel"}, "wrong_decision")
    play(state, A, WAR.default_move(state, A))
    assert units(state, "lapphalya") == {"troll_wagon": 1} and state["to_act"] == [B]


# --------------------------------------------------------------------------- S28 combat


def test_s28_two_against_one_repeat_capture() -> None:
    state = war_state(garrison={"ixara": (A, {"dragon": 2, "unicorn": 1, "giant_pig": 1}),
                                "virst": (A, {"giant_pig": 1}),
                                "mahdavikia": (B, {"troll_wagon": 1}),
                                "tichih": (C, {"troll_wagon": 1})})
    rng = ForcedRng({"war-attack-dice": [5, 2], "war-defence-dice": [5]})
    events = play(state, A, {"type": "attack", "from": "ixara", "road": 15,
                             "units": ["dragon", "unicorn"], "cards": {}}, rng)
    assert events[0]["attack_dice"] == [5, 2] and events[0]["defence_dice"] == [5]
    assert events[0]["attacker_losses"] == {"unicorn": 1}
    assert units(state, "ixara") == {"dragon": 2, "giant_pig": 1}
    assert state["phase"] == "war_attack_again" and state["to_act"] == [A]
    refuse(state, A, {"type": "attack", "from": "virst", "road": 13,
                      "units": ["giant_pig"], "cards": {}}, "wrong_origin")
    hand_before = sum(state["hands"][A].values())
    rng = ForcedRng({"war-attack-dice": [6, 3], "war-defence-dice": [4]})
    play(state, A, {"type": "attack", "from": "ixara", "road": 15,
                    "units": ["dragon", "dragon"], "cards": {}}, rng)
    assert rng.used_up()
    assert units(state, "mahdavikia") == {"dragon": 2}
    assert units(state, "ixara") == {"giant_pig": 1}
    assert sum(state["hands"][A].values()) == hand_before + 1
    assert state["supply"].get("troll_wagon", 0) >= 1 and state["eliminated"][B]
    assert state["to_act"] == [C]  # B is out: its turn is skipped


def test_s28_selection_of_an_attack_resolves_at_the_second_pick() -> None:
    state = war_state(garrison={"ixara": (A, {"dragon": 2, "unicorn": 1, "giant_pig": 1}),
                                "mahdavikia": (B, {"troll_wagon": 1}),
                                "tichih": (C, {"troll_wagon": 1})})
    play(state, A, {"type": "attack", "from": "ixara", "road": 15, "units": [], "cards": {}})
    picks = [m["unit"] for m in WAR.legal_moves(state, A) if m["type"] == "pick_unit"]
    assert picks == ["unicorn", "dragon"]  # no pig on a mountain road
    play(state, A, {"type": "pick_unit", "unit": "dragon"})
    rng = ForcedRng({"war-attack-dice": [5, 2], "war-defence-dice": [5]})
    play(state, A, {"type": "pick_unit", "unit": "unicorn"}, rng)
    assert units(state, "ixara") == {"dragon": 2, "giant_pig": 1}
    assert state["phase"] == "war_attack_again"


# --------------------------------------------------------------------------- S29 casualties


def test_s29_two_against_two_casualties_over_water() -> None:
    state = war_state(garrison={"grangor": (B, {"giant_pig": 2, "troll_wagon": 1}),
                                "yttar": (A, {"dragon": 1, "unicorn": 2}),
                                "tichih": (C, {"troll_wagon": 1})},
                      hands={B: {"raft": 4}}, active=B)
    refuse(state, B, {"type": "attack", "from": "grangor", "road": 36,
                      "units": ["giant_pig", "giant_pig"], "cards": {}},
           "unit_terrain_forbidden")
    rng = ForcedRng({"war-attack-dice": [6, 2], "war-defence-dice": [4, 3]})
    play(state, B, {"type": "attack", "from": "grangor", "road": 40,
                    "units": ["giant_pig", "giant_pig"], "cards": {"raft": 4}}, rng)
    assert state["rafts_played"] == 4 and state["hands"][B] == {}
    assert units(state, "grangor") == {"giant_pig": 1, "troll_wagon": 1}
    assert WAR.decision(state)["step_kind"] == "war_casualties" and state["to_act"] == [A]
    refuse(state, A, {"type": "casualties", "units": {"unicorn": 2}}, "casualties_invalid")
    assert sorted(json.dumps(m) for m in WAR.legal_moves(state, A)) == sorted(
        json.dumps({"type": "casualties", "units": {u: 1}}) for u in ("dragon", "unicorn"))
    play(state, A, {"type": "casualties", "units": {"unicorn": 1}})
    assert units(state, "yttar") == {"dragon": 1, "unicorn": 1}
    assert state["phase"] == "war_attack_again" and state["to_act"] == [B]
    play(state, B, {"type": "end_turn"})
    assert state["phase"] == "war_turn" and state["to_act"] == [C]


# --------------------------------------------------------------------------- S30 capitals


def test_s30_capital_victory_by_attack() -> None:
    state = war_state(garrison={"yttar": (B, {"troll_wagon": 1}),
                                "usselen": (B, {"troll_wagon": 1}),
                                "grangor": (A, {"dragon": 2}),
                                "tichih": (C, {"troll_wagon": 1})},
                      capitals=["grangor", "yttar", "tichih"])
    rng = ForcedRng({"war-attack-dice": [4, 4], "war-defence-dice": [2]})
    events = play(state, A, {"type": "attack", "from": "grangor", "road": 36,
                             "units": ["dragon", "dragon"], "cards": {}}, rng)
    assert {"type": "capital_captured", "seat": A, "owner": B, "town": "yttar"} in events
    assert WAR.result(state)["winners"] == [A]
    assert WAR.result(state)["reason"] == "capitals_captured"
    # both dragons left grangor, which is now empty
    assert WAR.result(state)["scores"] == {"0": 1, "1": 1, "2": 1}
    assert WAR.decision(state)["to_act"] == []


def test_s30_empty_capital_won_by_a_move() -> None:
    state = war_state(garrison={"usselen": (B, {"troll_wagon": 1}),
                                "grangor": (A, {"dragon": 2}),
                                "parundia": (C, {"troll_wagon": 1})},
                      hands={C: {"raft": 2}}, capitals=["grangor", "yttar", "parundia"],
                      active=C)
    play(state, C, {"type": "war_move", "from": "parundia", "roads": [38],
                    "units": {"troll_wagon": 1}, "cards": {"raft": 2}})
    assert WAR.result(state) == {"winners": [C], "scores": {"0": 1, "1": 1, "2": 1},
                                 "reason": "capitals_captured"}


def test_four_seats_need_two_capitals() -> None:
    state = war_state(4, garrison={"yttar": (B, {"troll_wagon": 1}),
                                   "usselen": (B, {"troll_wagon": 1}),
                                   "grangor": (A, {"dragon": 2}),
                                   "tichih": (C, {"troll_wagon": 1}),
                                   "beata": (3, {"troll_wagon": 1})},
                      capitals=["grangor", "yttar", "tichih", "beata"])
    rng = ForcedRng({"war-attack-dice": [4, 4], "war-defence-dice": [2]})
    play(state, A, {"type": "attack", "from": "grangor", "road": 36,
                    "units": ["dragon", "dragon"], "cards": {}}, rng)
    assert state["trophies"][A] == [B] and state["capital"][B] is None
    assert WAR.result(state) is None and state["to_act"] == [B]


# --------------------------------------------------------------------------- S31 round end

S31_TOWNS = ["elvenhold", "virst", "ixara", "beata", "strykhaven", "lapphalya", "feodor"]


def s31_state() -> dict[str, Any]:
    garrison: dict[str, tuple[int, dict[str, int]]] = {
        t: (A, {"troll_wagon": 1}) for t in S31_TOWNS}
    garrison["yttar"] = (B, {"troll_wagon": 1})
    garrison["tichih"] = (C, {"troll_wagon": 1})
    state = war_state(garrison=garrison, hands={A: {"dragon": 3, "magic_cloud": 3, "raft": 3}},
                      supply={"giant_pig": 1}, support=[{"magic_cloud": 1, "trunk": 0}] * 3,
                      trunks={26: C}, active=C)
    state["deck"] = ["unicorn", "unicorn", "elfcycle", "giant_pig", "dragon"]
    return state


def test_s31_income_and_conversion() -> None:
    state = s31_state()
    events = play(state, C, {"type": "pass_turn"})
    assert {"type": "income", "seat": A, "due": 3, "drawn": 3} in events
    assert state["hands"][A] == {"dragon": 3, "magic_cloud": 3, "raft": 3, "unicorn": 2,
                                 "elfcycle": 1}
    assert state["hands"][B] == {}
    assert WAR.decision(state)["step_kind"] == "war_convert" and state["to_act"] == [A]
    refuse(state, A, {"type": "trade_in", "card": "dragon", "town": "virst"}, "supply_empty")
    refuse(state, A, {"type": "trade_in", "card": "raft"}, "trade_invalid")
    refuse(state, A, {"type": "trade_in", "card": "unicorn", "town": "virst"},
           "cards_not_in_hand")
    play(state, A, {"type": "trade_in", "card": "magic_cloud"})
    assert state["cloud_reserve"] == 1 and state["support"][A]["magic_cloud"] == 2
    assert state["war_discard"] == {"magic_cloud": 3}
    assert state["phase"] == "war_convert"
    play(state, A, {"type": "end_turn"})
    assert state["round"] == 2 and state["start"] == B and state["to_act"] == [B]
    play(state, B, {"type": "pass_turn"})
    play(state, C, {"type": "pass_turn"})
    assert state["to_act"] == [A]
    play(state, A, {"type": "remove_trunk", "road": 26})
    assert state["trunks"] == {} and state["cloud_reserve"] == 2
    assert state["support"][A]["magic_cloud"] == 1
    # A's turn ended round 2: A (still holding 3+ cards) is asked to convert
    assert state["phase"] == "war_convert" and state["to_act"] == [A] and state["round"] == 2
    play(state, A, {"type": "end_turn"})
    assert state["round"] == 3 and state["start"] == C and state["to_act"] == [C]


def test_s31_unit_limit() -> None:
    state = war_state(garrison={"virst": (A, {"troll_wagon": 20}),
                                "yttar": (B, {"troll_wagon": 1}),
                                "tichih": (C, {"troll_wagon": 1})},
                      hands={A: {"giant_pig": 3}}, supply={"giant_pig": 2},
                      phase=flow.CONVERT)
    refuse(state, A, {"type": "trade_in", "card": "giant_pig", "town": "virst"}, "unit_limit")
    state["garrison"]["virst"]["units"] = {"troll_wagon": 19}
    state["units_on_board"][A] = 19
    play(state, A, {"type": "trade_in", "card": "giant_pig", "town": "virst"})
    assert units(state, "virst") == {"troll_wagon": 19, "giant_pig": 1}
    assert state["supply"] == {"giant_pig": 1} and state["hands"][A] == {}


def test_raft_reshuffle_shuffles_indices_secretly() -> None:
    state = s31_state()
    state["rafts_played"] = 2
    rng = ForcedRng({"war-raft-reshuffle": [[6, 5, 4, 3, 2, 1, 0]]})
    play(state, C, {"type": "pass_turn"}, rng)
    draw = [d for d in rng.draws if d["purpose"] == "war-raft-reshuffle"][0]
    assert draw["params"] == {"items": list(range(7))} and draw["secret"] is True
    assert state["rafts_played"] == 0
    # deck was [uni, uni, cyc, pig, dragon] + [raft, raft], reversed: A drew raft, raft, dragon
    assert state["hands"][A]["raft"] == 5 and state["hands"][A]["dragon"] == 4


def test_empty_deck_reshuffles_the_discard() -> None:
    state = s31_state()
    state["deck"] = ["unicorn"]
    state["war_discard"] = {"dragon": 2}
    rng = ForcedRng({"war-victory-reshuffle": [[1, 0]]})
    play(state, C, {"type": "pass_turn"}, rng)
    assert state["hands"][A]["unicorn"] == 1 and state["hands"][A]["dragon"] == 5
    assert state["war_discard"] == {} and state["deck"] == []


def test_nothing_is_drawn_from_an_empty_deck_and_discard() -> None:
    state = s31_state()
    state["deck"] = ["unicorn"]
    events = play(state, C, {"type": "pass_turn"})
    assert {"type": "income", "seat": A, "due": 3, "drawn": 1} in events
    assert state["hands"][A]["unicorn"] == 1


# --------------------------------------------------------------------------- S32 conditions


def test_s32_condition_won_by_a_bystander() -> None:
    state = war_state(
        garrison={"ixara": (A, {"troll_wagon": 2}), "virst": (A, {"giant_pig": 1}),
                  "mahdavikia": (B, {"dragon": 1}), "yttar": (B, {"troll_wagon": 1}),
                  "elvenhold": (C, {"unicorn": 1}), "tichih": (C, {"dragon": 1})},
        victory="conditions",
        conditions=["western-mountain-elves", "sea-elves", "dragon-slayers"])
    rng = ForcedRng({"war-attack-dice": [6, 1], "war-defence-dice": [3]})
    play(state, A, {"type": "attack", "from": "ixara", "road": 15,
                    "units": ["troll_wagon", "troll_wagon"], "cards": {}}, rng)
    assert WAR.result(state)["winners"] == [C]
    assert WAR.result(state)["reason"] == "condition_fulfilled"
    view = WAR.view(state, A)
    assert [c["id"] for c in view["conditions"]] == \
        ["western-mountain-elves", "sea-elves", "dragon-slayers"]


def test_active_seat_has_priority() -> None:
    """A kills B's last unit: A and C both liberate yellow; the active seat wins alone."""
    state = war_state(
        garrison={"ixara": (A, {"dragon": 1}), "mahdavikia": (B, {"troll_wagon": 1}),
                  "tichih": (C, {"unicorn": 1})},
        victory="conditions",
        conditions=["northern-mountain-elves", "sea-elves", "northern-mountain-elves"])
    rng = ForcedRng({"war-attack-dice": [6], "war-defence-dice": [1]})
    play(state, A, {"type": "attack", "from": "ixara", "road": 15, "units": ["dragon"],
                    "cards": {}}, rng)
    assert WAR.result(state) == {"winners": [A], "scores": {"0": 1, "1": 0, "2": 1},
                                 "reason": "condition_fulfilled"}


def test_bystanders_share_a_win() -> None:
    state = war_state(
        4, garrison={"ixara": (A, {"dragon": 1}), "mahdavikia": (B, {"troll_wagon": 1}),
                     "tichih": (C, {"unicorn": 1}), "beata": (3, {"unicorn": 1})},
        victory="conditions",
        conditions=["sea-elves", "forest-elves", "northern-mountain-elves",
                    "northern-mountain-elves"])
    rng = ForcedRng({"war-attack-dice": [6], "war-defence-dice": [1]})
    play(state, A, {"type": "attack", "from": "ixara", "road": 15, "units": ["dragon"],
                    "cards": {}}, rng)
    assert WAR.result(state)["winners"] == [C, 3]


def test_swineherds_first_condition_is_void_with_two_seats() -> None:
    from engines.elfenland.war.conditions import condition_set, holds
    card = condition_set().card("swineherds")
    owners = {t: 0 for t in ["elvenhold", "virst", "ixara", "beata", "strykhaven",
                             "lapphalya", "feodor", "rivinia", "tichih"]}
    present = [{"troll_wagon": 9}, {"giant_pig": 1}, {}]
    assert holds(card, 0, owners, ["blue", "yellow", "green"], present, 3)
    assert not holds(card, 0, owners, ["blue", "yellow"], present[:2], 2)


def test_liberate_is_void_for_an_absent_or_own_colour() -> None:
    from engines.elfenland.war.conditions import condition_set, holds
    card = condition_set().card("western-mountain-elves")  # liberate black
    assert not holds(card, 0, {}, ["blue", "yellow"], [{}, {}], 2)
    assert not holds(card, 0, {}, ["black", "yellow"], [{}, {"dragon": 1}], 2)
    assert holds(card, 0, {}, ["blue", "black"], [{"dragon": 1}, {}], 2)


# --------------------------------------------------------------------------- round limit


def test_round_limit_most_towns_then_units() -> None:
    state = war_state(garrison={"virst": (A, {"troll_wagon": 1}),
                                "ixara": (A, {"troll_wagon": 1}),
                                "yttar": (B, {"troll_wagon": 5}),
                                "grangor": (B, {"troll_wagon": 1}),
                                "tichih": (C, {"troll_wagon": 1})}, active=C)
    state["options"]["war-max-rounds"] = 5
    state["round"] = 5
    play(state, C, {"type": "pass_turn"})
    assert WAR.result(state) == {"winners": [B], "scores": {"0": 2, "1": 2, "2": 1},
                                 "reason": "round_limit"}
    assert state["round"] == 5
