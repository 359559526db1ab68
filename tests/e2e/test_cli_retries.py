"""The CLI sends a request refused with 503 `unavailable` again, the very same bytes (a move's
envelope signed once: a re-post is idempotent), after its Retry-After; any other refusal at
once, as a problem."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from service.client import session
from service.client.session import ApiError, Http

UNAVAILABLE = {"code": "unavailable", "detail": "the server is stopping", "status": 503}


class Stub:
    """An HTTP server answering POSTs from a script of (status, body), recording each body."""

    def __init__(self, answers: list[tuple[int, dict]]) -> None:
        self.answers = answers
        self.bodies: list[bytes] = []


@pytest.fixture
def stub() -> Iterator[tuple[Stub, str]]:
    script = Stub([])

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802
            script.bodies.append(self.rfile.read(int(self.headers["Content-Length"])))
            status, body = script.answers.pop(0) if script.answers else (500, {})
            if status == 0:  # the connection drops before any answer
                self.close_connection = True
                return
            raw = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            if status == 503:
                self.send_header("Retry-After", "0")
            self.end_headers()
            self.wfile.write(raw)

        def log_message(self, *_args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield script, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_a_503_is_sent_again_unchanged(stub) -> None:
    script, url = stub
    script.answers = [(503, UNAVAILABLE), (503, UNAVAILABLE), (202, {"id": 7})]
    envelope = {"game": "g_x", "nonce": "n1", "signature": "s"}
    assert Http(url).post("/v1/games/g_x/moves", envelope) == {"id": 7}
    assert len(script.bodies) == 3 and len(set(script.bodies)) == 1


def test_a_signed_move_is_sent_again_unchanged_until_an_answer_comes(stub, monkeypatch
                                                                    ) -> None:
    """A dropped connection or a 5xx leaves unknown whether the server kept the move: the
    very same envelope goes again (never a newly signed one, docs/audit.md §6); other
    requests are not sent again after a 500."""
    monkeypatch.setattr(session.time, "sleep", lambda _s: None)
    script, url = stub
    script.answers = [(0, {}), (500, {"code": "internal_error"}), (502, {}), (504, {}),
                      (202, {"id": 7})]
    envelope = {"game": "g_x", "nonce": "n1", "signature": "s"}
    assert Http(url).post_move("/v1/games/g_x/moves", envelope) == {"id": 7}
    assert len(script.bodies) == 5 and len(set(script.bodies)) == 1
    script.answers = [(409, {"code": "duplicate_nonce", "detail": "used"})]
    with pytest.raises(ApiError, match="duplicate_nonce"):
        Http(url).post_move("/v1/games/g_x/moves", envelope)
    assert len(script.bodies) == 6
    script.answers = [(500, {"code": "internal_error", "detail": "oops"})]
    with pytest.raises(ApiError, match="internal_error"):
        Http(url).post("/v1/players", {"name": "ann"})
    assert len(script.bodies) == 7


def test_the_last_503_and_any_other_refusal_are_problems(stub, monkeypatch) -> None:
    script, url = stub
    monkeypatch.setattr(session, "RETRIES", 2)
    script.answers = [(503, UNAVAILABLE)] * 3
    with pytest.raises(ApiError) as refused:
        Http(url).post("/v1/players", {"name": "ann"})
    assert (refused.value.status, refused.value.code) == (503, "unavailable")
    assert len(script.bodies) == 3
    script.answers = [(409, {"code": "stale_step", "detail": "over"})]
    with pytest.raises(ApiError, match="stale_step"):
        Http(url).post("/v1/players", {"name": "ann"})
    assert len(script.bodies) == 4  # not sent again


def test_a_refusal_names_the_fields_the_schema_refused(stub) -> None:
    script, url = stub
    script.answers = [(422, {"code": "invalid_request", "status": 422,
                             "detail": "The request does not match its schema",
                             "errors": {"json": {"time_zone": ["Unknown time zone."],
                                                 "digest_hour": ["Must be 0 to 23."]}}})]
    with pytest.raises(ApiError) as refused:
        Http(url).post("/v1/players/p_x", {"time_zone": "Mars/Base"})
    assert str(refused.value) == ("422 invalid_request: The request does not match its schema "
                                  "(time_zone: Unknown time zone.; digest_hour: Must be 0 to "
                                  "23.)")
