"""Players: registration with an Ed25519 public key, keys, public profile."""

from __future__ import annotations

import logging

from flask.views import MethodView
from flask_smorest import Blueprint

from service.api import deps
from service.api.deps import PROBLEM
from service.auth import new_token, require_self
from service.errors import NotFound
from service.schemas.players import (
    KeyCreateSchema,
    KeySchema,
    PlayerCreatedSchema,
    PlayerCreateSchema,
    PlayerSchema,
)
from service.store import new_id, now_iso

log = logging.getLogger(__name__)
blp = Blueprint("players", __name__, url_prefix="/v1/players", description="Players and keys")


@blp.route("")
class Players(MethodView):
    @blp.arguments(PlayerCreateSchema)
    @blp.response(201, PlayerCreatedSchema)
    def post(self, data: dict) -> dict:
        """Register a player: name, optional email, Ed25519 public key -> id, key_id, token.

        The token is shown only in this response; the server keeps only its hash.
        """
        pid, key_id = new_id("p"), new_id("k")
        token, token_hash = new_token()
        fields = {"name": data["name"], "created_at": now_iso()}
        if data.get("email"):
            fields["email"] = data["email"]
        key = {"player": pid, "public_key": data["public_key"], "created_at": now_iso()}
        deps.store().create_player(pid, fields, key_id, key, token_hash)
        log.info("player %s registered", pid)
        return {"id": pid, "key_id": key_id, "token": token}


@blp.route("/<player>")
class PlayerResource(MethodView):
    @blp.response(200, PlayerSchema)
    @blp.alt_response(404, **PROBLEM)
    def get(self, player: str) -> dict:
        """A player's public profile and public keys (old keys stay to verify old moves)."""
        record = deps.store().player(player)
        if record is None:
            raise NotFound("No such player.", code="player_not_found")
        keys = []
        for key_id in deps.store().player_keys(player):
            key = deps.store().key(key_id)
            if key:
                keys.append({"key_id": key_id, "public_key": key["public_key"],
                             "created_at": key.get("created_at")})
        return {"id": player, "name": record["name"], "keys": keys}


@blp.route("/<player>/keys")
class PlayerKeys(MethodView):
    @blp.arguments(KeyCreateSchema)
    @blp.response(201, KeySchema)
    @blp.alt_response(401, **PROBLEM)
    @blp.alt_response(403, **PROBLEM)
    @blp.doc(security=[{"bearer": []}])
    def post(self, data: dict, player: str) -> dict:
        """Add a key (rotation): new moves may be signed with it; old keys stay valid for
        verifying old moves."""
        require_self(player)
        key_id = new_id("k")
        created = now_iso()
        deps.store().add_key(key_id, {"player": player, "public_key": data["public_key"],
                                      "created_at": created})
        return {"key_id": key_id, "public_key": data["public_key"], "created_at": created}
