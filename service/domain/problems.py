"""The failures of a request, as exceptions: one class per kind, each with its HTTP status,
machine-readable `code` and title (docs/errors.md lists every code).

Pure Python, so the domain and the workers raise them without the web framework; the web layer
(`service.web.errors`) renders them as RFC 9457 problem JSON. A request that fails changes
nothing.
"""

from __future__ import annotations

from typing import Any

from service.domain.problem_codes import PROBLEMS_PATH


class Problem(Exception):
    """Base of every API error; subclasses fix `status`, `code` and `title`."""

    status: int = 400
    code: str = "bad_request"
    title: str = "Bad request"

    def __init__(self, detail: str | None = None, *, code: str | None = None,
                 status: int | None = None, headers: dict[str, str] | None = None,
                 **extra: Any) -> None:
        super().__init__(detail or self.title)
        self.detail = detail or self.title
        if code:
            self.code = code
        if status:
            self.status = status
        self.headers = headers or {}
        self.extra = extra


class InvalidRequest(Problem):
    status, code, title = 422, "invalid_request", "The request does not match its schema"


class InvalidJson(Problem):
    status, code, title = 400, "invalid_json", "The body is not valid JSON"


class Unauthorized(Problem):
    status, code, title = 401, "unauthorized", "A valid bearer token is required"


class BadSignature(Problem):
    """A move's signing key is unknown or its signature does not verify: moves are
    authenticated by their signature, not by a bearer token."""

    status, code, title = 401, "bad_signature", "The move's signature does not verify"


class Forbidden(Problem):
    status, code, title = 403, "forbidden", "Not allowed"


class NotFound(Problem):
    status, code, title = 404, "not_found", "No such resource"


class Conflict(Problem):
    status, code, title = 409, "conflict", "The request conflicts with the game's state"


class IllegalMoveProblem(Problem):
    status, code, title = 422, "illegal_move", "The rules do not allow this move"


class Unavailable(Problem):
    status, code, title = 503, "unavailable", "A service Parley needs is unavailable"


def problem_body(status: int, code: str, title: str, detail: str, **extra: Any
                 ) -> dict[str, Any]:
    return {"type": PROBLEMS_PATH + code, "title": title, "status": status, "detail": detail,
            "code": code, **extra}
