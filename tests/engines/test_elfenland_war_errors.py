"""Battle for Elfland: every error code provoked, with check and apply agreeing and the state
left byte for byte unchanged (spec §5.6; docs/rules/elfenland-war.md "Error codes")."""

from __future__ import annotations

from typing import Any

import pytest

from engines.contract import IllegalMove
from engines.elfenland.war import ERROR_CODES, WAR, flow
from engines.rng import SeededRng
from tests.engines.test_elfenland_war import A, B, C, play, refuse, war_state

PROVOKED: set[str] = set()


def base() -> dict[str, Any]:
    """A in virst and ixara, B in lapphalya and mahdavikia, C in tichih; A to act."""
    return war_state(
        garrison={"virst": (A, {"troll_wagon": 2, "unicorn": 1}),
                  "ixara": (A, {"dragon": 2, "giant_pig": 1}),
                  "lapphalya": (B, {"troll_wagon": 1}),
                  "mahdavikia": (B, {"troll_wagon": 1, "unicorn": 1}),
                  "tichih": (C, {"troll_wagon": 1})},
        hands={A: {"raft": 1, "dragon": 3}},
        support=[{"magic_cloud": 0, "trunk": 1}, {"magic_cloud": 1, "trunk": 0},
                 {"magic_cloud": 0, "trunk": 0}],
        trunks={13: B}, supply={"giant_pig": 1})


def move(origin: str, roads: list[int], units: dict[str, int], cards: dict | None = None
         ) -> dict[str, Any]:
    return {"type": "war_move", "from": origin, "roads": roads, "units": units,
            "cards": cards or {}}


def attack(origin: str, road: int, units: list[str], cards: dict | None = None
           ) -> dict[str, Any]:
    return {"type": "attack", "from": origin, "road": road, "units": units,
            "cards": cards or {}}


CASES: list[tuple[str, int, Any]] = [
    ("not_your_turn", B, {"type": "pass_turn"}),
    ("unknown_move_type", A, {"type": "fly"}),
    ("unknown_move_type", A, {}),
    ("malformed_move", A, {"type": "pass_turn", "now": True}),
    ("malformed_move", A, ["pass_turn"]),
    ("malformed_move", A, move("virst", [8, 9, 10], {"troll_wagon": 1})),
    ("malformed_move", A, move("virst", [8], {"troll_wagon": 0})),
    ("wrong_decision", A, {"type": "pass"}),
    ("wrong_decision", A, {"type": "casualties", "units": {"dragon": 1}}),
    ("unknown_road", A, {"type": "place_trunk", "road": 48}),
    ("unknown_town", A, move("atlantis", [8], {"troll_wagon": 1})),
    ("trade_invalid", A, {"type": "trade_in", "card": "raft"}),
    ("trade_invalid", A, {"type": "trade_in", "card": "magic_cloud", "town": "virst"}),
    ("cards_not_in_hand", A, {"type": "trade_in", "card": "unicorn", "town": "virst"}),
    ("cards_not_in_hand", A, move("virst", [44], {"troll_wagon": 1}, {"raft": 2})),
    ("not_own_town", A, move("lapphalya", [1], {"troll_wagon": 1})),
    ("not_own_town", A, {"type": "trade_in", "card": "dragon", "town": "tichih"}),
    ("units_not_present", A, move("virst", [3], {"dragon": 1})),
    ("units_not_present", A, attack("virst", 8, ["unicorn", "unicorn"])),
    ("too_many_attackers", A, attack("virst", 8, ["troll_wagon", "troll_wagon", "unicorn"])),
    ("road_not_here", A, move("virst", [1], {"troll_wagon": 1})),
    ("road_not_here", A, move("ixara", [12, 22], {"dragon": 1})),
    ("road_not_here", A, attack("virst", 15, ["troll_wagon"])),
    ("road_is_water", A, {"type": "place_trunk", "road": 3}),
    ("road_has_obstacle", A, {"type": "place_trunk", "road": 13}),
    ("no_cloud_held", A, {"type": "remove_trunk", "road": 13}),
    ("road_has_trunk", A, move("virst", [13], {"troll_wagon": 1})),
    ("double_move_invalid", A, move("virst", [6, 7], {"troll_wagon": 1})),
    ("road_has_trunk", A, move("ixara", [13, 44], {"dragon": 1})),  # trunk before terrain
    ("double_move_invalid", A, move("ixara", [14, 16], {"dragon": 1})),
    ("path_through_enemy", A, move("ixara", [12, 10], {"dragon": 1})),
    ("target_enemy", A, move("virst", [8], {"troll_wagon": 1})),
    ("target_not_enemy", A, attack("virst", 3, ["troll_wagon"])),
    ("target_not_enemy", A, attack("virst", 44, ["troll_wagon"], {"raft": 1})),
    ("unit_terrain_forbidden", A, attack("virst", 8, ["unicorn"])),
    ("unit_terrain_forbidden", A, attack("ixara", 15, ["giant_pig"])),
    ("wrong_payment", A, move("ixara", [14, 18], {"dragon": 1}, {"dragon": 2})),
    ("wrong_payment", A, attack("ixara", 45, ["dragon"], {})),
    ("wrong_payment", A, move("virst", [44], {}, {"raft": 1})),
    ("supply_empty", A, {"type": "trade_in", "card": "dragon", "town": "virst"}),
]


@pytest.mark.parametrize(("code", "seat", "bad"), CASES)
def test_refused_with_its_code_and_nothing_changes(code: str, seat: int, bad: Any) -> None:
    refuse(base(), seat, bad, code)
    PROVOKED.add(code)


def test_a_trunk_blocks_an_attack() -> None:
    state = base()
    state["trunks"]["12"] = C
    refuse(state, A, attack("ixara", 12, ["dragon"]), "road_has_trunk")
    assert {"type": "attack", "from": "ixara", "road": 12, "units": [], "cards": {}} not in \
        list(WAR.legal_moves(state, A))


def test_road_is_water_before_trunk_held() -> None:
    state = base()
    state["support"][A] = {"magic_cloud": 0, "trunk": 0}
    refuse(state, A, {"type": "place_trunk", "road": 43}, "road_is_water")
    refuse(state, A, {"type": "place_trunk", "road": 26}, "no_trunk_held")
    PROVOKED.update({"road_is_water", "no_trunk_held"})


def test_trunk_codes_for_a_cloud_holder() -> None:
    state = base()
    state["support"][A] = {"magic_cloud": 1, "trunk": 0}
    refuse(state, A, {"type": "remove_trunk", "road": 26}, "no_trunk_on_road")
    PROVOKED.add("no_trunk_on_road")


def test_unit_limit_and_pick_codes() -> None:
    state = base()
    state["hands"][A] = {"giant_pig": 3}
    state["units_on_board"][A] = 20
    refuse(state, A, {"type": "trade_in", "card": "giant_pig", "town": "virst"}, "unit_limit")
    PROVOKED.add("unit_limit")


def test_selection_codes() -> None:
    state = base()
    play(state, A, attack("virst", 8, []))
    refuse(state, A, {"type": "done"}, "wrong_decision")
    refuse(state, A, {"type": "pick_unit", "unit": "unicorn"}, "pick_invalid")
    refuse(state, A, {"type": "pick_unit", "unit": "wizard"}, "malformed_move")
    refuse(state, A, {"type": "pass_turn"}, "wrong_decision")
    PROVOKED.add("pick_invalid")


def test_placement_and_simultaneous_codes() -> None:
    state = WAR.setup({"mode": "war"}, 3, SeededRng(4))
    example = next(WAR.legal_moves(state, A))
    wrong_unit = dict(example["towns"])
    first = next(iter(wrong_unit))
    wrong_unit[first] = "magic_cloud"
    refuse(state, A, {"type": "war_place_initial", "towns": wrong_unit}, "placement_invalid")
    play(state, A, example)
    refuse(state, A, example, "already_submitted")
    for s in (B, C):
        play(state, s, next(WAR.legal_moves(state, s)))
    refuse(state, A, {"type": "choose_capital", "town": state["home"][B][0]}, "capital_invalid")
    for s in (A, B, C):
        play(state, s, {"type": "choose_capital", "town": state["home"][s][0]})
    too_few = {state["home"][A][0]: {"dragon": 1}}
    refuse(state, A, {"type": "war_place_rest", "units": too_few}, "placement_invalid")
    PROVOKED.update({"placement_invalid", "already_submitted", "capital_invalid"})


def test_casualties_and_origin_codes() -> None:
    state = war_state(garrison={"grangor": (B, {"giant_pig": 2, "troll_wagon": 1}),
                                "yttar": (A, {"dragon": 1, "unicorn": 2}),
                                "parundia": (B, {"troll_wagon": 1}),
                                "tichih": (C, {"troll_wagon": 1})},
                      hands={B: {"raft": 4}}, active=B)
    from tests.engines.test_elfenland_war import ForcedRng
    rng = ForcedRng({"war-attack-dice": [6, 2], "war-defence-dice": [4, 3]})
    play(state, B, attack("grangor", 40, ["giant_pig", "giant_pig"], {"raft": 4}), rng)
    refuse(state, A, {"type": "casualties", "units": {"dragon": 1, "unicorn": 1}},
           "casualties_invalid")
    play(state, A, {"type": "casualties", "units": {"dragon": 1}})
    refuse(state, B, attack("parundia", 38, ["troll_wagon"], {"raft": 2}), "wrong_origin")
    PROVOKED.update({"casualties_invalid", "wrong_origin"})


def test_game_over() -> None:
    state = base()
    play(state, A, {"type": "resign"})
    play(state, B, {"type": "resign"})
    assert WAR.result(state)["winners"] == [C]
    refuse(state, C, {"type": "pass_turn"}, "game_over")
    refuse(state, C, {"type": "resign"}, "game_over")
    PROVOKED.add("game_over")


def test_bad_notation() -> None:
    for text in ["", "move virst", "attack ixara x - pay -", "unit wizard", "trade 3@@"]:
        with pytest.raises(IllegalMove) as err:
            WAR.parse_move(text)
        assert err.value.code == "bad_notation"
    PROVOKED.add("bad_notation")


def test_invalid_options() -> None:
    from engines.elfenland.war import validate_war_options
    for bad in [{"war-victory": "gold"}, {"war-max-rounds": 4}, {"war-max-rounds": True},
                {"rounds": 3}, {"thief": True}, {"colours": ["blue", "blue", "red"]},
                {"colours": ["blue", "pink", "red"]}, {"war-conditions": "nope"},
                {"map_data": "nope"}, {"nonsense": 1}]:
        with pytest.raises(IllegalMove) as err:
            validate_war_options({"mode": "war", **bad}, 3)
        assert err.value.code == "invalid_options", bad
    with pytest.raises(IllegalMove):
        validate_war_options({"mode": "war"}, 7)
    PROVOKED.add("invalid_options")


#: codes provoked by the tests after CASES (each adds them to PROVOKED as it passes)
ELSEWHERE = {"road_is_water", "no_trunk_held", "no_trunk_on_road", "unit_limit",
             "pick_invalid", "placement_invalid", "already_submitted",
             "capital_invalid", "casualties_invalid", "wrong_origin", "game_over",
             "bad_notation", "invalid_options"}


def test_every_code_is_provoked() -> None:
    """Each code the engine lists is met by a case above (and no test claims an unlisted one)."""
    assert set(ERROR_CODES) == {code for code, _, _ in CASES} | ELSEWHERE
    assert set(ERROR_CODES) >= PROVOKED
    assert flow.GAME_OVER in ERROR_CODES
