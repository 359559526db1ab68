"""The signed move envelope's shape (DESIGN.md "Signed moves"), checked before its signature.

Marshmallow schemas, shared by the accepting path (`service.domain.accept`) and the API's
OpenAPI document (`service.web.api.move_schemas`); strict fields so that a value the signature
covers has one meaning only. `conforms` is the move POST's shortcut past them: a handful of type
and length tests that accept only what the schema accepts (tests/test_envelope_shape.py checks
that on generated envelopes), so that a well-formed envelope skips marshmallow's per-field
machinery (about a tenth of the web process's time per move) and anything else still gets the
schema's own errors.
"""

from __future__ import annotations

import re
from typing import Any

from marshmallow import RAISE, Schema, ValidationError, fields, validate

B64URL = re.compile(r"^[A-Za-z0-9_-]+$")


class StrictInt(fields.Integer):
    """An integer that must be a JSON number without fraction (no strings, no booleans)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(strict=True, **kwargs)

    def _validated(self, value: Any) -> Any:
        if isinstance(value, bool):
            raise self.make_error("invalid")
        return super()._validated(value)


class B64Url(fields.String):
    """base64url without padding (RFC 4648 §5), with a minimum decoded length."""

    def __init__(self, min_bytes: int = 1, max_len: int = 512, **kwargs: Any) -> None:
        self.min_bytes = min_bytes
        super().__init__(validate=validate.Length(max=max_len), **kwargs)

    def _deserialize(self, value: Any, attr: Any, data: Any, **kwargs: Any) -> str:
        text = super()._deserialize(value, attr, data, **kwargs)
        if not B64URL.match(text) or len(text) % 4 == 1 or len(text) * 3 // 4 < self.min_bytes:
            raise ValidationError(f"base64url without padding of at least {self.min_bytes} bytes")
        return text


class PayloadSchema(Schema):
    class Meta:
        unknown = RAISE

    game = fields.String(required=True, validate=validate.Length(min=1, max=64))
    seat = StrictInt(required=True, validate=validate.Range(min=0, max=63))
    step = StrictInt(required=True, validate=validate.Range(min=0, max=2**53 - 1))
    move = fields.Dict(required=True, metadata={"description": "the game's move object"})
    nonce = B64Url(required=True, min_bytes=16, max_len=128, metadata={
        "description": "the move's derived nonce: base64url of the signing key's Ed25519 "
                       "signature of \"parley-nonce-v1\\n\" + JCS({game, seat, step, move}) "
                       "(docs/audit.md §6), which every game made now requires; 16 or more "
                       "random bytes in a game made before"})
    issued_at = fields.String(required=True, validate=validate.Length(min=1, max=64))


class EnvelopeSchema(Schema):
    class Meta:
        unknown = RAISE

    payload = fields.Nested(PayloadSchema, required=True)
    key_id = fields.String(required=True, validate=validate.Length(min=1, max=64))
    signature = B64Url(required=True, min_bytes=64, max_len=128)


_ENVELOPE_KEYS = frozenset(EnvelopeSchema().fields)
_PAYLOAD_KEYS = frozenset(PayloadSchema().fields)
_B64URL_FULL = re.compile(r"[A-Za-z0-9_-]+")


def conforms(data: Any) -> bool:
    """True only for an envelope that EnvelopeSchema accepts (never the reverse: False just
    means "ask the schema"). Stricter where that is simpler: exact types, no trailing newline
    in base64url."""
    if type(data) is not dict or data.keys() != _ENVELOPE_KEYS:
        return False
    payload = data["payload"]
    if type(payload) is not dict or payload.keys() != _PAYLOAD_KEYS:
        return False
    return (_text(data["key_id"], 1, 64) and _b64url(data["signature"], 64, 128)
            and _text(payload["game"], 1, 64) and _integer(payload["seat"], 0, 63)
            and _integer(payload["step"], 0, 2**53 - 1) and type(payload["move"]) is dict
            and _b64url(payload["nonce"], 16, 128) and _text(payload["issued_at"], 1, 64))


def _text(value: Any, shortest: int, longest: int) -> bool:
    return type(value) is str and shortest <= len(value) <= longest


def _integer(value: Any, least: int, most: int) -> bool:
    return type(value) is int and least <= value <= most


def _b64url(value: Any, min_bytes: int, max_len: int) -> bool:
    return (type(value) is str and len(value) <= max_len and len(value) % 4 != 1
            and len(value) * 3 // 4 >= min_bytes and _B64URL_FULL.fullmatch(value) is not None)
