"""Problem JSON (RFC 9457): one base exception per failure kind, one function builds the body.

Every error answer is `application/problem+json` with `type`, `title`, `status`, `detail` and a
machine-readable string `code`; nothing is changed by a request that fails.
"""

from __future__ import annotations

import logging
from typing import Any

from flask import Response, json

from service.domain.problem_codes import PROBLEMS_PATH

log = logging.getLogger(__name__)



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


def problem_response(status: int, code: str, title: str, detail: str,
                     headers: dict[str, str] | None = None, **extra: Any) -> Response:
    body = problem_body(status, code, title, detail, **extra)
    resp = Response(json.dumps(body), status=status, mimetype="application/problem+json")
    for k, v in (headers or {}).items():
        resp.headers[k] = v
    return resp


def _log(problem: Problem) -> None:
    if problem.status >= 500:
        log.error("problem %s: %s", problem.code, problem.detail)
    else:
        log.info("problem %s (%d): %s", problem.code, problem.status, problem.detail)


def item_problem(problem: Problem) -> dict[str, Any]:
    """The problem body of one item of a batch (the batch itself answers 200)."""
    _log(problem)
    return problem_body(problem.status, problem.code, problem.title, problem.detail,
                        **problem.extra)


def render_problem(problem: Problem) -> Response:
    _log(problem)
    return problem_response(problem.status, problem.code, problem.title, problem.detail,
                            problem.headers, **problem.extra)
