"""Two people play a Stratego Duel to the end in two browsers, by clicking: both setups, the
moves (some on the board picture, a piece then its target), the end screen; the other browser
sees each move live (SSE), the audit downloaded from the page verifies, and no request ever
carries a private key or puts the token in a URL."""

from __future__ import annotations

import random
import subprocess
import sys
import time

import pytest

from tests.browser.helpers import (
    click_square,
    create_game,
    game_state,
    register,
    secret_forms,
    wait_step_above,
)

pytestmark = pytest.mark.slow


def test_a_whole_duel_by_clicking(player, tmp_path) -> None:
    ann, bob = player(), player()
    (tmp_path / "ann").mkdir()
    (tmp_path / "bob").mkdir()
    ann_files = register(ann, "ann", tmp_path / "ann")
    link = create_game(ann, "stratego", army="duel")
    assert "#/join/g_" in link
    bob_files = register(bob, "bob", tmp_path / "bob", url=link)  # registers on the way in
    for p in (ann, bob):
        p.page.wait_for_function("() => document.querySelector('#game-status')?.dataset.status === "
                                 "'active'")
        p.page.locator("button.move").first.click()  # a setup the game offers
    for p in (ann, bob):
        wait_step_above(p, 0)  # both setups are in
    chooser = random.Random(7)
    lags: list[float] = []
    for turn in range(600):
        states = [game_state(p) for p in (ann, bob)]
        if states[0]["status"] == "finished":
            break
        mover, other = (ann, bob) if "Your turn" in states[0]["text"] else (bob, ann)
        step = int(game_state(mover)["step"])
        buttons = mover.page.locator("button.move")
        texts = [t.split(". ", 1)[1] for t in buttons.all_inner_texts()]
        pick = _forward(texts, int(game_state(mover)["seat"]), chooser)
        text = texts[pick]
        if turn < 8:  # the first moves on the picture: the piece, then its target
            seat = int(game_state(mover)["seat"])
            frm, to = text.replace("x", "-").split("-")
            click_square(mover, frm, seat)
            mover.page.wait_for_function(f"() => document.querySelector('#hint').textContent"
                                         f".startsWith('{frm} selected')")
            click_square(mover, to, seat)
        else:
            buttons.nth(pick).click()
        clicked = time.monotonic()
        wait_step_above(other, step, timeout=2000)  # no reload: the stream brought it
        lags.append(time.monotonic() - clicked)
        wait_step_above(mover, step)
    else:
        raise AssertionError("the game did not finish")
    assert max(lags) < 2, max(lags)

    for p in (ann, bob):  # the end screen
        p.page.get_by_role("heading", name="The game is over").wait_for()
        assert p.page.locator("#game-status").inner_text().startswith("Finished")
    with ann.page.expect_download() as got:
        ann.page.get_by_role("button", name="Download the audit").click()
    audit = tmp_path / "audit.json"
    got.value.save_as(audit)
    verified = subprocess.run([sys.executable, "-m", "service.cli", "verify", str(audit)],
                              capture_output=True, text=True, timeout=120)
    assert verified.returncode == 0, verified.stdout + verified.stderr

    for p, files in ((ann, ann_files), (bob, bob_files)):
        for secret in secret_forms(files["pem"]):
            assert not p.seen.carry(secret), secret
        token = files["config"]["token"]
        assert not [url for url, _, _ in p.seen.requests if token in url]
        assert not p.errors, p.errors


def _forward(moves: list[str], seat: int, chooser: random.Random) -> int:
    """Mostly a move towards the other side (the game ends sooner), now and then any."""
    if chooser.random() < 0.25:
        return chooser.randrange(len(moves))
    def gain(text: str) -> int:
        frm, to = text.split("-")
        ahead = int(to[1:]) - int(frm[1:])
        return ahead if seat == 0 else -ahead
    best = max(gain(t) for t in moves)
    return chooser.choice([i for i, t in enumerate(moves) if gain(t) == best])
