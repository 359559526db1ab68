"""Unknown query parameters are refused (400 `unknown_parameter`), never silently ignored.

A misspelt filter (`?stauts=active`) would otherwise answer a valid-looking page with the
wrong content. The parameters each operation accepts are read once from the OpenAPI document
that flask-smorest builds from the route's schemas, so the check can never disagree with the
documentation. Paths the document does not describe (the document itself, its UI) are left
alone.
"""

from __future__ import annotations

import re
from typing import Any

from flask import Flask, request

from service.domain.problems import Problem

_CONVERTER = re.compile(r"<(?:[^:<>]+:)?([^<>]+)>")


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
