"""The two requests every move makes, answered without the framework's per-request cost.

A client playing one game reads its seat view (`GET /v1/games/<id>/view`) and posts a signed
move (`POST /v1/games/<id>/moves`) for every move. Through Flask, flask-smorest and the
limiter, each request paid about as much again as the handler's own work (routing, the request
context, decorator layers, the marshmallow dump; docs/performance.md). `HotPaths` sits in front
of the Flask app as WSGI middleware and answers those two requests itself, with the same
functions the blueprints call (`seat_view`, `submit_move`), when they succeed.

Everything else goes to the Flask app unchanged, and so does every request the fast path does
not answer with success: a problem (bad envelope, unknown token, no such game), a Redis error,
anything unexpected. The app then answers the request exactly as it always does, so every
error keeps one implementation. That hand-over is safe because the fast path has changed
nothing when it gives up: a refused envelope changes nothing, and a move already appended
(the wake failed after the append) is answered by the app as a re-post of the same envelope,
which is idempotent and wakes the game again. Requests with anything unusual (a query string,
no `Content-Length`, a body over PARLEY_MAX_BODY) are not tried at all.

With rate limits on, a move POST is charged as the app charges it (`quota.MoveQuota`:
flask-limiter's own counters): the address first, the signer's allowance tested before the
move and charged once it is accepted; on the default deployment those commands ride in the
move's own two round trips (`MoveCharges`). A request handed over after its address or its
signer was charged carries a mark in its environ, so the app does not count it twice; a
breached limit is handed over too, and the app answers its 429. tests/api/test_hotpaths.py
checks that both paths answer byte for byte alike and share one quota.
"""

from __future__ import annotations

import io
import logging
import re
from collections.abc import Callable, Iterable
from typing import Any

import orjson
from flask import Flask
from werkzeug.routing import IntegerConverter, UnicodeConverter

from service.domain.accept import queued_body, submit_move
from service.domain.foresight import Foresight
from service.domain.game import seat_view
from service.domain.problems import Problem
from service.storage.game_records import is_archived
from service.web.auth import bearer_token, hash_token
from service.web.fastpath.quota import MoveQuota, QuotaBreached
from service.web.limits import ADDRESS_CHARGED

log = logging.getLogger(__name__)

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]

#: the endpoints answered here (blueprint.view), and the one a move's `Location` names
VIEW, MOVES, MOVE = "games.View", "moves.Moves", "moves.MoveResource"
#: compact, keys sorted, a trailing newline: the bytes Flask's JSON provider writes
_JSON = orjson.OPT_SORT_KEYS | orjson.OPT_APPEND_NEWLINE


class HotPaths:
    """WSGI middleware: the seat view GET and the move POST, answered directly on success."""

    def __init__(self, app: Flask, wsgi_app: WSGIApp) -> None:
        self.next = wsgi_app
        self.store = app.extensions["parley_store"]
        self.queue = app.extensions["parley_queue"]
        self.server_key = app.extensions["parley_server_key"]
        config = app.config["PARLEY"]
        self.max_body = config.MAX_CONTENT_LENGTH
        self.quota = MoveQuota(app) if config.RATE_LIMITS_ENABLED else None
        #: this process's foreseen games: a move to one of them costs one round trip
        self.foresight = Foresight(config.FORESEE_GAMES, config.SETTLE_MOVES)
        self.route, self.location = routes(app)

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]
                 ) -> Iterable[bytes]:
        route = self.route.fullmatch(environ.get("PATH_INFO", ""))
        if route is None or environ.get("QUERY_STRING"):
            return self.next(environ, start_response)
        method = environ.get("REQUEST_METHOD")
        if route["view"] is not None and method == "GET":
            return self._view(environ, start_response, route["view"])
        if route["moves"] is not None and method == "POST":
            return self._move(environ, start_response, route["moves"])
        return self.next(environ, start_response)

    def _view(self, environ: dict[str, Any], start_response: Callable[..., Any],
              game: str) -> Iterable[bytes]:
        header = environ.get("HTTP_AUTHORIZATION")
        digest = None
        if header:  # an empty header is no token, as for the app
            token = bearer_token(header)
            if token is None:
                return self.next(environ, start_response)
            digest = hash_token(token)
        try:
            meta, state_json, pid = self.store.view_context(game, digest)
            if not meta or is_archived(meta) or (digest is not None and pid is None):
                return self.next(environ, start_response)
            data = orjson.dumps(seat_view(game, meta, state_json, pid, self.store),
                                option=_JSON)
        except Exception as err:  # the app answers it: its problem, its 503, its logged 500
            _handing_over(err)
            return self.next(environ, start_response)
        return _answer(start_response, "200 OK", data)

    def _move(self, environ: dict[str, Any], start_response: Callable[..., Any],
              game: str) -> Iterable[bytes]:
        try:
            length = int(environ.get("CONTENT_LENGTH") or "")
        except ValueError:
            length = -1
        if not 0 <= length <= self.max_body:
            return self.next(environ, start_response)
        body = environ["wsgi.input"].read(length)
        signer = charges = None
        try:
            if self.quota is not None:
                signer = self.quota.signer(orjson.loads(body))
                if signer is None:
                    raise _HandOver  # the app counts it and answers
                charges = self.quota.charges(environ, signer)
                if charges is None:  # the counters live elsewhere: a round trip each
                    if not self.quota.charge_address(environ):
                        # the app counts it again and answers its 429 (a count already
                        # past the limit refuses the same; with several windows one still
                        # within its limit counts this refused request twice)
                        raise _HandOver
                    environ[ADDRESS_CHARGED] = True
                    if not self.quota.allows(signer):
                        raise _HandOver
            accepted = submit_move(self.store, game, body, self.server_key, charges,
                                   self.foresight)
            if not accepted.created:  # a re-post: its answer is the move's status now
                raise _HandOver
            location = environ.get("SCRIPT_NAME", "") + self.location.format(
                game=game, move=accepted.seq)
            answer = queued_body(self.queue, game, accepted, location)
            if signer is not None and charges is None:
                self.quota.charge(signer)  # type: ignore[union-attr]  # set with the quota
            data = orjson.dumps(answer, option=_JSON)
        except Exception as err:  # nothing changed, or a re-post of this envelope repairs it
            _handing_over(err)
            if charges is not None:
                charges.mark(environ)
            environ["wsgi.input"] = io.BytesIO(body)
            return self.next(environ, start_response)
        return _answer(start_response, "202 ACCEPTED", data, ("Location", location))


def routes(app: Flask) -> tuple[re.Pattern[str], str]:
    """From the app's own URL map: one pattern matching the seat view's and the moves' paths
    (named groups `view` and `moves` hold the game id), and the template of a move's
    `Location` (`str.format` with `game` and `move`), so that the fast path answers exactly
    the URLs the app routes and names the URL the app serves."""
    rules = {rule.endpoint: rule for rule in app.url_map.iter_rules()}

    def template(endpoint: str) -> str:
        rule = rules[endpoint]
        if any(not isinstance(conv, (UnicodeConverter, IntegerConverter))
               for conv in rule._converters.values()):
            raise ValueError(f"{endpoint}: a converter the fast path does not know")
        return _PARAM.sub(r"{\1}", rule.rule)

    def pattern(endpoint: str, group: str) -> str:
        template(endpoint)  # its converters are known ones
        parts = _PARAM.split(rules[endpoint].rule)
        return "".join(re.escape(p) if i % 2 == 0 else f"(?P<{group}>[^/]+)"
                       for i, p in enumerate(parts))

    return (re.compile(f"{pattern(VIEW, 'view')}|{pattern(MOVES, 'moves')}"),
            template(MOVE))


#: a rule's variable part, `<game>` or `<int:move>`, with the name as group 1
_PARAM = re.compile(r"<(?:[a-z]+:)?([a-z_]+)>")


class _HandOver(Exception):
    """Let the app answer this request."""


def _handing_over(err: Exception) -> None:
    """A problem is the app's to answer; anything else is logged at debug level too, so that a
    fast path that keeps giving up shows in the logs (the app logs real failures itself)."""
    if not isinstance(err, (Problem, _HandOver, QuotaBreached)):
        log.debug("fast path handed a request over after %r", err)


def _answer(start_response: Callable[..., Any], status: str, data: bytes,
            *headers: tuple[str, str]) -> list[bytes]:
    start_response(status, [("Content-Type", "application/json"),
                            ("Content-Length", str(len(data))), *headers])
    return [data]
