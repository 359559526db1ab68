"""The live feed's Redis side: who is listening, and each listening player's capped stream.

The workers append (`listening`, `append`); the stream process reads and keeps its listeners
registered (`listen`, `read_after`, `wait_any`). A player's entries are written only while the
player is registered (a connection renews it; a player who left stays registered for the resume
grace), so games nobody watches cost one ZMSCORE per resolve batch and nothing else.

The feeds live on the store's Redis, or on the queue's when the store is a Redis Cluster
(`service.storage.store.feeds_url`): one blocking XREAD covers the feeds of every connected
player, and a cluster refuses a command whose keys lie in different slots.
"""

from __future__ import annotations

import re
import time
from collections.abc import AsyncIterator, Iterable
from typing import Any

import redis
import redis.asyncio

from service.storage.keys import APPLIED_CHANNEL, LIVE_PLAYERS_KEY, live_key
from service.storage.store import Store

#: a feed entry's id, as a client sends it back in Last-Event-ID
STREAM_ID = re.compile(r"[0-9]{1,20}-[0-9]{1,20}")
#: entries kept per player (older ones are trimmed: a resume from before them is told to resync)
FEED_LENGTH = 1000
#: a feed nobody reads expires this long after its last entry
FEED_TTL = 86400


def listening(store: Store, pids: list[str]) -> list[str]:
    """The players among `pids` whose feed is written now."""
    if not pids:
        return []
    return listening_from(pids, store.live.zmscore(LIVE_PLAYERS_KEY, pids))


def listening_command(pids: list[str]) -> tuple[str, ...]:
    """The read behind `listening`, to ride in another round trip on the same Redis."""
    return ("ZMSCORE", LIVE_PLAYERS_KEY, *pids)


def listening_from(pids: list[str], until: list[Any] | None) -> list[str]:
    """`listening` from the reply of `listening_command` (scores, as strings or floats)."""
    now = time.time()
    return [pid for pid, t in zip(pids, until or (), strict=True)
            if t is not None and float(t) > now]


def append(store: Store, entries: dict[str, list[str]]) -> None:
    """Append JSON entries to players' feeds, in one round trip."""
    if not entries:
        return
    pipe = store.live.pipeline(transaction=False)
    for pid, items in entries.items():
        key = live_key(pid)
        for item in items:
            pipe.xadd(key, {"d": item}, maxlen=FEED_LENGTH, approximate=True)
        pipe.expire(key, FEED_TTL)
    pipe.execute()


# ---- the stream process (asyncio) -------------------------------------------------------------


def async_client(url: str, connections: int = 32) -> redis.asyncio.Redis:
    """A client for the stream process: at most `connections` at once, and a command beyond
    them waits for one (a burst of a thousand streams opening must queue, not fail)."""
    pool = redis.asyncio.BlockingConnectionPool.from_url(
        url, decode_responses=True, socket_connect_timeout=5, max_connections=connections,
        timeout=None)
    return redis.asyncio.Redis(connection_pool=pool)


async def listen(r: redis.asyncio.Redis, pids: Iterable[str], until: float) -> None:
    """(Re)register listeners: their feeds are written until `until` (Unix seconds)."""
    mapping = {pid: until for pid in pids}
    if mapping:
        await r.zadd(LIVE_PLAYERS_KEY, mapping)
    await r.zremrangebyscore(LIVE_PLAYERS_KEY, "-inf", time.time())


async def read_after(r: redis.asyncio.Redis, pid: str, last_id: str, count: int = 1000
                     ) -> tuple[list[tuple[str, str]], bool]:
    """The player's entries after `last_id` ("0": from the oldest kept) -> (entries as
    (id, JSON), whether entries after `last_id` may be gone: trimmed, or the feed expired;
    the client then reads its games afresh)."""
    key = live_key(pid)
    gone = False
    if last_id != "0":
        pipe = r.pipeline(transaction=False)
        pipe.xlen(key)
        pipe.xrange(key, "-", "+", count=1)
        length, first = await pipe.execute()
        gone = not first or (length >= FEED_LENGTH
                             and stream_id_order(last_id) < stream_id_order(first[0][0]))
    got = await r.xrange(key, f"({last_id}" if last_id != "0" else "-", "+", count=count)
    return [(eid, fields["d"]) for eid, fields in got], gone


async def wait_any(r: redis.asyncio.Redis, cursors: dict[str, str], block_ms: int
                   ) -> dict[str, list[tuple[str, str]]]:
    """Block up to `block_ms` for new entries of any of the players (pid -> last id seen)."""
    if not cursors:
        return {}
    streams = {live_key(pid): last for pid, last in cursors.items()}
    got = await r.xread(streams, block=block_ms, count=100)
    by_key = {live_key(pid): pid for pid in cursors}
    return {by_key[key]: [(eid, fields["d"]) for eid, fields in entries]
            for key, entries in got}


async def applied_games(r: redis.asyncio.Redis) -> AsyncIterator[str]:
    """The id of each game as it commits (the `parley:applied` channel), for as long as the
    caller iterates."""
    pubsub = r.pubsub()
    try:
        await pubsub.subscribe(APPLIED_CHANNEL)
        async for message in pubsub.listen():
            if message["type"] == "message":
                yield message["data"].split(" ", 1)[0]
    finally:
        await pubsub.aclose()


def stream_id_order(eid: str) -> tuple[int, int]:
    """A stream id as a value that sorts in the stream's order."""
    ms, seq = eid.split("-")
    return int(ms), int(seq)


async def last_id(r: redis.asyncio.Redis, pid: str) -> str:
    """The newest entry's id of the player's feed ("0" when empty)."""
    got = await r.xrevrange(live_key(pid), "+", "-", count=1)
    return got[0][0] if got else "0"
