"""The live feed's Redis side: who is listening, and each listening player's capped stream.

The workers append (`listening`, `feed_args`, `append`); the stream process hears the entries
and keeps its listeners registered (`listen`, `read_after`, `feed_lines`). A player's entries
are written only while the player is registered (a connection renews it; a player who left stays
registered for the resume grace), so games nobody watches cost their resolve a ZSCORE per
player, inside the script that opens them, and nothing else.

Entries are appended by a script that announces them, in the same step, on one pub/sub channel
(`FEEDS_CHANNEL`, a line per entry with its feed and id): the stream process hands them to open
streams as they come, without reading the feeds, so its cost grows with the entries written and
not with the players connected. The feeds themselves are what a stream resumes from
(`Last-Event-ID`) and what the stream process reads back after it lost the channel. With the
feeds on the store's Redis the commit's own script appends them (`feed_args`); beside a Redis
Cluster store they live on the queue's Redis (`service.storage.store.feeds_url`) and take a
round trip of their own (`append`).
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from typing import TYPE_CHECKING, Any

import redis
import redis.asyncio

from service.storage.keys import APPLIED_CHANNEL, FEEDS_CHANNEL, LIVE_PLAYERS_KEY, live_key

if TYPE_CHECKING:
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


def feed_args(feeds: dict[str, list[str]]) -> tuple[list[str], list[Any]]:
    """KEYS and ARGV for the script fragment FEED_APPEND (`service.storage.scripts`) that
    appends `feeds` (player -> JSON entries, in order) and announces them: each entry names
    its feed by its place among these KEYS (from 1), wherever the script's own KEYS end."""
    keys = [live_key(pid) for pid in feeds]
    args: list[Any] = [FEEDS_CHANNEL, FEED_LENGTH, FEED_TTL]
    for n, items in enumerate(feeds.values(), start=1):
        for item in items:
            args += (n, item)
    return keys, args


def append(store: Store, feeds: dict[str, list[str]]) -> None:
    """Append JSON entries to players' feeds and announce them, in one round trip."""
    if any(feeds.values()):
        keys, args = feed_args(feeds)
        store.append_feeds(keys=keys, args=args)


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


FeedLine = tuple[str, str, str]


async def feed_lines(r: redis.asyncio.Redis, subscribed: Callable[[], Awaitable[None]]
                     ) -> AsyncIterator[list[FeedLine]]:
    """The entries appended to any feed from now on, as (player, entry id, JSON) per message of
    the feeds channel, for as long as the caller iterates. `subscribed` is awaited once the
    subscription holds: what was appended before it must be read from the feeds."""
    prefix, suffix = live_key("\0").split("\0")
    pubsub = r.pubsub()
    try:
        await pubsub.subscribe(FEEDS_CHANNEL)
        await subscribed()
        async for message in pubsub.listen():
            if message["type"] != "message":
                continue
            lines = []
            for line in message["data"].split("\n"):
                key, eid, data = line.split(" ", 2)
                lines.append((key[len(prefix):len(key) - len(suffix)], eid, data))
            yield lines
    finally:
        await pubsub.aclose()


async def applied_games(r: redis.asyncio.Redis, subscribed: asyncio.Event | None = None
                        ) -> AsyncIterator[str]:
    """The id of each game as it commits (the `parley:applied` channel), for as long as the
    caller iterates; `subscribed` is set once Redis confirmed the subscription (from then on
    no commit is missed)."""
    pubsub = r.pubsub()
    try:
        await pubsub.subscribe(APPLIED_CHANNEL)
        async for message in pubsub.listen():
            if message["type"] == "message":
                yield message["data"].split(" ", 1)[0]
            elif message["type"] == "subscribe" and subscribed is not None:
                subscribed.set()
    finally:
        await pubsub.aclose()


def stream_id_order(eid: str) -> tuple[int, int]:
    """A stream id as a value that sorts in the stream's order ("0": before every entry)."""
    ms, _, seq = eid.partition("-")
    return int(ms), int(seq or 0)


async def last_id(r: redis.asyncio.Redis, pid: str) -> str:
    """The newest entry's id of the player's feed ("0" when empty)."""
    got = await r.xrevrange(live_key(pid), "+", "-", count=1)
    return got[0][0] if got else "0"
