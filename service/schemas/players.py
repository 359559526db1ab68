"""Players and their keys."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from service.schemas.common import B64Url


class PlayerCreateSchema(Schema):
    name = fields.String(required=True, validate=validate.Length(min=1, max=64))
    email = fields.Email(load_default=None, allow_none=True)
    public_key = B64Url(required=True, min_bytes=32, max_len=43,
                        metadata={"description": "Ed25519 public key, base64url of 32 raw bytes"})


class PlayerCreatedSchema(Schema):
    id = fields.String(required=True)
    key_id = fields.String(required=True)
    token = fields.String(required=True, metadata={"description": "bearer token, shown once"})


class KeyCreateSchema(Schema):
    public_key = B64Url(required=True, min_bytes=32, max_len=43)


class KeySchema(Schema):
    key_id = fields.String(required=True)
    public_key = fields.String(required=True)
    created_at = fields.String()


class PlayerSchema(Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    keys = fields.List(fields.Nested(KeySchema))
