"""Players and their keys."""

from __future__ import annotations

from functools import cache
from zoneinfo import available_timezones

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from service.domain.envelope import B64Url

#: free text that reaches mail headers, mail bodies and text renderings: no control characters
#: (C0, DEL, C1) and no Unicode line or paragraph separators, so a name cannot add a header line
PLAIN_TEXT = validate.Regexp(r"^[^\x00-\x1f\x7f-\x9f\u2028\u2029]*$",
                             error="Control characters and line breaks are not allowed.")


@cache
def _time_zones() -> frozenset[str]:
    return frozenset(available_timezones() - {"localtime", "Factory", "posixrules"})


def known_time_zone(name: str) -> None:
    """An IANA time zone this server knows: mails show deadlines in it."""
    if name not in _time_zones():
        raise ValidationError("Not a known IANA time zone name (e.g. 'Europe/Berlin', 'UTC').")


TIME_ZONE_DOC = {"description": "IANA time zone name, e.g. `Europe/Berlin`: mails show "
                                "deadlines in it (default `UTC`)", "example": "Europe/Berlin"}


class PlayerCreateSchema(Schema):
    name = fields.String(required=True, validate=[validate.Length(min=1, max=64), PLAIN_TEXT])
    email = fields.Email(load_default=None, allow_none=True)
    time_zone = fields.String(load_default=None, allow_none=True, validate=known_time_zone,
                              metadata=TIME_ZONE_DOC)
    public_key = B64Url(required=True, min_bytes=32, max_len=43,
                        metadata={"description": "Ed25519 public key, base64url of 32 raw bytes"})
    proof = B64Url(required=True, min_bytes=64, max_len=128, metadata={
        "description": "proof of possession: the key's signature over "
                       "`parley-key-v1\\n` + JCS({\"name\", \"public_key\"}) (docs/audit.md)"})


class PlayerCreatedSchema(Schema):
    id = fields.String(required=True)
    key_id = fields.String(required=True)
    token = fields.String(required=True, metadata={"description": "bearer token, shown once"})


class KeyCreateSchema(Schema):
    public_key = B64Url(required=True, min_bytes=32, max_len=43)
    proof = B64Url(required=True, min_bytes=64, max_len=128, metadata={
        "description": "the new key's signature over `parley-key-v1\\n` + "
                       "JCS({\"player\", \"public_key\"}) (docs/audit.md)"})


class KeySchema(Schema):
    key_id = fields.String(required=True)
    public_key = fields.String(required=True)
    created_at = fields.String()


MAIL_MOVES_DOC = {"description": "whether a reply to a turn mail makes a move (docs/"
                                 "notifications.md \"Moves by reply\"); default true for a "
                                 "player with an email address"}
MAIL_DIGEST_DOC = {"description": "`daily`: one mail a day listing every game where it is your "
                                  "turn, instead of a mail per turn; `off` (default)"}
DIGEST_HOUR_DOC = {"description": "the hour (0-23, in `time_zone`) the daily digest is sent; "
                                  "default 8"}


class PlayerUpdateSchema(Schema):
    time_zone = fields.String(validate=known_time_zone, metadata=TIME_ZONE_DOC)
    mail_moves = fields.Boolean(truthy={True}, falsy={False}, metadata=MAIL_MOVES_DOC)
    mail_digest = fields.String(validate=validate.OneOf(["off", "daily"]),
                                metadata=MAIL_DIGEST_DOC)
    digest_hour = fields.Integer(strict=True, validate=validate.Range(min=0, max=23),
                                 metadata=DIGEST_HOUR_DOC)

    @validates_schema
    def _something(self, data: dict, **_: object) -> None:
        if not data:
            raise ValidationError("Name at least one setting to change.")


class PlayerSettingsSchema(Schema):
    id = fields.String(required=True)
    time_zone = fields.String(required=True, metadata=TIME_ZONE_DOC)
    mail_moves = fields.Boolean(required=True, metadata=MAIL_MOVES_DOC)
    mail_digest = fields.String(required=True, validate=validate.OneOf(["off", "daily"]),
                                metadata=MAIL_DIGEST_DOC)
    digest_hour = fields.Integer(required=True, metadata=DIGEST_HOUR_DOC)


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
