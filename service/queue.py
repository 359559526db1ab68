"""RQ's side: the queue connection (separate from the game store) and job enqueueing.

Resolve jobs carry their game in their id (`resolve-<game id>-<random>`), so that a running
resolve job can take over other games' waiting jobs straight from the queue (`claim_waiting`):
under load one RQ job then resolves the moves of several games (docs/performance.md).
"""

from __future__ import annotations

import secrets

import redis
from redis.commands.core import Script
from rq import Queue, Retry
from rq.job import Job

#: a resolve job drains one game (and maybe others, bounded); it waits for a lock at most
#: PARLEY_LOCK_WAIT seconds
RESOLVE_TIMEOUT = 120
RESOLVE_FUNC = "workers.resolve.resolve_game"
RESOLVE_PREFIX = "resolve-"

# KEYS: the queue's list; ARGV: how many ids to look at, the job-hash key prefix, the id prefix
# -> the ids of the resolve jobs taken off the queue (at most one), their hashes deleted.
# Atomic: a job id still in the queue list has not been dequeued by any worker (RQ moves it to
# its intermediate list first), so a claimed job will never run; its caller now does its work.
CLAIM = """
local ids = redis.call('LRANGE', KEYS[1], 0, tonumber(ARGV[1]) - 1)
local plen = string.len(ARGV[3])
for _, id in ipairs(ids) do
  if string.sub(id, 1, plen) == ARGV[3] then
    redis.call('LREM', KEYS[1], 0, id)
    redis.call('DEL', ARGV[2] .. id)
    return {id}
  end
end
return {}
"""


def queue_connection(url: str) -> redis.Redis:
    """RQ stores pickled job data, so its connection must not decode responses."""
    return redis.Redis.from_url(url, socket_timeout=10, socket_connect_timeout=5,
                                health_check_interval=30)


def make_queue(url: str, name: str) -> Queue:
    return Queue(name, connection=queue_connection(url))


def resolve_job_id(gid: str) -> str:
    """A fresh id naming the game: ids are never reused (a finished job deletes its hash)."""
    return f"{RESOLVE_PREFIX}{gid}-{secrets.token_hex(6)}"


def game_of_job(job_id: str) -> str | None:
    """The game id a resolve job's id names, or None for another kind of job."""
    if not job_id.startswith(RESOLVE_PREFIX):
        return None
    gid, sep, _ = job_id[len(RESOLVE_PREFIX):].rpartition("-")
    return gid if sep and gid else None


def enqueue_resolve(queue: Queue, gid: str) -> None:
    """One resolve job for the game (the caller made sure no other is waiting)."""
    queue.enqueue(RESOLVE_FUNC, gid, job_id=resolve_job_id(gid), job_timeout=RESOLVE_TIMEOUT,
                  result_ttl=0, failure_ttl=7 * 86400,
                  retry=Retry(max=5, interval=[1, 2, 5, 10, 30]))


def claim_waiting(queue: Queue, look: int = 16) -> str | None:
    """Take the oldest waiting resolve job among the first `look` of the queue off the queue,
    so that it never runs; returns its game id (the caller now owes that game a drain), or None.
    """
    global _claim
    if _claim is None:
        _claim = queue.connection.register_script(CLAIM)
    res = _claim(keys=[queue.key], args=[look, Job.redis_job_namespace_prefix, RESOLVE_PREFIX],
                 client=queue.connection)
    if not res:
        return None
    job_id = res[0].decode() if isinstance(res[0], bytes) else res[0]
    return game_of_job(job_id)


_claim: Script | None = None  # registered once; run on the caller's connection
