"""Webhooks: a player subscribes URLs to event types; deliveries are listed and redelivered."""

from __future__ import annotations

import json
import logging

from flask import current_app
from flask.views import MethodView
from flask_smorest import Blueprint

from service.domain.problems import Conflict, InvalidRequest, NotFound
from service.notify import dispatch, webhooks
from service.storage import notify_records as records
from service.web.api import deps
from service.web.api.common_schemas import CursorQuerySchema
from service.web.api.deps import PROBLEM
from service.web.api.notification_schemas import (
    DeliveryListSchema,
    RedeliveredSchema,
    WebhookCreateSchema,
    WebhookListSchema,
    WebhookSchema,
    WebhookUpdateSchema,
)
from service.web.auth import require_self
from service.web.query_params import numeric_cursor

log = logging.getLogger(__name__)
blp = Blueprint("webhooks", __name__, url_prefix="/v1/players",
                description="Webhooks (Standard Webhooks signatures) and their deliveries")
AUTH = {"security": [{"bearer": []}]}


def _check_url(url: str) -> None:
    try:
        webhooks.check_url(url, current_app.config["PARLEY"].WEBHOOK_ALLOW_PRIVATE)
    except webhooks.UnsafeUrl as err:
        raise InvalidRequest(str(err), code="unsafe_url") from err


def _own_webhook(player: str, webhook: str) -> dict[str, str]:
    require_self(player)
    record = webhooks.get(deps.store(), webhook)
    if record is None or record["player"] != player:
        raise NotFound("No such webhook.", code="webhook_not_found")
    return record


@blp.route("/<player>/webhooks")
class Webhooks(MethodView):
    @blp.doc(operationId="createWebhook")
    @blp.arguments(WebhookCreateSchema)
    @blp.response(201, WebhookSchema)
    @blp.alt_response(401, **PROBLEM)
    @blp.alt_response(403, **PROBLEM)
    @blp.alt_response(409, **PROBLEM)
    @blp.alt_response(422, **PROBLEM)
    @blp.doc(**AUTH)
    def post(self, data: dict, player: str) -> dict:
        """Subscribe a URL to event types; the response shows the signing secret, once.

        Deliveries carry `webhook-id`, `webhook-timestamp` and `webhook-signature` (Standard
        Webhooks). URLs resolving to loopback, private, link-local or multicast addresses are
        refused (422 `unsafe_url`); at most PARLEY_MAX_WEBHOOKS per player (409).
        """
        require_self(player)
        store = deps.store()
        if len(webhooks.of_player(store, player)) >= current_app.config["PARLEY"].MAX_WEBHOOKS:
            raise Conflict("This player has as many webhooks as allowed; delete one first.",
                           code="too_many_webhooks")
        _check_url(data["url"])
        record = webhooks.create(store, player, data["url"], data["types"])
        log.info("webhook %s created for %s", record["id"], player)
        return webhooks.public(record, with_secret=True)

    @blp.doc(operationId="listWebhooks")
    @blp.response(200, WebhookListSchema)
    @blp.alt_response(401, **PROBLEM)
    @blp.alt_response(403, **PROBLEM)
    @blp.doc(**AUTH)
    def get(self, player: str) -> dict:
        """The player's webhooks (without their secrets)."""
        require_self(player)
        return {"webhooks": [webhooks.public(r) for r in webhooks.of_player(deps.store(),
                                                                            player)]}


@blp.route("/<player>/webhooks/<webhook>")
class WebhookResource(MethodView):
    @blp.doc(operationId="getWebhook")
    @blp.response(200, WebhookSchema)
    @blp.alt_response(401, **PROBLEM)
    @blp.alt_response(403, **PROBLEM)
    @blp.alt_response(404, **PROBLEM)
    @blp.doc(**AUTH)
    def get(self, player: str, webhook: str) -> dict:
        """One webhook: URL, types, enabled (and why it was disabled)."""
        return webhooks.public(_own_webhook(player, webhook))

    @blp.doc(operationId="updateWebhook")
    @blp.arguments(WebhookUpdateSchema)
    @blp.response(200, WebhookSchema)
    @blp.alt_response(401, **PROBLEM)
    @blp.alt_response(403, **PROBLEM)
    @blp.alt_response(404, **PROBLEM)
    @blp.alt_response(422, **PROBLEM)
    @blp.doc(**AUTH)
    def patch(self, data: dict, player: str, webhook: str) -> dict:
        """Change the URL or the types, or turn the webhook on again after it was disabled."""
        record = _own_webhook(player, webhook)
        fields: dict[str, str] = {}
        if "url" in data:
            _check_url(data["url"])
            fields["url"] = data["url"]
        if "types" in data:
            fields["types"] = json.dumps(sorted(set(data["types"])))
        if "enabled" in data:
            fields["enabled"] = "1" if data["enabled"] else "0"
            if data["enabled"]:
                fields["disabled_reason"] = ""
                records.webhook_succeeded(deps.store(), webhook)
        if fields:
            record = webhooks.update(deps.store(), webhook, fields)
        return webhooks.public(record)

    @blp.doc(operationId="deleteWebhook")
    @blp.response(204)
    @blp.alt_response(401, **PROBLEM)
    @blp.alt_response(403, **PROBLEM)
    @blp.alt_response(404, **PROBLEM)
    @blp.doc(**AUTH)
    def delete(self, player: str, webhook: str) -> None:
        """Delete the webhook; deliveries not yet made are skipped."""
        _own_webhook(player, webhook)
        webhooks.delete(deps.store(), player, webhook)


@blp.route("/<player>/webhooks/<webhook>/deliveries")
class Deliveries(MethodView):
    @blp.doc(operationId="listDeliveries")
    @blp.arguments(CursorQuerySchema, location="query")
    @blp.response(200, DeliveryListSchema)
    @blp.alt_response(401, **PROBLEM)
    @blp.alt_response(403, **PROBLEM)
    @blp.alt_response(404, **PROBLEM)
    @blp.alt_response(422, **PROBLEM)
    @blp.doc(**AUTH)
    def get(self, args: dict, player: str, webhook: str) -> dict:
        """The webhook's deliveries, newest first, each with every attempt (status, latency,
        error)."""
        _own_webhook(player, webhook)
        start, limit = numeric_cursor(args, "bad_cursor"), args["limit"]
        store = deps.store()
        ids = records.webhook_deliveries(store, webhook, start, limit + 1)
        items = [d for d in (dispatch.delivery_public(store, i) for i in ids[:limit]) if d]
        return {"deliveries": items, "next": str(start + limit) if len(ids) > limit else None}


@blp.route("/<player>/webhooks/<webhook>/deliveries/<delivery>/redeliver")
class Redeliver(MethodView):
    @blp.doc(operationId="redeliver")
    @blp.response(202, RedeliveredSchema)
    @blp.alt_response(401, **PROBLEM)
    @blp.alt_response(403, **PROBLEM)
    @blp.alt_response(404, **PROBLEM)
    @blp.doc(**AUTH)
    def post(self, player: str, webhook: str, delivery: str) -> dict:
        """Send a delivery again: a new attempt with the same `webhook-id` and body."""
        _own_webhook(player, webhook)
        store = deps.store()
        record, _ = records.delivery(store, delivery)
        if record.get("webhook") != webhook:
            raise NotFound("No such delivery of this webhook.", code="delivery_not_found")
        attempt = dispatch.redeliver(store, deps.queue(), delivery)
        return {"id": delivery, "attempt": attempt, "status": "pending"}
