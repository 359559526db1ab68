"""The stream process under abuse (issue 59), through real processes: single-use tickets,
caps on the streams and long polls a player or an address holds, polls dropped with their
client, counts shown only to the metrics scraper, and a flood that leaves the process
answering everyone else at once."""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing as mp
import os
import queue
import socket
import statistics
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import redis
import requests

from service.config import Config
from service.ops.ports import free_port
from tests.e2e.conftest import Server, running_server
from tests.e2e.test_live import _game
from tests.waiting import run_async, wait_answering, wait_until

pytestmark = pytest.mark.slow

ATTACKER = "203.0.113.66"
CAPS = {"PARLEY_MAX_STREAMS_PER_PLAYER": "2", "PARLEY_MAX_STREAMS_PER_ADDRESS": "3",
        "PARLEY_MAX_POLLS_PER_PLAYER": "2", "PARLEY_MAX_POLLS_PER_ADDRESS": "3"}


@pytest.fixture
def proxied(redis_url: str, tmp_path: Path) -> Iterator[Server]:
    """A system behind one trusted proxy (X-Forwarded-For names the client) with the stream
    process's default caps."""
    redis.Redis.from_url(redis_url).flushall()
    with running_server(redis_url, tmp_path, PARLEY_PROXY_HOPS="1") as srv:
        srv.start_stream()
        yield srv


@pytest.fixture
def capped(redis_url: str, tmp_path: Path) -> Iterator[Server]:
    """As `proxied`, with caps of two per player and three per address."""
    redis.Redis.from_url(redis_url).flushall()
    with running_server(redis_url, tmp_path, PARLEY_PROXY_HOPS="1", **CAPS) as srv:
        srv.start_stream()
        yield srv


def _base(server: Server) -> str:
    return f"http://127.0.0.1:{server.env['PARLEY_STREAM_PORT']}"


def _from(address: str) -> dict[str, str]:
    return {"X-Forwarded-For": address}


def _ticket_url(server: Server, path: str, auth: dict[str, str]) -> str:
    """The stream process's URL, with a fresh ticket, that the API redirects `path` to."""
    resp = server.get(path, headers=auth, allow_redirects=False)
    assert resp.status_code == 307, resp.text
    return resp.headers["Location"]


def _problem(resp: requests.Response, status: int, code: str) -> dict[str, Any]:
    assert resp.status_code == status, (resp.status_code, resp.text)
    assert resp.headers["Content-Type"].startswith("application/problem+json")
    body = resp.json()
    assert body["code"] == code and body["status"] == status and body["detail"]
    return body


def _held(server: Server) -> dict[str, float]:
    """The stream process's gauges from its /metrics, by name."""
    resp = requests.get(_base(server) + "/metrics", timeout=5)
    assert resp.status_code == 200, resp.text
    return {name: float(value) for name, value in (
        line.split() for line in resp.text.splitlines() if line.startswith("parley_stream_"))}


def _open(url: str, address: str) -> requests.Response:
    """A stream opened (status read, body left unread) from `address`."""
    return requests.get(url, headers=_from(address), stream=True, timeout=10)


def _cursor_past_the_end(server: Server, gid: str) -> int:
    return int(server.get(f"/v1/games/{gid}/events").json()["next"]) + 1000


def test_streams_are_capped_per_player_and_per_address(capped) -> None:
    gid, ann, bob = _game(capped)
    stream_path = "/v1/players/me/stream"
    held = [_open(_ticket_url(capped, stream_path, ann.auth), "198.51.100.1")
            for _ in range(2)]
    assert [r.status_code for r in held] == [200, 200]
    third = _open(_ticket_url(capped, stream_path, ann.auth), "198.51.100.2")
    body = _problem(third, 429, "rate_limited")
    assert int(third.headers["Retry-After"]) > 0 and body["limit"] == 2
    held.append(_open(_ticket_url(capped, stream_path, bob.auth), "198.51.100.1"))
    assert held[-1].status_code == 200  # Bob's first, the address's third
    cy = _game(capped)[1]
    _problem(_open(_ticket_url(capped, stream_path, cy.auth), "198.51.100.1"), 429,
             "rate_limited")  # a fourth from that address, whoever the player
    held.pop(0).close()
    wait_until(lambda: _held(capped)["parley_stream_open_streams"] == 2, 5, "a stream closed")
    held.append(_open(_ticket_url(capped, stream_path, ann.auth), "198.51.100.3"))
    assert held[-1].status_code == 200  # the place it left
    for resp in held:
        resp.close()


def _hold_poll(url: str, address: str) -> socket.socket:
    """A long poll sent from `address` and left waiting, its answer unread (one that is held
    answers only when it ends)."""
    parts = urlsplit(url)
    sock = socket.create_connection((parts.hostname, parts.port), timeout=5)
    sock.sendall(f"GET {parts.path}?{parts.query} HTTP/1.1\r\nHost: stream\r\n"
                 f"X-Forwarded-For: {address}\r\n\r\n".encode())
    return sock


def _polls(server: Server) -> float:
    return _held(server)["parley_stream_open_polls"]


def test_polls_are_capped_per_player_and_per_address(capped) -> None:
    gid, ann, _ = _game(capped)
    anonymous = (f"{_base(capped)}/v1/games/{gid}/events?"
                 f"cursor={_cursor_past_the_end(capped, gid)}&wait=30")
    held = [_hold_poll(anonymous, "198.51.100.9") for _ in range(3)]
    wait_until(lambda: _polls(capped) == 3, 5, "three polls held")
    over = requests.get(anonymous, headers=_from("198.51.100.9"), timeout=5)
    body = _problem(over, 429, "rate_limited")
    assert int(over.headers["Retry-After"]) > 0 and body["limit"] == 3
    cursor = capped.get(f"/v1/games/{gid}/events").json()["next"]
    polls = f"/v1/games/{gid}/events?cursor={cursor}&wait=30"
    held += [_hold_poll(_ticket_url(capped, polls, ann.auth), f"198.51.100.{n}")
             for n in (1, 2)]
    wait_until(lambda: _polls(capped) == 5, 5, "Ann's two held")
    third = requests.get(_ticket_url(capped, polls, ann.auth), headers=_from("198.51.100.3"),
                         timeout=5)
    assert _problem(third, 429, "rate_limited")["limit"] == 2
    held.pop().close()
    wait_until(lambda: _polls(capped) == 4, 5, "a poll closed")
    held.append(_hold_poll(_ticket_url(capped, polls, ann.auth), "198.51.100.3"))
    wait_until(lambda: _polls(capped) == 5, 5, "a poll closed frees")
    for sock in held:
        sock.close()


def test_a_ticket_is_taken_once(proxied) -> None:
    gid, ann, _ = _game(proxied)
    stream = _ticket_url(proxied, "/v1/players/me/stream", ann.auth)
    first = _open(stream, "198.51.100.1")
    assert first.status_code == 200
    _problem(_open(stream, "198.51.100.1"), 401, "bad_ticket")
    cursor = proxied.get(f"/v1/games/{gid}/events").json()["next"]
    poll = _ticket_url(proxied, f"/v1/games/{gid}/events?cursor={cursor}&wait=0.2", ann.auth)
    assert requests.get(poll, timeout=10).status_code == 200
    _problem(requests.get(poll, timeout=10), 401, "bad_ticket")
    first.close()


def test_a_poll_whose_client_left_is_dropped(proxied) -> None:
    gid, _, _ = _game(proxied)
    client = _hold_poll(f"{_base(proxied)}/v1/games/{gid}/events?"
                        f"cursor={_cursor_past_the_end(proxied, gid)}&wait=60", "198.51.100.1")
    wait_until(lambda: _polls(proxied) == 1, 5, "the poll held")
    client.close()
    wait_until(lambda: _polls(proxied) == 0, 2, "the poll dropped with its client")


def _start_stream(server: Server, **env: str) -> str:
    """Another stream process of `server`'s system, with `env` added -> its URL."""
    port = str(free_port())
    proc = subprocess.Popen([sys.executable, "-m", "service.cli", "stream"],
                            env={**server.env, "PARLEY_STREAM_PORT": port, **env},
                            start_new_session=True)
    server.procs.append(proc)
    wait_answering(f"http://127.0.0.1:{port}/health", proc, "the stream process", 30)
    return f"http://127.0.0.1:{port}"


def test_only_the_metrics_scraper_sees_the_counts(proxied) -> None:
    health = requests.get(_base(proxied) + "/health", timeout=5)
    assert health.status_code == 200 and health.json() == {"status": "ok"}
    assert _held(proxied) == {"parley_stream_open_streams": 0, "parley_stream_open_polls": 0}
    far = requests.get(_base(proxied) + "/metrics", headers=_from(ATTACKER), timeout=5)
    _problem(far, 403, "forbidden")  # no token set: loopback clients only
    tokened = _start_stream(proxied, PARLEY_METRICS_TOKEN="scrape-me")
    _problem(requests.get(tokened + "/metrics", timeout=5), 401, "unauthorized")
    _problem(requests.get(tokened + "/metrics", timeout=5, headers={
        "Authorization": "Bearer wrong"}), 401, "unauthorized")
    scraped = requests.get(tokened + "/metrics", headers={
        "Authorization": "Bearer scrape-me", **_from(ATTACKER)}, timeout=5)
    assert scraped.status_code == 200 and "parley_stream_open_streams 0" in scraped.text


# ---- the flood ------------------------------------------------------------------------------

STREAM_ATTEMPTS = 2000
POLLS = 600


async def _flood(base: str, ticket: str, gid: str, past: int, stop: Any, out: Any) -> None:
    """2,000 stream attempts with one ticket, 600 polls with `wait=nan` and 600 with a cursor
    past the end, from one address, 200 at a time. Reported once a second passed with no new
    answer: each kind's statuses, and `held` for those still unanswered; what got through is
    held until `stop`."""
    import aiohttp

    statuses: dict[str, Counter[int | str]] = {k: Counter() for k in ("stream", "nan", "past")}
    kept: list[aiohttp.ClientResponse] = []
    gate = asyncio.Semaphore(50)

    async def attempt(session: aiohttp.ClientSession, kind: str, url: str) -> None:
        async with gate:  # held for an answer, or half a second (a held poll answers late)
            answer = asyncio.ensure_future(session.get(url, headers=_from(ATTACKER)))
            await asyncio.wait({answer}, timeout=0.5)
        resp = await answer
        statuses[kind][resp.status] += 1
        if resp.status == 200:
            kept.append(resp)
        else:
            resp.release()

    urls = ([("stream", f"{base}/v1/stream?ticket={ticket}")] * STREAM_ATTEMPTS +
            [("nan", f"{base}/v1/games/{gid}/events?wait=nan")] * POLLS +
            [("past", f"{base}/v1/games/{gid}/events?cursor={past}&wait=60")] * POLLS)
    connector = aiohttp.TCPConnector(limit=0, force_close=True)
    async with aiohttp.ClientSession(connector=connector) as session:
        started = time.monotonic()
        tasks = [(kind, asyncio.create_task(attempt(session, kind, url))) for kind, url in urls]
        answered = None
        while answered != (now := sum(sum(c.values()) for c in statuses.values())):
            answered = now
            await asyncio.sleep(1.0)
        for kind, task in tasks:
            statuses[kind]["held"] += not task.done()
        out.put({"statuses": {k: dict(v) for k, v in statuses.items()},
                 "seconds": time.monotonic() - started})
        while not stop.is_set():
            await asyncio.sleep(0.05)
        for _, task in tasks:
            task.cancel()
        await asyncio.gather(*(task for _, task in tasks), return_exceptions=True)
        for resp in kept:
            resp.close()


def _flooder(base: str, ticket: str, gid: str, past: int, stop: Any, out: Any) -> None:
    run_async(_flood(base, ticket, gid, past, stop, out))


def _open_files(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def _probe(url: str) -> float:
    """Seconds another client (another address, a new connection) waits for its answer."""
    started = time.monotonic()
    resp = requests.get(url, headers=_from("198.51.100.50"), timeout=10)
    assert resp.status_code == 200, resp.text
    return time.monotonic() - started


def test_a_flood_leaves_the_stream_process_answering_others_within_100_ms(proxied) -> None:
    """Issue 59's acceptance: 2,000 stream attempts with one ticket, 600 `wait=nan` polls and
    600 polls with a cursor past the end, all from one address, while another client reads a
    game through the stream process every 50 ms. What the flood leaves held is one stream and
    the address's cap of polls, and the other client's every answer then comes within 100 ms;
    during the attempts themselves (the flooder spends a core of the two) it is answered every
    time, 95 in 100 within 100 ms."""
    gid, ann, _ = _game(proxied)
    stream_pid = proxied.procs[-1].pid
    ticket = _ticket_url(proxied, "/v1/players/me/stream", ann.auth).split("ticket=")[1]
    probe_url = f"{_base(proxied)}/v1/games/{gid}/events?cursor=0&wait=0"
    _probe(probe_url)
    ctx = mp.get_context("spawn")
    stop, out = ctx.Event(), ctx.Queue()
    flooder = ctx.Process(target=_flooder, args=(_base(proxied), ticket, gid,
                                                 _cursor_past_the_end(proxied, gid), stop, out))
    flooder.start()
    during: list[float] = []
    after: list[float] = []
    try:
        report = None
        while report is None:
            assert flooder.is_alive(), "the flooder died"
            during.append(_probe(probe_url))
            time.sleep(0.05)
            with contextlib.suppress(queue.Empty):
                report = out.get_nowait()
        files = _open_files(stream_pid)
        held = _held(proxied)
        ends = time.monotonic() + 2.0
        while time.monotonic() < ends:
            after.append(_probe(probe_url))
            time.sleep(0.05)
    finally:
        stop.set()
        flooder.join(30)
    statuses = report["statuses"]
    assert statuses["stream"] == {200: 1, 401: STREAM_ATTEMPTS - 1, "held": 0}, statuses
    assert statuses["nan"] == {422: POLLS, "held": 0}, statuses
    cap = Config().MAX_POLLS_PER_ADDRESS
    assert statuses["past"] == {"held": cap, 429: POLLS - cap}, statuses
    assert held == {"parley_stream_open_streams": 1, "parley_stream_open_polls": cap}
    assert files < cap + 100, files  # those held, and the process's own (some 30)
    print(f"during the flood ({report['seconds']:.1f} s): {len(during)} answers, median "
          f"{statistics.median(during) * 1000:.1f} ms, max {max(during) * 1000:.1f} ms; "
          f"after: max {max(after) * 1000:.1f} ms; {files} open files")
    assert max(after) < 0.1, sorted(after)[-5:]
    assert len(during) > 10 and sorted(during)[len(during) * 95 // 100] < 0.1, sorted(during)
    wait_until(lambda: _polls(proxied) == 0, 5, "the held polls dropped with their client")
