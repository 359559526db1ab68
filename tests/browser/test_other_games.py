"""Cartagena and Elfenland in two browsers: a game found in the lobby or joined by its
invitation link, then several turns each from the list of legal moves, each seen by the other
browser within 2 s without a reload."""

from __future__ import annotations

import re

import pytest

from tests.browser.helpers import create_game, game_state, play_turns, register, wait_active


@pytest.mark.parametrize("ruleset", ["cartagena", "elfenland"])
def test_several_turns_each(player, tmp_path, ruleset) -> None:
    ann, bob = player(), player()
    (tmp_path / "ann").mkdir()
    (tmp_path / "bob").mkdir()
    register(ann, "ann", tmp_path / "ann")
    link = create_game(ann, ruleset, hours=24)
    gid = link.rsplit("/", 1)[1]
    if ruleset == "cartagena":  # bob finds it in the lobby
        register(bob, "bob", tmp_path / "bob")
        bob.page.locator(f"button.join[data-game='{gid}']").click()
    else:  # bob follows the invitation link
        register(bob, "bob", tmp_path / "bob", url=link)
    for p in (ann, bob):
        wait_active(p)
    texts = [game_state(p)["text"] for p in (ann, bob)]
    assert any(re.search(r"Time left: (1 d 0 h|23 h \d+ min)\.", t) for t in texts), texts
    # every seat's clock: the seat to act has about a day, running
    assert all(re.search(r"Clocks: .*(1 d 0 h|23 h \d+ min) \(running\)", t) for t in texts), \
        texts
    play_turns(ann, bob, 8)
    assert not ann.errors and not bob.errors, ann.errors + bob.errors
