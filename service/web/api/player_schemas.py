"""Players and their keys."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from service.domain.envelope import B64Url


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


class TokenCreateSchema(Schema):
    rotate = fields.Boolean(load_default=False, metadata={
        "description": "true: the token that makes this request stops working (rotation)"})


class TokenIssuedSchema(Schema):
    id = fields.String(required=True, metadata={"description": "names the token; not secret"})
    token = fields.String(required=True, metadata={"description": "bearer token, shown once"})
    created_at = fields.String()
    rotated = fields.String(allow_none=True, metadata={
        "description": "the id of the token this one replaced (revoked), if `rotate`"})


class TokenInfoSchema(Schema):
    id = fields.String(required=True)
    created_at = fields.String(allow_none=True)
    current = fields.Boolean(metadata={"description": "the token of this request"})


class TokenListSchema(Schema):
    tokens = fields.List(fields.Nested(TokenInfoSchema), metadata={
        "description": "every live token of the player (at most PARLEY_MAX_TOKENS)"})
