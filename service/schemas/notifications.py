"""Webhook subscriptions, their deliveries, and mail preferences."""

from __future__ import annotations

from marshmallow import RAISE, Schema, fields, validate

from service.notices import EVENT_TYPES, MAIL_TYPES

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
