"""The server itself: its public key, health, and game audits."""

from __future__ import annotations

import logging

from flask import current_app
from flask.views import MethodView
from flask_smorest import Blueprint
from parley_protocol import signing
from rq import Worker

from service.domain.accept import get_game_or_404
from service.domain.audit_bundle import build_bundle
from service.web.api import deps
from service.web.api.deps import PROBLEM
from service.web.api.game_schemas import AuditSchema, HealthSchema, ServerKeySchema
from service.web.readiness import RETRY_AFTER as READY_RETRY_AFTER
from service.web.readiness import not_ready_reason

log = logging.getLogger(__name__)
blp = Blueprint("system", __name__, url_prefix="/v1", description="Server key, health, audit")


@blp.route("/server-key")
class ServerKey(MethodView):
    @blp.doc(operationId="getServerKey")
    @blp.response(200, ServerKeySchema)
    def get(self) -> dict:
        """The server's Ed25519 public key, which signs receipts and audit bundles."""
        return {"public_key": signing.public_key_b64(deps.server_key()), "algorithm": "Ed25519"}


@blp.route("/health")
class Health(MethodView):
    @blp.doc(operationId="getHealth")
    @blp.response(200, HealthSchema)
    @blp.alt_response(503, schema=HealthSchema, description="unhealthy: `reason` says why")
    def get(self) -> tuple:
        """Redis reachable, workers alive, queue depth; 503 with the reason if not healthy.

        Unhealthy means the game store or the queue's Redis does not answer (every Redis call
        has a timeout), or no worker is registered on the queue: moves would be accepted but
        never applied. A worker killed with SIGKILL stays registered until its RQ heartbeat
        expires (PARLEY_WORKER_TTL + 60 s, 90 s by default); one stopped with SIGTERM leaves
        at once."""
        # under `parley run`, unhealthy also while not every process has started yet, and from
        # the moment the run begins to stop (service/ops/run_state.py; kept out of the
        # docstring above, which is the OpenAPI document's)
        not_ready = not_ready_reason(current_app.extensions.get("parley_run_state"))
        if not_ready is not None:
            return {"status": "unavailable", "reason": not_ready}, 503, \
                {"Retry-After": READY_RETRY_AFTER}
        body: dict = {"status": "ok", "redis": True}
        part = "game store"
        try:
            deps.store().ping()
            part = "queue"
            queue = deps.queue()
            queue.connection.ping()
            body["workers"] = len(Worker.all(queue=queue))
            body["queue_depth"] = queue.count
            part = "game store"
            body["pending_games"] = len(deps.store().pending_games())
        except Exception as err:  # any Redis failure is the answer, not an error
            log.warning("health: %s Redis unreachable: %s", part, type(err).__name__)
            return {"status": "unavailable", "redis": False,
                    "reason": f"{part} Redis unreachable: {type(err).__name__}"}, 503
        if body["workers"] == 0:
            return {**body, "status": "unavailable", "reason": "no worker is running"}, 503
        return body, 200


@blp.route("/games/<game>/audit")
class Audit(MethodView):
    @blp.doc(operationId="getAudit")
    @blp.response(200, AuditSchema)
    @blp.alt_response(404, **PROBLEM)
    def get(self, game: str) -> dict:
        """The audit bundle: commitment, move digests and receipts' chain, draws (secret results
        redacted until the end), state hashes; after the end the revealed seed and every signed
        envelope, signed by the server key (see docs/audit.md)."""
        store = deps.store()
        return build_bundle(store, get_game_or_404(store, game), deps.server_key())
