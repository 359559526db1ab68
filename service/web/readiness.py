"""The web's answers while `parley run` is not whole (`service.ops.run_state`).

While a child of `parley run` is still starting, or once the run has begun to stop, the web
refuses every request that could change something (any method but GET, HEAD and OPTIONS) with
503 `unavailable` and `Retry-After`: a move accepted then would wait, acknowledged, for a worker
that may be gone until the next start. Reads are answered as usual (they promise nothing), and
`/v1/health` answers 503 with the reason (`service.web.api.system`).

A WSGI middleware in front of the fast path (`service.web.fastpath`), which answers move POSTs
without the Flask app: one check covers both. It costs a write request one stat(2).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import orjson
from flask import Flask
from werkzeug.wrappers import Response

from service.domain.problems import Unavailable, problem_body
from service.ops.run_state import MEANING, READY, RunState

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]

#: methods that change nothing, answered whatever the run's state
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
#: a start or a stop takes a few seconds
RETRY_AFTER = "2"


def not_ready_reason(state: RunState | None) -> str | None:
    """Why the run is not whole, or None when it is (or when no supervisor speaks for it)."""
    if state is None:
        return None
    current = state.current()
    return None if current == READY else MEANING[current]


class RefuseChangesUnlessReady:
    """WSGI middleware: 503 `unavailable` for a request that could change something while the
    run is starting or stopping."""

    def __init__(self, wsgi_app: WSGIApp, state: RunState) -> None:
        self.next = wsgi_app
        self.state = state

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]
                 ) -> Iterable[bytes]:
        if environ.get("REQUEST_METHOD", "GET") in SAFE_METHODS:
            return self.next(environ, start_response)
        reason = not_ready_reason(self.state)
        if reason is None:
            return self.next(environ, start_response)
        body = problem_body(503, Unavailable.code, Unavailable.title,
                            f"Not now: {reason}. Nothing was changed; send the same request "
                            "again after Retry-After seconds.")
        resp = Response(orjson.dumps(body, option=orjson.OPT_SORT_KEYS), status=503,
                        mimetype="application/problem+json",
                        headers={"Retry-After": RETRY_AFTER})
        return resp(environ, start_response)


def init_readiness(app: Flask, path: str) -> None:
    """For a web process of `parley run` (`path`: PARLEY_RUN_STATE, empty otherwise): refuse
    changes while the run is not whole, and let `/v1/health` say so. Called after the fast
    path is installed, so that this check comes first."""
    if path:
        state = RunState(Path(path))
        app.extensions["parley_run_state"] = state
        app.wsgi_app = RefuseChangesUnlessReady(app.wsgi_app, state)  # type: ignore[method-assign]
