"""A key for a mail-only player (docs/notifications.md "Invitations and mail-only players"):
a code mailed to the player's address lets whoever reads it register a key for that player,
and answers a bearer token, as a registration does."""

from __future__ import annotations

import logging

from flask.views import MethodView
from flask_smorest import Blueprint
from marshmallow import Schema, fields, validate
from parley_protocol.signing import key_claim

from service.domain.problems import NotFound, Problem
from service.notify import key_claim_mail
from service.storage import invitation_records
from service.storage.store import new_id, now_iso
from service.web.api import deps
from service.web.api.deps import PROBLEM
from service.web.api.player_schemas import KeyCreateSchema, PlayerCreatedSchema
from service.web.api.players import check_proof, claim_key
from service.web.auth import index_token, new_token
from service.web.limits import RATE_LIMITED, config

log = logging.getLogger(__name__)
blp = Blueprint("key_claims", __name__, url_prefix="/v1/key-claims",
                description="A key for a player who plays by mail")


class ClaimRequestSchema(Schema):
    email = fields.Email(required=True, validate=validate.Length(max=254), metadata={
        "description": "the address of the mail-only player"})


class ClaimRequestedSchema(Schema):
    email = fields.String(required=True)


class ClaimSchema(Schema):
    player = fields.String(required=True, metadata={
        "description": "the player the code adds a key to (the key's proof names it)"})


@blp.route("")
class KeyClaims(MethodView):
    @blp.doc(operationId="requestKeyClaim")
    @blp.arguments(ClaimRequestSchema)
    @blp.response(202, ClaimRequestedSchema)
    @blp.alt_response(429, **RATE_LIMITED)
    def post(self, data: dict) -> dict:
        """Mail a code to the address if it is a mail-only player's (the answer is the same
        either way). Limited as confirmation mails are."""
        key_claim_mail.request(deps.store(), deps.queue(), config(), data["email"])
        return {"email": data["email"]}


@blp.route("/<code>")
class KeyClaim(MethodView):
    @blp.doc(operationId="getKeyClaim")
    @blp.response(200, ClaimSchema)
    @blp.alt_response(404, **PROBLEM)
    def get(self, code: str) -> dict:
        """The player a code is for (the key's proof signs `{"player", "public_key"}`)."""
        pid = key_claim_mail.player_of(deps.store(), code)
        if pid is None:
            raise _bad_code()
        return {"player": pid}

    @blp.doc(operationId="redeemKeyClaim")
    @blp.arguments(KeyCreateSchema)
    @blp.response(201, PlayerCreatedSchema)
    @blp.alt_response(404, **PROBLEM)
    @blp.alt_response(409, **PROBLEM)
    @blp.alt_response(422, **PROBLEM)
    def post(self, data: dict, code: str) -> dict:
        """Register the key for the code's player, who is no longer mail-only: their new seats
        are theirs to sign (seats they took by mail stay marked so in those games' audits).
        Answers a bearer token, shown only here. 404 `bad_claim_code`; 422 `bad_key_proof` or
        409 `key_registered` leave the code working."""
        store = deps.store()
        pid = key_claim_mail.take(store, code)
        if pid is None:
            raise _bad_code()
        key_id = new_id("k")
        try:
            check_proof(key_claim(data["public_key"], player=pid), data["proof"])
            claim_key(data["public_key"], key_id)
        except Problem:
            key_claim_mail.put_back(store, code, pid)
            raise
        created = now_iso()
        store.add_key(key_id, {"player": pid, "public_key": data["public_key"],
                               "created_at": created})
        token, digest = new_token()
        store.add_token(pid, digest)
        index_token(store, pid, digest, created)
        invitation_records.end_mail_only(store, pid)
        player = store.player(pid) or {}
        log.info("player %s: key added by a claim code; no longer mail-only", pid)
        return {"id": pid, "key_id": key_id, "token": token, "email": player.get("email"),
                "email_confirmed": True, "confirmation_sent": False}


def _bad_code() -> NotFound:
    return NotFound("The code is unknown, used already, expired, or its player has a key.",
                    code="bad_claim_code")
