"""Live updates through real processes: a player's SSE feed (through the API's redirect to the
stream process), resumed with Last-Event-ID, and a long poll of a game's events."""

from __future__ import annotations

import contextlib
import json
import queue
import socket
import threading
import time
from typing import Any

import pytest
import requests

from service.storage.keys import APPLIED_CHANNEL
from tests.e2e.test_stratego_game import _wait_applied
from tests.players import TestPlayer

pytestmark = pytest.mark.slow

SETUP = {"a1": "flag", "b1": "bomb", "a2": "bomb", "b2": "spy", "c1": "scout",
         "a3": "scout", "c2": "miner", "b3": "miner", "d1": "general", "a4": "marshal"}
MIRROR = {sq[0] + str(11 - int(sq[1:])): piece for sq, piece in SETUP.items()}


class Feed:
    """An open SSE stream read by a thread: (id, event, data) frames in a queue."""

    def __init__(self, server: Any, player: TestPlayer, last_id: str | None = None) -> None:
        headers = dict(player.auth)
        if last_id:
            headers["Last-Event-ID"] = last_id
        self.resp = requests.get(server.url + "/v1/players/me/stream", headers=headers,
                                 stream=True, timeout=30)
        assert self.resp.status_code == 200, self.resp.text
        assert self.resp.headers["Content-Type"].startswith("text/event-stream")
        assert self.resp.history and self.resp.history[0].status_code == 307
        self.frames: queue.Queue[tuple[str | None, str, Any]] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        eid, kind, data = None, "message", []
        try:
            for line in self.resp.iter_lines(decode_unicode=True):
                if line == "":
                    if data:
                        self.frames.put((eid, kind, json.loads("\n".join(data))))
                    eid, kind, data = None, "message", []
                elif line.startswith("id: "):
                    eid = line[4:]
                elif line.startswith("event: "):
                    kind = line[7:]
                elif line.startswith("data: "):
                    data.append(line[6:])
        except (requests.RequestException, AttributeError, ValueError):
            pass  # closed by the test

    def until(self, done: Any, seconds: float = 20) -> list[tuple[str | None, str, Any]]:
        """Frames until `done(frame)` is true for one (included)."""
        out = []
        deadline = time.monotonic() + seconds
        while True:
            frame = self.frames.get(timeout=max(deadline - time.monotonic(), 0.01))
            out.append(frame)
            if done(frame):
                return out

    def close(self) -> None:
        """Shut the socket first: closing alone waits for the reading thread's next frame
        (a keep-alive, 15 s away)."""
        with contextlib.suppress(OSError, AttributeError):
            self.resp.raw.connection.sock.shutdown(socket.SHUT_RDWR)
        self.resp.close()


def _game(server: Any) -> tuple[str, TestPlayer, TestPlayer]:
    ann, bob = (TestPlayer(n).register(server) for n in ("ann", "bob"))
    gid = server.post("/v1/games", json={"ruleset": "stratego", "players": 2, "options": {
        "army": "duel", "seat_order": "joined"}}, headers=ann.auth).json()["id"]
    for seat, p in enumerate((ann, bob)):
        assert server.post(f"/v1/games/{gid}/join", json=p.join_body(gid, seat=seat),
                           headers=p.auth).status_code == 200
    return gid, ann, bob


def _move(server: Any, gid: str, player: TestPlayer, seat: int, move: dict) -> None:
    step = server.get(f"/v1/games/{gid}/view", headers=player.auth).json()["step"]
    resp = server.post(f"/v1/games/{gid}/moves", json=player.envelope(gid, seat, step, move))
    assert resp.status_code == 202, resp.json()
    assert _wait_applied(server, resp.headers["Location"])["status"] == "applied"


def test_a_players_feed_shows_their_games_as_their_seat_sees_them(server) -> None:
    server.start_stream()
    gid, ann, bob = _game(server)
    feed = Feed(server, ann)
    feed.until(lambda f: f[1] == "ready")
    _move(server, gid, ann, 0, {"type": "setup", "placement": SETUP})
    _move(server, gid, bob, 1, {"type": "setup", "placement": MIRROR})
    frames = feed.until(lambda f: f[1] == "turn" and f[2]["your_turn"])
    assert all(f[2]["game"] == gid and f[2]["seat"] == 0 for f in frames)
    # Ann's turn comes with her legal moves, exactly as her view lists them
    view = server.get(f"/v1/games/{gid}/view", headers=ann.auth).json()
    turn = frames[-1][2]
    assert turn["step"] == view["step"] and turn["legal_moves"] == view["legal_moves"]
    assert turn["legal_moves_complete"] is view["legal_moves_complete"] is True
    assert len(turn["legal_moves"]) > 1  # the scout and the front row
    # exactly the events GET /events shows Ann, in order: Bob's setup without his pieces
    shown = [f[2]["event"] for f in frames if f[1] == "event"]
    page = server.get(f"/v1/games/{gid}/events", headers=ann.auth).json()
    assert shown and shown == [e["event"] for e in page["events"] if e["seq"] > 0]
    assert not any(MIRROR.items() <= (e.get("placement") or {}).items() for e in shown)
    # resume: what happened while the stream was closed comes first, nothing twice
    last = frames[-1][0]
    feed.close()
    _move(server, gid, ann, 0, {"type": "move", "from": "a4", "to": "a5"})
    again = Feed(server, ann, last_id=last)
    resumed = again.until(lambda f: f[1] == "ready")
    kinds = [f[1] for f in resumed]
    assert kinds[0] == "event" and "turn" in kinds and kinds[-1] == "ready"
    seen = max(f[2]["seq"] for f in frames if f[1] == "event")
    assert resumed[0][2]["seq"] > seen  # Ann's move, missed while closed
    ids = [f[0] for f in frames + resumed if f[0]]
    assert len(ids) == len(set(ids)) and ids == sorted(ids, key=lambda i: tuple(
        int(x) for x in i.split("-")))
    again.close()


def _commits_heard(server: Any) -> int:
    """How many connections subscribe to the commits' channel (the stream process's, while
    long polls come) on the store's Redis (the node it names, for a cluster store)."""
    import redis

    url = server.env.get("PARLEY_STORE_URL") or server.env["REDIS_URL"]
    with redis.Redis.from_url(url) as r:
        return dict(r.pubsub_numsub(APPLIED_CHANNEL))[APPLIED_CHANNEL.encode()]


def test_a_long_poll_answers_when_the_game_moves(server) -> None:
    server.start_stream()
    gid, ann, bob = _game(server)
    feed = Feed(server, bob)
    _move(server, gid, ann, 0, {"type": "setup", "placement": SETUP})
    _move(server, gid, bob, 1, {"type": "setup", "placement": MIRROR})
    assert _commits_heard(server) == 0  # streams open, no poll: no commit wakes the process
    feed.close()
    cursor = server.get(f"/v1/games/{gid}/events", headers=bob.auth).json()["next"]
    started = time.monotonic()
    empty = server.get(f"/v1/games/{gid}/events?cursor={cursor}&wait=1", headers=bob.auth)
    assert empty.status_code == 200 and empty.json() == {"events": [], "next": cursor}
    assert 0.9 < time.monotonic() - started < 5
    assert empty.history[0].status_code == 307
    answer: queue.Queue[Any] = queue.Queue()
    threading.Thread(target=lambda: answer.put(server.get(
        f"/v1/games/{gid}/events?cursor={cursor}&wait=20", headers=bob.auth))).start()
    time.sleep(0.5)
    started = time.monotonic()
    _move(server, gid, ann, 0, {"type": "move", "from": "a4", "to": "a5"})
    got = answer.get(timeout=25)
    assert time.monotonic() - started < 5
    assert _commits_heard(server) == 1  # held a while for the next polls
    assert got.status_code == 200
    page = got.json()
    assert page["events"] and all(int(e["id"]) > int(cursor) for e in page["events"])
    assert page == server.get(f"/v1/games/{gid}/events?cursor={cursor}",
                              headers=bob.auth).json()


def test_a_stream_needs_a_valid_ticket(server) -> None:
    server.start_stream()
    base = f"http://127.0.0.1:{server.env['PARLEY_STREAM_PORT']}"
    for ticket in ("", "p_x.1.abc", "p_x.99999999999.0000"):
        resp = requests.get(f"{base}/v1/stream?ticket={ticket}", timeout=5)
        assert resp.status_code == 401 and resp.json()["code"] == "bad_ticket"
    resp = server.get("/v1/players/me/stream", allow_redirects=False)
    assert resp.status_code == 401


REFUSED_QUERIES = ["wait=nan", "wait=inf", "wait=-1", "wait=60.5", "wait=x", "limit=0",
                   "limit=1001", "limit=nan", "cursor=" + "1" + "0" * 23, "cursor=-1",
                   "cursor=1e3", "after=²", "cursor=" + "9" * 129]


def test_a_long_poll_refuses_what_the_api_refuses(server) -> None:
    """The stream process checks `wait`, `limit` and `cursor` with the API's own checks: the
    same status, code and field errors, at once (a `wait=nan` poll never ended)."""
    server.start_stream()
    gid, ann, _ = _game(server)
    base = f"http://127.0.0.1:{server.env['PARLEY_STREAM_PORT']}/v1/games/{gid}/events"
    for query in REFUSED_QUERIES:
        api = server.get(f"/v1/games/{gid}/events?{query}", headers=ann.auth)
        started = time.monotonic()
        stream = requests.get(f"{base}?{query}", timeout=5)
        assert time.monotonic() - started < 1, query
        assert api.status_code == stream.status_code == 422, (query, stream.text)
        want, got = api.json(), stream.json()
        assert got["code"] == want["code"] and got.get("errors") == want.get("errors"), query
        assert stream.headers["Content-Type"].startswith("application/problem+json")


def test_parley_watch_prints_the_feed(server, tmp_path) -> None:
    import subprocess
    import sys

    server.start_stream()
    gid, ann, bob = _game(server)
    config = tmp_path / "ann.json"
    config.write_text(json.dumps({"server": server.url, "player": ann.id, "token": ann.token}))
    watch = subprocess.Popen([sys.executable, "-m", "service.cli", "watch", "--config",
                              str(config), "--count", "4"], stdout=subprocess.PIPE, text=True,
                             env=server.env)
    time.sleep(2)  # connected and registered
    _move(server, gid, ann, 0, {"type": "setup", "placement": SETUP})
    _move(server, gid, bob, 1, {"type": "setup", "placement": MIRROR})
    out, _ = watch.communicate(timeout=30)
    lines = out.splitlines()
    assert watch.returncode == 0 and len(lines) == 4, out
    assert lines[0] == f"{gid} #1: You submitted a setup."
    assert lines[-1] == f"{gid}: your turn (step 1)"


def test_a_frame_is_named_by_its_entry_type_new_or_old() -> None:
    from service.stream.server import _frame

    new = '{"type":"turn","game":"g_1","seat":0,"legal_moves":[{"type":"move"}]}'
    old = '{"event":{"type":"moved"},"game":"g_1","seat":0,"seq":3,"step":3,"type":"event"}'
    assert _frame("1-0", new) == b"id: 1-0\nevent: turn\ndata: " + new.encode() + b"\n\n"
    assert _frame("2-0", old) == b"id: 2-0\nevent: event\ndata: " + old.encode() + b"\n\n"
