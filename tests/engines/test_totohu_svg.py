"""Totohu's picture (`render_svg`): sound for every variant, seat count and audience in random
games, blind to other players' secret choices and hidden fleets, and showing the fleets, the
round and the players by name."""

from __future__ import annotations

import copy
import random
import xml.etree.ElementTree as ET

import pytest

from engines.rng import NoDraws, SeededRng
from engines.totohu import ENGINE as E
from tests.engines.playout import random_playout
from tests.engines.svg_checks import NS, assert_sound, count, group, texts
from tests.engines.test_totohu import _choose_positions, game, play, send, setship

NAMES = ["Ann", "Bob", "Cid"]
VARIANTS = [dict(v.options) for v in E.variants]


def picture(state: dict, who: int | None, names: list[str] | None = NAMES) -> str:
    return E.render_svg(E.view(state, who), None if names is None else names[:state["seats"]])


# --- every picture of random games -----------------------------------------------------------


@pytest.mark.parametrize("options", VARIANTS, ids=[v.id for v in E.variants])
@pytest.mark.parametrize("seats", [1, 2, 3])
def test_random_positions_give_sound_pictures(seats: int, options: dict) -> None:
    seen = 0
    for seed in range(3):
        played = random_playout(E, options, seats, seed)
        chooser = random.Random(seed)
        n = len(played.moves)
        wanted = {0, n, *chooser.sample(range(n), min(n, 8))}
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
    assert seen >= 3 * (seats + 1) * 4


# --- what others may not see never shows -----------------------------------------------------


@pytest.mark.parametrize("options", VARIANTS, ids=[v.id for v in E.variants])
@pytest.mark.parametrize("seats", [2, 3])
def test_a_secret_choice_does_not_show(seats: int, options: dict) -> None:
    """Whatever ship a seat chooses (and whether it hides a barrel), every other audience gets
    the same picture; the chooser's own picture shows the choice."""
    positions = _choose_positions(seats, options, 8)
    assert positions
    for state, seat in positions:
        after = []
        for move in E.legal_moves(state, seat):
            s = copy.deepcopy(state)
            E.apply(s, seat, move, NoDraws())
            after.append(s)
        for who in [None, *[o for o in range(seats) if o != seat]]:
            assert len({picture(s, who) for s in after}) == 1, f"{who} tells {seat}'s choice"
        if len(after) > 1:
            assert len({picture(s, seat) for s in after}) == len(after)


@pytest.mark.parametrize("seats", [1, 2, 3])
def test_blind_play_hides_other_fleets_counters(seats: int) -> None:
    """Positions of blind games in which another fleet's counters are changed look alike to
    everyone but that fleet's owner (and the solo dummy's fleet to the one player)."""
    compared = 0
    for seed in range(4):
        played = random_playout(E, {"blind": True, "hidden_treasure": True}, seats, seed)
        chooser = random.Random(seed)
        rng = SeededRng(seed)
        state = E.setup(played.options, seats, rng)
        for seat, move in played.moves:
            E.apply(state, seat, move, rng)
            if E.result(state) is not None:
                break
            if chooser.random() > 0.3:
                continue
            for side in state["fleets"]:
                other = copy.deepcopy(state)
                for ship in other["fleets"][side].values():
                    ship["cannons"] += 1
                    ship["deck"] += 1
                    ship["anchors"] += 1
                for who in (None, *range(seats)):
                    same = picture(state, who) == picture(other, who)
                    assert same == (str(who) != side), (who, side)
                compared += 1
    assert compared >= 10


# --- fixed positions, checked by content -----------------------------------------------------


def test_blind_fleets_and_chosen_ships_are_backs() -> None:
    state = game(3, blind=True, hidden_treasure=True)
    play(state, 0, "m1", hide=True)
    own = picture(state, 0)
    fleet = group(own, "fleet-0")
    assert texts(fleet, "nm") == ["m1", "Sloop", "Brigantine", "Frigate", "Lugger", "Fluyt",
                                  "Pirate hunter"]
    assert count(group(own, "fleet-1"), "rect", "back") == 6
    assert count(group(own, "fleet-2"), "rect", "back") == 6
    assert "m1 hide" in texts(fleet) and "fleet and score hidden" in texts(group(own, "fleet-1"))
    theirs = picture(state, 1)
    assert count(group(theirs, "fleet-0"), "rect", "back") == 7  # six hidden, one chosen
    assert "hide" not in theirs and "m1" not in texts(group(theirs, "fleet-0"))
    assert "choosing" in texts(group(theirs, "fleet-2"))
    assert "To act: Bob, Cid. Starter: Ann. Options: hidden treasure, blind play." in theirs


def test_a_raid_marks_both_ships_and_says_who_decides() -> None:
    state = game(2, hidden_treasure=True)
    play(state, 0, "p1")
    play(state, 1, "m2")
    text = picture(state, None)
    assert "Totohu, round 1: a raid" in text
    assert ("Raid: Ann's pirate p1 meets Bob's merchant m2; Ann decides: shoot or rob."
            in texts(ET.fromstring(text)))
    for side, ship in (("0", "p1"), ("1", "m2")):
        fleet = group(text, f"fleet-{side}")
        assert count(fleet, "rect", "mark") == 1
        assert "played" in texts(fleet) and ship in texts(fleet)
    send(state, 0, {"type": "raid", "action": "rob"})
    after = picture(state, None)
    assert "Ships played last round: Ann p1, Bob m2." in after
    assert count(group(after, "fleet-0"), "rect", "last") == 1


def test_counters_holes_and_departures_show() -> None:
    state = game(2)
    setship(state, 0, "p2", holes=1, cannons=2)
    setship(state, 1, "p3", "sunk", holes=2)
    setship(state, 1, "m1", "port", deck=3)
    text = picture(state, 0)
    mine, theirs = group(text, "fleet-0"), group(text, "fleet-1")
    assert count(mine, "circle", "hit") == 1 and "holes 1/3" in texts(mine)
    assert "cannons 2/3" in texts(mine) and count(mine, "circle", "full") == 2
    assert texts(theirs, "stamp") == ["SUNK", "IN PORT"]
    assert "score 2" in texts(mine) and "score 3" in texts(theirs)


def test_solo_shows_the_dummy_and_its_die() -> None:
    state = game(1)
    text = picture(state, 0)
    die = group(text, "dummy-die")
    assert count(die, "rect", "die") == 6
    assert texts(die) == ["p1", "p2", "p3", "m1", "m2", "h"]
    assert "Dummy" in texts(group(text, "fleet-dummy"))
    assert ET.fromstring(text).find(f"{NS}title").text == "Totohu: Ann against the dummy"
    for ship in ("p1", "m1", "h"):  # three dummy ships out: the faces are dealt anew (§4.5)
        setship(state, "dummy", ship, "sunk")
    faces = E.view(state, 0)["dummy_faces"]
    assert faces == {"1": "p2", "2": "p2", "3": "p3", "4": "p3", "5": "m2", "6": "m2"}
    assert texts(group(picture(state, 0), "dummy-die")) == ["p2", "p2", "p3", "p3", "m2", "m2"]


def test_names_in_title_and_the_end() -> None:
    state = game(3)
    root = ET.fromstring(picture(state, 2))
    assert root.find(f"{NS}title").text == "Totohu: Ann, Bob and Cid"
    assert "Cid (you)" in texts(root)
    anonymous = picture(state, None, None)
    assert "Totohu: Player 1, Player 2 and Player 3" in anonymous
    odd = ["<Ann & co>", '"Bob"', "Cid's"]
    for who in (None, 0, 1, 2):
        root = ET.fromstring(assert_sound(E.render_svg, E.view(state, who), odd))
        assert root.find(f"{NS}title").text == 'Totohu: <Ann & co>, "Bob" and Cid\'s'
    send(state, 1, {"type": "resign"})
    send(state, 2, {"type": "resign"})
    over = picture(state, None)
    assert "The game is over." in over and "Ann won" in over
