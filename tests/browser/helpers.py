"""What the browser tests do as a person would: register, create, join, play by clicking."""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from engines.stratego.svg import CELL, _xy


def register(p, name: str, folder: Path, url: str = "/") -> dict:
    """Register `name` on the page, saving the key and config backups into `folder`; returns
    {"pem", "config"} (the config as a dict)."""
    p.page.goto(url)
    p.page.get_by_label("Name").fill(name)
    p.page.get_by_role("button", name="Register").click()
    with p.page.expect_download() as got:
        p.page.get_by_role("button", name="Download key.pem").click()
    pem = folder / "key.pem"
    got.value.save_as(pem)
    with p.page.expect_download() as got:
        p.page.get_by_role("button", name="Download config.json").click()
    cfg = folder / "config.json"
    got.value.save_as(cfg)
    p.page.get_by_role("button", name="Continue").click()
    return {"pem": pem, "config": json.loads(cfg.read_text())}


def secret_forms(pem_path: Path) -> list[str]:
    """The ways a request could carry the private key: its PEM body, its raw seed in base64,
    base64url and hex."""
    key = serialization.load_pem_private_key(pem_path.read_bytes(), password=None)
    assert isinstance(key, Ed25519PrivateKey)
    seed = key.private_bytes_raw()
    body = "".join(pem_path.read_text().splitlines()[1:-1])
    return [body, body[:40], base64.b64encode(seed).decode().rstrip("="),
            base64.urlsafe_b64encode(seed).decode().rstrip("="), seed.hex()]


def create_game(p, ruleset: str, hours: int | None = None, players: int | None = None,
                **options: str) -> str:
    """Create a game from the lobby's generated form (with `hours` per move and `players`
    seats, if given; else the game's fewest); returns the invitation link."""
    page = p.page
    page.get_by_label("Game", exact=True).select_option(ruleset)
    page.wait_for_selector(f"#options[data-ruleset='{ruleset}']")
    if hours is not None:
        page.fill("#opt-hours", str(hours))
    if players is not None:
        page.fill("#opt-players", str(players))
    for name, label in options.items():
        page.wait_for_selector(f"#opt-{name}")
        page.select_option(f"#opt-{name}", label=label)
    page.get_by_role("button", name="Create and join").click()
    page.wait_for_selector("#game-status[data-status]")
    if game_state(p)["status"] == "open":
        return page.locator("#invite-link").get_attribute("href")
    return page.url.replace("#/game/", "#/join/")  # started at once: no invitation shown


def game_state(p) -> dict[str, str]:
    """The step, status and seat the game page shows."""
    return p.page.eval_on_selector("#game-status", "e => ({...e.dataset, text: e.textContent})")


def wait_step_above(p, step: int, timeout: float = 15000) -> None:
    p.page.wait_for_function(
        f"() => Number(document.querySelector('#game-status')?.dataset.step) > {step} || "
        "document.querySelector('#game-status')?.dataset.status === 'finished'", timeout=timeout)


def wait_active(p) -> None:
    p.page.wait_for_function("() => document.querySelector('#game-status')?.dataset.status"
                             " === 'active'")


def page_version(p) -> str:
    """What the game page shows: its step and last event (`data-version`)."""
    return p.page.eval_on_selector("#game-status", "e => e.dataset.version || ''")


def wait_version_change(p, before: str, timeout: float = 15000) -> None:
    p.page.wait_for_function(
        "v => document.querySelector('#game-status')?.dataset.version !== v", arg=before,
        timeout=timeout)


def play_turns(ann, bob, turns: int, move: Callable[[Any], None] | None = None) -> None:
    """`turns` moves by whoever's page says "Your turn" (`move(p)` plays one; by default the
    first of the list), each seen by the other page within 2 s without a reload."""
    lags = []
    for _ in range(turns):
        mover = next((p for p in (ann, bob) if "Your turn" in game_state(p)["text"]
                      and p.page.locator("button.move").count()), None)
        if mover is None:  # the other page's update is on its way
            time.sleep(0.2)
            continue
        other = bob if mover is ann else ann
        before, seen = page_version(mover), page_version(other)
        if move is None:
            mover.page.locator("button.move").first.click()
        else:
            move(mover)
        clicked = time.monotonic()
        wait_version_change(other, seen, timeout=2000)  # live, no reload
        lags.append(time.monotonic() - clicked)
        wait_version_change(mover, before)
    assert len(lags) >= turns // 2, lags


def click_picture(p, x: float, y: float) -> None:
    """Click the page where the board picture shows its point (x, y) (the picture's units), as
    a person would: the click lands on whatever lies there (the layer over the picture)."""
    img = p.page.locator("#board")
    img.scroll_into_view_if_needed()
    p.page.wait_for_function("() => document.querySelector('#board').naturalWidth > 0")
    box = img.bounding_box()
    natural = img.evaluate("i => [i.naturalWidth, i.naturalHeight]")
    p.page.mouse.click(box["x"] + x / natural[0] * box["width"],
                       box["y"] + y / natural[1] * box["height"])


def click_square(p, square: str, seat: int) -> None:
    """Click the middle of `square` on the board picture (Blue, seat 1, sees it turned)."""
    x, y = _xy(square, seat == 1)
    click_picture(p, x + CELL / 2, y + CELL / 2)
