"""The move POST's rate limits charged outside a Flask request, for the fast path.

flask-limiter charges the app's requests; the fast path answers a move without the app, so it
charges the same counters itself: flask-limiter's own strategy and identifiers, and, where the
counters live on the store's Redis, `limits`' own increment script riding in the move's round
trips. This module is the one place that relies on `limits` internals
(`RedisStorage.lua_incr_expire`, `prefixed_key`, `RateLimitItem.key_for`), with the script
ACCEPT_FORESEEN, which charges the same counters the way `lua_incr_expire` does;
tests/api/test_hotpaths.py and tests/api/test_foresight.py fail if a new release changes them.
"""

from __future__ import annotations

import functools
from typing import Any

from flask import Flask
from limits import RateLimitItem, parse_many
from limits.storage import RedisStorage
from limits.strategies import FixedWindowRateLimiter

from service.config import Config
from service.storage.store import Command, same_server
from service.web.limits import (
    ADDRESS_CHARGED,
    KEY_PREFIX,
    SIGNER_CHARGED,
    address_of,
    signer_of,
)


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

    def foreseen_counters(self) -> tuple[list[tuple[str, int, int]], list[tuple[str, int, int]]]:
        return ([(counter, item.amount, item.get_expiry()) for item, counter in self.address],
                [(counter, item.amount, item.get_expiry()) for item, counter in self.player])

    def foreseen(self, outcome: str, detail: Any) -> None:
        """ACCEPT_FORESEEN (or SETTLE_FORESEEN) charged the address unless the address broke
        its limit (then the app counts it again and refuses, as after `check`); and the signer
        with the move."""
        if outcome == "limit" and detail == "address":
            raise QuotaBreached
        self.address_charged = True
        if outcome == "limit":
            raise QuotaBreached
        self.signer_charged = outcome in ("ok", "settled")

    def mark(self, environ: dict[str, Any]) -> None:
        """Before a hand-over: the app must not charge again what this request was charged."""
        if self.address_charged:
            environ[ADDRESS_CHARGED] = True
        if self.signer_charged:
            environ[SIGNER_CHARGED] = True
