"""Webhook subscriptions, their deliveries, and mail preferences."""

from __future__ import annotations

from marshmallow import RAISE, Schema, fields, validate

from service.domain.notices import EVENT_TYPES, MAIL_TYPES

EventType = fields.String(validate=validate.OneOf(EVENT_TYPES))


class WebhookCreateSchema(Schema):
    class Meta:
        unknown = RAISE

    url = fields.String(required=True, validate=validate.Length(min=8, max=2048),
                        metadata={"description": "http(s) URL; private addresses are refused"})
    types = fields.List(fields.String(validate=validate.OneOf(EVENT_TYPES)),
                        load_default=lambda: list(EVENT_TYPES),
                        validate=validate.Length(min=1, max=len(EVENT_TYPES)),
                        metadata={"description": f"event types; default all of {EVENT_TYPES}"})


class WebhookUpdateSchema(Schema):
    class Meta:
        unknown = RAISE

    url = fields.String(validate=validate.Length(min=8, max=2048))
    types = fields.List(fields.String(validate=validate.OneOf(EVENT_TYPES)),
                        validate=validate.Length(min=1, max=len(EVENT_TYPES)))
    enabled = fields.Boolean(metadata={"description": "true turns a disabled webhook on again"})


class WebhookSchema(Schema):
    id = fields.String(required=True)
    url = fields.String(required=True)
    types = fields.List(fields.String(), required=True)
    enabled = fields.Boolean(required=True)
    created_at = fields.String(required=True)
    disabled_reason = fields.String(allow_none=True)
    secret = fields.String(metadata={"description": "whsec_...: shown only on creation; verify "
                                                    "deliveries with it (Standard Webhooks)"})


class WebhookListSchema(Schema):
    webhooks = fields.List(fields.Nested(WebhookSchema), required=True)


class AttemptSchema(Schema):
    attempt = fields.Integer(required=True)
    at = fields.String(required=True)
    status = fields.Integer(allow_none=True, metadata={"description": "HTTP status; null: none"})
    latency_ms = fields.Float(allow_none=True)
    error = fields.String(allow_none=True)
    to = fields.String()


class DeliverySchema(Schema):
    id = fields.String(required=True, metadata={"description": "also the `webhook-id` header"})
    type = fields.String(required=True)
    game = fields.String(required=True)
    seat = fields.Integer(required=True)
    step = fields.Integer(required=True)
    status = fields.String(required=True, validate=validate.OneOf(
        ["pending", "retrying", "delivered", "failed", "superseded", "skipped", "suppressed"]))
    created_at = fields.String(required=True)
    attempts = fields.List(fields.Nested(AttemptSchema), required=True)


class DeliveryListSchema(Schema):
    deliveries = fields.List(fields.Nested(DeliverySchema), required=True)
    next = fields.String(allow_none=True, metadata={"description": "cursor of the next page"})


class RedeliveredSchema(Schema):
    id = fields.String(required=True)
    attempt = fields.Integer(required=True)
    status = fields.String(required=True)


class MailPrefsSchema(Schema):
    enabled = fields.Boolean(required=True)
    types = fields.Dict(keys=fields.String(), values=fields.Boolean(), required=True)


class MailPrefsUpdateSchema(Schema):
    class Meta:
        unknown = RAISE

    enabled = fields.Boolean(load_default=None, allow_none=True,
                             metadata={"description": "false: no mail at all in this scope"})
    types = fields.Dict(keys=fields.String(validate=validate.OneOf(MAIL_TYPES)),
                        values=fields.Boolean(), load_default=dict,
                        metadata={"description": f"per kind, of {MAIL_TYPES}"})


class UnsubscribeQuerySchema(Schema):
    player = fields.String(required=True, validate=validate.Length(min=1, max=64))
    game = fields.String(required=True, validate=validate.Length(min=1, max=64))
    # URL-safe ASCII only: the link's token is compared in constant time, which needs ASCII
    token = fields.String(required=True, validate=validate.Regexp(r"^[A-Za-z0-9_-]{1,128}$"))


class UnsubscribedSchema(Schema):
    player = fields.String(required=True)
    game = fields.String(required=True)
    mail = fields.Nested(MailPrefsSchema, required=True)


# ---- what a webhook receives (the OpenAPI document's `webhooks` section) ----------------------


class WebhookLinksSchema(Schema):
    game = fields.String()
    view = fields.String()
    moves = fields.String()
    events = fields.String()
    audit = fields.String()


class WebhookDataSchema(Schema):
    """The `data` of a webhook body: public facts of the game, and the seat's own view on its
    turn (`turn.started` only)."""

    game = fields.String(required=True)
    ruleset = fields.String(required=True)
    seat = fields.Integer(required=True, metadata={"description": "the receiving player's seat"})
    step = fields.Integer(required=True)
    status = fields.String(required=True)
    to_act = fields.List(fields.Integer(), required=True)
    deadline = fields.String(allow_none=True, required=True)
    links = fields.Nested(WebhookLinksSchema, required=True)
    clocks = fields.List(fields.Dict(), metadata={
        "description": "games with a time control: each seat's clock at sending "
                       "(as `clocks` of the game summary)"})
    view = fields.Dict(metadata={"description": "turn.started: the seat's view of the game"})
    result = fields.Dict(metadata={"description": "game.finished: winners, scores, reason"})
    seq = fields.Integer(metadata={"description": "move.rejected: the move's sequence number"})
    code = fields.String(metadata={"description": "move.rejected: the rules' error code"})
    detail = fields.String(metadata={"description": "move.rejected: the refusal in words"})


class WebhookEventSchema(Schema):
    type = EventType
    timestamp = fields.String(required=True, metadata={"description": "UTC, ISO 8601"})
    data = fields.Nested(WebhookDataSchema, required=True)


#: event type -> what it tells (the `webhooks` section's summaries; docs/notifications.md)
WEBHOOK_EVENTS = {
    "game.started": "The last seat was taken and the game is set up.",
    "turn.started": "A decision opened and the receiving seat is to act; `data.view` is its "
                    "view with the legal moves.",
    "deadline.reminder": "The reminder time of a decision passed and the seat has not acted.",
    "deadline.timeout": "The deadline passed; the timeout action was taken for the seat.",
    "game.finished": "The game ended; `data.result` has the winners.",
    "move.rejected": "A queued move of the seat was refused when it was resolved.",
}
_HEADERS = {
    "webhook-id": "the delivery id: the same on every retry, so duplicates can be dropped",
    "webhook-timestamp": "seconds since the epoch when this attempt was signed",
    "webhook-signature": "`v1,<base64 HMAC-SHA256>` over id, timestamp and body (Standard "
                         "Webhooks) with the webhook's secret",
}


def webhooks_section(event_schema_ref: str) -> dict[str, dict]:
    """The OpenAPI 3.1 `webhooks` object: one POST per event type, to the subscriber's URL."""
    out = {}
    for kind, text in WEBHOOK_EVENTS.items():
        name = "".join(part.title() for part in kind.split("."))
        out[kind] = {"post": {
            "operationId": f"on{name}", "summary": text, "tags": ["Webhooks"],
            "parameters": [{"name": h, "in": "header", "required": True, "description": d,
                            "schema": {"type": "string"}} for h, d in _HEADERS.items()],
            "requestBody": {"required": True, "content": {"application/json": {"schema": {
                "allOf": [{"$ref": event_schema_ref}],
                "properties": {"type": {"const": kind}}}}}},
            "responses": {"2XX": {"description": "received (any 2xx); 5xx, 429 and timeouts "
                                                "are retried with backoff"}},
        }}
    return out
