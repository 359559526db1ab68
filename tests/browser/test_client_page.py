"""The page itself: served from `/` with a strict CSP, small, and registering in the browser."""

from __future__ import annotations

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


def _transferred(finished: list) -> tuple[int, int, int]:
    """(headers, bodies as sent, bodies unpacked) of the finished requests, in bytes: the
    bodies as sent are gzip where the server compressed them."""
    headers = sent = unpacked = 0
    for request in finished:
        sizes = request.sizes()
        if sizes["responseBodySize"] < 0:  # from the memory cache: nothing transferred
            continue
        headers += sizes["responseHeadersSize"]
        sent += sizes["responseBodySize"]
        response = request.response()
        unpacked += len(response.body()) if response is not None and response.ok else 0
    return headers, sent, unpacked


def test_first_load_is_small(player) -> None:
    """Everything the first visit fetches, as transferred (compressed by the server): at most
    200 KB; the modules come gzipped."""
    p = player()
    finished: list = []
    p.page.on("requestfinished", lambda r: finished.append(r))
    p.page.goto("/")
    p.page.get_by_label("Name").wait_for()
    p.page.wait_for_load_state("networkidle")
    headers, sent, unpacked = _transferred(finished)
    print(f"first load: {len(finished)} files, {headers + sent} bytes transferred ({headers} "
          f"of headers), bodies {sent} bytes sent, {unpacked} unpacked")
    assert headers + sent <= 200_000, (headers, sent)
    app_js = next(r for r in finished if r.url.endswith("/js/app.js"))
    assert app_js.response().header_value("content-encoding") == "gzip"
    assert sent < unpacked / 2, (sent, unpacked)
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
    at most 50 KB as transferred (compressed by the server), measured with the HTTP cache
    emptied first (so the picture is sent whole, not revalidated by its ETag). The live stream
    never finishes, so it is not among the finished requests."""
    p = player()
    register(p, "ann", tmp_path)
    link = create_game(p, "totohu")  # one seat: it starts at once, with its board picture
    finished: list = []
    p.page.on("requestfinished", lambda r: finished.append(r))
    cdp = p.context.new_cdp_session(p.page)
    game = "#/game/" + link.rsplit("/", 1)[1]
    pages = (("#/", "#waiting"), (game, "#board[src^='blob:']"), ("#/settings", "#webhooks"))
    for where, ready in pages:
        cdp.send("Network.clearBrowserCache")
        finished.clear()
        p.page.evaluate("h => { location.hash = h; }", where)
        p.page.locator(ready).wait_for(state="attached")
        p.page.wait_for_timeout(500)  # the page's last reads (the live stream never idles)
        headers, sent, unpacked = _transferred(finished)
        print(f"{where}: {len(finished)} requests, {headers + sent} bytes transferred "
              f"({headers} of headers), bodies {sent} bytes sent, {unpacked} unpacked")
        assert headers + sent <= 50_000, (where, headers, sent)
