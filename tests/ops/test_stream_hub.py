"""The stream process's hub against a real Redis: entries reach open streams from the feeds
channel, each once and in order, across a stream's join and a lost subscription; a ticket is
taken once, and the caps on what a player or an address holds count each hold once."""

from __future__ import annotations

import asyncio

import pytest
import redis

from service.config import Config
from service.storage import live
from service.storage.configured import open_store
from service.stream import server
from service.stream.server import Hub, Listener
from tests.waiting import run_async


def _entry(n: int) -> str:
    return f'{{"type":"event","game":"g_1","seat":0,"seq":{n}}}'


async def _drain(listener: Listener, want: int, seconds: float = 5.0) -> list[tuple[str, str]]:
    """Entries queued for the stream until `want` came, or the time ran out (then a little
    longer, so that a duplicate would show)."""
    got: list[tuple[str, str]] = []
    async with asyncio.timeout(seconds):
        while len(got) < want:
            got += await listener.queue.get()
    await asyncio.sleep(0.2)
    while not listener.queue.empty():
        got += listener.queue.get_nowait()
    return got


async def _hub(config: Config) -> Hub:
    hub = Hub(config)
    await hub.start(None)  # type: ignore[arg-type]
    async with asyncio.timeout(5):
        await hub.hearing.wait()
    return hub


def test_entries_appended_while_a_stream_joins_come_once_in_order(config, monkeypatch) -> None:
    store = open_store(config)
    live.append(store, {"p_ann": [_entry(1)]})
    read_after = live.read_after

    async def racing_read(r, pid, last_id, count=1000):  # noqa: ANN001
        live.append(store, {"p_ann": [_entry(2)]})  # before the read: it finds this one
        got = await read_after(r, pid, last_id, count)
        live.append(store, {"p_ann": [_entry(3)]})  # after it: only the channel tells
        await asyncio.sleep(0.1)  # ... and the hub hears it before the join is done
        return got

    monkeypatch.setattr(live, "read_after", racing_read)

    async def scenario() -> list[str]:
        hub = await _hub(config)
        try:
            first = (await read_after(hub.feeds, "p_ann", "0"))[0][0][0]
            listener = Listener("p_ann")
            missed, gone = await hub.join(listener, first)
            assert not gone
            return [d for _, d in missed + await _drain(listener, 2 - len(missed))]
        finally:
            await hub.stop(None)  # type: ignore[arg-type]

    assert run_async(scenario()) == [_entry(2), _entry(3)]


def test_a_lost_channel_is_caught_up_from_the_feeds(config, monkeypatch) -> None:
    monkeypatch.setattr(server, "RESUBSCRIBE_SECONDS", 0.1)
    store = open_store(config)
    direct = redis.Redis.from_url(config.STORE_URL)

    async def scenario() -> list[str]:
        hub = await _hub(config)
        try:
            listener = Listener("p_bob")
            assert await hub.join(listener, None) == ([], False)
            live.append(store, {"p_bob": [_entry(1)]})
            heard = await _drain(listener, 1)
            assert direct.client_kill_filter(_type="pubsub") >= 1
            live.append(store, {"p_bob": [_entry(2)], "p_eve": [_entry(9)]})  # nobody hears
            return [d for _, d in heard + await _drain(listener, 1)]
        finally:
            await hub.stop(None)  # type: ignore[arg-type]

    assert run_async(scenario()) == [_entry(1), _entry(2)]
    assert direct.xlen(live.live_key("p_bob")) == 2


@pytest.mark.parametrize("listeners", [1, 3])
def test_every_open_stream_of_a_player_gets_each_entry(config, listeners) -> None:
    store = open_store(config)

    async def scenario() -> list[list[str]]:
        hub = await _hub(config)
        try:
            streams = [Listener("p_cat") for _ in range(listeners)]
            for listener in streams:
                await hub.join(listener, None)
            live.append(store, {"p_cat": [_entry(1), _entry(2)]})
            live.append(store, {"p_cat": [_entry(3)]})
            return [[d for _, d in await _drain(s, 3)] for s in streams]
        finally:
            await hub.stop(None)  # type: ignore[arg-type]

    assert run_async(scenario()) == [[_entry(1), _entry(2), _entry(3)]] * listeners


def test_every_open_stream_gets_a_keep_alive_each_period(config, monkeypatch) -> None:
    """The hub's one timer hands each open stream an empty batch (its keep-alive comment),
    between the entries, which still come once and in order."""
    monkeypatch.setattr(server, "KEEPALIVE_SECONDS", 0.2)
    store = open_store(config)
    registered: list[list[str]] = []

    async def register(r, pids, until):  # noqa: ANN001  (the registrations, not Redis's)
        registered.append(sorted(pids))

    monkeypatch.setattr(live, "listen", register)

    async def scenario() -> list[tuple[list[str], int]]:
        hub = await _hub(config)
        try:
            streams = [Listener("p_dan"), Listener("p_eve")]
            for listener in streams:
                await hub.join(listener, None)
            live.append(store, {"p_dan": [_entry(1)]})
            out = []
            async with asyncio.timeout(5):
                for listener, entries in zip(streams, (1, 0), strict=True):
                    got: list[str] = []
                    keep_alives = 0
                    while len(got) < entries or keep_alives < 2:
                        batch = await listener.queue.get()
                        got += [d for _, d in batch]
                        keep_alives += not batch
                    out.append((got, keep_alives))
            return out
        finally:
            await hub.stop(None)  # type: ignore[arg-type]

    assert run_async(scenario()) == [([_entry(1)], 2), ([], 2)]
    assert ["p_dan", "p_eve"] in registered  # renewed with the keep-alives


def test_the_commits_channel_is_heard_only_while_long_polls_come(config, monkeypatch) -> None:
    """No poll, no subscription to the commits' channel; a poll subscribes before it reads its
    page and is woken by its game's commit; the subscription ends once polls stop coming
    (COMMITS_IDLE_SECONDS, here none), and the next poll subscribes again."""
    from service.storage.keys import APPLIED_CHANNEL

    monkeypatch.setattr(server, "COMMITS_IDLE_SECONDS", 0.0)
    r = redis.Redis.from_url(config.REDIS_URL)

    def heard() -> int:
        return dict(r.pubsub_numsub(APPLIED_CHANNEL))[APPLIED_CHANNEL.encode()]

    async def until(predicate) -> None:  # noqa: ANN001
        async with asyncio.timeout(5):
            while not predicate():
                await asyncio.sleep(0.01)

    async def scenario() -> None:
        hub = await _hub(config)
        try:
            assert heard() == 0 and hub.hearing_commits is None
            woken = asyncio.Event()
            hub.polls["g_1"].add(woken)  # a poll of g_1, as `events` registers it
            await hub._commits()
            assert heard() == 1 and hub.commits_heard.is_set()
            r.publish(APPLIED_CHANNEL, "g_2 3")
            r.publish(APPLIED_CHANNEL, "g_1 5")
            async with asyncio.timeout(5):
                await woken.wait()
            assert hub.hearing_commits is not None  # a poll waits: still heard
            del hub.polls["g_1"]
            hub.polls_ended = 0.0
            r.publish(APPLIED_CHANNEL, "g_1 6")
            await until(lambda: hub.hearing_commits is None)
            await until(lambda: heard() == 0)
            assert not hub.commits_heard.is_set()
            await hub._commits()  # the next poll
            assert heard() == 1
        finally:
            await hub.stop(None)  # type: ignore[arg-type]
        await until(lambda: heard() == 0)  # Redis drops the closed connection soon after

    run_async(scenario())


def test_a_task_that_swallows_its_cancellation_is_cancelled_again() -> None:
    """As a hub task does when Python 3.11's `wait_for` (inside redis-py) drops the cancel."""
    swallowed: list[bool] = []

    async def stubborn() -> None:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            swallowed.append(True)  # and carries on, as the hub's loops did
        await asyncio.sleep(30)

    async def scenario() -> bool:
        task = asyncio.create_task(stubborn())
        await asyncio.sleep(0)
        async with asyncio.timeout(5):
            await server.cancel_until_ended([task])
        return task.cancelled()

    assert run_async(scenario()) is True
    assert swallowed == [True]


def test_the_hub_stops_while_it_renews_registrations(config, monkeypatch) -> None:
    """Stopped in the middle of its Redis calls (registrations renewed every millisecond
    here), the hub ends every task: on Python 3.11 a cancellation that arrives as a redis-py
    command completes is dropped, and a stop that cancelled once hung now and then."""
    monkeypatch.setattr(server, "KEEPALIVE_SECONDS", 0.001)

    async def scenario(pause: float) -> bool:
        hub = await _hub(config)
        for n in range(10):
            await hub.join(Listener(f"p_{n}"), None)
        await asyncio.sleep(pause)
        async with asyncio.timeout(5):
            await hub.stop(None)  # type: ignore[arg-type]
        return all(task.done() for task in hub.tasks)

    assert all(run_async(scenario(0.02 + n * 0.003)) for n in range(12))


def test_a_ticket_is_taken_once_by_any_stream_process(config) -> None:
    """A ticket is marked taken in Redis, for as long as it could be valid: another stream
    process (or this one restarted) refuses it too, and a fresh ticket issued in the same
    second is another ticket."""
    from service.domain.live_feed import TICKET_SECONDS, ticket
    from service.stream.admission import TAKEN_TICKET_KEY, BadTicket, player_of, take_ticket

    direct = redis.Redis.from_url(config.REDIS_URL)

    async def scenario() -> None:
        first, second = Hub(config), Hub(config)
        try:
            value, again = ticket(first.server_key, "p_ann"), ticket(first.server_key, "p_ann")
            assert value != again and player_of(second.server_key, value) == "p_ann"
            await take_ticket(first.feeds, value)
            with pytest.raises(BadTicket):
                await take_ticket(second.feeds, value)
            await take_ticket(second.feeds, again)
        finally:
            for hub in (first, second):
                await hub.stop(None)  # type: ignore[arg-type]

    run_async(scenario())
    keys = direct.keys(TAKEN_TICKET_KEY.format("*"))
    assert len(keys) == 2 and all(0 < direct.ttl(k) <= TICKET_SECONDS + 1 for k in keys)


def test_a_quota_counts_each_player_and_address_while_held() -> None:
    """Over either cap nothing more is counted; leaving the block, even by an error, gives
    back; PARLEY_RATE_LIMITS=0 (not enforced) still counts but refuses nothing."""
    from service.stream.admission import Quota, TooMany

    quota = Quota("streams", per_player=2, per_address=3)
    with quota.hold("p_ann", "10.0.0.1"), quota.hold("p_ann", "10.0.0.1"):
        with pytest.raises(TooMany) as refused, quota.hold("p_ann", "10.0.0.2"):
            pass
        assert refused.value.extra["limit"] == 2 and refused.value.headers["Retry-After"]
        spectator = quota.hold(None, "10.0.0.1")  # the address's third: Bob's is its fourth
        with spectator, pytest.raises(TooMany), quota.hold("p_bob", "10.0.0.1"):
            pass
        with pytest.raises(KeyError), quota.hold("p_bob", "10.0.0.1"):
            raise KeyError  # the block's error, after the hold was counted
    assert not quota.held
    lax = Quota("streams", per_player=1, per_address=1, enforced=False)
    with lax.hold("p_ann", "10.0.0.1"), lax.hold("p_ann", "10.0.0.1"):
        assert lax.held == {"p:p_ann": 2, "a:10.0.0.1": 2}
