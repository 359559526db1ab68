"""Query parameters: unknown ones are refused (400 `unknown_parameter`), never silently
ignored; and the checks of `cursor`, `limit` and `wait` that the API and the stream process
share, so that a long poll redirected to the stream process takes no value the API refuses.

A misspelt filter (`?stauts=active`) would otherwise answer a valid-looking page with the
wrong content. The parameters each operation accepts are read once from the OpenAPI document
that flask-smorest builds from the route's schemas, so the check can never disagree with the
documentation. Paths the document does not describe (the document itself, its UI) are left
alone.

The shared checks use no web framework: the stream process (aiohttp) imports them too.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from marshmallow import EXCLUDE, ValidationError

from service.domain.problems import InvalidRequest, Problem
from service.web.api.game_schemas import EventQuerySchema

if TYPE_CHECKING:
    from flask import Flask

_CONVERTER = re.compile(r"<(?:[^:<>]+:)?([^<>]+)>")
#: a numeric cursor (an event id, an offset): ASCII digits, few enough for a 64-bit integer,
#: which Redis takes (`str.isdigit` also took '²', and 10**23, which failed there as a 500)
NUMERIC_CURSOR = re.compile(r"[0-9]{1,18}")
#: the detail of a refused schema, the same as the API's (`service.web.app`)
SCHEMA_DETAIL = "The request does not match its schema."


class UnknownParameter(Problem):
    status, code, title = 400, "unknown_parameter", "The request has an unknown query parameter"


def accepted_parameters(spec: dict[str, Any]) -> dict[tuple[str, str], frozenset[str]]:
    """(OpenAPI path, method) -> the names of its query parameters."""
    table = {}
    for path, item in spec.get("paths", {}).items():
        for method, operation in item.items():
            if isinstance(operation, dict) and "responses" in operation:
                table[(path, method.upper())] = frozenset(
                    p["name"] for p in operation.get("parameters", []) if p.get("in") == "query")
    return table


def refuse_unknown_parameters(app: Flask, spec: dict[str, Any]) -> None:
    """Install the check as a `before_request` hook of `app`."""
    from flask import request  # here: the stream process imports this module without Flask

    table = accepted_parameters(spec)
    paths: dict[str, str] = {}

    @app.before_request
    def check_query() -> None:
        rule = request.url_rule
        if not request.args or rule is None:
            return
        path = paths.get(rule.rule)
        if path is None:
            path = paths[rule.rule] = _CONVERTER.sub(r"{\1}", rule.rule)
        accepted = table.get((path, request.method))
        if accepted is None:
            return
        unknown = sorted(set(request.args) - accepted)
        if unknown:
            known = ", ".join(sorted(accepted)) or "none"
            raise UnknownParameter(f"Unknown query parameter {unknown[0]!r} (this operation "
                                   f"takes: {known}).", parameter=unknown[0])


def numeric_cursor(query: Mapping[str, Any], code: str) -> int:
    """The number a list's `cursor` (or its older name `after`) holds, 0 without one; 422
    `code` for anything the list cannot have given out."""
    raw = query.get("cursor") or query.get("after") or "0"
    if not NUMERIC_CURSOR.fullmatch(raw):
        raise InvalidRequest("The cursor is not a `next` this list gave out.", code=code)
    return int(raw)


def event_query(args: Mapping[str, str]) -> tuple[int, int, float]:
    """(cursor, limit, wait) of an events list, checked as the API checks them (its schema,
    then `numeric_cursor`): the stream process's check of a long poll's query. Parameters
    other than these are left to the caller."""
    try:
        query = EventQuerySchema().load(dict(args), unknown=EXCLUDE)
    except ValidationError as err:
        raise InvalidRequest(SCHEMA_DETAIL, errors={"query": err.messages}) from err
    return numeric_cursor(query, "invalid_cursor"), query["limit"], query["wait"]
