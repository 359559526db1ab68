"""The signed move envelope (DESIGN.md "Signed moves") and move status."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from service.domain.envelope import EnvelopeSchema
from service.web.api.common_schemas import ProblemSchema


class ReceiptSchema(Schema):
    game = fields.String()
    seq = fields.Integer()
    entry_hash = fields.String(metadata={"description": "SHA-256 chain over accepted entries"})
    accepted_at = fields.String()
    signature = fields.String(metadata={"description": "server Ed25519 signature, base64url"})


class MoveAcceptedSchema(Schema):
    id = fields.Integer(required=True, metadata={"description": "the move's sequence number"})
    status = fields.String(required=True, metadata={
        "description": "`queued`, or `applied` when the server applied the move at once"})
    location = fields.String()
    receipt = fields.Nested(ReceiptSchema)


class MoveStatusSchema(Schema):
    id = fields.Integer(required=True)
    status = fields.String(required=True, validate=validate.OneOf(["queued", "applied",
                                                                  "rejected"]))
    code = fields.String()
    detail = fields.String()


#: envelopes in one batch at most (and the body stays within PARLEY_MAX_BODY)
MAX_BATCH = 64


class MoveBatchSchema(Schema):
    """Several envelopes, each as `POST /v1/games/{game}/moves` takes it, all signed with one
    key (documentation only: the body is parsed strictly, like a single envelope)."""

    envelopes = fields.List(fields.Nested(EnvelopeSchema), required=True,
                            validate=validate.Length(min=1, max=MAX_BATCH))


class MoveResultSchema(Schema):
    """One envelope's answer: the single endpoint's 202 body (`id`, `status`, `location`,
    `receipt`), or its `problem`; `game` in both."""

    game = fields.String(allow_none=True, metadata={"description": "the game it names"})
    id = fields.Integer(metadata={"description": "the move's sequence number"})
    status = fields.String()
    location = fields.String()
    receipt = fields.Nested(ReceiptSchema)
    problem = fields.Nested(ProblemSchema, metadata={
        "description": "why this envelope was refused (nothing of it was stored)"})


class MoveBatchResultSchema(Schema):
    results = fields.List(fields.Nested(MoveResultSchema), required=True, metadata={
        "description": "one per envelope, in the order sent"})
