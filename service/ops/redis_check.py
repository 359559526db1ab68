"""Refuse to run on a Redis that could lose acknowledged moves.

A game store must not evict keys (`maxmemory-policy noeviction`) and must persist (AOF on).
Checked when the web and worker processes start; `PARLEY_ALLOW_UNSAFE_REDIS=1` overrides (for a
managed Redis that hides CONFIG, or a throwaway test instance), and says so in the log.

A node of a Redis Cluster stands for itself only: each holds its own settings, and a game's
moves live on its slot's master and that master's replicas (which become masters in a
failover). So a URL naming a cluster node gets every node the cluster knows checked, masters
and replicas alike; a node that does not answer is named in the log, not refused (the cluster
serves without it, and a start must not wait for it).
"""

from __future__ import annotations

import logging
import time
from urllib.parse import urlsplit, urlunsplit

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


def _node_url(url: str, host: str, port: int) -> str:
    """`url` (its scheme, credentials and options) pointed at another node."""
    parts = urlsplit(url)
    userinfo = parts.netloc.rpartition("@")[0]
    address = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    return urlunsplit(parts._replace(netloc=f"{userinfo}@{address}" if userinfo else address))


def _every_node_problems(url: str, client: redis.Redis, what: str) -> list[str]:
    """`problems` of `client`'s Redis; of every node its cluster knows if it is a cluster
    node, each named by its address."""
    try:
        clustered = client.info("cluster").get("cluster_enabled") == 1
    except redis.ResponseError:  # INFO hidden (a managed Redis): no cluster to walk
        clustered = False
    if not clustered:
        return problems(client)
    found = []
    for address, node in client.execute_command("CLUSTER NODES").items():
        host, _, port = address.partition("@")[0].rpartition(":")
        if "noaddr" in node["flags"] or "handshake" in node["flags"] or port in ("", "0"):
            continue
        host = host or client.connection_pool.connection_kwargs["host"]  # '' is the same host
        other = redis.Redis.from_url(_node_url(url, host, int(port)), socket_timeout=10,
                                     socket_connect_timeout=5)
        try:
            found += [f"node {host}:{port}: {item}" for item in problems(other)]
        except redis.RedisError as err:
            log.warning("%s: cluster node %s:%s not checked: %s", what, host, port, err)
        finally:
            other.close()
    return found


def ensure_safe(url: str, what: str) -> None:
    """Raise UnsafeRedis unless the Redis at `url` (every node, for a cluster's) is safe or
    the override is set (waiting up to START_WAIT_SECONDS for it to answer)."""
    client = redis.Redis.from_url(url, socket_timeout=10, socket_connect_timeout=5)
    _wait_until_up(client)
    found = _every_node_problems(url, client, what)
    if not found:
        return
    if Config().ALLOW_UNSAFE_REDIS:
        for item in found:
            log.warning("%s: %s (allowed by PARLEY_ALLOW_UNSAFE_REDIS=1)", what, item)
        return
    raise UnsafeRedis(f"refusing to start: the {what} Redis is unsafe: " + "; ".join(found) +
                      ". Set PARLEY_ALLOW_UNSAFE_REDIS=1 to override.")
