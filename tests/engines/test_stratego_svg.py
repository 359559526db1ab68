"""Stratego's board picture (`render_svg`): sound for every army and audience in random games,
blind to the other army's secret setup, and showing what a player needs at a glance."""

from __future__ import annotations

import copy
import random
import xml.etree.ElementTree as ET
from typing import Any

import pytest

from engines.rng import SeededRng
from engines.stratego import ENGINE, svg
from engines.stratego.text import CODES
from tests.engines.playout import random_playout
from tests.engines.svg_checks import NS, assert_sound, count, group, texts
from tests.engines.test_stratego import (
    RNG,
    _shuffled_like,
    new_game,
    placement,
    play,
    position,
)

NAMES = ["Ann", "Bob"]


def picture(state: dict, who: int | None, names: list[str] | None = NAMES) -> str:
    return ENGINE.render_svg(ENGINE.view(state, who), names)


def pieces_at(text: str, flip: bool) -> dict[str, str]:
    """Square -> the code drawn on the piece standing there."""
    centre = {}
    for sq in (f"{f}{r}" for f in "abcdefghij" for r in range(1, 11)):
        x, y = svg._xy(sq, flip)
        centre[(x + svg.CELL // 2, y + svg.CELL // 2)] = sq
    out = {}
    for t in group(text, "pieces").iter(f"{NS}text"):
        x, y = round(float(t.get("x", 0))), round(float(t.get("y", 0)) - 17 * 0.36)
        out[centre[(x, y)]] = t.text or ""
    return out


# --- every picture of random games -----------------------------------------------------------


@pytest.mark.parametrize("army", ["original", "duel"])
def test_random_positions_give_sound_pictures(army: str) -> None:
    seen = 0
    for seed in range(4):
        game = random_playout(ENGINE, {"army": army}, 2, seed)
        chooser = random.Random(seed)
        wanted = {0, 1, 2, len(game.moves), *chooser.sample(range(len(game.moves)), 10)}
        state = ENGINE.setup(game.options, 2, SeededRng(seed))
        for i in range(len(game.moves) + 1):
            if i in wanted:
                for who in (0, 1, None):
                    view = ENGINE.view(state, who)
                    for names in (NAMES, None):
                        text = assert_sound(ENGINE.render_svg, view, names, seed=i)
                        assert ("Ann" in text) == (names is not None)
                        assert ("Player 1" in text) == (names is None)
                    seen += 1
            if i < len(game.moves):
                seat, move = game.moves[i]
                ENGINE.apply(state, seat, move, SeededRng(seed))
    assert seen >= 4 * 3 * 12


# --- the other army's secret setup never shows ------------------------------------------------


@pytest.mark.parametrize(("army", "secret", "seed"), [
    ("original", 0, 1), ("original", 1, 2), ("duel", 0, 3), ("duel", 1, 4)])
def test_pictures_do_not_depend_on_the_other_armys_secret_ids(
        army: str, secret: int, seed: int) -> None:
    """Two games whose secret army differs only in piece ids (within a mobility class), played
    alike without battles of those pieces, look alike to the other player and to spectators;
    only the secret army's own player can tell them apart."""
    own_a = placement(army, secret, seed % 3)
    own_b = _shuffled_like(own_a, seed)
    assert own_a != own_b
    differing = {f"{'rb'[secret]}-{sq}" for sq in own_a if own_a[sq] != own_b[sq]}
    other = 1 - secret
    a, b = new_game(army), new_game(army)

    def alike() -> None:
        for who in (other, None):
            assert picture(a, who) == picture(b, who)

    ENGINE.apply(a, secret, {"type": "setup", "placement": own_a}, RNG)
    ENGINE.apply(b, secret, {"type": "setup", "placement": own_b}, RNG)
    alike()
    assert picture(a, secret) != picture(b, secret)  # the comparison can fail
    rest = {"type": "setup", "placement": placement(army, other, 1)}
    ENGINE.apply(a, other, rest, RNG)
    ENGINE.apply(b, other, copy.deepcopy(rest), RNG)
    alike()
    chooser = random.Random(seed)
    compared = 0
    while a["phase"] == "play":
        board = a["board"]
        moves = [m for m in ENGINE.legal_moves(a, a["active"])
                 if m["to"] not in board or not {board[m["from"]], board[m["to"]]} & differing]
        if not moves:
            break
        seat, move = a["active"], chooser.choice(moves)
        ENGINE.apply(a, seat, move, RNG)
        ENGINE.apply(b, seat, copy.deepcopy(move), RNG)
        if a["phase"] == "game_over":  # from now on everything is public
            break
        alike()
        compared += 1
    assert compared >= 40


# --- fixed positions, checked by content -----------------------------------------------------


def _after_attack() -> dict[str, Any]:
    """§11 S7a: Red's colonel e5 takes Blue's major e6 (background pieces a1 b1 i10 j10)."""
    state = position("R colonel e5, B major e6")
    play(state, 0, "e5", "e6")
    return state


def test_the_board_has_92_squares_8_lakes_and_its_coordinates() -> None:
    for who in (0, 1, None):
        board = group(picture(_after_attack(), who), "board")
        squares = [r for r in board.iter(f"{NS}rect") if r.get("class", "").startswith("sq")]
        assert len(squares) == 92
        assert count(board, "rect", "lake") == 8
        labels = texts(board, "c")
        assert sorted(labels) == sorted([*"abcdefghij", *map(str, range(1, 11))] * 2)


def test_own_pieces_show_ranks_and_others_are_unknown_unless_revealed() -> None:
    state = _after_attack()
    red, blue, spectator = (picture(state, who) for who in (0, 1, None))
    assert pieces_at(red, False) == {"a1": "F", "b1": "4", "e6": "8", "i10": "?", "j10": "?"}
    # Blue sees its own army and the colonel the battle revealed, the board turned round
    assert pieces_at(blue, True) == {"a1": "?", "b1": "?", "e6": "8", "i10": "4", "j10": "F"}
    assert pieces_at(spectator, False) == dict.fromkeys(["a1", "b1", "e6", "i10", "j10"], "?")
    for text in (red, blue, spectator):
        assert count(group(text, "pieces"), "circle", "rv") == 1  # the revealed colonel
    assert "Red's pieces are discs" in ET.fromstring(red).find(f"{NS}desc").text


def test_the_board_is_turned_for_blue_only() -> None:
    state = _after_attack()
    for who, flip in ((0, False), (1, True), (None, False)):
        board = group(picture(state, who), "board")
        x = {t.text: float(t.get("x")) for t in board.iter(f"{NS}text")}
        y = {t.text: float(t.get("y")) for t in board.iter(f"{NS}text") if t.text.isdigit()}
        assert (x["a"] > x["j"]) == flip and (y["1"] < y["10"]) == flip


def test_the_last_move_is_marked_and_told() -> None:
    state = _after_attack()
    red = picture(state, 0)
    mark = group(red, "last-move")
    boxes = {r.get("class"): (float(r.get("x")) - 2, float(r.get("y")) - 2)
             for r in mark.iter(f"{NS}rect") if r.get("class") in ("from", "to")}
    assert boxes == {"from": svg._xy("e5", False), "to": svg._xy("e6", False)}
    arrow = group(red, "last-move-arrow")
    assert arrow.find(f"{NS}polygon") is not None
    told = texts(ET.fromstring(red))
    assert "Ann (Red) attacked e6 from e5:" in told
    assert "8 colonel against 7 major: the attacker won" in told
    assert "? against ?: the attacker won" in texts(ET.fromstring(picture(state, None)))
    assert "last-move" not in picture(new_game(), 0)


def test_captured_pieces_are_listed_by_army() -> None:
    state = _after_attack()
    for who, shown in ((0, ["7"]), (1, ["7"]), (None, ["?"])):
        text = picture(state, who)
        assert texts(group(text, "captured-blue"), "k") == shown
        assert texts(group(text, "captured-red"), "k") == []
        assert "Blue lost 1" in text and "Red lost none" in text


def test_names_in_title_and_legend_never_seat_numbers() -> None:
    state = _after_attack()
    text = picture(state, 0)
    root = ET.fromstring(text)
    assert root.find(f"{NS}title").text == "Stratego (Original): Ann (Red) against Bob (Blue)"
    assert "Ann (you)" in texts(root) and "Bob" in texts(root)
    assert "Ply 2: Bob (Blue) to move" in texts(root)
    anonymous = ET.fromstring(picture(state, None, None))
    assert "Player 1 (Red)" in anonymous.find(f"{NS}title").text
    assert "Player 2" in texts(anonymous)
    odd = ["<Ann & co>", '"Bob"']
    for who in (0, 1, None):
        root = ET.fromstring(assert_sound(ENGINE.render_svg, ENGINE.view(state, who), odd))
        assert root.find(f"{NS}title").text == (
            'Stratego (Original): <Ann & co> (Red) against "Bob" (Blue)')


def test_setup_shows_only_the_viewers_own_placement() -> None:
    state = new_game()
    ENGINE.apply(state, 0, {"type": "setup", "placement": placement("original", 0)}, RNG)
    red = picture(state, 0)
    assert pieces_at(red, False) == {sq: CODES[p] for sq, p in placement("original", 0).items()}
    assert "Setting up: waiting for Bob (Blue)" in red
    for who in (1, None):
        assert pieces_at(picture(state, who), who == 1) == {}


def test_the_end_shows_every_piece_to_everyone() -> None:
    state = _after_attack()
    ENGINE.apply(state, 1, {"type": "resign"}, RNG)
    for who in (0, 1, None):
        text = picture(state, who)
        assert "?" not in pieces_at(text, who == 1).values()
        assert "Game over: Ann won: Bob resigned." in text

