"""Limits on abusive traffic: rate limits (flask-limiter, counted in Redis) and per-player caps.

Rate limits (docs/operations.md "Limits") apply to the three requests that create something:
posting a move, registering a player and creating a game. Each is limited per client address and
per player:

- a move carries no bearer token: its player is the owner of the envelope's `key_id`, and that
  limit is charged only for envelopes whose signature verified (a stranger who copies someone's
  key id from an audit bundle cannot use up that player's allowance);
- a batch of moves (`POST /v1/moves`) shares the quota of single moves, one unit per envelope
  (per signed envelope for the player's limit);
- a single move answered by the fast path (service/web/fastpath) is charged by `MoveQuota`,
  into the same counters and in the same order;
- game creation is limited per bearer token (a digest of it: no token is ever a Redis key or a
  log line) and per address; registration per address.

The counters live in the queue's Redis (`REDIS_URL`, keys `parley-rl/...`), so every web process
counts together; a refused request is `429` problem JSON `rate_limited` with `Retry-After`.
When that Redis is unreachable the limits fail open (logged): the request itself then meets the
store's own errors. Limits are read from the app's `Config` on every request, so a test sets
its own with a Config subclass; PARLEY_RATE_LIMITS=0 turns them off.

Caps bound what one player can hold: games not started yet (`too_many_open_games`), keys, and
tokens (service/web/api/players.py).
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import time
from collections.abc import Callable
from typing import Any

from flask import Flask, Response, current_app, g, request
from flask_limiter import Limiter
from limits import RateLimitItem, parse_many
from limits.storage import RedisStorage
from limits.strategies import FixedWindowRateLimiter
from werkzeug.exceptions import HTTPException

from service.config import Config
from service.domain.problems import Conflict
from service.storage.store import Command, Store, same_server
from service.web.api.common_schemas import ProblemSchema
from service.web.api.move_schemas import MAX_BATCH
from service.web.auth import bearer_token

log = logging.getLogger(__name__)

KEY_PREFIX = "parley-rl"
#: problem codes a move gets before its signature is checked (not charged to the key's player)
UNSIGNED_CODES = frozenset({"invalid_json", "invalid_envelope", "malformed_move", "wrong_game",
                            "invalid_request", "unknown_key", "bad_signature",
                            "payload_too_large"})
#: statuses of a game that has not started: it counts against the player's open-games cap
NOT_STARTED = ("open", "full")


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


#: set in a WSGI environ by the fast path once it has charged the request's address: the
#: app's own address limit of a single move then leaves that request alone
ADDRESS_CHARGED = "parley.moves_address_charged"
#: set by the fast path once it has charged the signer (its charge rode with the append): the
#: app's signer limit then neither tests nor charges that request again
SIGNER_CHARGED = "parley.moves_signer_charged"


def _address_charged() -> bool:
    return bool(request.environ.get(ADDRESS_CHARGED))


def _signer_charged() -> bool:
    return bool(request.environ.get(SIGNER_CHARGED))


@functools.lru_cache(maxsize=64)
def _items(spec: str) -> list[RateLimitItem]:
    return sorted(parse_many(spec))  # in flask-limiter's order


class QuotaBreached(Exception):
    """A move over its rate limit: the app answers it (its 429, with its headers)."""


class MoveQuota:
    """The single move POST's rate limits, charged outside a Flask request by the fast path
    (service/web/fastpath), in the order the app charges them.

    The counters are the ones flask-limiter keeps for `POST /v1/games/<id>/moves`: its own
    strategy object, and the identifiers it passes (key prefix, key, scope), so a move counts
    once whichever path answers it (tests/api/test_hotpaths.py checks that both paths share
    one quota). The address is charged first, as the app does; the signer's allowance is tested
    before the move and charged once it is accepted.

    When the counters live on the game store's Redis (the default: both on `REDIS_URL`) and
    flask-limiter counts in fixed windows, they ride in the move's own round trips instead
    (`charges`, a `service.domain.accept.Rider`): the address's charge and the signer's test with
    the
    context reads, the signer's charge with the append. Otherwise each is a round trip of its
    own through the strategy (`charge_address`, `allows`, `charge`)."""

    def __init__(self, app: Flask) -> None:
        self.limiter = app.extensions["parley_limiter"]
        self.store = app.extensions["parley_store"]
        self.config: Config = app.config["PARLEY"]
        strategy = self.limiter.limiter
        storage = strategy.storage
        #: limits' own INCRBY-and-EXPIRE script, what `FixedWindowRateLimiter.hit` runs; None
        #: when the counters cannot ride (another store, strategy or version of `limits`)
        self.incr_script: str | None = None
        script = getattr(storage, "lua_incr_expire", None)
        if (isinstance(strategy, FixedWindowRateLimiter) and type(storage) is RedisStorage
                and script is not None and hasattr(storage, "prefixed_key")
                and same_server(storage.get_connection(), self.store.r)):
            self.incr_script = script.script
        self.storage = storage

    def signer(self, body: Any) -> str | None:
        """The signer's limit key, or None when the body names no known key (the app
        answers that envelope)."""
        key = signer_of(body, self.store)
        return key if key.startswith("player:") and key != "player:none" else None

    def charges(self, environ: dict[str, Any], signer: str) -> MoveCharges | None:
        """The request's charges as a rider of the move's round trips, or None when they
        cannot ride (the counters live elsewhere, or in another kind of window)."""
        if self.incr_script is None:
            return None
        return MoveCharges(self, environ, signer)

    def charge_address(self, environ: dict[str, Any]) -> bool:
        """Count the request against its address; False if that broke a limit."""
        key = address_of(environ.get("REMOTE_ADDR"))  # request.remote_addr, without a request
        strategy = self.limiter.limiter
        return all(strategy.hit(item, KEY_PREFIX, key, "moves-address")
                   for item in _items(self.config.LIMIT_MOVES_PER_ADDRESS))

    def allows(self, signer: str) -> bool:
        strategy = self.limiter.limiter
        return all(strategy.test(item, KEY_PREFIX, signer, "moves-player")
                   for item in _items(self.config.LIMIT_MOVES_PER_PLAYER))

    def charge(self, signer: str) -> None:
        strategy = self.limiter.limiter
        for item in _items(self.config.LIMIT_MOVES_PER_PLAYER):
            strategy.hit(item, KEY_PREFIX, signer, "moves-player")

    def counter(self, item: RateLimitItem, key: str, scope: str) -> str:
        """The Redis key of flask-limiter's counter for `item` (limits' own key scheme)."""
        return self.storage.prefixed_key(item.key_for(KEY_PREFIX, key, scope))


class MoveCharges:
    """One move POST's rate limits as a rider of its round trips (`service.domain.accept.Rider`):
    exactly the commands `FixedWindowRateLimiter` sends (limits' script for a hit, GET for a
    test) on the same keys, in the same order, only sharing the move's pipelines.

    `mark` tells the app, when the request is handed over after all, what was charged."""

    def __init__(self, quota: MoveQuota, environ: dict[str, Any], signer: str) -> None:
        self.script = quota.incr_script
        address = address_of(environ.get("REMOTE_ADDR"))
        self.address = [(item, quota.counter(item, address, "moves-address"))
                        for item in _items(quota.config.LIMIT_MOVES_PER_ADDRESS)]
        self.player = [(item, quota.counter(item, signer, "moves-player"))
                       for item in _items(quota.config.LIMIT_MOVES_PER_PLAYER)]
        self.address_charged = self.signer_charged = False

    def _hit(self, item: RateLimitItem, counter: str) -> Command:
        # EVAL with the text, not EVALSHA: Redis caches it by digest all the same, and a
        # restarted Redis cannot fail the move's pipeline with NOSCRIPT for a counter
        return ("EVAL", self.script, 1, counter, item.get_expiry(), 1)

    def with_context(self) -> list[Command]:
        return ([self._hit(item, counter) for item, counter in self.address]
                + [("GET", counter) for _, counter in self.player])

    def check(self, replies: list[Any]) -> None:
        hits, tests = replies[:len(self.address)], replies[len(self.address):]
        if any(int(count) > item.amount for (item, _), count in zip(self.address, hits,
                                                                     strict=True)):
            raise QuotaBreached  # unmarked: the app counts it again and refuses, as before
        self.address_charged = True
        if any(int(count or 0) >= item.amount for (item, _), count in zip(self.player, tests,
                                                                           strict=True)):
            raise QuotaBreached

    def with_append(self) -> list[Command]:
        self.signer_charged = True  # not charged twice if the outcome is unknown
        return [self._hit(item, counter) for item, counter in self.player]

    def mark(self, environ: dict[str, Any]) -> None:
        """Before a hand-over: the app must not charge again what this request was charged."""
        if self.address_charged:
            environ[ADDRESS_CHARGED] = True
        if self.signer_charged:
            environ[SIGNER_CHARGED] = True


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


# ---- caps ------------------------------------------------------------------------------------


def count_open_games(store: Store, pid: str) -> int:
    """How many of the player's created or joined games have not started; prunes the rest.

    Single-key commands only (the set and each game's meta live in different cluster slots).
    """
    count = 0
    for gid in store.open_game_ids(pid):
        if store.game_status(gid) in NOT_STARTED:
            count += 1
        else:
            store.forget_open_game(pid, gid)
    return count


def check_open_games(store: Store, pid: str, cap: int, gid: str | None = None) -> None:
    """Refuse (409 `too_many_open_games`) a player holding `cap` games that have not started.

    `gid`: the game being joined; a game already counted for the player is no new one.
    """
    if gid is not None and store.holds_open_game(pid, gid):
        return
    if count_open_games(store, pid) >= cap:
        raise Conflict(f"You already hold {cap} games that have not started; wait until one "
                       f"starts or finishes (PARLEY_MAX_OPEN_GAMES).",
                       code="too_many_open_games", limit=cap)


def track_open_game(store: Store, pid: str, gid: str) -> None:
    store.track_open_game(pid, gid)
