"""Cartagena's board picture (`render_svg`): sound for every variant and audience in random
games, blind to what the viewer may not see (other hands, named discards, the deck, the chest
tokens), and showing the route, the pirates, the hands and the turn."""

from __future__ import annotations

import copy
import random
import xml.etree.ElementTree as ET

import pytest

from engines.cartagena import ENGINE as E
from engines.cartagena.data import symbol_of
from engines.rng import SeededRng
from tests.engines.playout import random_playout
from tests.engines.svg_checks import NS, assert_sound, count, group, texts
from tests.engines.test_cartagena import BOARD_B, BOARD_M, game

NAMES = ["Ann", "Bob", "Cid", "Dora", "Eve"]
#: every variant, and the options that change the picture most, all at once
OPTION_SETS = [dict(v.options) for v in E.variants] + [
    {"route": "complete", "tiles": {"tunnel": 5, "jungle": 3}, "witch": True, "rascals": True,
     "draw_mode": {"tunnel": "both", "jungle": "morgan"}},
    {"route": "tortuga", "tiles": 8, "witch": True, "pirates": 4},
]
OPTION_IDS = [v.id for v in E.variants] + ["complete-all", "tortuga-witch"]


def picture(state: dict, who: int | None, names: list[str] | None = NAMES) -> str:
    return E.render_svg(E.view(state, who), None if names is None else names[:state["n"]])


def positions(options: dict, seats: int, seed: int, most: int = 8) -> list[dict]:
    """Copies of states along one random game: the start, the end and a few between."""
    played = random_playout(E, options, seats, seed)
    n = len(played.moves)
    wanted = {0, n, *random.Random(seed).sample(range(n), min(n, most))}
    rng = SeededRng(seed)
    state = E.setup(played.options, seats, rng)
    out = []
    for i in range(n + 1):
        if i in wanted:
            out.append(copy.deepcopy(state))
        if i < n:
            seat, move = played.moves[i]
            E.apply(state, seat, move, rng)
    return out


# --- every picture of random games -----------------------------------------------------------


@pytest.mark.parametrize("options", OPTION_SETS, ids=OPTION_IDS)
def test_random_positions_give_sound_pictures(options: dict) -> None:
    seen = 0
    for seats, seed in ((2, 1), (5, 2)):
        for i, state in enumerate(positions(options, seats, seed)):
            for who in (None, *range(seats)):
                view = E.view(state, who)
                for names in (NAMES[:seats], None):
                    text = assert_sound(E.render_svg, view, names, seed=i)
                    assert ("Ann" in text) == (names is not None)
                    assert ("Player 1" in text) == (names is None)
                    route = group(text, "route")
                    assert count(route, "rect", "sq") == len(view["squares"])
                seen += 1
    assert seen >= 9 * 3 + 9 * 6


# --- what the viewer may not see never shows -------------------------------------------------


def _twin(state: dict, viewer: int | None, rnd: random.Random) -> dict:
    """The same position with everything `viewer` may not see dealt anew: the other hands,
    their named discards and the deck (but the cards a lantern or a pistol showed the viewer,
    and a spell's draw for its caster; a lantern's cards stay where they are, as the deck's
    view of them names them), and the chest tokens under their squares."""
    twin = copy.deepcopy(state)
    follow = twin.get("follow") or {}
    caster = viewer is not None and viewer == twin["active"]
    known = set(twin.get("known_deck") or ()) if viewer == twin.get("known_by") else set()
    places: list[tuple[list, int]] = [(twin["deck"], i) for i in range(len(twin["deck"]))]
    for s in range(twin["n"]):
        if s == viewer:
            continue
        if not (caster and follow.get("target") == s):
            places += [(twin["hands"][str(s)], i) for i in range(len(twin["hands"][str(s)]))]
        pending = twin["pending"].get(str(s), [])
        places += [(pending, i) for i in range(len(pending))]
    if "drawn" in follow and not caster:
        places += [(follow["drawn"], i) for i in range(len(follow["drawn"]))]
    places = [(pile, i) for pile, i in places if pile[i] not in known]
    cards = [pile[i] for pile, i in places]
    rnd.shuffle(cards)
    for (pile, i), card in zip(places, cards, strict=True):
        pile[i] = card
    squares = sorted(twin["chests"], key=int)
    tokens = [twin["chests"][q] for q in squares] + twin["chests_aside"]
    rnd.shuffle(tokens)
    twin["chests"] = dict(zip(squares, tokens, strict=False))
    twin["chests_aside"] = tokens[len(squares):]
    return twin


@pytest.mark.parametrize("options", OPTION_SETS, ids=OPTION_IDS)
def test_a_picture_does_not_depend_on_what_its_viewer_cannot_see(options: dict) -> None:
    """Twins of random positions dealt differently where the viewer cannot look give that
    viewer the same bytes; the picture of a player whose hand the twin changed does differ
    (so the comparison could fail)."""
    rnd = random.Random(5)
    same = told = 0
    for seats, seed in ((3, 3), (4, 4)):
        for state in positions(options, seats, seed, most=10):
            for who in (None, *range(seats)):
                twin = _twin(state, who, rnd)
                assert E.view(twin, who) == E.view(state, who)
                assert picture(twin, who) == picture(state, who)
                same += 1
                for other in range(seats):
                    if other != who and _symbols(twin, other) != _symbols(state, other):
                        assert picture(twin, other) != picture(state, other)
                        told += 1
    assert same >= 50 and told >= 10


def _symbols(state: dict, seat: int) -> list[str]:
    return sorted(symbol_of(c) for c in state["hands"][str(seat)])


# --- fixed positions, checked by content -----------------------------------------------------


def _square_tokens(text: str, q: int) -> list[str]:
    """The tooltips of the pirates drawn on square q."""
    sq = group(text, f"sq-{q}")
    return [t.text or "" for g in sq.iter(f"{NS}g") if g.get("class") == "token"
            for t in g.iter(f"{NS}title")]


def test_the_escape_shows_every_square_its_pirates_and_the_hand() -> None:
    state = game(3, BOARD_B, {0: {7: 2, 9: 1}, 1: {7: 1, 19: 1, "ship": 2},
                              2: {19: 1, 36: 1}},
                 {0: ["rum-05", "hook-04", "pistol-03", "rum-07"], 1: ["chest-01"]},
                 ["lantern-07", "parrot-09"])
    text = picture(state, 0)
    root = ET.fromstring(text)
    assert root.find(f"{NS}title").text == "Cartagena: Ann, Bob and Cid"
    for q, symbol in enumerate(BOARD_B, start=1):
        sq = group(text, f"sq-{q}")
        assert texts(sq, "no") == [str(q)] and texts(sq, "sym") == [symbol]
    assert _square_tokens(text, 7) == ["Ann: 2 pirates on square 7",
                                       "Bob: 1 pirate on square 7"]
    assert "\u00d72" in texts(group(text, "sq-7"), "n")
    assert _square_tokens(text, 19) == ["Bob: 1 pirate on square 19",
                                        "Cid: 1 pirate on square 19"]
    assert _square_tokens(text, 8) == []
    prison, ship = group(text, "at-prison"), group(text, "at-ship")
    assert texts(prison, "n") == ["\u00d73", "\u00d72", "\u00d74"]
    assert texts(ship, "n") == ["\u00d72"] and "Ship" in texts(ship)
    hand = group(text, "hand")
    assert texts(hand, "sym") == ["hook", "pistol", "rum"]
    assert texts(hand, "n") == ["\u00d71", "\u00d71", "\u00d72"]
    assert "Your hand (4 cards)" in texts(hand)
    players = group(text, "players")
    assert texts(players, "t b") == ["Ann (you)", "Bob", "Cid"]
    assert texts(players, "t") == ["4 cards in hand, 0/6 pirates at the ship, to play",
                                   "1 card in hand, 2/6 pirates at the ship",
                                   "0 cards in hand, 0/6 pirates at the ship"]
    assert "Ann's turn: 3 actions left. You are Ann." in texts(root)
    assert "deck 2" in texts(group(text, "piles"))
    # the others see Ann's hand as a count, and no hand of their own but Bob's
    theirs = picture(state, 1)
    assert texts(group(theirs, "hand"), "sym") == ["chest"]
    assert "rum" not in texts(group(theirs, "hand"), "sym")
    assert "hand" not in {g.get("id") for g in ET.fromstring(picture(state, None)).iter()}


def test_rascals_marks_dark_cards_and_the_discard() -> None:
    state = game(2, BOARD_B, {}, {0: ["rum-01", "rum-05", "hook-02"]}, rascals=True)
    text = picture(state, 0)
    hand = group(text, "hand")
    assert count(hand, "g", "hc dk") == 2 and count(hand, "g", "hc") == 1
    assert texts(hand, "s") == ["dark", "dark", "light"]
    assert "light" not in picture(game(2, BOARD_B, {}, {0: ["rum-05"]}), 0)
    state.update(phase="discard", to_act=[1], owed={"1": 2}, pending={"1": ["hook-05"]})
    state["hands"]["1"] = ["rum-06"] * 8
    mine = picture(state, 1)
    assert "You must discard 2 more (named: hook-05)." in mine
    assert "Rascals: Bob must discard down to 7 cards; then Ann's turn goes on." in mine
    assert "hook-05" not in picture(state, 0) and "discarding" in picture(state, 0)


def test_the_complete_escape_shows_the_ship_at_its_shore_and_the_chests() -> None:
    state = game(2, BOARD_M, {0: {"ship": 3, 19: 1}, 1: {4: 1}}, {}, route="complete",
                 witch=True)
    state["chests"] = {"4": "snake", "10": "empty", "14": "treasure-1a"}
    state["shore"] = "tortuga"
    text = picture(state, None)
    ship = group(text, "at-ship")
    assert "at Tortuga" in texts(ship) and texts(ship, "n") == ["\u00d73"]
    assert "Cove" in texts(group(text, "at-cove")) and "Prison" in texts(group(text, "at-prison"))
    chests = [q for q in range(1, 37) if count(group(text, f"sq-{q}"), "circle", "chest")]
    assert chests == [4, 10, 14]
    assert "snake" not in text and "treasure" not in text
    assert "Chest tokens (? on a square): 3 on the board, 2 aside." in text
    assert ("Tunnel: squares 1-18 (move back), then the ship across the sea; jungle: squares "
            "19-36 (move back).") in text
    state["shore"] = "cartagena"
    assert "at Cartagena" in texts(group(picture(state, None), "at-ship"))


def test_tortuga_starts_at_the_wreck_and_the_end_names_the_winner() -> None:
    state = game(2, BOARD_B, {0: {"cove": 6}}, {}, route="tortuga")
    state["result"] = {"winners": [0], "scores": {"1": 0, "0": 6},
                       "reason": "all_pirates_escaped"}
    state["phase"] = "game_over"
    text = picture(state, 1)
    assert "Wreck" in texts(group(text, "at-wreck"))
    assert texts(group(text, "at-cove"), "n") == ["\u00d76"]
    assert "Game over. Ann got all six pirates to safety first. Pirates safe: Bob 0." in text
    assert "0 cards in hand, 6/6 pirates at the cove, won" in texts(group(text, "players"))


def test_spells_show_the_caster_what_they_show() -> None:
    state = game(3, BOARD_B, {}, {0: ["rum-05"], 1: ["hook-03", "hook-04", "chest-02"]})
    state.update(phase="pistol_take", follow={"kind": "pistol_take", "target": 1})
    mine = picture(state, 0)
    shown = group(mine, "spell")
    assert "Bob's hand (your pistol shows it)" in texts(shown)
    assert texts(shown, "sym") == ["chest", "hook"] and texts(shown, "n") == ["\u00d71",
                                                                             "\u00d72"]
    assert "Ann takes a card from Bob's hand (the pistol)." in mine
    assert "spell" not in {g.get("id") for g in ET.fromstring(picture(state, 2)).iter()}
    state.update(phase="lantern_keep", follow={"kind": "lantern_keep",
                                               "drawn": ["parrot-05", "rum-09"]})
    assert texts(group(picture(state, 0), "spell"), "sym") == ["parrot", "rum"]
    assert "Drawn by your lantern" in picture(state, 0)
    theirs = picture(state, 1)
    assert "spell" not in {g.get("id") for g in ET.fromstring(theirs).iter()}
    assert "Ann keeps 1 card the lantern drew" in theirs


def test_names_are_escaped_and_never_seat_numbers() -> None:
    state = game(3, BOARD_B, {0: {3: 1}}, {})
    odd = ["<Ann & co>", '"Bob"', "Cid's"]
    for who in (None, 0, 1, 2):
        root = ET.fromstring(assert_sound(E.render_svg, E.view(state, who), odd))
        assert root.find(f"{NS}title").text == 'Cartagena: <Ann & co>, "Bob" and Cid\'s'
    anonymous = picture(state, None, None)
    assert "Cartagena: Player 1, Player 2 and Player 3" in anonymous


def test_the_longest_route_fits() -> None:
    state = E.setup(E.validate_options({"tiles": 8, "witch": True, "rascals": True}, 5), 5,
                    SeededRng(7))
    state["hands"]["0"] = [f"{s}-{i:02d}" for s in ("chest", "hook", "lantern", "parrot",
                                                    "pistol", "rum") for i in (1, 2, 3, 4)]
    text = assert_sound(E.render_svg, E.view(state, 0), NAMES)
    assert count(group(text, "route"), "rect", "sq") == 48
    assert len(texts(group(text, "hand"), "sym")) == 12  # six symbols, dark and light
