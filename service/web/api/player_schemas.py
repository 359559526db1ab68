"""Players and their keys."""

from __future__ import annotations

import re
from functools import cache
from zoneinfo import available_timezones

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from service.domain.envelope import B64Url
from service.web.api.notification_schemas import MailPrefsSchema

#: free text that reaches mail headers, mail bodies and text renderings: no control characters
#: (C0, DEL, C1) and no Unicode line or paragraph separators, so a name cannot add a header line
PLAIN_TEXT = validate.Regexp(r"^[^\x00-\x1f\x7f-\x9f\u2028\u2029]*$",
                             error="Control characters and line breaks are not allowed.")
#: marks, embeddings, overrides and isolates that reorder how the text around them is shown: a
#: name could show as something it is not ("Eve" + U+202E + "gnp.exe" shows as "Eveexe.png")
BIDI_CONTROLS = re.compile("[\u200e\u200f\u202a-\u202e\u2066-\u2069]")
#: RFC 2047 encoded-word syntax: a mail reader shows a header's `=?charset?b?...?=` decoded,
#: so a name in a From or Subject line could read as other text than the one registered
ENCODED_WORD = re.compile(r"=\?.*\?=")


def shown_as_written(name: str) -> None:
    """A name is shown as it was written: in mails, mail headers and terminals alike."""
    if BIDI_CONTROLS.search(name):
        raise ValidationError("Bidirectional control characters (U+200E, U+200F, "
                              "U+202A-U+202E, U+2066-U+2069) are not allowed.")
    if ENCODED_WORD.search(name):
        raise ValidationError("Mail encoded-word syntax (=?...?=) is not allowed.")


@cache
def _time_zones() -> frozenset[str]:
    return frozenset(available_timezones() - {"localtime", "Factory", "posixrules"})


def known_time_zone(name: str) -> None:
    """An IANA time zone this server knows: mails show deadlines in it."""
    if name not in _time_zones():
        raise ValidationError("Not a known IANA time zone name (e.g. 'Europe/Berlin', 'UTC').")


TIME_ZONE_DOC = {"description": "IANA time zone name, e.g. `Europe/Berlin`: mails show "
                                "deadlines in it (default `UTC`)", "example": "Europe/Berlin"}


EMAIL_DOC = {"description": "where the player's mails go, once its owner confirmed it by the "
                         "link of the one confirmation mail it gets (docs/notifications.md "
                         "\"Address confirmation\"); not the server's own address or reply "
                         "domain"}
EMAIL_CONFIRMED_DOC = {"description": "whether the owner of `email` confirmed it: until then "
                                      "it gets no mail but its confirmation"}
CONFIRMATION_SENT_DOC = {"description": "whether this request queued a confirmation mail; "
                                        "false when the limits hold it back (ask again with "
                                        "`POST .../email/confirmation`) or nothing waits"}


class PlayerCreateSchema(Schema):
    name = fields.String(required=True, validate=[validate.Length(min=1, max=64), PLAIN_TEXT,
                                                  shown_as_written])
    email = fields.Email(load_default=None, allow_none=True, metadata=EMAIL_DOC)
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
    email = fields.String(allow_none=True, metadata=EMAIL_DOC)
    email_confirmed = fields.Boolean(metadata=EMAIL_CONFIRMED_DOC)
    confirmation_sent = fields.Boolean(metadata=CONFIRMATION_SENT_DOC)


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
                                 "player with a confirmed email address"}
MAIL_DIGEST_DOC = {"description": "`daily`: one mail a day listing every game where it is your "
                                  "turn, instead of a mail per turn; `off` (default)"}
REPLY_RECEIPTS_DOC = {"description": "a short mail in the game's thread after a reply's moves "
                                     "were all played: what it played and what happens next "
                                     "(default true)"}
DIGEST_HOUR_DOC = {"description": "the hour (0-23, in `time_zone`) the daily digest is sent; "
                                  "default 8"}


class PlayerUpdateSchema(Schema):
    time_zone = fields.String(validate=known_time_zone, metadata=TIME_ZONE_DOC)
    mail_moves = fields.Boolean(truthy={True}, falsy={False}, metadata=MAIL_MOVES_DOC)
    reply_receipts = fields.Boolean(truthy={True}, falsy={False}, metadata=REPLY_RECEIPTS_DOC)
    mail_digest = fields.String(validate=validate.OneOf(["off", "daily"]),
                                metadata=MAIL_DIGEST_DOC)
    digest_hour = fields.Integer(strict=True, validate=validate.Range(min=0, max=23),
                                 metadata=DIGEST_HOUR_DOC)

    @validates_schema
    def _something(self, data: dict, **_: object) -> None:
        if not data:
            raise ValidationError("Name at least one setting to change.")


def settings_fields(required: bool, note: str = "") -> dict[str, fields.Field]:
    """The player's settings as answers show them: one list for the answer of a change (every
    one `required`) and the player's own profile (`note`: only there), so the two cannot
    drift apart."""
    def doc(text: dict[str, str]) -> dict[str, str]:
        return {**text, "description": note + text["description"]}

    return {"time_zone": fields.String(required=required, metadata=doc(TIME_ZONE_DOC)),
            "mail_moves": fields.Boolean(required=required, metadata=doc(MAIL_MOVES_DOC)),
            "reply_receipts": fields.Boolean(required=required,
                                             metadata=doc(REPLY_RECEIPTS_DOC)),
            "mail_digest": fields.String(required=required,
                                         validate=validate.OneOf(["off", "daily"]),
                                         metadata=doc(MAIL_DIGEST_DOC)),
            "digest_hour": fields.Integer(required=required, metadata=doc(DIGEST_HOUR_DOC))}


class PlayerSettingsSchema(Schema):
    id = fields.String(required=True)

    class Meta:
        include = settings_fields(required=True)


class PlayerSchema(Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    keys = fields.List(fields.Nested(KeySchema))
    email = fields.String(allow_none=True, metadata={
        "description": "only in the player's own profile (read with their token): "
                       + EMAIL_DOC["description"]})
    email_confirmed = fields.Boolean(metadata={
        "description": "only in the player's own profile: " + EMAIL_CONFIRMED_DOC["description"]})

    class Meta:  # the settings, echoed to the player themself (`parley settings` reads them)
        include = {**settings_fields(required=False, note="only in the player's own profile: "),
                   "mail": fields.Nested(MailPrefsSchema, metadata={
                       "description": "only in the player's own profile: mail for all games, "
                                      "wholly and per kind (`PUT /v1/players/{player}/mail`)"})}


class EmailSchema(Schema):
    email = fields.String(required=True, allow_none=True, metadata=EMAIL_DOC)
    email_confirmed = fields.Boolean(required=True, metadata=EMAIL_CONFIRMED_DOC)


class EmailSetSchema(Schema):
    email = fields.Email(required=True, allow_none=True, metadata={
        "description": "the new address, which waits for confirmation (null: none)"})


class EmailChangedSchema(EmailSchema):
    confirmation_sent = fields.Boolean(required=True, metadata=CONFIRMATION_SENT_DOC)


class ConfirmQuerySchema(Schema):
    token = fields.String(required=True, validate=validate.Regexp(r"^[A-Za-z0-9_-]{16,64}$"),
                          metadata={"description": "the token of the confirmation mail's link"})


class ConfirmedSchema(Schema):
    player = fields.String(required=True)
    email = fields.String(required=True)
    email_confirmed = fields.Boolean(required=True)


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
