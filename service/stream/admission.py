"""Who may hold a stream or a long poll of the stream process, and how many at once.

Every request there holds a connection, and a connection is a file descriptor: a ticket is
taken once (the first request that shows it; the API hands out a fresh one with each
redirect), and a player, and an address, hold at most so many streams and so many long polls
at once (Config `MAX_STREAMS_PER_*`, `MAX_POLLS_PER_*`). A request over a cap is refused
before it holds anything: 429 `rate_limited` with Retry-After, as by the API's own limits,
and PARLEY_RATE_LIMITS=0 turns the caps off with those. The
address is the peer's, or with PARLEY_PROXY_HOPS the one the trusted proxies forwarded, read
as the web processes read it (werkzeug's ProxyFix), so a cap counts clients, not the proxy.

`/metrics` is for the scraper alone, as the web processes' is: with PARLEY_METRICS_TOKEN set
it needs that bearer token, without it a loopback client.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections import Counter
from collections.abc import Iterator
from typing import Any

import redis.asyncio

from service.domain.live_feed import TICKET_SECONDS, check_ticket
from service.domain.problems import Problem

#: marks a ticket taken, until it has expired for sure
TAKEN_TICKET_KEY = "parley:ticket-taken:{}"
#: the Retry-After of a request over a cap: the time for a stream or a poll to close
RETRY_AFTER_SECONDS = 5


class BadTicket(Problem):
    status, code, title = 401, "bad_ticket", "A valid stream ticket is required"


class TooMany(Problem):
    status, code, title = 429, "rate_limited", "Too many open connections"


def player_of(server_key: Any, value: str) -> str:
    """The player a valid, unexpired ticket names; BadTicket otherwise."""
    pid = check_ticket(server_key, value)
    if pid is None:
        raise BadTicket("The ticket is missing, wrong or expired: open the stream or the long "
                        "poll through the API, which redirects with a fresh one.")
    return pid


async def take_ticket(r: redis.asyncio.Redis, value: str) -> None:
    """Mark a valid ticket used; BadTicket if it was already. In Redis, so that it holds
    for every stream process and across a restart."""
    digest = hashlib.sha256(value.encode()).hexdigest()[:32]
    if not await r.set(TAKEN_TICKET_KEY.format(digest), "1", nx=True, ex=TICKET_SECONDS + 1):
        raise BadTicket("This ticket was used already: each opens one stream or long poll. "
                        "Go through the API again for a fresh one.")


class Quota:
    """The connections of one kind (streams, polls) held at once, per player and per
    address, each under its cap."""

    def __init__(self, kind: str, per_player: int, per_address: int,
                 enforced: bool = True) -> None:
        self.kind = kind
        self.caps = {"player": per_player, "address": per_address}
        self.enforced = enforced  # PARLEY_RATE_LIMITS=0 turns the caps off with the API's
        self.held: Counter[str] = Counter()

    @contextlib.contextmanager
    def hold(self, pid: str | None, address: str) -> Iterator[None]:
        """Count one connection of the player (if any) and of the address while the block
        runs; TooMany, and nothing counted, if either holds its cap already."""
        keys = [("address", f"a:{address}")] + ([("player", f"p:{pid}")] if pid else [])
        for who, key in keys:
            if self.enforced and self.held[key] >= self.caps[who]:
                raise TooMany(f"This {who} holds {self.caps[who]} open {self.kind} already: "
                              f"close one, or retry after Retry-After seconds.",
                              headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
                              limit=self.caps[who])
        for _, key in keys:
            self.held[key] += 1
        try:
            yield
        finally:
            for _, key in keys:
                self.held[key] -= 1
                if not self.held[key]:
                    del self.held[key]


def client_address(peer: str | None, forwarded: list[str], hops: int) -> str:
    """The client's address: the `hops`-th of the X-Forwarded-For values from the right when
    that many proxies are trusted and named it, else the peer's."""
    values = [v.strip() for header in forwarded for v in header.split(",")]
    if hops and len(values) >= hops and values[-hops]:
        return values[-hops]
    return peer or ""
