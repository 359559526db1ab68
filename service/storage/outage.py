"""Which Redis errors mean "a Redis, or one node of the store's cluster, is away for now".

Such a failure is no fault of the server's: the request changed nothing it had not already
made safe (a move is acknowledged only once stored, and a re-post of the same envelope is
idempotent), so the web and the stream process answer it 503 `unavailable` with
`Retry-After`, never 500 (docs/operations.md "What a client sees during a fault").

One Redis away shows as a `ConnectionError` or a `TimeoutError` (a restart's `LOADING` is a
`BusyLoadingError`, a `ConnectionError` too). A cluster says more ways, all of them while a
node is down or the topology changes (a node's restart, a failover):

- `ClusterDownError` and `MasterDownError` (both `ClusterError`): the cluster, or the slot's
  master, is failed; `TryAgainError`: a slot is being moved;
- `MovedError` and `AskError`, when redis-py's redirections ran out of retries;
- `ReadOnlyError`: a write reached a master just demoted to a replica;
- `SlotNotCoveredError`: no node known serves the slot;
- a plain `RedisClusterException` when no startup node can be reached to learn the topology
  again, or the nodes learnt leave slots uncovered (redis-py has no class of its own for
  these; its message is the only mark).

Any other error (a script's error, a wrong type, a cross-slot command) is a fault of the
server's and stays a 500.
"""

from __future__ import annotations

import redis
from redis.exceptions import (
    AskError,
    ClusterError,
    ReadOnlyError,
    RedisClusterException,
    SlotNotCoveredError,
    TryAgainError,
)

#: exceptions that always mean a Redis (or a store node) is unreachable for now
UNREACHABLE: tuple[type[BaseException], ...] = (
    redis.ConnectionError, redis.TimeoutError, ClusterError, TryAgainError, AskError,
    ReadOnlyError, SlotNotCoveredError)
#: the messages of redis-py's plain `RedisClusterException` that mean the same
_CLUSTER_AWAY = ("cannot be connected", "are not covered")
#: how long a client should wait before sending the same request again
RETRY_AFTER = "5"


def is_outage(err: BaseException) -> bool:
    """Whether `err` means a Redis or a store node is away (a 503), not a server fault."""
    if isinstance(err, UNREACHABLE):
        return True
    return type(err) is RedisClusterException and any(m in str(err) for m in _CLUSTER_AWAY)
#: what the problem document's `detail` says
OUTAGE_DETAIL = ("The game store or the queue's Redis does not answer just now; nothing was "
                 "changed. Send the same request again after Retry-After seconds.")
