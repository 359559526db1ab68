"""gzip where the client accepts it (service/web/compress.py): the same bytes once unpacked,
the fast path's view included; the board picture's 304s kept; no POST, no small or streamed
answer, nothing for a client that did not ask."""

from __future__ import annotations

import gzip
from typing import Any

from service.web.client_route import client_version
from service.web.compress import Gzip
from tests.api.helpers import new_game

GZIP = {"Accept-Encoding": "gzip, deflate, br"}


def _unpacked(resp: Any) -> bytes:
    assert resp.headers["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in resp.headers["Vary"]
    assert int(resp.headers["Content-Length"]) == len(resp.data)
    return gzip.decompress(resp.data)


def test_views_are_compressed_on_both_paths(apps, game) -> None:
    gid, ann, _ = game
    for app in apps:  # the fast path, then the app itself
        client = app.test_client()
        plain = client.get(f"/v1/games/{gid}/view", headers=ann.auth)
        assert "Content-Encoding" not in plain.headers  # the client did not ask
        packed = client.get(f"/v1/games/{gid}/view", headers={**ann.auth, **GZIP})
        assert _unpacked(packed) == plain.data
        assert len(packed.data) < len(plain.data) / 2


def test_the_board_picture_keeps_its_304(client, game) -> None:
    gid, ann, _ = game
    first = client.get(f"/v1/games/{gid}/board.svg", headers={**ann.auth, **GZIP})
    assert _unpacked(first).startswith(b"<svg")
    tag = first.headers["ETag"]
    assert tag.startswith('W/"')  # another representation than the identity bytes
    assert "Authorization" in first.headers["Vary"]  # the picture's own Vary kept
    again = client.get(f"/v1/games/{gid}/board.svg",
                       headers={**ann.auth, **GZIP, "If-None-Match": tag})
    assert again.status_code == 304 and not again.data


def test_the_clients_files_are_compressed(client) -> None:
    app_js = client.get(f"/client/{client_version()}/js/app.js", headers=GZIP)
    assert app_js.status_code == 200
    assert b"import" in _unpacked(app_js)
    assert "immutable" in app_js.headers["Cache-Control"]
    assert "Content-Security-Policy" in app_js.headers


def test_what_is_left_alone(client, run_jobs) -> None:
    gid, players = new_game(client, "stratego", {"army": "duel"})
    refused = client.get(f"/v1/games/{gid}/view", headers={
        **players[0].auth, "Accept-Encoding": "gzip;q=0, identity"})
    assert "Content-Encoding" not in refused.headers
    small = client.get("/v1/health", headers=GZIP)  # under a packet
    assert "Content-Encoding" not in small.headers
    assert client.get("/v1/rulesets/stratego", headers={"Accept-Encoding": "*"}).headers[
        "Content-Encoding"] == "gzip"


def _served(app: Any, method: str = "GET") -> tuple[list[Any], list[bytes]]:
    started: list[Any] = []
    body = Gzip(app)({"REQUEST_METHOD": method, "HTTP_ACCEPT_ENCODING": "gzip"},
                     lambda status, headers, exc_info=None: started.append(headers))
    return started, list(body)


def test_a_streamed_answer_passes_through() -> None:
    """An answer without a Content-Length (a generator) is never held back."""
    def app(environ: dict, start_response: Any) -> Any:
        start_response("200 OK", [("Content-Type", "text/plain")])
        yield b"x" * 5000
        yield b"y" * 5000

    assert _served(app) == ([[("Content-Type", "text/plain")]], [b"x" * 5000, b"y" * 5000])


def test_a_post_answer_is_never_compressed() -> None:
    """A POST's answer may hold a secret (a new token) beside text the caller chose."""
    json = b'{"token": "' + b"t" * 5000 + b'"}'
    headers = [("Content-Type", "application/json"), ("Content-Length", str(len(json)))]

    def app(environ: dict, start_response: Any) -> Any:
        start_response("200 OK", headers)
        return [json]

    assert _served(app, "POST") == ([headers], [json])
