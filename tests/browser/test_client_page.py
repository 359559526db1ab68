"""The page itself: served from `/` with a strict CSP, small, and registering in the browser."""

from __future__ import annotations

import gzip
import re

import requests

from tests.browser.helpers import create_game, register


def test_page_is_served_with_a_strict_policy(live_server) -> None:
    page = requests.get(live_server.url + "/", timeout=10)
    assert page.status_code == 200
    csp = page.headers["Content-Security-Policy"]
    assert "script-src 'self';" in csp and "style-src 'self';" in csp
    assert "unsafe-inline" not in csp
    assert "<script>" not in page.text and "<style" not in page.text and " style=" not in page.text
    assets = re.findall(r'(?:src|href)="(/client/[^"]+)"', page.text)
    assert assets
    for asset in assets:
        resp = requests.get(live_server.url + asset, timeout=10)
        assert resp.status_code == 200
        assert "immutable" in resp.headers["Cache-Control"]
    stale = re.sub(r"/client/[0-9a-f]+/", "/client/000000000000/", assets[0])
    assert requests.get(live_server.url + stale, timeout=10).status_code == 404
    assert requests.get(live_server.url + "/client/x/../../app.py", timeout=10).status_code == 404


def test_first_load_is_small(player) -> None:
    """Everything the first visit fetches, compressed as gzip would send it: at most 200 KB."""
    p = player()
    bodies: list[bytes] = []
    p.page.on("response", lambda r: bodies.append(r.body()) if r.ok else None)
    p.page.goto("/")
    p.page.get_by_label("Name").wait_for()
    total = sum(len(gzip.compress(b)) for b in bodies)
    assert total <= 200_000, total
    assert not p.errors, p.errors


def test_register_in_the_browser(player, live_server) -> None:
    p = player()
    p.page.goto("/")
    p.page.get_by_label("Name").fill("ann")
    p.page.get_by_role("button", name="Register").click()
    p.page.get_by_role("button", name="Download key.pem").wait_for()
    p.page.get_by_role("button", name="Continue").click()
    p.page.get_by_role("heading", name="Games of ann").wait_for()
    assert not p.errors, p.errors


def test_later_pages_are_small(player, tmp_path) -> None:
    """After the first load, a page costs its API answers only (and the board picture): each
    at most 50 KB, compressed as gzip would send it."""
    p = player()
    register(p, "ann", tmp_path)
    link = create_game(p, "totohu")  # one seat: it starts at once, with its board picture
    bodies: list[bytes] = []
    p.page.on("response", lambda r: bodies.append(r.body()) if r.ok and "event-stream" not in
              r.headers.get("content-type", "") else None)
    game = "#/game/" + link.rsplit("/", 1)[1]
    pages = (("#/", "#waiting"), (game, "#board[src^='blob:']"), ("#/settings", "#webhooks"))
    for where, ready in pages:
        bodies.clear()
        p.page.evaluate("h => { location.hash = h; }", where)
        p.page.locator(ready).wait_for(state="attached")
        p.page.wait_for_timeout(500)  # the page's last reads (the live stream never idles)
        total = sum(len(gzip.compress(b)) for b in bodies)
        assert total <= 50_000, (where, total)
