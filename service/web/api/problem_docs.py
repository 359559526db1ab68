"""Problem types: every error `code` with its status and meaning (docs/errors.md).

A problem's `type` is `/v1/problems/<code>` on the answering server, so a client (or a person
following the link) finds what the code means there, without a documentation site.
"""

from __future__ import annotations

from flask.views import MethodView
from flask_smorest import Blueprint

from service.domain.problem_codes import as_json, catalogue
from service.domain.problems import NotFound
from service.web.api.common_schemas import ProblemCodeSchema
from service.web.api.deps import PROBLEM

blp = Blueprint("problems", __name__, url_prefix="/v1/problems", description="Error codes")


@blp.route("")
class Problems(MethodView):
    @blp.doc(operationId="listProblemTypes")
    @blp.response(200, ProblemCodeSchema(many=True))
    def get(self) -> list[dict]:
        """Every error code the platform and the rulesets answer with."""
        return [as_json(entries) for entries in catalogue().values()]


@blp.route("/<code>")
class ProblemType(MethodView):
    @blp.doc(operationId="getProblemType")
    @blp.response(200, ProblemCodeSchema)
    @blp.alt_response(404, **PROBLEM)
    def get(self, code: str) -> dict:
        """One error code: its status and meaning, per source (a game may define its own)."""
        entries = catalogue().get(code)
        if entries is None:
            raise NotFound(f"No error code {code!r}.", code="not_found")
        return as_json(entries)
