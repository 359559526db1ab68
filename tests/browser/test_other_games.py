"""Cartagena and Elfenland in two browsers: a game found in the lobby or joined by its
invitation link, then several turns each from the list of legal moves, each seen by the other
browser within 2 s without a reload."""

from __future__ import annotations

import re
import time

import pytest

from tests.browser.helpers import create_game, game_state, register


def _version(p) -> str:
    return p.page.eval_on_selector("#game-status", "e => e.dataset.version || ''")


def _wait_version_change(p, before: str, timeout: float = 15000) -> None:
    p.page.wait_for_function(
        "v => document.querySelector('#game-status')?.dataset.version !== v", arg=before,
        timeout=timeout)


def _play_turns(ann, bob, turns: int) -> None:
    lags = []
    for _ in range(turns):
        mover = next((p for p in (ann, bob) if "Your turn" in game_state(p)["text"]
                      and p.page.locator("button.move").count()), None)
        if mover is None:  # the other page's update is on its way
            time.sleep(0.2)
            continue
        other = bob if mover is ann else ann
        before, seen = _version(mover), _version(other)
        mover.page.locator("button.move").first.click()
        clicked = time.monotonic()
        _wait_version_change(other, seen, timeout=2000)  # live, no reload
        lags.append(time.monotonic() - clicked)
        _wait_version_change(mover, before)
    assert len(lags) >= turns // 2, lags


def _active(p) -> None:
    p.page.wait_for_function("() => document.querySelector('#game-status')?.dataset.status"
                             " === 'active'")


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
        _active(p)
    texts = [game_state(p)["text"] for p in (ann, bob)]
    assert any(re.search(r"Time left: 2[34] h \d+ min\.", t) for t in texts), texts
    _play_turns(ann, bob, 8)
    assert not ann.errors and not bob.errors, ann.errors + bob.errors
