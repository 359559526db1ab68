"""Limits on abusive traffic: rate limits (flask-limiter, counted in Redis) and per-player caps.

Rate limits (docs/operations.md "Limits") apply to the three requests that create something:
posting a move, registering a player and creating a game. Each is limited per client address and
per player:

- a move carries no bearer token: its player is the owner of the envelope's `key_id`, and that
  limit is charged only for envelopes whose signature verified (a stranger who copies someone's
  key id from an audit bundle cannot use up that player's allowance);
- a batch of moves (`POST /v1/moves`) shares the quota of single moves, one unit per envelope
  (per signed envelope for the player's limit);
- a single move answered by the fast path is charged by `service.web.fastpath.quota`, into
  the same counters and in the same order;
- game creation is limited per bearer token (a digest of it: no token is ever a Redis key or a
  log line) and per address; registration per address.

The counters live in the queue's Redis (`REDIS_URL`, keys `parley-rl/...`), so every web process
counts together; a refused request is `429` problem JSON `rate_limited` with `Retry-After`.
When that Redis is unreachable the limits fail open (logged): the request itself then meets the
store's own errors. Limits are read from the app's `Config` on every request, so a test sets
its own with a Config subclass; PARLEY_RATE_LIMITS=0 turns them off.

Caps bound what one player can hold: games not started yet (`too_many_open_games`,
service/domain/open_games.py), keys, and tokens (service/web/api/players.py).
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Callable
from typing import Any

from flask import Flask, Response, current_app, g, request
from flask_limiter import Limiter
from werkzeug.exceptions import HTTPException

from service.config import Config
from service.storage.store import Store
from service.web.api.common_schemas import ProblemSchema
from service.web.api.move_schemas import MAX_BATCH
from service.web.auth import bearer_token

log = logging.getLogger(__name__)

KEY_PREFIX = "parley-rl"
#: set in a WSGI environ by the fast path once it has charged the request's address: the
#: app's own address limit of a single move then leaves that request alone
ADDRESS_CHARGED = "parley.moves_address_charged"
#: set by the fast path once it has charged the signer (its charge rode with the append): the
#: app's signer limit then neither tests nor charges that request again
SIGNER_CHARGED = "parley.moves_signer_charged"
#: problem codes a move gets before its signature is checked (not charged to the key's player)
UNSIGNED_CODES = frozenset({"invalid_json", "invalid_envelope", "malformed_move", "wrong_game",
                            "invalid_request", "unknown_key", "bad_signature",
                            "payload_too_large"})
#: statuses of a game that has not started: it counts against the player's open-games cap


#: keyword arguments of `blp.alt_response` documenting a 429 answer
RATE_LIMITED = {"schema": ProblemSchema, "content_type": "application/problem+json",
                "description": "rate limit exceeded (`rate_limited`)",
                "headers": {
                    "Retry-After": {"description": "seconds until a retry may succeed",
                                    "schema": {"type": "integer"}},
                    "X-RateLimit-Limit": {"description": "requests allowed in the broken "
                                          "limit's window", "schema": {"type": "integer"}},
                    "X-RateLimit-Remaining": {"description": "requests left in that window (0)",
                                              "schema": {"type": "integer"}},
                    "X-RateLimit-Reset": {"description": "when that window ends, Unix seconds",
                                          "schema": {"type": "integer"}}}}


def config() -> Config:
    """The app's configuration (limits and caps are read per request)."""
    return current_app.config["PARLEY"]


def address_key() -> str:
    """The client's address (behind PARLEY_PROXY_HOPS trusted proxies: the forwarded one)."""
    return address_of(request.remote_addr)


def address_of(remote_addr: str | None) -> str:
    return "addr:" + (remote_addr or "unknown")


def token_key() -> str:
    """A digest of the bearer token (the token itself never becomes a key or a log line);
    requests without one share their address's bucket."""
    token = bearer_token(request.headers.get("Authorization", ""))
    if token is None:
        return address_key()
    digest = hashlib.sha256(b"parley-rate-limit-v1\n" + token.encode()).hexdigest()
    return "tok:" + digest[:32]


#: key id -> owning player, for the keys this process has seen sign a move. A key never
#: changes owner (ids are random and never reused); a revoked key stays here harmlessly, since
#: its envelopes fail as `unknown_key`, which is never charged.
_KEY_OWNERS: dict[str, str] = {}
KEY_OWNERS_MAX = 100_000


def signer_key() -> str:
    """The player owning the envelope's `key_id` (the move's author, once the signature holds).

    flask-limiter asks twice per move (before the view, and after it for the deduction): the
    answer is kept for the request, and the key's owner for the process, so a move costs no
    Redis call here once its key is known."""
    if "parley_signer" not in g:
        g.parley_signer = _signer()
    return g.parley_signer


def _signer() -> str:
    return signer_of(_body(), current_app.extensions["parley_store"])


def signer_of(body: Any, store: Store) -> str:
    """The limit key of a move's (or a batch's) signer, from its parsed body: `player:<id>`,
    or `signer:none` / `player:none` when the body names no key / an unknown one."""
    if isinstance(body, dict) and isinstance(body.get("envelopes"), list):  # a batch: one key
        body = body["envelopes"][0] if body["envelopes"] else None
    key_id = body.get("key_id") if isinstance(body, dict) else None
    if not isinstance(key_id, str) or not 0 < len(key_id) <= 64:
        return "signer:none"
    owner = _KEY_OWNERS.get(key_id)
    if owner is None:
        key = store.key(key_id)
        if not key or "player" not in key:
            return "player:none"
        owner = key["player"]
        if len(_KEY_OWNERS) >= KEY_OWNERS_MAX:
            _KEY_OWNERS.clear()
        _KEY_OWNERS[key_id] = owner
    return "player:" + owner


def _body() -> Any:
    """The request's JSON body, parsed once for the limits (None if it is not JSON)."""
    if "parley_body" not in g:
        try:
            g.parley_body = json.loads(request.get_data(cache=True) or b"null")
        except (HTTPException, ValueError, RecursionError):
            g.parley_body = None
    return g.parley_body


def batch_cost() -> int:
    """A batch of moves costs one request per envelope (at least one, at most a batch's)."""
    body = _body()
    envelopes = body.get("envelopes") if isinstance(body, dict) else None
    return min(max(len(envelopes), 1), MAX_BATCH) if isinstance(envelopes, list) else 1


def breach_headers() -> dict[str, str]:
    """`Retry-After` and `X-RateLimit-*` for a 429: the breached limit's window.

    flask-limiter's own headers are off: it adds them to every response of a limited endpoint,
    which costs two more Redis reads per move. A refused request is the one that needs them."""
    limit = current_app.extensions["parley_limiter"].current_limit
    if limit is None:
        return {"Retry-After": "1"}
    reset_at = limit.reset_at
    return {"Retry-After": str(max(1, int(reset_at - time.time()))),
            "X-RateLimit-Limit": str(limit.limit.amount),
            "X-RateLimit-Remaining": str(limit.remaining),
            "X-RateLimit-Reset": str(reset_at)}


def signed_move(response: Response) -> bool:
    """Charge the signer's limit only when the envelope's signature was checked and held."""
    if response.status_code in (202, 403, 409):
        return True
    if response.status_code != 422:
        return False
    body = response.get_json(silent=True) or {}
    return body.get("code") not in UNSIGNED_CODES


def note_signed(outcomes: list[Any]) -> None:
    """Count a batch's envelopes whose signature held (accepted, or refused after the check):
    what the batch charges its signer."""
    g.parley_signed = sum(1 for outcome in outcomes
                          if getattr(outcome, "code", None) not in UNSIGNED_CODES)


def signed_cost() -> int:
    """The signer's charge for a batch: its signed envelopes once they are counted; before
    the view runs (the window test), the whole batch."""
    return g.get("parley_signed", batch_cost())


def signed_batch(response: Response) -> bool:
    """Charge the signer for a batch only if any of its envelopes was signed by the key."""
    return response.status_code == 200 and g.get("parley_signed", 0) > 0


def _address_charged() -> bool:
    return bool(request.environ.get(ADDRESS_CHARGED))


def _signer_charged() -> bool:
    return bool(request.environ.get(SIGNER_CHARGED))


def _limit(name: str) -> Callable[[], str]:
    return lambda: getattr(config(), name)


def init_limits(app: Flask, config: Config) -> Limiter:
    """Bind flask-limiter to the app and attach the limits to the endpoints they guard.

    Call after the blueprints are registered: the limits wrap the registered view functions.
    """
    app.config.update({
        "RATELIMIT_ENABLED": config.RATE_LIMITS_ENABLED,
        "RATELIMIT_HEADERS_ENABLED": False,  # a 429 gets them from `breach_headers`
        "RATELIMIT_SWALLOW_ERRORS": True,
        "RATELIMIT_STORAGE_URI": config.RATE_LIMIT_STORAGE,
        # every Redis call has a timeout: a hung Redis cannot hang a web process
        "RATELIMIT_STORAGE_OPTIONS": {"socket_timeout": 5, "socket_connect_timeout": 5}
        if config.RATE_LIMIT_STORAGE.startswith(("redis://", "rediss://")) else {},
        "RATELIMIT_KEY_PREFIX": KEY_PREFIX,
    })
    limiter = Limiter(address_key, app=app)
    guarded: dict[str, list[Any]] = {
        # one quota for single and batched moves: a batch counts each envelope
        "moves.Moves": [
            limiter.shared_limit(_limit("LIMIT_MOVES_PER_ADDRESS"), methods=["POST"],
                                 key_func=address_key, scope="moves-address",
                                 exempt_when=_address_charged),
            limiter.shared_limit(_limit("LIMIT_MOVES_PER_PLAYER"), methods=["POST"],
                                 key_func=signer_key, deduct_when=signed_move,
                                 scope="moves-player", exempt_when=_signer_charged),
        ],
        "batch.MoveBatch": [
            limiter.shared_limit(_limit("LIMIT_MOVES_PER_ADDRESS"), methods=["POST"],
                                 key_func=address_key, scope="moves-address", cost=batch_cost),
            limiter.shared_limit(_limit("LIMIT_MOVES_PER_PLAYER"), methods=["POST"],
                                 key_func=signer_key, deduct_when=signed_batch,
                                 scope="moves-player", cost=signed_cost),
        ],
        "players.Players": [
            limiter.limit(_limit("LIMIT_REGISTER_PER_ADDRESS"), methods=["POST"],
                          key_func=address_key, scope="register-address"),
        ],
        "games.Games": [
            limiter.limit(_limit("LIMIT_CREATE_PER_ADDRESS"), methods=["POST"],
                          key_func=address_key, scope="create-address"),
            limiter.limit(_limit("LIMIT_CREATE_PER_PLAYER"), methods=["POST"],
                          key_func=token_key, scope="create-player"),
        ],
    }
    for endpoint, limits in guarded.items():
        view = app.view_functions[endpoint]
        for lim in limits:
            view = lim(view)
        app.view_functions[endpoint] = view
    app.extensions["parley_limiter"] = limiter
    return limiter
