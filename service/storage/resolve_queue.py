"""RQ's side: the queue connection (separate from the game store), job enqueueing, and the
resolvers' hand-off list.

A game with new work is *woken* (`wake`), never enqueued directly. If a resolve job is running
or waiting (a live *drainer*), the game goes onto the queue's ready list, which that job drains
before it ends; only when no drainer is live (or the list has grown long for the drainers
there are) does the wake enqueue an RQ job. Under load, one RQ job then resolves the moves of
many games, and the web process pays one short script per wake instead of an RQ enqueue
(docs/performance.md, "Drainers").

Drainers are leases in a sorted set (member: the job id, score: when the lease expires). A
wake that enqueues a job registers the job's lease in the same script, so the waiting job
already counts; a running job renews its lease whenever it takes a game; a dead one's lease
expires (`START_TTL_MS` for a job still waiting, `RUN_TTL_MS` for a running one), and the next
wake or the sweep enqueues a new job. A drainer leaves only through `LEAVE`, which refuses
while the list holds games: no game is pushed after its last drainer has looked.
"""

from __future__ import annotations

import secrets
import time
from typing import TYPE_CHECKING

import redis
from redis.commands.core import Script
from rq import Queue, Retry

from service.config import Config
from service.storage.keys import drainers_key, ready_key
from service.storage.scripts import LEAVE, TAKE, WAKE
from service.storage.store import same_server

if TYPE_CHECKING:
    from service.storage.store import Store

#: a resolve job drains its game, then the ready list (bounded); it waits for a game's lock
#: at most PARLEY_LOCK_WAIT seconds
_SETTINGS = Config()  # read once per process, like every setting (service/config.py)
RESOLVE_TIMEOUT = 120
RESOLVE_FUNC = "workers.resolve.resolve_game"
RESOLVE_PREFIX = "resolve-"
#: a waiting job's lease: if no worker starts it by then, the next wake enqueues another
START_TTL_MS = _SETTINGS.DRAIN_START_TTL_MS
#: a running job's lease, renewed at every game it takes (longer than one game's drain)
RUN_TTL_MS = _SETTINGS.DRAIN_RUN_TTL_MS
#: a wake enqueues one more job when the list holds this many games per live drainer
BACKLOG_PER_DRAINER = _SETTINGS.DRAIN_BACKLOG



def queue_connection(url: str) -> redis.Redis:
    """RQ stores pickled job data, so its connection must not decode responses."""
    return redis.Redis.from_url(url, socket_timeout=10, socket_connect_timeout=5,
                                health_check_interval=30)


def make_queue(url: str, name: str) -> Queue:
    return Queue(name, connection=queue_connection(url))


def resolve_job_id(gid: str) -> str:
    """A fresh id naming the game: ids are never reused (a finished job deletes its hash)."""
    return f"{RESOLVE_PREFIX}{gid}-{secrets.token_hex(6)}"


def _now_ms() -> int:
    return int(time.time() * 1000)


def _run(queue: Queue, script: str, args: list[object], keys: tuple[str, ...] = ()) -> object:
    """Run one of this module's scripts on the queue's connection (EVALSHA, loaded once);
    its keys are the ready list, the drainers, then `keys`."""
    cached = _scripts.get(script)
    if cached is None:  # a Script only holds the text and its digest: any client may run it
        cached = _scripts[script] = queue.connection.register_script(script)
    return cached(keys=[ready_key(queue.name), drainers_key(queue.name), *keys], args=args,
                  client=queue.connection)


_scripts: dict[str, Script] = {}


def enqueue_resolve(queue: Queue, gid: str, job_id: str) -> None:
    """The resolve job whose lease a script just registered; use `wake` (it decides whether a
    job is needed)."""
    queue.enqueue(RESOLVE_FUNC, gid, job_id=job_id,
                  job_timeout=RESOLVE_TIMEOUT, result_ttl=0, failure_ttl=7 * 86400,
                  retry=Retry(max=5, interval=[1, 2, 5, 10, 30]))


def wake(queue: Queue, gid: str) -> bool:
    """Have the game resolved: onto a live drainer's ready list, or a new RQ job if none is
    live. The caller made sure no wake of this game is outstanding (its `scheduled` flag).
    Returns True if it enqueued a job."""
    return wake_games(queue, [gid]) > 0


def wake_games(queue: Queue, gids: list[str]) -> int:
    """`wake` for several games in one round trip (a batch of moves: one script, not one per
    game); each game must be named once. Returns the number of jobs enqueued."""
    if not gids:
        return 0
    job_ids = [resolve_job_id(gid) for gid in gids]
    args: list[object] = [_now_ms(), START_TTL_MS, BACKLOG_PER_DRAINER]
    for gid, job_id in zip(gids, job_ids, strict=True):
        args += [gid, job_id]
    enqueue = _run(queue, WAKE, args)
    for n in enqueue:
        enqueue_resolve(queue, gids[int(n) - 1], job_ids[int(n) - 1])
    return len(enqueue)


def wake_again(store: Store, queue: Queue, gid: str) -> bool:
    """Wake a game whose earlier wake may have been lost (a web process or worker that died
    in between): its `scheduled` flag is set whatever its state, then the game is woken. At
    worst a drainer finds nothing left to do. Returns True if it enqueued a job."""
    store.force_scheduled(gid)
    return wake(queue, gid)


class InlineWake:
    """The common case of a wake done by the store's accepting script itself, in the move's
    own round trip: a live drainer takes the game from the ready list (`ONTO_READY`). Only
    for a store on the queue's Redis (the default deployment; never a cluster), where one
    script may touch both the game's keys and the list. A game that needs a new job is left to
    the caller's `wake` as before, so a web process that dies after the append leaves no
    lease of a job that was never enqueued."""

    def __init__(self, queue: Queue) -> None:
        self.keys = [ready_key(queue.name), drainers_key(queue.name)]

    def args(self, gid: str) -> list[object]:
        """`onto_ready`'s arguments after its keys: now (ms), backlog, game."""
        return [_now_ms(), BACKLOG_PER_DRAINER, gid]


def share_queue(store: Store, queue: Queue) -> None:
    """Tell the store that the queue lives on its Redis, when it does (never for a cluster):
    its accepting script then wakes games itself (`InlineWake`), and a drainer takes its next
    games in the release of its locks (`take_command`)."""
    if same_server(store.r, queue.connection):
        store.inline_wake = InlineWake(queue)


def take(queue: Queue, job_id: str, count: int) -> tuple[list[str], int]:
    """A drainer's next games from the ready list, at most `count` (its lease renewed), and
    how many jobs wait in the RQ queue, in one round trip."""
    return taken(_run(queue, TAKE, [job_id, _now_ms(), RUN_TTL_MS, count],  # type: ignore[arg-type]
                      (queue.key,)))


def take_command(queue: Queue, job_id: str, count: int) -> tuple[object, ...]:
    """`take` as a command to ride in another round trip on the queue's Redis (a drain's
    release of its locks, when the store shares that Redis); its reply goes to `taken`. EVAL
    with the script's text, not EVALSHA: a Redis that lost its scripts still runs it."""
    return ("EVAL", TAKE, 3, ready_key(queue.name), drainers_key(queue.name), queue.key,
            job_id, _now_ms(), RUN_TTL_MS, count)


def taken(reply: list[object]) -> tuple[list[str], int]:
    """`take`'s answer from the reply of `take_command`."""
    games, waiting = reply
    return [_text(gid) for gid in games], int(waiting)  # type: ignore[union-attr, arg-type]


def wait_ready(queue: Queue, seconds: float) -> str | None:
    """Block up to `seconds` for a game pushed onto the ready list (the lease must outlast it).

    Under a millisecond it does not block at all: Redis reads a timeout that rounds to 0 ms as
    "block forever"."""
    if seconds < 0.001:
        return None
    got = queue.connection.blpop([ready_key(queue.name)], timeout=round(seconds, 3))
    return _text(got[1]) if got else None


def leave(queue: Queue, job_id: str, stop: bool) -> str | None:
    """End a drainer: None once its lease is gone, or the game it must drain first (the list
    was not empty; never when `stop`). If games remain with no drainer live, it enqueues the
    job that carries on, for the first of them."""
    follow = f"{RESOLVE_PREFIX}{secrets.token_hex(8)}"
    kind, value = _run(queue, LEAVE, [job_id, _now_ms(), "1" if stop else "0", follow,
                                      START_TTL_MS])
    if _text(kind) == "game":
        return _text(value)
    if value:
        enqueue_resolve(queue, _text(value), follow)
    return None


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
