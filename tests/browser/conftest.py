"""Browser tests: a real `parley web`, worker and stream process, and the system's Chromium
driven by Playwright (docs/client.md, "Tests").

No browser is downloaded: Playwright launches the Chromium of the system packages
(`apt-get install chromium`, or PARLEY_CHROMIUM naming another binary). Without one the tests
skip, with one line saying how to install it; under CI=true they fail instead.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.e2e.conftest import Server, running_server

INSTALL = "install Chromium from the system packages: apt-get install chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]


def chromium_path() -> str | None:
    """PARLEY_CHROMIUM, else the system package's binary."""
    named = os.environ.get("PARLEY_CHROMIUM")
    if named:
        return named if Path(named).is_file() else None
    for candidate in ("/usr/bin/chromium", "/usr/bin/chromium-browser"):
        if Path(candidate).is_file():
            return candidate
    return shutil.which("chromium")


def _no_browser(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"browser tests need Chromium under CI ({reason}): {INSTALL}")
    pytest.skip(f"browser tests skipped ({reason}): {INSTALL}")


@pytest.fixture(scope="session")
def browser() -> Iterator:
    path = chromium_path()
    if path is None:
        _no_browser("no Chromium found")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _no_browser("the playwright package is missing: pip install -e '.[dev]'")
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=path, headless=True, args=ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def live_server(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """Web, worker and stream processes shared by one test file."""
    with running_server(redis_url, tmp_path_factory.mktemp("browser")) as srv:
        srv.start_stream()
        yield srv


@dataclass
class Seen:
    """Every request a browser context made: its URL, headers and body."""

    requests: list[tuple[str, dict[str, str], bytes]] = field(default_factory=list)

    def carry(self, text: str) -> list[str]:
        """The URLs of the requests whose URL, headers or body contain `text`."""
        raw = text.encode()
        return [url for url, headers, body in self.requests
                if text in url or any(text in v for v in headers.values()) or raw in body]


@dataclass
class Player:
    """One person: a browser context (its own IndexedDB) and its page."""

    context: object
    page: object
    seen: Seen
    errors: list[str]


@pytest.fixture
def player(browser, live_server: Server) -> Iterator[Callable[[], Player]]:
    """Make players, each in a fresh browser context on the live server; their pages log any
    console error (a CSP violation is one) in `errors`."""
    made: list[Player] = []

    def make() -> Player:
        context = browser.new_context(base_url=live_server.url, accept_downloads=True,
                                      viewport={"width": 1000, "height": 900})
        context.set_default_timeout(15000)
        seen = Seen()
        context.on("request", lambda req: seen.requests.append(
            (req.url, req.headers, req.post_data_buffer or b"")))
        page = context.new_page()
        errors: list[str] = []
        page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
        page.on("pageerror", lambda err: errors.append(str(err)))
        made.append(Player(context, page, seen, errors))
        return made[-1]

    yield make
    for p in made:
        p.context.close()
