"""The stream process: Server-Sent Events of a player's games, and long-polled game events.

An asyncio server (aiohttp) of its own, so that clients waiting for news hold no web process:
one process holds thousands of open streams. The API authenticates and redirects here with a
short-lived ticket (`service.domain.live_feed.ticket`):

- `GET /v1/stream?ticket=...` (the target of `GET /v1/players/me/stream`): the player's feed as
  `text/event-stream`, resumable with `Last-Event-ID` (docs/live.md);
- `GET /v1/games/<id>/events?ticket=...&cursor=&limit=&wait=` (the target of a long poll of
  `GET /v1/games/<id>/events?wait=N` that found nothing new): the same page as the API's,
  answered as soon as the game commits, or empty when `wait` runs out.

The workers announce every feed entry they append on one pub/sub channel
(`service.storage.live.feed_lines`); one task hears it and hands each entry to its player's
open streams, so the process's work grows with the entries written, not with the streams held.
The feeds themselves are read only when a stream opens or resumes, and for every open stream
after the channel was lost (a Redis restart): a stream misses nothing and gets nothing twice
(each one keeps the id of the last entry it was handed). A second subscription, to
`parley:applied`, wakes the long polls of a game; it is held only while long polls come (it
ends `COMMITS_IDLE_SECONDS` after the last one), since every commit announces itself there
and a process with no poll waiting would wake for each one for nothing. Beside a Redis
Cluster store the feeds and their channel are on the queue's Redis
(`service.storage.store.feeds_url`).

What a request may hold is `service.stream.admission`'s to say (single-use tickets, caps per
player and per address); a long poll's query is checked with the API's own checks
(`service.web.query_params.event_query`), and a poll ends when its client goes (aiohttp's
handler cancellation), so no poll outlives the one who waits for it. `/health` says only that
the process answers; its counts are on `/metrics`, for the scraper alone.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

import orjson
from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.core import GaugeMetricFamily, Metric

from service.config import Config
from service.domain.game import events_page, load_game
from service.domain.metrics_access import admit_scraper
from service.domain.problems import NotFound, Problem, Unavailable, problem_body
from service.ops.heap import freeze_startup_heap
from service.ops.server_key import load_server_key
from service.storage import live
from service.storage.configured import open_store
from service.storage.outage import OUTAGE_DETAIL, is_outage
from service.storage.outage import RETRY_AFTER as OUTAGE_RETRY_AFTER
from service.storage.store import feeds_url
from service.stream.admission import (
    Quota,
    client_address,
    player_of,
    take_ticket,
)
from service.web.query_params import event_query

log = logging.getLogger(__name__)

#: a player's feed keeps being written this long after their last stream closed: the window
#: within which a client resumes with Last-Event-ID without missing anything
RESUME_GRACE = 600
#: how often open streams renew their registration, and get a comment that keeps proxies open
KEEPALIVE_SECONDS = 15
#: on SIGTERM, how long open streams and long polls get before they are cut
SHUTDOWN_SECONDS = 1.0
#: how long the hearing task waits before it subscribes again to a lost feeds channel
RESUBSCRIBE_SECONDS = 1.0
#: the commits' channel is left this long after the last long poll ended
COMMITS_IDLE_SECONDS = 30.0
#: the longest a long poll waits for that channel before it reads its page all the same
SUBSCRIBE_WAIT = 5.0

Entry = tuple[str, str]  # (feed entry id, JSON)
#: how long `cancel_until_ended` waits for a cancelled task before cancelling it again
RECANCEL_SECONDS = 0.1


async def cancel_until_ended(tasks: list[asyncio.Task[Any]]) -> None:
    """Cancel the tasks and wait until every one has ended, cancelling again those that go on.

    A cancellation can be lost on Python 3.11: redis-py runs each command's send under
    `asyncio.wait_for` (its socket timeout), and 3.11's `wait_for` returns the result and
    drops a cancellation that arrives as the wrapped call completes (3.12 rewrote it). A hub
    task cancelled during a Redis call then carried on with its loop, and the process's stop
    waited for it for ever. Cancelling again at the task's next wait ends it."""
    pending = {task for task in tasks if not task.done()}
    while pending:
        for task in pending:
            task.cancel()
        _, pending = await asyncio.wait(pending, timeout=RECANCEL_SECONDS)
    for task in tasks:  # an end other than the cancellation is logged, not dropped
        if not task.cancelled() and task.exception() is not None:
            log.error("a hub task ended with an error", exc_info=task.exception())


class Listener:
    """One open stream: the entries the hub hands it, in order, each once."""

    def __init__(self, pid: str) -> None:
        self.pid = pid
        self.queue: asyncio.Queue[list[Entry]] = asyncio.Queue()
        #: the id of the last entry handed to the stream (None while it joins), and its order
        self.last_id: str | None = None
        self.order = (0, 0)
        #: while the stream joins: the entries heard meanwhile, kept until its first read is in
        self.early: list[Entry] | None = []


class Hub:
    """Every open stream of this process, fed from the feeds channel."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.server_key = load_server_key(config.SERVER_KEY_PATH)
        self.feeds = live.async_client(feeds_url(config))
        self.channel = live.async_client(feeds_url(config), connections=2)  # the subscription
        #: the commits' announcements come from the store (any node of a cluster: a cluster
        #: forwards every PUBLISH to all its nodes)
        self.commits = live.async_client(config.STORE_URL, connections=2)
        self.store = open_store(config)  # the domain's reads, in a thread
        self.listeners: dict[str, set[Listener]] = defaultdict(set)
        #: set while the feeds channel is heard; `subscriptions` counts its (re)subscriptions
        self.hearing = asyncio.Event()
        self.subscriptions = 0
        self.polls: dict[str, set[asyncio.Event]] = defaultdict(set)  # game -> waiting polls
        #: the task hearing the commits' channel while long polls come, set once subscribed,
        #: and when the last poll ended
        self.hearing_commits: asyncio.Task[None] | None = None
        self.commits_heard = asyncio.Event()
        self.polls_ended = 0.0
        self.tasks: list[asyncio.Task[Any]] = []
        self.stream_quota = Quota("streams", config.MAX_STREAMS_PER_PLAYER,
                                  config.MAX_STREAMS_PER_ADDRESS, config.RATE_LIMITS_ENABLED)
        self.poll_quota = Quota("long polls", config.MAX_POLLS_PER_PLAYER,
                                config.MAX_POLLS_PER_ADDRESS, config.RATE_LIMITS_ENABLED)

    async def start(self, _app: web.Application) -> None:
        self.tasks = [asyncio.create_task(self._hear()), asyncio.create_task(self._renew())]

    async def stop(self, _app: web.Application) -> None:
        if self.hearing_commits is not None:
            self.tasks.append(self.hearing_commits)
        await cancel_until_ended(self.tasks)
        await self.feeds.aclose()
        await self.channel.aclose()
        await self.commits.aclose()

    # ---- the feed ------------------------------------------------------------------------

    async def join(self, listener: Listener, last_event_id: str | None
                   ) -> tuple[list[Entry], bool]:
        """Register a stream -> (the entries it missed since `last_event_id`, whether some
        may be gone). From then on the hub hands it every new entry.

        The stream is registered before its feed is read, so an entry announced during the
        read is kept (`early`) and handed over after what the read found, unless the read
        found it too; a channel lost meanwhile means reading again."""
        await self.hearing.wait()
        pid = listener.pid
        self.listeners[pid].add(listener)
        subscription = self.subscriptions
        await live.listen(self.feeds, [pid], time.time() + RESUME_GRACE)
        if last_event_id is None:
            missed, gone = [], False
            start = await live.last_id(self.feeds, pid)
        else:
            missed, gone = await live.read_after(self.feeds, pid, last_event_id)
            start = missed[-1][0] if missed else last_event_id
        while subscription != self.subscriptions:  # the channel was lost while we read
            subscription = self.subscriptions
            more, _ = await live.read_after(self.feeds, pid, start)
            missed += more
            start = missed[-1][0] if missed else start
        order = live.stream_id_order(start)
        missed += [e for e in listener.early or () if live.stream_id_order(e[0]) > order]
        listener.early = None
        listener.last_id = missed[-1][0] if missed else start
        listener.order = live.stream_id_order(listener.last_id)
        return missed, gone

    def leave(self, listener: Listener) -> None:
        group = self.listeners.get(listener.pid)
        if group is not None:
            group.discard(listener)
            if not group:
                del self.listeners[listener.pid]

    def _hand(self, entries: list[tuple[str, str, str]]) -> None:
        """Hand announced entries, (player, id, JSON) each, to their players' open streams:
        each stream the ones past the last it was handed."""
        out: dict[Listener, list[Entry]] = {}
        for pid, eid, data in entries:
            group = self.listeners.get(pid)
            if not group:
                continue
            order = live.stream_id_order(eid)
            for listener in group:
                if listener.early is not None:
                    listener.early.append((eid, data))
                elif order > listener.order:
                    listener.order, listener.last_id = order, eid
                    out.setdefault(listener, []).append((eid, data))
        for listener, handed in out.items():
            listener.queue.put_nowait(handed)

    async def _hear(self) -> None:
        while True:
            try:
                async for entries in live.feed_lines(self.channel, self._subscribed):
                    self._hand(entries)
            except asyncio.CancelledError:
                raise
            except Exception:  # Redis gone for a moment: subscribe again, then catch up
                log.exception("the feeds channel failed; subscribing again")
            self.hearing.clear()
            await asyncio.sleep(RESUBSCRIBE_SECONDS)

    async def _subscribed(self) -> None:
        """The channel is heard (again): after a loss, every open stream reads what it missed
        from its feed (streams still joining read again themselves)."""
        self.subscriptions += 1
        if self.subscriptions > 1:
            ready = [(listener, listener.last_id) for group in self.listeners.values()
                     for listener in group if listener.last_id is not None]
            for listener, last_id in ready:
                missed, _ = await live.read_after(self.feeds, listener.pid, last_id)
                self._hand([(listener.pid, eid, data) for eid, data in missed])
        self.hearing.set()

    async def _renew(self) -> None:
        """Every KEEPALIVE_SECONDS: a keep-alive for every open stream (an empty hand-over),
        and their players' registrations renewed. The hub's one timer, rather than a timeout
        around every stream's wait for entries, which cost a timer set and cancelled per
        hand-over."""
        while True:
            await asyncio.sleep(KEEPALIVE_SECONDS)
            for group in self.listeners.values():
                for listener in group:
                    listener.queue.put_nowait([])
            try:
                await live.listen(self.feeds, list(self.listeners), time.time() + RESUME_GRACE)
            except Exception:
                log.exception("renewing the listeners failed")

    # ---- long polls ----------------------------------------------------------------------

    async def _commits(self) -> None:
        """Subscribe to the commits' channel unless a task does, and wait (a while at most)
        until it is subscribed, so that a commit after the caller reads its page wakes it."""
        if self.hearing_commits is None:
            self.commits_heard.clear()
            self.hearing_commits = asyncio.create_task(self._applied())
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(SUBSCRIBE_WAIT):
                await self.commits_heard.wait()

    async def _applied(self) -> None:
        """Wake the long polls of each game that commits, until no poll has come for
        COMMITS_IDLE_SECONDS; checked as commits are heard (and with no commit, nothing is
        heard, so nothing is spent)."""
        while True:
            try:
                async with contextlib.aclosing(
                        live.applied_games(self.commits, self.commits_heard)) as games:
                    async for gid in games:
                        for waiter in self.polls.get(gid, ()):
                            waiter.set()
                        if (not self.polls and
                                time.monotonic() - self.polls_ended > COMMITS_IDLE_SECONDS):
                            self.hearing_commits = None  # a poll from now on starts another
                            self.commits_heard.clear()
                            return
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("the applied channel failed; subscribing again")
                self.commits_heard.clear()
                await asyncio.sleep(1)

    async def events(self, gid: str, pid: str | None, after: int, limit: int,
                     wait: float) -> dict[str, Any] | None:
        """The API's events page for `pid`, waiting up to `wait` seconds for one that is not
        empty; None for no such game."""
        woken = asyncio.Event()
        self.polls[gid].add(woken)
        try:
            deadline = time.monotonic() + wait
            if wait > 0:
                await self._commits()
            while True:
                woken.clear()
                game = await asyncio.to_thread(load_game, self.store, gid)
                if game is None:
                    return None
                page = await asyncio.to_thread(events_page, self.store, game, pid, after,
                                               limit)
                left = deadline - time.monotonic()
                if page["events"] or left <= 0 or game.finished:
                    return page
                after = int(page["next"])  # events hidden from this seat: read on from there
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(left):  # not 3.11's wait_for: it can drop a cancel
                        await woken.wait()
        finally:
            self.polls[gid].discard(woken)
            if not self.polls[gid]:
                del self.polls[gid]
            self.polls_ended = time.monotonic()


_TYPE_FIRST = '{"type":"'


def _frame(eid: str, data: str) -> bytes:
    """One feed entry as an SSE event named by its `type`: read from the front of the entries
    the workers write (`live_feed._entry`), parsed out of older ones (written with sorted
    keys)."""
    if data.startswith(_TYPE_FIRST):
        kind = data[len(_TYPE_FIRST):data.index('"', len(_TYPE_FIRST))]
    else:
        kind = orjson.loads(data).get("type", "message")
    return f"id: {eid}\nevent: {kind}\ndata: {data}\n\n".encode()


def _render(problem: Problem) -> web.Response:
    body = problem_body(problem.status, problem.code, problem.title, problem.detail,
                        **problem.extra)
    return web.Response(status=problem.status, body=json.dumps(body), headers=problem.headers,
                        content_type="application/problem+json")


@web.middleware
async def problems(request: web.Request, handler: Any) -> web.StreamResponse:
    """A refused request as problem JSON, as the API answers it; a Redis or a store node away
    as 503 `unavailable` with Retry-After, as the API answers it too (`service.storage.outage`),
    not aiohttp's bare 500. A stream already open when its Redis goes away just ends (`_feed`):
    its client resumes with Last-Event-ID."""
    try:
        return await handler(request)
    except Problem as problem:
        return _render(problem)
    except Exception as err:
        if not is_outage(err):
            raise
        log.warning("Redis unavailable: %s: %s", type(err).__name__, err)
        return _render(Unavailable(OUTAGE_DETAIL, headers={"Retry-After": OUTAGE_RETRY_AFTER}))


def _address(request: web.Request) -> str:
    hub: Hub = request.app["hub"]
    return client_address(request.remote, request.headers.getall("X-Forwarded-For", []),
                          hub.config.PROXY_HOPS)


async def stream(request: web.Request) -> web.StreamResponse:
    """The player's feed as Server-Sent Events."""
    hub: Hub = request.app["hub"]
    ticket = request.query.get("ticket", "")
    pid = player_of(hub.server_key, ticket)
    last = request.headers.get("Last-Event-ID") or request.query.get("last_event_id")
    if last is not None and not live.STREAM_ID.fullmatch(last):
        raise Problem("Last-Event-ID is an id this stream sent.", code="bad_last_event_id")
    await take_ticket(hub.feeds, ticket)
    with hub.stream_quota.hold(pid, _address(request)):
        return await _feed(request, hub, Listener(pid), last)


async def _feed(request: web.Request, hub: Hub, listener: Listener, last: str | None
                ) -> web.StreamResponse:
    """Write the stream: what it missed since `last`, then each entry the hub hands it."""
    # any origin may read it: the one-time ticket in the URL is the only credential (no
    # cookies), and the browser client's page is served by the web process, another origin
    resp = web.StreamResponse(headers={"Content-Type": "text/event-stream",
                                       "Cache-Control": "no-cache", "X-Accel-Buffering": "no",
                                       "Access-Control-Allow-Origin": "*"})
    await resp.prepare(request)
    try:
        missed, gone = await hub.join(listener, last)
        await resp.write(b"retry: 3000\n\n")
        if gone:
            await resp.write(b'event: resync\ndata: {"reason": "entries were trimmed or '
                             b'expired: read your games afresh"}\n\n')
        for eid, data in missed:
            await resp.write(_frame(eid, data))
        ready = json.dumps({"player": listener.pid})
        await resp.write(f"event: ready\ndata: {ready}\n\n".encode())
        while True:
            entries = await listener.queue.get()  # nothing: the hub's keep-alive (`_renew`)
            await resp.write(b"".join(_frame(eid, data) for eid, data in entries)
                             if entries else b": keep-alive\n\n")
    except (ConnectionResetError, asyncio.CancelledError):
        pass
    except Exception as err:  # its 200 went out already: the stream can only end
        if not is_outage(err):
            raise
        log.warning("stream ended, Redis unavailable: %s: %s", type(err).__name__, err)
    finally:
        hub.leave(listener)
    return resp


async def game_events(request: web.Request) -> web.Response:
    """A long poll of one game's events (the API redirects here when it has nothing new)."""
    hub: Hub = request.app["hub"]
    after, limit, wait = event_query(request.query)
    ticket = request.query.get("ticket", "")
    pid = player_of(hub.server_key, ticket) if ticket else None
    if ticket:
        await take_ticket(hub.feeds, ticket)
    with hub.poll_quota.hold(pid, _address(request)):
        page = await hub.events(request.match_info["game"], pid, after, limit, wait)
    if page is None:
        raise NotFound("No such game.", code="game_not_found")
    return web.Response(body=orjson.dumps(page, option=orjson.OPT_SORT_KEYS |
                                          orjson.OPT_APPEND_NEWLINE),
                        content_type="application/json")


async def health(_request: web.Request) -> web.Response:
    """That the process answers, and nothing more: what it holds is for the scraper."""
    return web.json_response({"status": "ok"})


class HubCollector:
    """The hub's gauges, read when scraped."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub

    def describe(self) -> list[Metric]:
        return []

    def collect(self) -> Iterator[Metric]:
        yield GaugeMetricFamily("parley_stream_open_streams", "Server-Sent Event streams "
                                "open on this stream process.",
                                value=sum(map(len, self.hub.listeners.values())))
        yield GaugeMetricFamily("parley_stream_open_polls", "Long polls waiting on this "
                                "stream process.", value=sum(map(len, self.hub.polls.values())))


async def metrics(request: web.Request) -> web.Response:
    """The hub's gauges in Prometheus's text format, for the scraper alone."""
    hub: Hub = request.app["hub"]
    admit_scraper(hub.config.METRICS_TOKEN, request.headers.get("Authorization", ""),
                  _address(request))
    return web.Response(body=generate_latest(request.app["registry"]),
                        headers={"Content-Type": CONTENT_TYPE_LATEST})


def make_app(config: Config) -> web.Application:
    app = web.Application(middlewares=[problems])
    hub = Hub(config)
    app["hub"] = hub
    app["registry"] = CollectorRegistry(auto_describe=False)
    app["registry"].register(HubCollector(hub))
    app.on_startup.append(hub.start)
    app.on_cleanup.append(hub.stop)
    app.router.add_get("/v1/stream", stream)
    app.router.add_get("/v1/games/{game}/events", game_events)
    app.router.add_get("/health", health)
    app.router.add_get("/metrics", metrics)
    return app


def main() -> int:
    """`parley stream`: serve until SIGTERM or Ctrl-C."""
    config = Config()
    app = make_app(config)
    freeze_startup_heap()
    # a feed never ends by itself: on SIGTERM, cut the open streams after a second rather than
    # wait for them (their clients resume with Last-Event-ID, docs/live.md); a request whose
    # client has gone is cancelled, so that a long poll or a stream holds nothing for nobody
    web.run_app(app, host="127.0.0.1", port=config.STREAM_PORT,
                print=lambda msg: log.info("%s", msg), access_log=None,
                shutdown_timeout=SHUTDOWN_SECONDS, handler_cancellation=True)
    return 0
