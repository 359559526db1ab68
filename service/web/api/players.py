"""Players: registration with an Ed25519 public key, keys, tokens, public profile."""

from __future__ import annotations

import logging
from typing import Any

from flask import Response, redirect
from flask.views import MethodView
from flask_smorest import Blueprint
from parley_protocol.signing import key_claim, verify_key_claim

from service.domain.live_feed import ticket
from service.domain.mail_moves import allows_mail_moves
from service.domain.problems import Conflict, Forbidden, InvalidRequest, NotFound
from service.notify import confirmation, digest, mail, receipts
from service.storage.store import new_id, now_iso
from service.web.api import deps
from service.web.api.deps import PROBLEM
from service.web.api.email_address import ask_confirmation, refuse_servers_own
from service.web.api.game_schemas import GameListQuerySchema, GameListSchema
from service.web.api.games import games_page
from service.web.api.player_schemas import (
    KeyCreateSchema,
    KeySchema,
    PlayerCreatedSchema,
    PlayerCreateSchema,
    PlayerSchema,
    PlayerSettingsSchema,
    PlayerUpdateSchema,
    TokenCreateSchema,
    TokenIssuedSchema,
    TokenListSchema,
)
from service.web.auth import (
    current_player,
    find_token,
    index_token,
    issue_token,
    list_tokens,
    new_token,
    require_self,
    require_self_caller,
    revoke,
    token_id,
)
from service.web.limits import RATE_LIMITED, config

log = logging.getLogger(__name__)
blp = Blueprint("players", __name__, url_prefix="/v1/players", description="Players and keys")


@blp.route("")
class Players(MethodView):
    @blp.doc(operationId="registerPlayer")
    @blp.arguments(PlayerCreateSchema)
    @blp.response(201, PlayerCreatedSchema)
    @blp.alt_response(409, **PROBLEM)
    @blp.alt_response(413, **PROBLEM)
    @blp.alt_response(429, **RATE_LIMITED)
    def post(self, data: dict) -> dict:
        """Register a player: name, optional email, Ed25519 public key -> id, key_id, token.

        The token is shown only in this response; the server keeps only its hash.
        An email address gets one confirmation mail and nothing else until its owner
        confirms it (`email_confirmed`, docs/notifications.md "Address confirmation").
        Rate-limited per address (429 `rate_limited` with `Retry-After`).
        """
        email = data.get("email")
        if email:
            refuse_servers_own(email)
        claim = key_claim(data["public_key"], name=data["name"])
        check_proof(claim, data["proof"])
        pid, key_id = new_id("p"), new_id("k")
        claim_key(data["public_key"], key_id)
        token, token_hash = new_token()
        created = now_iso()
        fields = {"name": data["name"], "created_at": created}
        if email:
            fields["email_pending"] = email  # confirmed, it becomes `email` (mails flow)
        if data.get("time_zone"):
            fields["time_zone"] = data["time_zone"]
        key = {"player": pid, "public_key": data["public_key"], "created_at": created}
        deps.store().create_player(pid, fields, key_id, key, token_hash)
        index_token(deps.store(), pid, token_hash, created)
        sent = bool(email) and ask_confirmation(pid, email) == 0
        log.info("player %s registered", pid)
        return {"id": pid, "key_id": key_id, "token": token, "email": email,
                "email_confirmed": False, "confirmation_sent": sent}


def check_proof(claim: dict[str, str], proof: str) -> None:
    """Only who holds a key's private half may register it: otherwise one player could
    label another's envelopes with a key id of their own (`key_id` lies outside the
    signature)."""
    if not verify_key_claim(claim, proof):
        raise InvalidRequest("`proof` is not the key's signature over this registration "
                             "(docs/audit.md, \"Keys\").", code="bad_key_proof")


def claim_key(public_key: str, key_id: str) -> None:
    if not deps.store().claim_public_key(public_key, key_id):
        raise Conflict("This public key is registered already; every player has keys of "
                       "their own.", code="key_registered")


@blp.route("/<player>")
class PlayerResource(MethodView):
    @blp.doc(operationId="getPlayer", security=[{"bearer": []}, {}])
    @blp.response(200, PlayerSchema)
    @blp.alt_response(401, **PROBLEM)
    @blp.alt_response(404, **PROBLEM)
    def get(self, player: str) -> dict:
        """A player's public profile and public keys (old keys stay to verify old moves).
        Read with the player's own token, it also shows their `email` and whether its owner
        confirmed it, and their settings: those `PATCH` changes, and `mail` (`PUT .../mail`)."""
        caller = current_player(required=False)
        record = deps.store().player(player)
        if record is None:
            raise NotFound("No such player.", code="player_not_found")
        keys = []
        for key_id in deps.store().player_keys(player):
            key = deps.store().key(key_id)
            if key:
                keys.append({"key_id": key_id, "public_key": key["public_key"],
                             "created_at": key.get("created_at")})
        own = {**confirmation.state(record), **settings_of(record),
               "mail": mail.get_prefs(deps.store(), player)} if caller == player else {}
        return {"id": player, "name": record["name"], "keys": keys, **own}

    @blp.doc(operationId="updatePlayer")
    @blp.arguments(PlayerUpdateSchema)
    @blp.response(200, PlayerSettingsSchema)
    @blp.alt_response(401, **PROBLEM)
    @blp.alt_response(403, **PROBLEM)
    @blp.doc(security=[{"bearer": []}])
    def patch(self, data: dict, player: str) -> dict:
        """Change the caller's settings: `time_zone` (IANA name), in which mails show
        deadlines; `mail_moves` (replies to turn mails make moves); `reply_receipts` (a
        short mail after a reply's moves were played); `mail_digest` and
        `digest_hour` (one mail a day instead of one per turn). Answers every setting."""
        require_self(player)
        fields = {name: str(value) for name, value in data.items()
                  if name in ("time_zone", "mail_digest", "digest_hour")}
        for flag in ("mail_moves", "reply_receipts"):
            if flag in data:
                fields[flag] = "1" if data[flag] else "0"
        store = deps.store()
        if data.get("mail_moves") and (store.player(player) or {}).get("mail_consent") != "1":
            raise Conflict("Moves by mail need your signed consent first: POST "
                           f"/v1/players/{player}/consents (docs/audit.md §16).",
                           code="consent_required")
        store.update_player(player, fields)
        record = store.player(player) or {}
        digest.reschedule(store, player, record)
        return {"id": player, **settings_of(record)}


def settings_of(record: dict[str, str]) -> dict[str, Any]:
    """A player's settings with their defaults, as a change answers them and the player's
    own profile shows them: one place, so what `parley settings` reads is what was set."""
    return {"time_zone": record.get("time_zone") or "UTC",
            "mail_moves": allows_mail_moves(record),
            "reply_receipts": receipts.wanted(record),
            "mail_digest": record.get("mail_digest") or "off",
            "digest_hour": digest.hour_of(record)}


@blp.route("/<player>/games")
class PlayerGames(MethodView):
    @blp.doc(operationId="listMyGames")
    @blp.arguments(GameListQuerySchema, location="query")
    @blp.response(200, GameListSchema)
    @blp.alt_response(400, **PROBLEM)
    @blp.alt_response(401, **PROBLEM)
    @blp.alt_response(403, **PROBLEM)
    @blp.doc(security=[{"bearer": []}])
    def get(self, query: dict, player: str) -> dict:
        """The caller's games, as `GET /v1/games`: `player` is `me` or the caller's own id.
        `?turn=mine` answers "which of my games wait for me?"."""
        pid = current_player()
        if player not in ("me", pid):
            raise Forbidden("A player may list only their own games.", code="not_owner")
        return games_page(pid, query)


@blp.route("/<player>/stream")
class PlayerStream(MethodView):
    @blp.doc(operationId="openStream", responses={"307": {
        "description": "to the stream process, with a ticket valid for 60 s: follow it to "
                       "read `text/event-stream` (docs/live.md)",
        "headers": {"Location": {"schema": {"type": "string"}}}}})
    @blp.alt_response(401, **PROBLEM)
    @blp.alt_response(403, **PROBLEM)
    @blp.doc(security=[{"bearer": []}])
    def get(self, player: str) -> Response:
        """Every game of the caller, live: Server-Sent Events of what each seat may see (its
        events, turn changes, the end), resumable with `Last-Event-ID`. Answered by a redirect
        to the stream process, so that no web process waits with the client."""
        pid = current_player()
        if player not in ("me", pid):
            raise Forbidden("A player may follow only their own games.", code="not_owner")
        url = f"{config().STREAM_URL}/v1/stream?ticket={ticket(deps.server_key(), pid)}"
        return redirect(url, code=307)


@blp.route("/<player>/keys")
class PlayerKeys(MethodView):
    @blp.doc(operationId="addKey")
    @blp.arguments(KeyCreateSchema)
    @blp.response(201, KeySchema)
    @blp.alt_response(401, **PROBLEM)
    @blp.alt_response(403, **PROBLEM)
    @blp.alt_response(409, **PROBLEM)
    @blp.doc(security=[{"bearer": []}])
    def post(self, data: dict, player: str) -> dict:
        """Add a key (rotation): new moves may be signed with it; old keys stay valid for
        verifying old moves. A player holds at most PARLEY_MAX_KEYS keys (409
        `too_many_keys`)."""
        require_self(player)
        cap = config().MAX_KEYS_PER_PLAYER
        if len(deps.store().player_keys(player)) >= cap:
            raise Conflict(f"A player holds at most {cap} keys.", code="too_many_keys",
                           limit=cap)
        check_proof(key_claim(data["public_key"], player=player), data["proof"])
        key_id = new_id("k")
        claim_key(data["public_key"], key_id)
        created = now_iso()
        deps.store().add_key(key_id, {"player": player, "public_key": data["public_key"],
                                      "created_at": created})
        return {"key_id": key_id, "public_key": data["public_key"], "created_at": created}


@blp.route("/<player>/tokens")
class PlayerTokens(MethodView):
    @blp.doc(operationId="listTokens")
    @blp.response(200, TokenListSchema)
    @blp.alt_response(401, **PROBLEM)
    @blp.alt_response(403, **PROBLEM)
    @blp.doc(security=[{"bearer": []}])
    def get(self, player: str) -> dict:
        """The player's live tokens by id and creation time (never the tokens themselves);
        `current` marks the token of this request."""
        caller = require_self_caller(player)
        return {"tokens": list_tokens(deps.store(), caller)}

    @blp.doc(operationId="createToken")
    @blp.arguments(TokenCreateSchema)
    @blp.response(201, TokenIssuedSchema)
    @blp.alt_response(401, **PROBLEM)
    @blp.alt_response(403, **PROBLEM)
    @blp.alt_response(409, **PROBLEM)
    @blp.doc(security=[{"bearer": []}])
    def post(self, data: dict, player: str) -> dict:
        """Issue a new token, shown only in this response. With `rotate: true` the token of
        this request stops working at once (rotation); without, the player holds one more
        token (at most PARLEY_MAX_TOKENS, 409 `too_many_tokens`), e.g. one per device."""
        store = deps.store()
        caller = require_self_caller(player)
        cap = config().MAX_TOKENS_PER_PLAYER
        if not data["rotate"] and store.token_count(player) >= cap:
            raise Conflict(f"A player holds at most {cap} tokens; revoke one first.",
                           code="too_many_tokens", limit=cap)
        token, tid, created = issue_token(store, caller, rotate=data["rotate"])
        log.info("player %s: token issued%s", player, " (rotation)" if data["rotate"] else "")
        return {"id": tid, "token": token, "created_at": created,
                "rotated": token_id(caller.token_hash) if data["rotate"] else None}


@blp.route("/<player>/tokens/<token>")
class PlayerToken(MethodView):
    @blp.doc(operationId="revokeToken")
    @blp.response(204)
    @blp.alt_response(401, **PROBLEM)
    @blp.alt_response(403, **PROBLEM)
    @blp.alt_response(404, **PROBLEM)
    @blp.doc(security=[{"bearer": []}])
    def delete(self, player: str, token: str) -> None:
        """Revoke one of the player's tokens by its id (from the list); it stops working at
        once. Revoking the token of this request logs this client out."""
        store = deps.store()
        caller = require_self_caller(player)
        digest = find_token(store, player, token, caller)
        if digest is None:
            raise NotFound("No such live token.", code="token_not_found")
        revoke(store, player, digest)
        log.info("player %s: token revoked", player)
