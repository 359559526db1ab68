"""Problem JSON (RFC 9457) on the wire: the domain's `Problem`s rendered as responses.

Every error answer is `application/problem+json` with `type`, `title`, `status`, `detail` and a
machine-readable string `code`; nothing is changed by a request that fails.
"""

from __future__ import annotations

import logging
from typing import Any

from flask import Response, json

from service.domain.problems import Problem, problem_body

log = logging.getLogger(__name__)



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
