"""A player's signed consents to moves by mail (docs/audit.md §16): given with their token and
their key's signature, listed back, and put into every audit bundle of their games."""

from __future__ import annotations

from flask.views import MethodView
from flask_smorest import Blueprint
from marshmallow import Schema, fields

from service.domain import consent
from service.domain.envelope import B64Url
from service.storage import consent_records
from service.web.api import deps
from service.web.api.deps import PROBLEM
from service.web.auth import require_self

blp = Blueprint("consents", __name__, url_prefix="/v1/players",
                description="Consent to moves by mail, signed by the player")
STATEMENT_DOC = {"description": "{player, scope: \"all_games\", mail_moves, issued_at}, signed "
                                "as `parley-consent-v1\\n` + JCS(statement) (docs/audit.md §16)"}


class ConsentSchema(Schema):
    statement = fields.Dict(required=True, metadata=STATEMENT_DOC)
    key_id = fields.String(required=True, metadata={"description": "the signing key's id"})
    signature = B64Url(required=True, min_bytes=64, max_len=128)


class ConsentListSchema(Schema):
    consents = fields.List(fields.Nested(ConsentSchema), required=True, metadata={
        "description": "in the order given; the last is in force"})


@blp.route("/<player>/consents")
class Consents(MethodView):
    @blp.doc(operationId="listConsents", security=[{"bearer": []}])
    @blp.response(200, ConsentListSchema)
    @blp.alt_response(401, **PROBLEM)
    @blp.alt_response(403, **PROBLEM)
    def get(self, player: str) -> dict:
        """The player's signed statements about moves by mail, oldest first."""
        require_self(player)
        return {"consents": consent_records.of_player(deps.store(), player)}

    @blp.doc(operationId="giveConsent", security=[{"bearer": []}])
    @blp.arguments(ConsentSchema)
    @blp.response(201, ConsentSchema)
    @blp.alt_response(401, **PROBLEM)
    @blp.alt_response(403, **PROBLEM)
    @blp.alt_response(409, **PROBLEM)
    @blp.alt_response(422, **PROBLEM)
    def post(self, data: dict, player: str) -> dict:
        """Allow (`mail_moves: true`) or stop moves by mail with a statement signed by one of
        your keys; it is in force from its `issued_at` (at most 300 s ago, not ahead, after
        your last move by mail: else 409 `consent_too_old`), and goes into the audit bundle of
        each of your games. 422 `bad_consent` or `bad_signature` keep nothing."""
        require_self(player)
        return consent.record(deps.store(), player, data["statement"], data["key_id"],
                              data["signature"])
