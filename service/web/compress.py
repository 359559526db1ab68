"""gzip for the answers a browser reads: the client's files, JSON, board pictures.

granian sends what the app gives it, and the browser client's budgets (docs/client.md: the
first load at most 200 KB, a later page at most 50 KB) are meant compressed. `Gzip` wraps the
whole WSGI app, outside the fast path (`service.web.fastpath`), so the seat view a client reads
on every move is compressed like every other answer: flask-compress, an `after_request` hook,
would never see the fast path's answers.

What it leaves alone, so that nothing else changes:

- a request that does not accept gzip (`Accept-Encoding`; the CLI and the bench send none):
  the app's answer passes through untouched, at the cost of one header lookup;
- anything but a GET: POST answers carry secrets (a new bearer token), and a compressed secret
  beside text an attacker chose is what BREACH reads;
- an answer without a `Content-Length` (streamed: no streaming answer is ever buffered here;
  the live stream is another process anyway), one that is not a 200 (a 304 has no body), one
  already encoded, one marked `no-transform`, a type not in `TYPES`, and one under `MIN_BYTES`
  (it fits one packet either way).

A compressed answer gets `Content-Encoding: gzip`, `Vary: Accept-Encoding` and its new length;
a strong `ETag` becomes weak (`W/"..."`), as nginx does: the gzip bytes are another
representation. The board picture compares `If-None-Match` weakly, so its 304s still come.
"""

from __future__ import annotations

import gzip
from collections.abc import Callable, Iterable
from typing import Any

from werkzeug.http import parse_accept_header

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]
Headers = list[tuple[str, str]]

#: media types worth compressing (the part of Content-Type before any `;`)
TYPES = frozenset({"application/json", "application/problem+json", "text/html", "text/css",
                   "text/javascript", "application/javascript", "image/svg+xml", "text/plain"})
#: smaller answers go as they are: one TCP packet either way
MIN_BYTES = 1400
#: zlib's level: 6 (its default) gets within a few percent of 9 on JSON and SVG, faster
LEVEL = 6


def accepts_gzip(environ: dict[str, Any]) -> bool:
    """Whether the request's Accept-Encoding allows gzip (`*` included, `q=0` refusing)."""
    header = environ.get("HTTP_ACCEPT_ENCODING")
    return bool(header) and parse_accept_header(header).quality("gzip") > 0


class Gzip:
    """WSGI middleware: a GET's answer gzip-compressed where the client accepts it and it is
    worth it (the module docstring says when)."""

    def __init__(self, app: WSGIApp) -> None:
        self.app = app

    def __getattr__(self, name: str) -> Any:
        """The wrapped app's attributes read through (`app.wsgi_app.foresight`, the fast
        path's): wrapping it changes what it sends, not what it is."""
        if "app" not in self.__dict__:  # not yet set: no attribute to read through
            raise AttributeError(name)
        return getattr(self.__dict__["app"], name)

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]
                 ) -> Iterable[bytes]:
        if environ.get("REQUEST_METHOD") != "GET" or not accepts_gzip(environ):
            return self.app(environ, start_response)
        held: list[tuple[str, Headers]] = []
        returned = False

        def hold(status: str, headers: Headers, exc_info: Any = None) -> Any:
            # only an answer started before the app returned is held: one started while it is
            # iterated (a generator) is on its way already
            if not returned and exc_info is None and _worth_it(status, headers):
                held.append((status, headers))
                return _no_write
            return start_response(status, headers, exc_info)

        body = self.app(environ, hold)
        returned = True
        if not held:
            return body
        try:
            data = b"".join(body)
        finally:
            close = getattr(body, "close", None)
            if close is not None:
                close()
        status, headers = held[0]
        packed = gzip.compress(data, LEVEL, mtime=0)
        if len(packed) >= len(data):
            start_response(status, headers)
            return [data]
        start_response(status, compressed_headers(headers, len(packed)))
        return [packed]


def _worth_it(status: str, headers: Headers) -> bool:
    if not status.startswith("200"):
        return False
    kind = length = ""
    for name, value in headers:
        lower = name.lower()
        if lower == "content-type":
            kind = value.split(";", 1)[0].strip().lower()
        elif lower == "content-length":
            length = value
        elif lower == "content-encoding" or (lower == "cache-control"
                                             and "no-transform" in value.lower()):
            return False
    return kind in TYPES and length.isdigit() and int(length) >= MIN_BYTES


def compressed_headers(headers: Headers, length: int) -> Headers:
    """The answer's headers for its gzip bytes: their length, the encoding, `Vary` naming
    Accept-Encoding (added to one already there), a strong ETag made weak."""
    out: Headers = []
    vary = ["Accept-Encoding"]
    for name, value in headers:
        lower = name.lower()
        if lower == "content-length":
            continue
        if lower == "vary":
            vary = [value, *vary] if "accept-encoding" not in value.lower() else [value]
            continue
        if lower == "etag" and not value.startswith("W/"):
            value = "W/" + value
        out.append((name, value))
    return [*out, ("Content-Encoding", "gzip"), ("Vary", ", ".join(vary)),
            ("Content-Length", str(length))]


def _no_write(data: bytes) -> None:
    """The `write` of a held answer: the apps served here never call it."""
    raise RuntimeError("write() is not supported under Gzip")
