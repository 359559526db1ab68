"""The signed move envelope (DESIGN.md "Signed moves") and move status."""

from __future__ import annotations

from marshmallow import RAISE, Schema, fields, validate

from service.schemas.common import B64Url, StrictInt


class PayloadSchema(Schema):
    class Meta:
        unknown = RAISE

    game = fields.String(required=True, validate=validate.Length(min=1, max=64))
    seat = StrictInt(required=True, validate=validate.Range(min=0, max=63))
    step = StrictInt(required=True, validate=validate.Range(min=0, max=2**53 - 1))
    move = fields.Dict(required=True, metadata={"description": "the game's move object"})
    nonce = B64Url(required=True, min_bytes=16, max_len=128)
    issued_at = fields.String(required=True, validate=validate.Length(min=1, max=64))


class EnvelopeSchema(Schema):
    class Meta:
        unknown = RAISE

    payload = fields.Nested(PayloadSchema, required=True)
    key_id = fields.String(required=True, validate=validate.Length(min=1, max=64))
    signature = B64Url(required=True, min_bytes=64, max_len=128)


class ReceiptSchema(Schema):
    game = fields.String()
    seq = fields.Integer()
    entry_hash = fields.String(metadata={"description": "SHA-256 chain over accepted entries"})
    accepted_at = fields.String()
    signature = fields.String(metadata={"description": "server Ed25519 signature, base64url"})


class MoveAcceptedSchema(Schema):
    id = fields.Integer(required=True, metadata={"description": "the move's sequence number"})
    status = fields.String(required=True)
    location = fields.String()
    receipt = fields.Nested(ReceiptSchema)


class MoveStatusSchema(Schema):
    id = fields.Integer(required=True)
    status = fields.String(required=True, validate=validate.OneOf(["queued", "applied",
                                                                  "rejected"]))
    code = fields.String()
    detail = fields.String()
