"""RQ's side: the queue connection (separate from the game store) and job enqueueing."""

from __future__ import annotations

import redis
from rq import Queue, Retry

#: a resolve job drains one game; it waits for a lock at most PARLEY_LOCK_WAIT seconds
RESOLVE_TIMEOUT = 120


def queue_connection(url: str) -> redis.Redis:
    """RQ stores pickled job data, so its connection must not decode responses."""
    return redis.Redis.from_url(url, socket_timeout=10, socket_connect_timeout=5,
                                health_check_interval=30)


def make_queue(url: str, name: str) -> Queue:
    return Queue(name, connection=queue_connection(url))


def enqueue_resolve(queue: Queue, gid: str) -> None:
    """One resolve job for the game (the caller made sure no other is waiting)."""
    queue.enqueue("workers.resolve.resolve_game", gid, job_timeout=RESOLVE_TIMEOUT,
                  result_ttl=0, failure_ttl=7 * 86400,
                  retry=Retry(max=5, interval=[1, 2, 5, 10, 30]))
