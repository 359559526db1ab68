"""Bearer tokens: issued once, stored only as SHA-256 hashes, rotated and revoked by the player.

A token is `pt_` + 32 random bytes (base64url). The server keeps `token:<sha256 hex>` -> player
id (the store's key) and, per player, `player:<id>:tokens`: token id -> {"hash", "created_at"},
so that a player can list and revoke their tokens. A token id is `t_` + the first 16 hex digits
of the token's hash: it names a token without revealing it.

Lookup is by the hash, so no secret is ever compared byte by byte in Python: Redis finds the key
from the SHA-256 of a 256-bit random value, and timing tells an attacker nothing about a token's
bytes. Where two hashes are compared (is the token being revoked the caller's own?) the
comparison is `hmac.compare_digest`. Tokens, their hashes and their ids are never logged.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from dataclasses import dataclass

from flask import current_app, request

from service.domain.problems import Forbidden, Unauthorized
from service.storage.store import Store, now_iso

TOKEN_PREFIX = "pt_"


@dataclass(frozen=True)
class Caller:
    """The authenticated player and the hash of the token the request carried."""

    player: str
    token_hash: str


def new_token() -> tuple[str, str]:
    """(token shown once to the player, hash stored)."""
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    return token, hash_token(token)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def bearer_token(header: str) -> str | None:
    """The token of an `Authorization: Bearer <token>` header; None if it is not one."""
    scheme, _, token = header.partition(" ")
    token = token.strip()
    return token if scheme.lower() == "bearer" and token else None


def token_id(token_hash: str) -> str:
    return "t_" + token_hash[:16]


def same_hash(a: str, b: str) -> bool:
    """Constant-time equality of two token hashes."""
    return hmac.compare_digest(a.encode("ascii"), b.encode("ascii"))


def bearer_digest(required: bool = True) -> str | None:
    """The hash of the request's bearer token, not yet looked up (None when optional and
    absent): for a handler that reads the token's player with its other data at once."""
    header = request.headers.get("Authorization", "")
    if not header:
        if required:
            raise Unauthorized("Send 'Authorization: Bearer <token>'.")
        return None
    token = bearer_token(header)
    if token is None:
        raise Unauthorized("Malformed Authorization header; expected a Bearer token.",
                           code="bad_token")
    return hash_token(token)


def known_token(pid: str | None) -> str:
    """The player a token hash resolved to; a 401 if it resolved to none."""
    if pid is None:
        raise Unauthorized("Unknown or revoked token.", code="bad_token")
    return pid


def authenticate(required: bool = True) -> Caller | None:
    """The request's bearer token resolved to its player (None when optional and absent)."""
    digest = bearer_digest(required)
    if digest is None:
        return None
    return Caller(known_token(current_app.extensions["parley_store"].player_for_token(digest)),
                  digest)


def current_player(required: bool = True) -> str | None:
    """The player id of the request's bearer token (None when optional and absent)."""
    caller = authenticate(required)
    return caller.player if caller else None


def require_self(player: str) -> str:
    """The caller's player id, which must be `player`."""
    return require_self_caller(player).player


def require_self_caller(player: str) -> Caller:
    """The caller (player and token hash), who must be `player`."""
    caller = authenticate()
    assert caller is not None
    if caller.player != player:
        raise Forbidden("A player may change only their own account.", code="not_owner")
    return caller


# ---- the player's tokens ---------------------------------------------------------------------


def index_token(store: Store, pid: str, digest: str, created_at: str | None = None) -> None:
    """Record a token of the player under its id (the hash -> player key is the store's)."""
    store.index_token(pid, token_id(digest),
                      json.dumps({"hash": digest, "created_at": created_at or now_iso()}))


def list_tokens(store: Store, caller: Caller) -> list[dict[str, object]]:
    """The player's live tokens by id (never their values), the caller's own marked."""
    out = []
    found_current = False
    for tid, raw in sorted(store.token_index(caller.player).items()):
        record = json.loads(raw)
        if store.player_for_token(record["hash"]) != caller.player:
            continue  # revoked meanwhile (the index is repaired on the next revoke)
        current = same_hash(record["hash"], caller.token_hash)
        found_current = found_current or current
        out.append({"id": tid, "created_at": record.get("created_at"), "current": current})
    if not found_current:  # a token issued before the index existed
        out.append({"id": token_id(caller.token_hash), "created_at": None, "current": True})
    return out


def issue_token(store: Store, caller: Caller, rotate: bool) -> tuple[str, str, str]:
    """A new token for the caller's player -> (token, id, created_at); with `rotate` the
    caller's token stops working. The new token is stored before the old one is deleted, so a
    crash in between leaves both valid rather than none."""
    token, digest = new_token()
    created = now_iso()
    store.add_token(caller.player, digest)
    index_token(store, caller.player, digest, created)
    if rotate:
        revoke(store, caller.player, caller.token_hash)
    return token, token_id(digest), created


def find_token(store: Store, pid: str, tid: str, caller: Caller) -> str | None:
    """The hash of the player's token with this id, if it is live."""
    raw = store.token_record(pid, tid)
    if raw is not None:
        digest = json.loads(raw)["hash"]
    elif hmac.compare_digest(tid.encode(), token_id(caller.token_hash).encode()):
        digest = caller.token_hash  # the caller's own token, issued before the index existed
    else:
        return None
    return digest if store.player_for_token(digest) == pid else None


def revoke(store: Store, pid: str, digest: str) -> None:
    """The token stops working at once (its hash key is deleted) and leaves the index."""
    store.revoke_token(pid, digest, token_id(digest))
