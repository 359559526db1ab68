"""Settings saved from the page reach the API; every page fits a phone's width and labels every
control."""

from __future__ import annotations

import requests

from tests.browser.helpers import create_game, register

LABELLED = """() => [...document.querySelectorAll('input, select, textarea')]
  .filter((el) => !el.labels || el.labels.length === 0).map((el) => el.id || el.outerHTML)"""
OVERFLOW = "() => document.documentElement.scrollWidth > window.innerWidth + 1"


def test_settings_are_saved(player, live_server, tmp_path) -> None:
    p = player()
    files = register(p, "ann", tmp_path)
    p.page.get_by_role("link", name="Settings").click()
    p.page.get_by_label("Time zone (IANA name, for deadlines in mails)").fill("Europe/Berlin")
    p.page.get_by_label("Digest (one mail a day instead of one per turn)").select_option("daily")
    p.page.get_by_label("Replies to turn mails make moves").select_option("no")
    p.page.get_by_role("button", name="Save settings").click()
    p.page.get_by_text("Settings saved.").wait_for()
    assert "Time zone Europe/Berlin" in p.page.locator("#prefs").inner_text()
    auth = {"Authorization": f"Bearer {files['config']['token']}"}
    pid = files["config"]["player"]
    # the API answers every setting when one changes: the hour, which the page left alone
    saved = requests.patch(f"{live_server.url}/v1/players/{pid}", json={"digest_hour": 8},
                           headers=auth, timeout=10).json()
    assert saved["time_zone"] == "Europe/Berlin" and saved["mail_digest"] == "daily"
    assert saved["mail_moves"] is False
    # "no" is the player's own signed statement, kept for the audits of their games
    (given,) = requests.get(f"{live_server.url}/v1/players/{pid}/consents", headers=auth,
                            timeout=10).json()["consents"]
    assert given["statement"]["mail_moves"] is False and given["statement"]["player"] == pid
    assert not p.errors, p.errors


def test_phone_width_and_labels(player, tmp_path) -> None:
    p = player()
    p.page.set_viewport_size({"width": 360, "height": 740})
    p.page.goto("/")
    p.page.get_by_label("Name").wait_for()
    _fits(p, "register")
    register(p, "ann", tmp_path)
    _fits(p, "lobby")
    create_game(p, "stratego", army="duel")
    _fits(p, "game")
    p.page.get_by_role("link", name="Settings").click()
    p.page.get_by_role("button", name="Save settings").wait_for()
    _fits(p, "settings")


def _fits(p, where: str) -> None:
    assert p.page.evaluate(LABELLED) == [], where
    assert not p.page.evaluate(OVERFLOW), where
