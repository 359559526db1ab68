"""Bearer tokens: issued once, stored only as SHA-256 hashes, looked up by hash."""

from __future__ import annotations

import hashlib
import secrets

from flask import current_app, request

from service.errors import Forbidden, Unauthorized

TOKEN_PREFIX = "pt_"


def new_token() -> tuple[str, str]:
    """(token shown once to the player, hash stored)."""
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    return token, hash_token(token)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def current_player(required: bool = True) -> str | None:
    """The player id of the request's bearer token (None when optional and absent)."""
    header = request.headers.get("Authorization", "")
    if not header:
        if required:
            raise Unauthorized("Send 'Authorization: Bearer <token>'.")
        return None
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Unauthorized("Malformed Authorization header; expected a Bearer token.",
                           code="bad_token")
    pid = current_app.extensions["parley_store"].player_for_token(hash_token(token.strip()))
    if pid is None:
        raise Unauthorized("Unknown or revoked token.", code="bad_token")
    return pid


def require_self(player: str) -> str:
    """The caller, who must be `player`."""
    pid = current_player()
    if pid != player:
        raise Forbidden("A player may change only their own account.", code="not_owner")
    return pid
