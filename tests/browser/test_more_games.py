"""Totohu and Störtebeker in two browsers: a two-seat game joined by its invitation link, then
several turns each, each seen by the other browser within 2 s without a reload. The moves are
listed in each game's notation, some are typed into the notation box (in capitals and with
extra spaces: the server reads those), and the events read as the engines' sentences with the
players' names."""

from __future__ import annotations

import re

import pytest

from tests.browser.helpers import create_game, play_turns, register, wait_active

#: the first word of every move each game lists (docs/rules/<game>.md, "Notation")
WORDS = {"totohu": r"(play|order|raid)", "stortebeker": r"(place|end|discard|take|fire|finish|"
                                                       r"loot|board|end-boarding|counter|"
                                                       r"decline|play)"}


def _listed(p) -> list[str]:
    """The list of moves as the page shows it: "1. play p1", ... without the numbers."""
    texts = p.page.locator("button.move").all_inner_texts()
    assert all(re.fullmatch(rf"{i}\. .+", t) for i, t in enumerate(texts, 1)), texts
    return [t.split(". ", 1)[1] for t in texts]


def _typed_or_clicked(ruleset: str):
    """Every other move typed: the first listed move in capitals, its words two spaces
    apart (no listed text matches it, so the server's `parseNotation` reads it)."""
    made = [0]

    def move(p) -> None:
        listed = _listed(p)
        assert all(re.match(WORDS[ruleset], t) for t in listed), listed
        made[0] += 1
        if made[0] % 2:
            p.page.locator("button.move").first.click()
            return
        box = p.page.get_by_label("Move (its number or notation)")
        box.fill(listed[0].upper().replace(" ", "  "))
        box.press("Enter")
    return move


def _events(p) -> list[str]:
    return p.page.locator("#events li").all_inner_texts()


@pytest.mark.parametrize("ruleset", ["totohu", "stortebeker"])
def test_several_turns_each(player, tmp_path, ruleset) -> None:
    ann, bob = player(), player()
    (tmp_path / "ann").mkdir()
    (tmp_path / "bob").mkdir()
    register(ann, "Ann", tmp_path / "ann")
    link = create_game(ann, ruleset, players=2)
    register(bob, "Bob", tmp_path / "bob", url=link)
    for p in (ann, bob):
        wait_active(p)
    play_turns(ann, bob, 8, _typed_or_clicked(ruleset))
    assert ann.seen.carry("/notation") + bob.seen.carry("/notation")  # read by the server
    for p, other in ((ann, "Bob"), (bob, "Ann")):
        told = _events(p)
        assert told and not any(t.startswith("#") for t in told), told  # sentences, not fields
        assert any(other in t for t in told), told
        assert any(t.startswith("You") or " you" in t for t in told), told
        assert "Player 1" not in (p.page.locator("#board").get_attribute("alt") or "")
    assert not ann.errors and not bob.errors, ann.errors + bob.errors
