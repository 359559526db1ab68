"""Elfenland's board picture (`render_svg`): sound for every variant and both modes in random
games, blind to other players' secrets, legible by its layout, and showing the towns, boots,
hand, counters, garrisons and capitals a player needs."""

from __future__ import annotations

import copy
import itertools
import math
import random
import xml.etree.ElementTree as ET
from typing import Any

import pytest

from engines.elfenland import ENGINE as E
from engines.elfenland.board import board
from engines.elfenland.layout import LAYOUTS, layout_for, parse_layout
from engines.elfenland.map_svg import label_y, shapes
from engines.elfenland.war import WAR
from engines.rng import SeededRng
from tests.engines.playout import random_playout
from tests.engines.svg_checks import NS, assert_sound, count, group, texts
from tests.engines.test_elfenland import DRAGON, PIG, RAFT, TROLL, UNI, clear, new, new_with
from tests.engines.test_elfenland_props import _hide_differently
from tests.engines.test_elfenland_war import A, B, C, war_state
from tests.engines.test_elfenland_war_play import scramble

NAMES = ["Ann", "Bob", "Cid", "Dee", "Eli", "Fay"]
MAP = "elfenland-map-1"
#: every named preset, and option sets that bring the remaining view fields and variants
OPTION_SETS: list[tuple[str, dict[str, Any]]] = [
    *((v.id, dict(v.options)) for v in E.variants),
    ("indiana-station", {"indiana-jones": True, "station-street": True, "destination": True}),
    ("eight-new-tickets", {"eight-new-tickets": True, "thief": True, "rounds": 3}),
    ("war-conditions", {"mode": "war", "war-victory": "conditions"}),
]


def picture(state: dict, who: int | None, names: list[str] | None = NAMES) -> str:
    seats = state.get("n", state.get("seats"))
    return E.render_svg(E.view(state, who), None if names is None else names[:seats])


def titles(element: ET.Element) -> list[str]:
    return [t.text or "" for t in element.iter(f"{NS}title")]


# --- every picture of random games -----------------------------------------------------------


@pytest.mark.parametrize(("label", "options"), OPTION_SETS, ids=[o[0] for o in OPTION_SETS])
def test_random_positions_give_sound_pictures(label: str, options: dict) -> None:
    seen = 0
    for seed, seats in ((1, 2), (2, 4), (3, 6)):
        played = random_playout(E, options, seats, seed)
        n = len(played.moves)
        wanted = {0, n, *random.Random(seed).sample(range(n), min(n, 5))}
        rng = SeededRng(seed)
        state = E.setup(played.options, seats, rng)
        for i in range(n + 1):
            if i in wanted:
                for who in (None, *range(seats)):
                    view = E.view(state, who)
                    for names in (NAMES[:seats], None):
                        text = assert_sound(E.render_svg, view, names, seed=i)
                        assert ("Ann" in text) == (names is not None)
                        assert ("Player 1" in text) == (names is None)
                    seen += 1
            if i < n:
                seat, move = played.moves[i]
                E.apply(state, seat, move, rng)
    assert seen >= 3 * 3 * 4


# --- what others may not see never shows -----------------------------------------------------


@pytest.mark.parametrize("options", [{"destination": True, "objection": True},
                                     {"thief": True, "junk-exchange": True},
                                     {"quality-of-choice": True, "centre": True}])
def test_race_pictures_do_not_depend_on_others_secrets(options: dict) -> None:
    """Other hands, face-down counters, destinations, answers and the deck's order may differ:
    a seat's picture (and a spectator's) stays the same bytes; the changed seat's differs."""
    chooser = random.Random(7)
    rng = SeededRng(7)
    st = new_with(4, options, seed=7)
    compared = differed = 0
    while E.result(st) is None:
        if compared % 3 == 0 or E.decision(st)["step_kind"] in ("pick", "objection_window"):
            for me in (None, 0, 1, 2, 3):
                other = _hide_differently(st, me, compared)
                assert picture(st, me) == picture(other, me)
                if me is not None:
                    seat = (me + 1) % 4
                    differed += picture(st, seat) != picture(other, seat)
        compared += 1
        seat = chooser.choice(E.decision(st)["to_act"])
        E.apply(st, seat, chooser.choice(list(E.legal_moves(st, seat))), rng)
    assert compared > 50 and differed > 10


@pytest.mark.parametrize("victory", ["capitals", "conditions"])
def test_war_pictures_do_not_depend_on_others_secrets(victory: str) -> None:
    """Other hands, cloud/trunk splits, condition cards and placements may differ."""
    game = random_playout(WAR, {"mode": "war", "war-victory": victory}, 3, seed=5)
    rnd = random.Random(1)
    rng = SeededRng(5)
    state = WAR.setup(game.options, 3, rng)
    compared = differed = 0
    for seat, move in game.moves:
        if WAR.result(state) is None:
            twin = scramble(state, seat, rnd)
            for who in (seat, None):
                assert picture(state, who) == picture(twin, who)
            other = (seat + 1) % 3
            differed += picture(state, other) != picture(twin, other)
            compared += 1
        state, _ = WAR.apply(state, seat, copy.deepcopy(move), rng)
    assert compared > 50 and differed > 10


# --- a fixed race position, checked by content -----------------------------------------------


def _race_position() -> dict:
    """Ann and Bob at Lapphálya, Cid at Tichih; a dragon on Lapphálya-Virst with Bob's
    obstacle, a pig on Elvenhold-Lapphálya; Ann has visited Lapphálya and Virst."""
    st = new(3)
    clear(st)
    st["hand"][0] = {PIG: 2, DRAGON: 1, RAFT: 3}
    st["hidden"][0] = {UNI: 1}
    st["faceup"][1] = {UNI: 1}
    st["hidden"][2] = {TROLL: 1}
    st["boot"] = ["lapphalya", "lapphalya", "tichih"]
    st["collected"] = [["lapphalya", "virst"], ["lapphalya"], ["rivinia", "tichih"]]
    st["counters"] = {"8": DRAGON, "1": PIG}
    st["obstacles"] = {"8": {"owner": 1, "side": None}}
    st["obstacle_available"] = [True, False, True]
    return st


def test_the_race_map_has_every_town_and_road() -> None:
    text = picture(_race_position(), 0)
    names = sorted(board(MAP).names.values())
    assert len(names) == 21 and sorted(texts(group(text, "towns"), "tn")) == names
    roads = group(text, "roads")
    assert len([p for p in roads.iter(f"{NS}path")]) == 48
    assert "Beatá\u2013Elvenhold (river)" in titles(roads)


def test_boots_are_tokens_named_by_their_players_and_stand_apart() -> None:
    st = _race_position()
    boots = group(picture(st, 0), "boots")
    tokens = [g for g in boots.iter(f"{NS}g") if g.get("class") == "token"]
    assert sorted(titles(boots)) == ["Ann's boot at Lapphálya", "Bob's boot at Lapphálya",
                                     "Cid's boot at Tichih"]
    centres = set()
    for token in tokens:
        shape = next(e for e in token if e.tag != f"{NS}title")
        centres.add((shape.get("cx"), shape.get("points"), shape.get("x")))
    assert len(centres) == 3
    letters = texts(boots)
    assert sorted(letters) == ["A", "B", "C"]
    anonymous = group(picture(st, None, None), "boots")
    assert "Player 2's boot at Lapphálya" in titles(anonymous)


def test_the_viewer_sees_its_hand_counters_and_towns_to_visit() -> None:
    st = _race_position()
    ann = picture(st, 0)
    panel = group(ann, "panel")
    assert "Your hand: 6 cards" in texts(panel)
    assert {"2 giant pig cards", "1 dragon card", "3 raft cards"} <= set(titles(panel))
    assert {"\u00d72", "\u00d71", "\u00d73"} <= set(texts(panel))
    assert "unicorn (your face-down counter)" in titles(panel)
    lay = layout_for(MAP)
    rings = [(float(c.get("cx")), float(c.get("cy"))) for c in group(ann, "marks").iter()
             if c.get("class") == "visit"]
    assert len(rings) == 18
    assert lay.towns["virst"] not in rings and lay.towns["lapphalya"] not in rings
    assert lay.towns["elvenhold"] not in rings
    # Bob and a spectator see no hand of Ann's and no ring of hers
    for who in (1, None):
        text = picture(st, who)
        assert "2 giant pig cards" not in text
    assert count(group(picture(st, None), "marks"), "circle", "visit") == 0
    assert count(group(picture(st, 1), "marks"), "circle", "visit") == 19


def test_counters_and_obstacles_lie_on_their_roads_and_counts_are_public() -> None:
    st = _race_position()
    for who in (0, 1, 2, None):
        text = picture(st, who)
        counters = titles(group(text, "counters"))
        assert "dragon on Lapphálya\u2013Virst (plains)" in counters
        assert "giant pig on Elvenhold\u2013Lapphálya (plains)" in counters
        assert "Bob's obstacle on Lapphálya\u2013Virst (plains)" in counters
        rows = texts(group(text, "players"))
        assert "1 town \u00b7 1 card \u00b7 no obstacle" in rows  # Bob
        assert "2 towns \u00b7 1 card \u00b7 obstacle in hand" in rows  # Cid
        assert "+1 face down" in rows
    x, y = shapes(MAP)[8].at(0.5)
    boxes = [r for r in group(picture(st, 0), "counters").iter(f"{NS}rect")
             if "dragon" in (r.get("class") or "")]
    assert len(boxes) == 1
    assert math.isclose(float(boxes[0].get("x")) + 15, x, abs_tol=0.01)
    assert math.isclose(float(boxes[0].get("y")) + 8, y, abs_tol=0.01)


def test_names_in_title_never_seat_numbers() -> None:
    st = _race_position()
    root = ET.fromstring(picture(st, 0))
    assert root.find(f"{NS}title").text == "Elfenland: Ann, Bob and Cid"
    assert "Ann (you) blue, at Lapphálya" in texts(group(picture(st, 0), "players"))
    odd = ["<Ann & co>", '"Bob"', "Cid"]
    for who in (0, 1, None):
        root = ET.fromstring(assert_sound(E.render_svg, E.view(st, who), odd))
        assert root.find(f"{NS}title").text == 'Elfenland: <Ann & co>, "Bob" and Cid'


def test_the_destination_is_the_viewers_only() -> None:
    st = new_with(3, {"destination": True})
    st["destination"] = ["usselen", "yttar", "beata"]
    ann = picture(st, 0)
    assert "Your destination: Usselen (the star)." in texts(group(ann, "panel"))
    assert count(group(ann, "marks"), "polygon", "star") == 1
    bob = picture(st, 1)
    assert "Your destination: Yttar (the star)." in texts(group(bob, "panel"))
    assert "Usselen (the star)" not in bob
    assert count(group(bob, "marks"), "polygon", "star") == 1
    assert "Your destination" not in picture(st, None)


# --- a fixed war position --------------------------------------------------------------------


def test_the_war_map_shows_garrisons_capitals_and_trunks() -> None:
    state = war_state(3, {"wylhien": (A, {"dragon": 2, "unicorn": 1}),
                          "tichih": (B, {"giant_pig": 1}), "elvenhold": (C, {"troll_wagon": 3})},
                      hands={A: {"raft": 2, "dragon": 1}}, capitals=["wylhien", "tichih", None],
                      trunks={28: B})
    for who in (A, B, None):
        text = picture(state, who)
        garrisons = group(text, "garrisons")
        assert sorted(titles(garrisons)) == [
            "Ann holds Wylhién with 1 unicorn, 2 dragon", "Ann's capital",
            "Bob holds Tichih with 1 giant pig", "Bob's capital",
            "Cid holds Elvenhold with 3 troll wagon"]
        assert count(garrisons, "circle", "cap") == 2
        assert sorted(texts(garrisons, "ct")) == ["1Pig", "1Uni 2Drg", "3Trl"]
        assert titles(group(text, "trunks")) == [
            "Bob's trunk on Jaccaranda\u2013Wylhién (mountain)"]
        assert sorted(texts(group(text, "towns"), "tn")) == sorted(board(MAP).names.values())
    ann = picture(state, A)
    assert "Your hand: 3 cards" in texts(group(ann, "panel"))
    assert "2 raft cards" in titles(group(ann, "panel"))
    bob = picture(state, B)
    assert "Your hand: 0 cards" in texts(group(bob, "panel")) and "2 raft cards" not in bob
    assert "Your hand" not in picture(state, None)


def test_the_condition_card_is_the_viewers_and_marks_its_towns() -> None:
    state = war_state(3, {"wylhien": (A, {"dragon": 1}), "tichih": (B, {"dragon": 1}),
                          "yttar": (C, {"dragon": 1})}, victory="conditions",
                      conditions=["swineherds", "unicorn-hunters", "sea-elves"])
    ann, bob = picture(state, A), picture(state, B)
    assert "Your condition card: Swineherds (dashed squares)." in texts(group(ann, "panel"))
    assert count(group(ann, "goals"), "rect", "goal") == 1  # Elvenhold
    assert count(group(bob, "goals"), "rect", "goal") == 7
    assert "Swineherds" not in bob and "Unicorn hunters" not in ann
    assert count(group(picture(state, None), "goals"), "rect", "goal") == 0


# --- the layout --------------------------------------------------------------------------------


def test_the_layout_places_every_town_legibly() -> None:
    """Every town of the map is placed, towns stand apart, and no label overlaps another
    label or a town (labels estimated at 7.8 px a character, 13 px high)."""
    lay, the_map = layout_for(MAP), board(MAP)
    assert lay.map == MAP and set(lay.towns) == set(the_map.towns)
    assert set(lay.lakes) == set(the_map.lakes)
    for a, b in itertools.combinations(lay.towns, 2):
        assert math.dist(lay.towns[a], lay.towns[b]) > 100, (a, b)
    boxes = {}
    for town, (x, y) in lay.towns.items():
        assert 20 < x < lay.width - 20 and 30 < y < lay.height - 30
        half = 3.9 * len(the_map.names[town])
        boxes[town] = (x - half, label_y(lay, town) - 10, x + half, label_y(lay, town) + 3)

    def overlap(p: tuple, q: tuple) -> bool:
        return p[0] < q[2] and q[0] < p[2] and p[1] < q[3] and q[1] < p[3]
    for a, box in boxes.items():
        for b, other in boxes.items():
            assert a == b or not overlap(box, other), (a, b)
        for b, (x, y) in lay.towns.items():
            assert not overlap(box, (x - 13, y - 13, x + 13, y + 13)), (a, b)


def test_a_layout_file_is_checked_and_a_map_without_one_is_drawn_on_a_circle() -> None:
    assert LAYOUTS.names == ("elfenland-layout-1",)
    with pytest.raises(ValueError, match="map"):
        parse_layout({"towns": {}})
    with pytest.raises(ValueError, match="pair"):
        parse_layout({"map": MAP, "size": [10, 10], "towns": {"a": [1]}})
    from engines.elfenland import layout
    circle = layout._circle(MAP, board(MAP))
    assert set(circle.towns) == set(board(MAP).towns)
    assert all(0 < x < circle.width and 0 < y < circle.height for x, y in circle.towns.values())
