"""Störtebeker's board picture (`render_svg`): sound for every variant and audience in random
games, blind to what the viewer may not see (other hands, others' face-down pirates, the deck,
the hidden harbour), and showing the ships and loads, the harbour, the players and the hand."""

from __future__ import annotations

import copy
import random
import xml.etree.ElementTree as ET

import pytest

from engines.rng import SeededRng
from engines.stortebeker import ENGINE as E
from tests.engines.stortebeker_helpers import (
    DATA,
    captured,
    discard,
    game,
    hand,
    harbour,
    put,
    sea,
    turn_of,
)
from tests.engines.svg_checks import NS, assert_sound, count, group, texts
from tests.engines.test_stortebeker_props import _choose, _twin

NAMES = ["Ann", "Bob", "Cid", "Dora"]
#: the variants, and combinations of the options that change the picture
OPTION_SETS = [(dict(v.options), seats) for v in E.variants for seats in (2, 4)] + [
    ({"open-harbour": True, "colour-bonus": True}, 3),
    ({"two-player-three-ships": True, "failed-boarding-ends": True}, 2),
    ({"stall-limit": True, "counter-ends-boarding": True, "open-harbour": True}, 4),
]
OPTION_IDS = [f"{v.id}-{seats}" for v in E.variants for seats in (2, 4)] + [
    "open-bonus-3", "three-ships-2", "stall-4"]


def picture(state: dict, who: int | None, names: list[str] | None = NAMES) -> str:
    return E.render_svg(E.view(state, who), None if names is None else names[:state["n"]])


def positions(options: dict, seats: int, seed: int, most: int = 10) -> list[dict]:
    """Copies of states along one game of a player who likes to board (so that ships are
    loaded, boarded and captured): the start, the end and `most` between."""
    rng, chooser = SeededRng(seed), random.Random(seed)
    opts = E.validate_options(options, seats)
    state = E.setup(opts, seats, rng)
    moves = []
    while E.result(state) is None:
        seat = E.decision(state)["to_act"][0]
        move = _choose(chooser, list(E.legal_moves(state, seat)), biased=True)
        state, _ = E.apply(state, seat, move, rng)
        moves.append((seat, move))
        assert len(moves) < 20000
    wanted = {0, len(moves), *chooser.sample(range(len(moves)), min(len(moves), most))}
    rng = SeededRng(seed)
    state = E.setup(opts, seats, rng)
    out = []
    for i in range(len(moves) + 1):
        if i in wanted:
            out.append(copy.deepcopy(state))
        if i < len(moves):
            E.apply(state, *moves[i], rng)
    return out


# --- every picture of random games -----------------------------------------------------------


@pytest.mark.parametrize(("options", "seats"), OPTION_SETS, ids=OPTION_IDS)
def test_random_positions_give_sound_pictures(options: dict, seats: int) -> None:
    seen = 0
    for i, state in enumerate(positions(options, seats, seats * 10 + len(options))):
        for who in (None, *range(seats)):
            view = E.view(state, who)
            for names in (NAMES[:seats], None):
                text = assert_sound(E.render_svg, view, names, seed=i)
                assert ("Ann" in text) == (names is not None)
                assert ("Player 1" in text) == (names is None)
                ships = [s for s in view["sea"] if s]
                assert len(ET.fromstring(text).findall(f".//{NS}g[@id='sea']/{NS}g")) == \
                    len(ships)
            seen += 1
    assert seen >= 6 * (seats + 1)


# --- what the viewer may not see never shows -------------------------------------------------


def _hide_pirates(twin: dict, viewer: int | None, rnd: random.Random) -> None:
    """Deal the pirate cards the viewer cannot see anew: others' face-down pirates at the ships
    change places with the pirates in the deck and in the other hands."""
    places: list[tuple[list, int]] = []
    for sides in twin["sides"].values():
        for owner, own in sides.items():
            if viewer is None or int(owner) != viewer:
                places += [(own["pir"], i) for i, c in enumerate(own["pir"])
                           if c not in own["rev"]]
    piles = [twin["deck"]] + [twin["hands"][str(s)] for s in range(twin["n"]) if s != viewer]
    for pile in piles:
        places += [(pile, i) for i, c in enumerate(pile) if DATA.cards[c].is_pirate]
    cards = [pile[i] for pile, i in places]
    rnd.shuffle(cards)
    for (pile, i), card in zip(places, cards, strict=True):
        pile[i] = card


def _faces(state: dict, seat: int) -> list[tuple[str, bool, int]]:
    """A hand as the picture can tell it: kinds, symbols and pirate values."""
    return sorted((DATA.cards[c].kind, DATA.cards[c].symbol, DATA.cards[c].value)
                  for c in state["hands"][str(seat)])


@pytest.mark.parametrize(("options", "seats"), OPTION_SETS, ids=OPTION_IDS)
def test_a_picture_does_not_depend_on_what_its_viewer_cannot_see(options: dict,
                                                                   seats: int) -> None:
    """Twins of random positions dealt differently where the viewer cannot look (other hands,
    the deck, the hidden harbour, others' face-down pirates) give that viewer the same bytes;
    a player whose hand the twin changed sees another picture (so the comparison can fail)."""
    rnd = random.Random(seats)
    same = told = 0
    for state in positions(options, seats, seats + 100, most=12):
        for who in (None, *range(seats)):
            twin = _twin(state, who, rnd)  # a spectator (None): every hand dealt anew
            _hide_pirates(twin, who, rnd)
            assert E.view(twin, who) == E.view(state, who)
            assert picture(twin, who) == picture(state, who)
            same += 1
            for other in range(seats):
                if other != who and _faces(twin, other) != _faces(state, other):
                    assert picture(twin, other) != picture(state, other)
                    told += 1
    assert same >= 6 * (seats + 1) and told >= 5


# --- fixed positions, checked by content -----------------------------------------------------


def _position() -> dict:
    """Ann, Bob and Cid loading black-4 (rum x2, beans, meat; defence 8, 5 points)."""
    state = game(3)
    sea(state, "black-4", "green-1", None, "red-1")
    harbour(state, "yellow-6", "blue-2", "green-2")
    captured(state, 0, "black-6", "black-1")
    captured(state, 1, "red-6", "blue-3")
    put(state, 0, "black-4", "rum-03", "rum-01", "pirate2-1")
    put(state, 1, "black-4", "rum-05", "meat-04", "pirate4-1", revealed=True)
    put(state, 2, "black-4", "meat-01")
    hand(state, 0, "beans-05", "water-07", "pirate3-1")
    discard(state, "water-03", "water-04", "water-01", "pirate4-2")
    turn_of(state, 0, 7)
    return state


def test_a_ship_shows_its_needs_and_every_load() -> None:
    state = _position()
    text = picture(state, 0)
    root = ET.fromstring(text)
    assert root.find(f"{NS}title").text == "Störtebeker: Ann, Bob and Cid"
    ship = group(text, "ship-black-4")
    labels = texts(ship)
    for want in ("black-4", "5 points", "defence 8", "needs 4", "Ann", "Bob", "Cid", "2/4",
                 "1/4"):
        assert want in labels, want
    assert texts(ship, "c")[:3] == ["beans", "meat", "rum"]  # the needs, in data order
    assert texts(ship, "q") == ["2"]  # two rum
    assert texts(ship, "c")[3:] == ["R", "R", "M", "R", "M"]  # Ann's, Bob's, Cid's loads
    assert count(ship, "rect", "sym") == 2  # rum-01 and meat-01 bear the pirate symbol
    assert count(ship, "rect", "hid") == 1 and count(ship, "rect", "pir") == 1
    assert texts(ship, "v") == ["2", "4"]  # Ann's own pirate and Bob's revealed one
    assert "an empty place" in texts(group(text, "sea"))
    # Bob sees Ann's pirate face down, his own revealed one with its value
    theirs = group(picture(state, 1), "ship-black-4")
    assert count(theirs, "rect", "back") == 1 and count(theirs, "rect", "hid") == 0
    assert texts(theirs, "v") == ["4"] and texts(theirs, "q") == ["2", "?"]


def test_the_harbour_the_players_and_the_hand() -> None:
    state = _position()
    text = picture(state, 0)
    port = texts(group(text, "harbour"))
    assert port[0].startswith("Harbour: 3 ships, ") and "yellow-6" in port
    assert "blue-2" not in text  # the second harbour ship is face down
    players = group(text, "players")
    assert texts(players, "t b") == ["Ann (you)", "Bob", "Cid"]
    assert texts(players, "t") == ["10 points, track 10, 3 cards in hand",
                                   "12 points, track 12, 5 cards in hand",
                                   "0 points, track 0, 5 cards in hand"]
    assert texts(players, "b") == ["black 8+2", "blue 4", "red 8"]
    cards = group(text, "hand")
    assert texts(cards, "c") == ["beans", "pirate", "water"] and "worth 3" in texts(cards)
    pile = group(text, "discard")
    assert texts(pile, "c") == ["W", "W"] and texts(pile, "v") == ["4"]
    assert texts(pile, "s b") == ["\u00d72", "\u00d71", "\u00d71"]
    assert "Ann's turn to play cards (0 of 3 cards used). You are Ann." in texts(
        ET.fromstring(text))
    assert "hand" not in {g.get("id") for g in ET.fromstring(picture(state, None)).iter()}


def test_a_counter_attack_marks_its_ship() -> None:
    state = _position()
    state["play"] = None
    state["dec"] = {"kind": "counter_attack", "seat": 1, "ship": "black-4",
                    "best": {"seat": 0, "value": 8}, "missing": {"beans": 1, "rum": 1}}
    text = picture(state, 2)
    assert count(group(text, "ship-black-4"), "rect", "mark") == 1
    assert "Ann leads with 8" in texts(group(text, "ship-black-4"))
    assert ("Bob's turn to counter-attack or decline at black-4, to beat 8, missing beans "
            "and rum.") in text


def test_the_end_names_the_winner_and_the_options() -> None:
    state = _position()
    state["options"]["colour-bonus"] = True
    state["result"] = {"winners": [1], "scores": {"2": 0, "0": 10, "1": 12},
                       "reason": "final_round_complete"}
    text = picture(state, None, ["<Ann & co>", '"Bob"', "Cid's"])
    root = ET.fromstring(assert_sound(E.render_svg, E.view(state, None),
                                      ["<Ann & co>", '"Bob"', "Cid's"]))
    assert root.find(f"{NS}title").text == 'Störtebeker: <Ann & co>, "Bob" and Cid\'s'
    assert ('Game over. After the final round, "Bob" won. Points: <Ann & co> 10, "Bob" 12, '
            "Cid's 0.") in texts(root)
    assert "Rules: colour bonus." in texts(root)
    assert "12 points, track 12, 5 cards in hand, won" in texts(group(text, "players"))
    assert "Störtebeker: Player 1, Player 2 and Player 3" in picture(state, None, None)
