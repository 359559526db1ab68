"""Refuse to run on a Redis that could lose acknowledged moves.

A game store must not evict keys (`maxmemory-policy noeviction`) and must persist (AOF on).
Checked when the web and worker processes start; `PARLEY_ALLOW_UNSAFE_REDIS=1` overrides (for a
managed Redis that hides CONFIG, or a throwaway test instance), and says so in the log.
"""

from __future__ import annotations

import logging
import time

import redis

from service.config import Config

log = logging.getLogger(__name__)

#: how long a process starting up waits for its Redis (well inside a supervisor's start timeouts)
START_WAIT_SECONDS = 15.0


class UnsafeRedis(RuntimeError):
    """The Redis settings could lose data; the message says which and how to fix it."""


def problems(client: redis.Redis) -> list[str]:
    """What is wrong with this Redis's durability settings (empty: nothing)."""
    try:
        policy = client.config_get("maxmemory-policy").get("maxmemory-policy")
        aof = client.config_get("appendonly").get("appendonly")
    except redis.ResponseError as err:
        return [f"cannot read the Redis configuration ({err}); CONFIG may be disabled"]
    found = []
    if policy != "noeviction":
        found.append(f"maxmemory-policy is {policy!r}: set it to 'noeviction' so that no game "
                     "key is ever evicted")
    if aof != "yes":
        found.append("appendonly is 'no': turn AOF on so that acknowledged moves survive a "
                     "restart")
    return found


def _wait_until_up(client: redis.Redis) -> None:
    """Processes started together (a Procfile runner starts every line at once) may come up
    before their Redis: wait for it a while rather than fail."""
    deadline = time.monotonic() + START_WAIT_SECONDS
    while True:
        try:
            client.ping()
            return
        except redis.ConnectionError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def ensure_safe(url: str, what: str) -> None:
    """Raise UnsafeRedis unless the Redis at `url` is safe or the override is set (waiting up
    to START_WAIT_SECONDS for it to answer)."""
    client = redis.Redis.from_url(url, socket_timeout=10, socket_connect_timeout=5)
    _wait_until_up(client)
    found = problems(client)
    if not found:
        return
    if Config().ALLOW_UNSAFE_REDIS:
        for item in found:
            log.warning("%s: %s (allowed by PARLEY_ALLOW_UNSAFE_REDIS=1)", what, item)
        return
    raise UnsafeRedis(f"refusing to start: the {what} Redis is unsafe: " + "; ".join(found) +
                      ". Set PARLEY_ALLOW_UNSAFE_REDIS=1 to override.")
