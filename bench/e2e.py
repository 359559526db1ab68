"""End to end: concurrent Stratego games through the real HTTP API, and RQ's own loop.

A throwaway system on loopback: the bundled Redis (AOF, everysec), `parley web` (`--web`
processes) and `--workers` `parley worker` processes of one worker class. One run measures, on
the same system:

1. **RQ no-op**: `--loaders` processes enqueue no-op jobs (`bench.noop.noop`, result_ttl 0, like
   resolve jobs) as fast as the workers take them (each pauses while more than NOOP_BACKLOG
   wait) for `--seconds`, and the same workers run them: jobs finished per second, from the
   first enqueue until the queue is empty. Measured before the
   move phases and again after them; the ratios divide by the mean of the two. (On this shared
   machine one system's no-op rate moved between 359 and 525 jobs/s over five consecutive
   measurements, so a single measurement at one end of a run was a noisy yardstick.)
2. **Peak**: `--loaders` processes play `--games` concurrent Stratego games each (a finished
   game is replaced by a new one), every move as a client does it; the next move waits until
   this one is applied and the mover knows it. By default (`--client stream`) each player
   holds its live stream (docs/live.md), as a client that wants to hear of its turn at once
   does: the seat to act finds its legal moves in its pushed `turn`, signs and POSTs, and the
   next `turn` tells the mover its move was applied; one request per move (bench.feeds).
   `--client view` is the polling client of sessions 1-15: GET the view of the seat to act
   (for its `legal_moves`), sign, POST. Moves applied per second, and submit->applied latency
   p50/p95/p99, and the POST's own round trip; for a stream client also where that latency
   went: from the POST to the commit (the time in its feed entry's id, to the millisecond of
   Redis's clock) and from the commit to the push heard.
3. **Half peak**: the same games paced to half the peak rate (open loop per game): latency.
   `--paced-rate` paces them at a fixed rate instead, to compare latency at one load.

Then phases 2 and 3 again with **batching bots** (`--mode` picks one kind of client or both). A
bot or a tournament runner playing many games pays the web stack's per-request cost (HTTP
and the framework, ~0.3-0.4 ms of CPU: about a third of what a move's two requests cost the web
processes) once per batch instead of twice per move. Each loader process is one pair of bots, P
and Q, registered once, playing all its `--bot-games` games against each other from one thread over
one connection. Whenever games are ready (new, or their last move applied), each bot in turn
takes all its ready games where it is probably to act, fetches their views in one
`GET /v1/views`, picks a move wherever the view says it is to act (a wrong guess passes the
game to the other bot) and posts all its envelopes in one `POST /v1/moves`. Batches form as games
become ready: nothing waits to fill one. Pacing is per game, as above: a game is ready no
earlier than its next slot.

The load generator is kept cheap per move, so that the figures measure the server rather than
the client: one keep-alive connection per game thread over a plain socket (`_Http`), and no
polling. A stream client times its own moves from the POST to the first news that they
are applied, as the peer benchmark against boardgame.io times a move up to the mover's socket
receiving the server's update: the POST's answer when it says `"status": "applied"` (a move
the web process settled, docs/architecture.md), else the push that shows it (the next `turn`
or the game's end). Either way the game goes on only once the next `turn` is pushed (the
peer's loop waits likewise for the other seat's update), and the push alone is printed
beside it (`the push heard ... after the POST`, the yardstick until the thirteenth pass of
docs/performance.md). A turn not pushed within a second is looked for in the views
(counted and printed: none in a healthy run), and setups are not timed (a setup is applied
before the step moves on). The view client and the batching bots learn "applied" from the
commits themselves: every commit of a game's state publishes `"<game id> <applied>"` on
`service.storage.store.APPLIED_CHANNEL`, and a move with receipt id `seq` is applied once
`applied >= seq`. An observer process (no GIL shared with the players) subscribes before the
loaders start and times every move submitted in the phase from its POST to that message; in
each loader one subscriber thread wakes the game thread waiting for its move (a bot pair's
thread: it marks the game ready). A missed message can't hang a run: a move not seen within a
few seconds (the observer) or a second (the players) is checked once against the `applied`
field of the game's meta hash, and waited for again if need be. The view client reads one view
per move (Stratego alternates seats: after seat s's move the seat to act is 1 - s; only a wrong
guess costs a second GET).

`--timeline DIR` keeps every timed move, the Redis log and its latency spikes, and how fast the
host let each CPU run (`bench.host_speed`: a probe process pinned to each CPU, about 1 % of a
core each, counted as `other` by `--cpu`), and prints when each phase's slowest moves came and
what Redis and the host did then (bench.timeline).

`--cpu` prints each phase's CPU per applied move by role (`bench.cpu`: web, worker, stream,
Redis, the load generators, the rest of the machine), `--no-noop` skips the RQ no-op phases
for a quick run.

Targets: moves applied/s >= 1.0x the no-op job rate; p99 submit->applied <= 50 ms at half peak.
The same targets for each kind of client. Also printed: moves per RQ job (the workers'
successful-job counters) in the peak phase, and the batching bots' moves per POST.
Rate limits are off unless `--rate-limits` turns them on (far above the load, so that they
cost what they cost in a deployment and refuse nothing).

`--store cluster` puts the game store on a Redis Cluster of three masters of the bundled binary
(tests/cluster/redis_cluster.py, AOF everysec like the Redis), beside the Redis that keeps the
queue, the rate limits and the live feeds (docs/operations.md, "Redis Cluster store"); the load
generator then reads games through a cluster client and hears commits on one node.

Pooling: one `parley worker` by default (`--workers`), as `parley run` and the Procfile
deploy. On 2 cores shared with the web tier, a second worker did not raise the moves applied
per second (alternating runs: 360 and 373 moves/s with one worker, 319 and 337 with two; the
web processes are the bottleneck, and one worker needs about 0.7 of a core at peak), while it
nearly doubled RQ's no-op rate, whose loop is the workers' own. The no-op rate is the yardstick of
the pool that resolves the moves, so both are measured with the same pool
(docs/performance.md, "Worker class").
"""

from __future__ import annotations

import contextlib
import math
import multiprocessing as mp
import random
import shutil
import socket
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import orjson
import redis

from bench import host_speed
from bench.common import (
    Figure,
    System,
    applied_counts,
    bundled_redis,
    jobs_done,
    main,
    parse_applied,
    subscribe_applied,
)
from bench.cpu import describe as describe_cpu
from bench.cpu import per_move as cpu_per_move
from bench.cpu import snapshot as cpu_snapshot
from bench.feeds import Feeds
from bench.stats import percentile
from bench.timeline import default_folder, report, within, write_phase
from service.storage.keys import game_key

TARGET_P99_MS = 50.0
#: `--rate-limits`: the limits on, as deployed by default, but far above what the few
#: benchmark players on one address post, so that they cost their Redis calls and refuse nothing
RATE_LIMITS_ON = {"PARLEY_RATE_LIMITS": "1", **{
    f"PARLEY_LIMIT_{name}": "1000000/minute"
    for name in ("MOVES_PER_PLAYER", "MOVES_PER_ADDRESS", "REGISTER_PER_ADDRESS",
                 "CREATE_PER_PLAYER", "CREATE_PER_ADDRESS")}}
OBSERVER_RECHECK = 3.0  # s: a move not seen applied by then is checked in its meta hash
PLAYER_RECHECK = 1.0  # s: likewise for a game thread waiting for its own move
APPLY_TIMEOUT = 30.0  # s: a move not applied by then is lost


@dataclass(frozen=True)
class GameStore:
    """Where the load generator reads games and hears commits: the queue's Redis, or (`--store
    cluster`) a Redis Cluster, whose nodes forward every PUBLISH to each other."""

    url: str
    cluster: bool = False

    def client(self) -> redis.Redis:
        if self.cluster:
            return redis.RedisCluster.from_url(self.url)
        return redis.Redis.from_url(self.url)

    def announcements(self) -> redis.Redis:
        """A client for APPLIED_CHANNEL: one node of a cluster hears every commit."""
        return redis.Redis.from_url(self.url)


@contextlib.contextmanager
def game_store(kind: str, redis_url: str) -> Iterator[tuple[GameStore, dict[str, str]]]:
    """(where the games are, the settings that put them there) for `--store`: `single`, the
    queue's Redis, or `cluster`, a 3-master Redis Cluster of the bundled binary."""
    if kind == "single":
        yield GameStore(redis_url), {}
        return
    from tests.cluster.redis_cluster import LocalCluster

    data = Path(tempfile.mkdtemp(prefix="parley-bench-cluster-"))
    try:
        with LocalCluster(data, appendfsync="everysec") as cluster:
            yield GameStore(cluster.url, cluster=True), {"PARLEY_STORE_URL": cluster.url,
                                                         "PARLEY_STORE_CLUSTER": "1"}
    finally:
        shutil.rmtree(data, ignore_errors=True)
BATCH_MAX = 64  # envelopes per POST /v1/moves, games per GET /v1/views (the server's limit)
BATCH_WAIT = 0.05  # s: a bot pair's longest wait for its first ready game
WORKERS = 1  # `parley worker` processes (see "Pooling" above)
#: no-op jobs an enqueuer lets wait before it pauses. Unbounded, two enqueuers queued ~30,000
#: jobs in 15 s that one worker then drained on one core while the other sat idle: the rate
#: measured the drain, not RQ's loop (157-353 jobs/s against 313-418 bounded, side by side)
NOOP_BACKLOG = 256
#: games per bot pair: a bot's batches are as large as its ready games, so batching pays
#: with many games per player (at 16 a batch held 3.7 moves on average at peak, at 32 8.7)
BOT_GAMES = 32


# ---- the load generator (runs in its own processes) -----------------------------------------


def next_slot_after(slot: float, interval: float, now: float) -> float:
    """A paced game's next slot: the first of `slot + k * interval` (k >= 1) not before `now`.

    Each game keeps the phase it drew at the start, so the paced load stays spread out. A late
    move skips the slots it missed instead of moving the game's grid to `now`: a bot posts many
    games at one instant, and re-basing them all on that instant pulled them into step, so the
    "paced" load arrived in bursts as large as a bot's batch."""
    return slot + interval * max(1, math.ceil((now - slot) / interval))


def _observer(store: GameStore, inbox: Any, out: Any, ready: Any) -> None:
    """Its own process (no GIL shared with the players): times every (game, seq, t0) it is sent
    from t0 to the first APPLIED_CHANNEL message with `applied >= seq`; reports latencies."""
    r = store.client()
    pubsub = subscribe_applied(store.announcements())
    ready.set()
    lock = threading.Lock()
    pending: dict[str, dict[int, list[float]]] = {}  # gid -> seq -> [t0, next meta check]
    recent: dict[str, list[tuple[int, float]]] = {}  # gid -> last messages (applied, time)
    latencies: list[tuple[float, float]] = []
    done = threading.Event()

    def take() -> None:  # the moves submitted, from the loaders (maybe after they're applied)
        while (item := inbox.get()) is not None:
            gid, seq, t0 = item
            with lock:
                for applied, t in recent.get(gid, ()):
                    if applied >= seq:
                        latencies.append((t0, t - t0))
                        break
                else:
                    pending.setdefault(gid, {})[seq] = [t0, t0 + OBSERVER_RECHECK]
        done.set()

    taker = threading.Thread(target=take, daemon=True)
    taker.start()

    def resolve(gid: str, applied: int, now: float) -> None:  # with lock held
        waits = pending.get(gid)
        if waits:
            for seq in [s for s in waits if s <= applied]:
                t0 = waits.pop(seq)[0]
                latencies.append((t0, now - t0))
            if not waits:
                del pending[gid]

    next_check = time.monotonic() + 0.5
    give_up = None
    while True:
        msg = pubsub.get_message(timeout=0.2)
        now = time.time()
        if msg and msg["type"] == "message":
            gid, applied = parse_applied(msg["data"])
            with lock:
                history = recent.setdefault(gid, [])
                history.append((applied, now))
                if len(history) > 4:
                    del history[0]
                resolve(gid, applied, now)
        if time.monotonic() >= next_check:  # the fallback for a missed message
            next_check = time.monotonic() + 0.5
            with lock:
                due = [(gid, seq) for gid, waits in pending.items()
                       for seq, (_t0, check) in waits.items() if check <= now]
            if due:
                values = applied_counts(r, [gid for gid, _seq in due])
                now = time.time()
                with lock:
                    for (gid, seq), value in zip(due, values, strict=True):
                        if value >= seq:
                            resolve(gid, seq, now)  # when it was seen: an upper bound
                        elif seq in pending.get(gid, {}):
                            pending[gid][seq][1] = now + OBSERVER_RECHECK
            if done.is_set():
                with lock:
                    if not pending:
                        break
                # the loaders have finished: all their moves were applied (or given up on)
                give_up = give_up or time.monotonic() + 2 * OBSERVER_RECHECK
                if time.monotonic() > give_up:
                    break
    pubsub.close()
    with lock:
        out.put(list(latencies))


class _Response:
    def __init__(self, status: int, body: bytes, location: str | None = None) -> None:
        self.status_code, self.body, self.location = status, body, location

    @property
    def text(self) -> str:
        return self.body.decode(errors="replace")

    def json(self) -> Any:
        return orjson.loads(self.body)  # a Stratego view is ~9 KB: half the cost of json's


class _Http:
    """One HTTP/1.1 keep-alive connection for a game thread's life, over a plain socket: JSON
    bodies, responses read whole by their Content-Length. `http.client` parses every response's
    headers with the `email` package, which cost the load generator more CPU than the
    server's own HTTP parsing; the server here always answers with a Content-Length. It
    reconnects when the server closed the connection, and retries a request once if a reused
    connection turns out closed before it was answered."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self.address = (parts.hostname or "127.0.0.1", parts.port or 80)
        self.host = f"{self.address[0]}:{self.address[1]}".encode()
        self.sock: socket.socket | None = None
        self.buffer = b""

    def close(self) -> None:
        if self.sock is not None:
            self.sock.close()
        self.sock, self.buffer = None, b""

    def request(self, method: str, path: str, body: Any = None,
                headers: dict[str, str] | None = None) -> _Response:
        head = [f"{method} {path} HTTP/1.1".encode(), b"Host: " + self.host]
        head += [f"{k}: {v}".encode() for k, v in (headers or {}).items()]
        data = b""
        if body is not None:
            data = orjson.dumps(body)
            head += [b"Content-Type: application/json", b"Content-Length: %d" % len(data)]
        message = b"\r\n".join(head) + b"\r\n\r\n" + data
        for attempt in range(2):
            reused = self.sock is not None
            try:
                if self.sock is None:
                    self.sock = socket.create_connection(self.address, timeout=30)
                    self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                self.sock.sendall(message)
                return self._response()
            except (ConnectionError, EOFError):
                self.close()
                if not reused or attempt:
                    raise
        raise AssertionError("unreachable")

    def _read_more(self) -> None:
        assert self.sock is not None
        chunk = self.sock.recv(65536)
        if not chunk:
            raise EOFError("the server closed the connection")
        self.buffer += chunk

    def _response(self) -> _Response:
        while (end := self.buffer.find(b"\r\n\r\n")) < 0:
            self._read_more()
        head, self.buffer = self.buffer[:end].split(b"\r\n"), self.buffer[end + 4:]
        status = int(head[0].split(b" ", 2)[1])
        length, close, location = 0, False, None
        for line in head[1:]:
            name, _, value = line.partition(b":")
            name = name.strip().lower()
            if name == b"content-length":
                length = int(value)
            elif name == b"connection":
                close = value.strip().lower() == b"close"
            elif name == b"location":
                location = value.strip().decode()
        while len(self.buffer) < length:
            self._read_more()
        body, self.buffer = self.buffer[:length], self.buffer[length:]
        if close:
            self.close()
        return _Response(status, body, location)

    def post(self, path: str, json: Any, headers: dict[str, str] | None = None) -> _Response:
        return self.request("POST", path, json, headers)

    def get(self, path: str, headers: dict[str, str] | None = None) -> _Response:
        return self.request("GET", path, None, headers)


class _Applied:
    """The latest `applied` of a loader's games, kept by one thread subscribed to
    APPLIED_CHANNEL, which wakes the game thread waiting for its move."""

    def __init__(self, store: GameStore) -> None:
        self.r = store.client()
        self.lock = threading.Lock()
        self.latest: dict[str, int] = {}  # only this loader's games
        self.waiting: dict[str, tuple[int, threading.Event]] = {}
        self.pubsub = subscribe_applied(store.announcements())  # before any game exists
        threading.Thread(target=self._listen, daemon=True).start()

    def _listen(self) -> None:
        while True:
            try:
                for msg in self.pubsub.listen():  # blocking reads; resubscribes on reconnect
                    if msg["type"] == "message":
                        self._heard(*parse_applied(msg["data"]))
            except Exception:  # meanwhile the game threads fall back on the meta hash
                time.sleep(0.1)

    def _heard(self, gid: str, applied: int) -> None:
        with self.lock:
            latest = self.latest.get(gid)
            if latest is None:  # another loader's game
                return
            if applied > latest:
                self.latest[gid] = applied
            self._resolve(gid, applied)

    def _resolve(self, gid: str, applied: int) -> None:  # with lock held
        """Wake the game thread waiting for a move of `gid` up to `applied`."""
        waiter = self.waiting.get(gid)
        if waiter and applied >= waiter[0]:
            del self.waiting[gid]
            waiter[1].set()

    def track(self, gid: str) -> None:
        with self.lock:
            self.latest.setdefault(gid, 0)

    def forget(self, gid: str) -> None:
        with self.lock:
            self.latest.pop(gid, None)
            self.waiting.pop(gid, None)

    def wait(self, gid: str, seq: int, event: threading.Event) -> bool:
        """True once move `seq` of `gid` is applied; False after APPLY_TIMEOUT."""
        deadline = time.monotonic() + APPLY_TIMEOUT
        with self.lock:
            if self.latest.get(gid, 0) >= seq:
                return True
            event.clear()
            self.waiting[gid] = (seq, event)
        while True:
            if event.wait(PLAYER_RECHECK):
                return True
            applied = int(self.r.hget(game_key(gid, "meta"), "applied") or 0)  # a missed message?
            with self.lock:
                if applied >= seq or time.monotonic() > deadline:
                    self.waiting.pop(gid, None)
                    if gid in self.latest:
                        self.latest[gid] = max(self.latest[gid], applied)
                    return applied >= seq


def _loader(url: str, store: GameStore, games: int, start: float, seconds: float,
            rate: float | None, army: str, seed: int, out: Any, observed: Any,
            client: str = "stream") -> None:
    """Play `games` games concurrently from `start` (wall clock) for `seconds`; report.
    `client`: `stream` (the players' live streams push the turns and their legal moves) or
    `view` (a GET of the view before every move, the applied channel for the wait)."""
    from tests.players import TestPlayer

    stop_at = start + seconds
    errors: list[str] = []
    reads = [0]  # views read by stream clients: a push that did not come within a second
    answered: list[float] = []  # each measured POST's round trip (s)
    #: stream clients: (POST sent, latency to the first news of the move applied)
    timed: list[tuple[float, float]] = []
    #: stream clients, in step with `timed`: (POST sent, latency to the push)
    pushed: list[tuple[float, float]] = []
    #: stream clients: (from the POST to the commit, from the commit to the push heard)
    split: list[tuple[float, float]] = []
    #: a stream client's game thread: its moves not yet timed, (POST sent, when its answer
    #: said the move was applied, else None)
    here = threading.local()

    def posted_here() -> list[tuple[float, float | None]]:
        if not hasattr(here, "posted"):
            here.posted = []
        return here.posted
    lock = threading.Lock()
    applied = _Applied(store) if client == "view" else None
    feeds = Feeds() if client == "stream" else None
    interval = games / rate if rate else None  # per game

    def error(text: str) -> None:
        with lock:
            errors.append(text)

    def new_game(http: _Http, n: int) -> tuple[str, list[TestPlayer]]:
        players = [TestPlayer(f"l{seed}-{n}-{i}").register(http) for i in range(2)]
        return start_game(http, players), players

    def start_game(http: _Http, players: list[TestPlayer]) -> str:
        resp = http.post("/v1/games", json={"ruleset": "stratego", "players": 2, "options": {
            "army": army, "red_player": "joined"}}, headers=players[0].auth)
        if resp.status_code != 201:
            raise RuntimeError(f"create game: {resp.status_code} {resp.text[:200]}")
        gid = resp.json()["id"]
        for p in players:
            resp = http.post(f"/v1/games/{gid}/join", json=p.join_body(gid), headers=p.auth)
            if resp.status_code >= 300:
                raise RuntimeError(f"join: {resp.status_code} {resp.text[:200]}")
        return gid

    def get_view(http: _Http, gid: str, p: TestPlayer) -> dict | None:
        resp = http.get(f"/v1/games/{gid}/view", headers=p.auth)
        if resp.status_code != 200:
            error(f"view {resp.status_code} {resp.text[:200]}")
            return None
        return resp.json()

    def submit(http: _Http, gid: str, p: TestPlayer, view: dict, move: dict) -> int | None:
        """POST a move at the seat and step of `view` (a view, or a pushed turn: both name
        them); returns its seq. It is timed by the observer, or by its game thread (`turns`)."""
        env = p.envelope(gid, view["seat"], view["step"], move)
        t0 = time.time()
        resp = http.post(f"/v1/games/{gid}/moves", json=env)
        if resp.status_code != 202:
            error(f"{resp.status_code} {resp.text[:200]}")
            return None
        body = resp.json()
        answered_at = time.time()
        seq = body["id"]
        if start <= t0 < stop_at:
            if feeds is None:
                observed.put((gid, seq, t0))
            else:  # timed by its game thread when its turn comes (or by this answer)
                posted_here().append(
                    (t0, answered_at if body.get("status") == "applied" else None))
            with lock:
                answered.append(answered_at - t0)
        return seq

    def pace(next_slot: list[float]) -> None:
        """Paced phases: wait for this game's next slot, one every `interval` (open loop)."""
        if interval:
            delay = next_slot[0] - time.time()
            if delay > 0:
                time.sleep(delay)
            next_slot[0] = next_slot_after(next_slot[0], interval, time.time())

    def turns(http: _Http, gid: str, players: list[TestPlayer], after_step: int, seats: int,
              event: threading.Event) -> list[dict[str, Any]] | None:
        """The pushed turns of `gid` after `after_step` ([] once it is over); a push not
        seen within PLAYER_RECHECK is looked for in the views (counted in `reads`). The moves
        posted since the last call (`posted`) are timed up to the push."""
        assert feeds is not None
        deadline = time.monotonic() + APPLY_TIMEOUT
        while time.monotonic() < deadline:
            got = feeds.wait(gid, after_step, seats, event, PLAYER_RECHECK)
            if got is not None:
                with lock:
                    for t0, answered_at in posted_here():
                        first = got[1] if answered_at is None else min(answered_at, got[1])
                        timed.append((t0, first - t0))
                        pushed.append((t0, got[1] - t0))
                        if got[2] is not None:
                            split.append((got[2] - t0, got[1] - got[2]))
                posted_here().clear()
                return got[0]
            with lock:
                reads[0] += 1
            views = [get_view(http, gid, p) for p in players]
            if any(v is None or v["status"] != "active" for v in views):
                return []
            acting = [{"seat": v["seat"], "step": v["step"], "legal_moves": v["legal_moves"]}
                      for v in views if v["seat"] in v["to_act"] and v["step"] > after_step]
            if len(acting) >= seats:
                posted_here().clear()  # not timed: when they were applied is not known
                return acting
        error(f"game {gid}: no turn after step {after_step} within {APPLY_TIMEOUT:.0f} s")
        return None

    def play_pushed(http: _Http, n: int, chooser: random.Random, event: threading.Event,
                    next_slot: list[float]) -> None:
        """One game as a client on the stream plays it: a POST per move, nothing read."""
        assert feeds is not None
        players = [TestPlayer(f"l{seed}-{n}-{i}").register(http) for i in range(2)]
        streams = []
        try:
            for p in players:  # listening before the game starts: its first turns are pushed
                resp = http.get("/v1/players/me/stream", headers=p.auth)
                if resp.status_code != 307 or not resp.location:
                    raise RuntimeError(f"stream: {resp.status_code} {resp.text[:200]}")
                streams.append(feeds.open(resp.location))
            gid = start_game(http, players)
            try:
                while time.time() < start:
                    time.sleep(0.01)
                step, seats = -1, 2  # the secret setups: both seats at once
                while time.time() < stop_at:
                    acting = turns(http, gid, players, step, seats, event)
                    if not acting:
                        return  # over, or lost: next game
                    for turn in acting:
                        pace(next_slot)
                        move = (turn["legal_moves"][0] if seats == 2
                                else chooser.choice(turn["legal_moves"]))
                        if submit(http, gid, players[turn["seat"]], turn, move) is None:
                            return
                    if seats == 2:  # a setup is applied before the step moves on: not timed
                        posted_here().clear()
                    step, seats = max(t["step"] for t in acting), 1
            finally:
                feeds.forget(gid)
        finally:
            for sock in streams:
                feeds.close(sock)

    def play_game(http: _Http, n: int, chooser: random.Random, event: threading.Event,
                  next_slot: list[float]) -> None:
        if feeds is not None:
            return play_pushed(http, n, chooser, event, next_slot)
        assert applied is not None
        gid, players = new_game(http, n)
        applied.track(gid)
        try:
            while time.time() < start:
                time.sleep(0.01)
            setup = []
            for p in players:  # the secret setups: both seats at once (paced like moves)
                view = get_view(http, gid, p)
                if view is None:
                    return
                pace(next_slot)
                setup.append(submit(http, gid, p, view, view["legal_moves"][0]))
            for seq in setup:
                if seq is None:
                    return
                if not applied.wait(gid, seq, event):
                    error("not applied within 30 s")
                    return
            seat = 0  # Red (seat 0) moves first, then the seats alternate
            while time.time() < stop_at:
                view = get_view(http, gid, players[seat])
                if view is None or view["status"] != "active":
                    return  # over: next game
                if seat not in view["to_act"]:  # a wrong guess: ask the seat to act
                    if not view["to_act"]:
                        error(f"active game {gid} with no seat to act")
                        return
                    seat = view["to_act"][0]
                    view = get_view(http, gid, players[seat])
                    if view is None or view["status"] != "active":
                        return
                pace(next_slot)
                seq = submit(http, gid, players[seat], view,
                             chooser.choice(view["legal_moves"]))
                if seq is None:
                    return
                if not applied.wait(gid, seq, event):
                    error("not applied within 30 s")
                    return
                seat = 1 - seat
        finally:
            applied.forget(gid)

    def play(n: int) -> None:
        http = _Http(url)
        event = threading.Event()
        chooser = random.Random(seed * 1000 + n)
        next_slot = [start + chooser.uniform(0, interval or 0)]
        game = 0
        while time.time() < stop_at:
            try:
                play_game(http, n * 1000 + game, chooser, event, next_slot)
            except Exception as exc:  # counted, and the thread plays on
                error(f"{type(exc).__name__}: {exc}"[:300])
                http.close()
                time.sleep(0.1)
            game += 1

    threads = [threading.Thread(target=play, args=(n,), daemon=True) for n in range(games)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(seconds + 120)
    out.put({"errors": errors[:5], "error_count": len(errors), "reads": reads[0],
             "answered": answered, "timed": timed, "pushed": pushed,
             "split": split})


class _Ready(_Applied):
    """`_Applied` for one thread playing many games: no thread blocks per game; a game whose
    awaited move is applied joins `ready` (its `_resolve`) and one event wakes the player
    thread."""

    def __init__(self, store: GameStore) -> None:
        # before the listener starts: it may call `_heard` at once
        self.awaited: dict[str, tuple[int, float, float]] = {}  # gid -> seq, check, deadline
        self.ready: list[str] = []
        self.event = threading.Event()
        super().__init__(store)

    def _resolve(self, gid: str, applied: int) -> None:  # with lock held
        awaited = self.awaited.get(gid)
        if awaited and applied >= awaited[0]:
            del self.awaited[gid]
            self.ready.append(gid)
            self.event.set()

    def expect(self, gid: str, seq: int) -> None:
        """Put `gid` in `ready` once its move `seq` is applied (maybe already)."""
        now = time.monotonic()
        with self.lock:
            self.awaited[gid] = (seq, now + PLAYER_RECHECK, now + APPLY_TIMEOUT)
            self._resolve(gid, self.latest.get(gid, 0))

    def forget(self, gid: str) -> None:
        super().forget(gid)
        with self.lock:
            self.awaited.pop(gid, None)

    def take(self, timeout: float) -> tuple[list[str], list[str]]:
        """The games whose awaited move was applied (waiting up to `timeout` for the first), and
        those whose move was not applied within APPLY_TIMEOUT (no longer awaited). A move not heard
        of within PLAYER_RECHECK is checked against the game's meta hash (a missed message)."""
        if timeout > 0:
            self.event.wait(timeout)
        now = time.monotonic()
        with self.lock:
            self.event.clear()
            due = [(gid, seq) for gid, (seq, check, _) in self.awaited.items() if check <= now]
        lost = []
        if due:
            values = applied_counts(self.r, [gid for gid, _seq in due])
            now = time.monotonic()
            with self.lock:
                for (gid, _seq), applied in zip(due, values, strict=True):
                    if gid in self.latest:
                        self.latest[gid] = max(self.latest[gid], applied)
                    self._resolve(gid, applied)
                    if gid in self.awaited:
                        seq, _check, deadline = self.awaited[gid]
                        if now > deadline:
                            del self.awaited[gid]
                            lost.append(gid)
                        else:
                            self.awaited[gid] = (seq, now + PLAYER_RECHECK, deadline)
        with self.lock:
            ready, self.ready = self.ready, []
        return ready, lost


class _Table:
    """One game of a bot pair: who (probably) acts next, and whether a move is in flight."""

    __slots__ = ("acting", "gid", "seats", "seq", "slot", "waiting")

    def __init__(self, gid: str, seats: list[int], slot: float) -> None:
        self.gid, self.seats, self.slot = gid, seats, slot  # seats[b]: bot b's seat
        self.acting = {0, 1}  # the secret setups: both seats at once
        self.waiting = False  # True from the last move of a turn until it is applied
        self.seq = 0  # the game's latest move submitted


def _bot_pair(url: str, store: GameStore, games: int, start: float, seconds: float,
              rate: float | None, army: str, seed: int, out: Any, observed: Any) -> None:
    """Two bots play `games` games against each other from `start` (wall clock) for `seconds`,
    from one thread over one connection, a batch per request; report."""
    from tests.players import TestPlayer

    stop_at = start + seconds
    errors: list[str] = []
    counts = {"posts": 0, "envelopes": 0}  # the batches posted in the measured window
    http = _Http(url)
    applied = _Ready(store)
    chooser = random.Random(seed)
    interval = games / rate if rate else None  # per game
    bots = [TestPlayer(f"b{seed}-{i}").register(http) for i in range(2)]
    tables: dict[str, _Table] = {}
    vacant = [start + chooser.uniform(0, interval or 0) for _ in range(games)]  # their slots

    def error(text: str) -> None:
        errors.append(text[:300])

    def drop(t: _Table) -> None:
        """The game is over, or was given up on: a new one takes its slot."""
        if tables.pop(t.gid, None) is not None:
            applied.forget(t.gid)
            vacant.append(t.slot)

    def new_games() -> None:
        while vacant:
            resp = http.post("/v1/games", json={"ruleset": "stratego", "players": 2, "options": {
                "army": army, "red_player": "joined"}}, headers=bots[0].auth)
            if resp.status_code != 201:
                raise RuntimeError(f"create game: {resp.status_code} {resp.text[:200]}")
            gid = resp.json()["id"]
            seats = []
            for bot in bots:  # the game starts (no longer open) at the second join
                resp = http.post(f"/v1/games/{gid}/join", json=bot.join_body(gid), headers=bot.auth)
                if resp.status_code >= 300:
                    raise RuntimeError(f"join: {resp.status_code} {resp.text[:200]}")
                seats.append(resp.json()["seat"])
            applied.track(gid)
            tables[gid] = _Table(gid, seats, vacant.pop())

    def absorb(ready: list[str], lost: list[str]) -> None:
        for gid in ready:
            if (t := tables.get(gid)) is not None:
                t.waiting = False
        for gid in lost:
            error(f"game {gid}: not applied within {APPLY_TIMEOUT:.0f} s")
            if (t := tables.get(gid)) is not None:
                drop(t)

    def play_batch(b: int, due: list[_Table]) -> None:
        """Bot `b`'s views of the games in `due` in one GET, its moves in one POST."""
        bot = bots[b]
        query = "&".join(f"game={t.gid}" for t in due)
        resp = http.get(f"/v1/views?{query}", headers=bot.auth)
        views = resp.json().get("views") if resp.status_code == 200 else None
        if not isinstance(views, list) or len(views) != len(due):
            error(f"views: {resp.status_code} {resp.text[:200]}")
            for t in due:
                drop(t)
            return
        batch: list[tuple[_Table, bool]] = []  # the game, and whether its move is a setup
        envelopes = []
        for t, view in zip(due, views, strict=True):
            if "problem" in view:
                error(f"view of {t.gid}: {orjson.dumps(view['problem'])[:200]!r}")
                drop(t)
            elif view["status"] != "active":
                drop(t)  # over: next game
            elif view["seat"] not in view["to_act"]:  # a wrong guess: the other bot's batch
                t.acting = {c for c in (0, 1) if t.seats[c] in view["to_act"]}
                if not t.acting:
                    error(f"active game {t.gid} with no seat of ours to act: {view['to_act']}")
                    drop(t)
            elif not view["legal_moves"]:
                error(f"game {t.gid}: seat {view['seat']} to act without a legal move")
                drop(t)
            else:
                setup = view["step_kind"] == "setup"
                move = view["legal_moves"][0] if setup else chooser.choice(view["legal_moves"])
                envelopes.append(bot.envelope(t.gid, view["seat"], view["step"], move))
                batch.append((t, setup))
        if not batch:
            return
        t0 = time.time()
        resp = http.post("/v1/moves", json={"envelopes": envelopes})
        results = resp.json().get("results") if resp.status_code == 200 else None
        if not isinstance(results, list) or len(results) != len(batch):
            error(f"batch of {len(batch)}: {resp.status_code} {resp.text[:200]}")
            for t, _setup in batch:
                drop(t)
            return
        measured = start <= t0 < stop_at
        if measured:
            counts["posts"] += 1
            counts["envelopes"] += len(batch)
        for (t, setup), result in zip(batch, results, strict=True):
            if "problem" in result or result.get("game") != t.gid:
                error(f"move in {t.gid}: {orjson.dumps(result)[:200]!r}")
                drop(t)
                continue
            seq = result["id"]
            if measured:
                observed.put((t.gid, seq, t0))
            t.seq = max(t.seq, seq)
            if interval:  # open loop: this game's next slot
                t.slot = next_slot_after(t.slot, interval, t0)
            t.acting.discard(b)
            if not t.acting:  # the turn is complete: wait until it is applied
                # after the setups Red (seat 0) moves first, then the seats alternate
                t.acting = {t.seats.index(0)} if setup else {1 - b}
                t.waiting = True
                applied.expect(t.gid, t.seq)

    def step(timeout: float) -> bool:
        """Absorb what was applied, fill vacant places, play each bot's due games; True if
        something was posted."""
        absorb(*applied.take(timeout))
        if vacant:
            new_games()
        now = time.time()
        posted = False
        for b in (0, 1):
            due = [t for t in tables.values() if not t.waiting and b in t.acting and t.slot <= now]
            for i in range(0, len(due), BATCH_MAX):
                play_batch(b, due[i:i + BATCH_MAX])
                posted = True
        return posted

    def pause() -> float:
        """How long to wait for an applied move: until the next slot of a game due to move."""
        slots = [t.slot for t in tables.values() if not t.waiting and t.acting]
        return min(BATCH_WAIT, max(0.0, min(slots, default=math.inf) - time.time()))

    try:
        new_games()
    except Exception as exc:
        error(f"{type(exc).__name__}: {exc}")
    while time.time() < start:
        time.sleep(0.01)
    timeout = 0.0
    while time.time() < stop_at:
        try:
            timeout = 0.0 if step(timeout) else pause()
        except Exception as exc:  # counted, and the bots play on
            error(f"{type(exc).__name__}: {exc}")
            http.close()
            for t in [t for t in tables.values() if not t.waiting]:
                drop(t)  # their turn's state is unknown
            time.sleep(0.1)
    while any(t.waiting for t in tables.values()):  # the last moves: applied, or lost
        absorb(*applied.take(0.2))
    http.close()
    out.put({"errors": errors[:5], "error_count": len(errors), **counts})


def _enqueuer(redis_url: str, start: float, seconds: float, out: Any) -> None:
    from rq import Queue

    q = Queue("parley", connection=redis.Redis.from_url(redis_url))
    while time.time() < start:
        time.sleep(0.001)
    n = 0
    while time.time() < start + seconds:
        if n % 32 == 0:  # keep the workers fed, not buried (see NOOP_BACKLOG)
            while q.count > NOOP_BACKLOG and time.time() < start + seconds:
                time.sleep(0.002)
        q.enqueue("bench.noop.noop", result_ttl=0)
        n += 1
    out.put(n)


# ---- the phases -----------------------------------------------------------------------------


def noop_rate(redis_url: str, loaders: int, seconds: float) -> float:
    from rq import Queue

    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    start = time.time() + 2
    procs = [ctx.Process(target=_enqueuer, args=(redis_url, start, seconds, out))
             for _ in range(loaders)]
    conn = redis.Redis.from_url(redis_url)
    before = jobs_done(conn)
    for p in procs:
        p.start()
    enqueued = sum(out.get() for _ in procs)
    for p in procs:
        p.join()
    q = Queue("parley", connection=conn)
    while q.count or q.started_job_registry.count:
        time.sleep(0.005)
    elapsed = time.time() - start
    done = jobs_done(conn) - before
    if done < enqueued:  # the workers' counters lag a little behind the queue
        time.sleep(0.5)
        done = jobs_done(conn) - before
    return min(done, enqueued) / elapsed


def move_load(url: str, redis_url: str, loaders: int, games: int, seconds: float,
              rate: float | None, army: str, batch: bool = False,
              store: GameStore | None = None, cpu: bool = False,
              client: str = "stream", timeline: tuple[Path, str] | None = None
              ) -> dict[str, Any]:
    """One phase: `loaders` processes of games (`batch`: bot pairs) for `seconds`; the games
    are read from `store` (by default the queue's Redis, `redis_url`). `cpu`: also the CPU
    per applied move by role over the measured window (`bench.cpu`). `timeline` (folder,
    name): each timed move kept there (`bench.timeline`)."""
    store = store or GameStore(redis_url)
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    observed, latencies_out, ready = ctx.Queue(), ctx.Queue(), ctx.Event()
    # a stream client times its own moves (POST to the push that they are applied);
    # the others' are timed by an observer of the commits
    observer = None
    if batch or client != "stream":
        observer = ctx.Process(target=_observer, args=(store, observed, latencies_out, ready))
        observer.start()
        if not ready.wait(60):  # subscribed before any move is posted
            observer.terminate()
            raise RuntimeError("the observer did not subscribe")
    start = time.time() + 3 + games * loaders * 0.05  # time to register and create the games
    share = rate / loaders if rate else None  # each loader paces its own games
    target = _bot_pair if batch else _loader
    extra = () if batch else (client,)
    procs = [ctx.Process(target=target, args=(url, store, games, start, seconds, share,
                                              army, n, out, observed, *extra))
             for n in range(loaders)]
    for p in procs:
        p.start()
    conn = redis.Redis.from_url(redis_url)
    while time.time() < start:
        time.sleep(0.05)
    jobs_before = jobs_done(conn)
    cpu_window = []
    if cpu:
        cpu_window.append(cpu_snapshot())
        while time.time() < start + seconds:
            time.sleep(0.01)
        cpu_window.append(cpu_snapshot())
    reports = [out.get(timeout=seconds + 300) for _ in procs]
    jobs = jobs_done(conn) - jobs_before
    for p in procs:
        p.join()
    if observer is not None:
        observed.put(None)
        timed = latencies_out.get(timeout=60)
        observer.join()
    else:
        timed = [item for r in reports for item in r["timed"]]
    latencies = [lat for _, lat in within(timed, start, seconds)]
    if timeline:
        write_phase(*timeline, start, seconds, timed)
    errors = sum(r["error_count"] for r in reports)
    posts = sum(r.get("posts", 0) for r in reports)
    return {"moves_per_s": len(latencies) / seconds, "latencies": latencies, "errors": errors,
            "samples": [e for r in reports for e in r["errors"]][:3],
            "cpu": cpu_per_move(*cpu_window, len(latencies)) if cpu_window else {},
            "reads": sum(r.get("reads", 0) for r in reports),
            "answered": [t for r in reports for t in r.get("answered", ())],
            "split": [t for r in reports for t in r.get("split", ())],
            # a stream client's moves counted above: (first news, the push), latencies in s
            "news": [(first, push) for r in reports
                     for (t0, first), (_, push) in zip(r.get("timed", ()), r.get("pushed", ()),
                                                      strict=True)
                     if t0 + first <= start + seconds],
            "moves_per_job": len(latencies) / jobs if jobs else float("nan"),
            "moves_per_post": sum(r.get("envelopes", 0) for r in reports) / posts
            if posts else float("nan")}


def run(runs: int | None = None, quick: bool = False, seconds: float | None = None,
        workers: int = WORKERS, web: int = 2, loaders: int = 2,
        games: int | None = None,
        worker_class: str = "simple", army: str = "original", rate_limits: bool = False,
        mode: str = "both", bot_games: int | None = None, store: str = "single",
        cpu: bool = False, client: str = "stream", noop_phases: bool = True,
        timeline: Path | None = None, paced_rate: float | None = None,
        **_: Any) -> list[Figure]:
    nan = float("nan")
    runs = runs or (1 if quick else 3)
    seconds = seconds or (5.0 if quick else 15.0)
    games = games or (8 if quick else 16)
    bot_games = bot_games or (16 if quick else BOT_GAMES)
    modes = ("single", "batch") if mode == "both" else (mode,)
    system_tag = f"{worker_class}, {workers} workers, {web} web"
    if store == "cluster":
        system_tag += ", store on a 3-master cluster"
    limits_tag = ", rate limits on" if rate_limits else ""
    noop = Figure(f"e2e: RQ no-op jobs/s ({worker_class}, {workers} workers), mean of before "
                  f"and after the move phases", unit="jobs/s")
    drift = Figure("e2e: RQ no-op jobs/s after / before the move phases", unit="ratio")
    kinds = {"single": _client_figures("e2e", f"{system_tag}, {loaders * games} games"
                                              f"{limits_tag}", batch=False),
             "batch": _client_figures("e2e batch", f"{system_tag}, {loaders} bot pairs x "
                                                   f"{bot_games} games{limits_tag}", batch=True)}
    for run_no in range(1, runs + 1):
        phases: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {}  # mode -> (peak, half)
        kept = timeline / f"run{run_no}" if timeline else None
        with (bundled_redis(timeline=kept) as redis_url,
              host_speed.probes(kept) if kept else contextlib.nullcontext(),
              game_store(store, redis_url) as (games_at, where)):
            system = System(redis_url, Path(tempfile.mkdtemp(prefix="parley-bench-")),
                            web_processes=web, workers=workers, worker_class=worker_class,
                            env=RATE_LIMITS_ON if rate_limits else {})
            system.env.update(where)  # after System's own settings, which drop a store URL
            system.start()
            try:
                if "single" in modes and client == "stream":
                    system.start_stream()
                time.sleep(1.0)  # workers registered
                rq_before = noop_rate(redis_url, loaders, seconds) if noop_phases else nan
                for m in modes:  # side by side on the same system
                    batch = m == "batch"
                    n = bot_games if batch else games
                    peak = move_load(system.url, redis_url, loaders, n, seconds, None, army,
                                     batch, games_at, cpu, client,
                                     (kept, f"{m}-peak") if kept else None)
                    half = move_load(system.url, redis_url, loaders, n, seconds,
                                     paced_rate or peak["moves_per_s"] / 2, army, batch,
                                     games_at, cpu, client,
                                     (kept, f"{m}-half") if kept else None)
                    if not batch and client == "stream" and peak["reads"] + half["reads"]:
                        print(f"e2e (single): {peak['reads'] + half['reads']} turns not "
                              f"pushed within {PLAYER_RECHECK:.0f} s, read from the views")
                    for name, phase in (("peak", peak), ("half peak", half)):
                        if phase["answered"]:
                            posts = [t * 1000 for t in phase["answered"]]
                            print(f"e2e ({m}, {name}): POST answered in p50 "
                                  f"{percentile(posts, 50):.2f} / p99 "
                                  f"{percentile(posts, 99):.2f} ms", flush=True)
                        if phase["news"]:
                            push = [b * 1000 for _, b in phase["news"]]
                            told = sum(a < b for a, b in phase["news"]) / len(push)
                            print(f"e2e ({m}, {name}): the push heard p50 "
                                  f"{percentile(push, 50):.2f} / p99 "
                                  f"{percentile(push, 99):.2f} ms after the POST; the POST's "
                                  f"answer came first for {told:.0%} of the moves", flush=True)
                        if phase["split"]:
                            commit = [a * 1000 for a, _ in phase["split"]]
                            push = [b * 1000 for _, b in phase["split"]]
                            print(f"e2e ({m}, {name}): committed p50 "
                                  f"{percentile(commit, 50):.1f} / p99 "
                                  f"{percentile(commit, 99):.1f} ms after the POST, the push "
                                  f"heard p50 {percentile(push, 50):.1f} / p99 "
                                  f"{percentile(push, 99):.1f} ms after the commit", flush=True)
                        if cpu:
                            print(f"e2e ({m}, {name}, {phase['moves_per_s']:.0f} moves/s): "
                                  f"{describe_cpu(phase['cpu'])}", flush=True)
                    phases[m] = (peak, half)
                rq_after = noop_rate(redis_url, loaders, seconds) if noop_phases else nan
            finally:
                system.stop()
        rq_rate = (rq_before + rq_after) / 2
        noop.samples.append(rq_rate)
        drift.samples.append(rq_after / rq_before)
        for m, (peak, half) in phases.items():
            for figure, sample in kinds[m]:
                figure.samples.append(sample(peak, half, rq_rate))
        for m, (peak, half) in phases.items():
            if peak["samples"] or half["samples"]:
                print(f"e2e ({m}): errors:", peak["samples"] + half["samples"])
        if kept:
            print(report(kept), flush=True)
    return [noop, drift, *(figure for m in modes for figure, _ in kinds[m])]


def _client_figures(prefix: str, tag: str, batch: bool
                    ) -> list[tuple[Figure, Callable[[dict, dict, float], float]]]:
    """One kind of client's figures, each with how a run's (peak phase, half-peak phase, RQ
    no-op rate) gives its sample. Batching bots add their batch size; the per-game clients
    also report p95 at peak and p50 at half peak."""

    def ms(phase: dict[str, Any], q: float) -> float:
        return percentile([x * 1000 for x in phase["latencies"]], q)

    rows: list[tuple[Figure, Callable[[dict, dict, float], float]]] = [
        (Figure(f"{prefix}: moves applied/s at peak ({tag})", unit="moves/s"),
         lambda peak, half, rq: peak["moves_per_s"]),
        (Figure(f"{prefix}: moves applied/s / RQ no-op jobs/s", unit="ratio", op=">=",
                target=1.0), lambda peak, half, rq: peak["moves_per_s"] / rq),
        (Figure(f"{prefix}: moves per RQ job at peak", unit="moves/job"),
         lambda peak, half, rq: peak["moves_per_job"])]
    if batch:
        rows.append((Figure(f"{prefix}: moves per POST /v1/moves at peak", unit="moves/post"),
                     lambda peak, half, rq: peak["moves_per_post"]))
    rows += [(Figure(f"{prefix}: submit->applied p{q} at peak", unit="ms"),
              lambda peak, half, rq, q=q: ms(peak, q)) for q in ((50, 99) if batch else
                                                                  (50, 95, 99))]
    if not batch:
        rows.append((Figure(f"{prefix}: submit->applied p50 at half peak", unit="ms"),
                     lambda peak, half, rq: ms(half, 50)))
    rows += [(Figure(f"{prefix}: submit->applied p99 at half peak", unit="ms", op="<=",
                     target=TARGET_P99_MS), lambda peak, half, rq: ms(half, 99)),
             (Figure(f"{prefix}: refused or lost moves", unit="count"),
              lambda peak, half, rq: peak["errors"] + half["errors"])]
    return rows


def _extra(p: Any) -> None:
    p.add_argument("--seconds", type=float, default=None, help="length of each phase")
    p.add_argument("--workers", type=int, default=WORKERS, help="`parley worker` processes")
    p.add_argument("--web", type=int, default=2, help="web worker processes")
    p.add_argument("--loaders", type=int, default=2, help="load generator processes")
    p.add_argument("--games", type=int, default=None, help="concurrent games per loader")
    p.add_argument("--bot-games", type=int, default=None,
                   help=f"concurrent games per bot pair (default {BOT_GAMES}; 16 with --quick)")
    p.add_argument("--worker-class", default="simple", choices=("simple", "fork"))
    p.add_argument("--army", default="original", choices=("original", "duel"))
    p.add_argument("--rate-limits", action="store_true",
                   help="rate limits on (set far above the load), as deployed by default")
    p.add_argument("--mode", default="both", choices=("both", "single", "batch"),
                   help="clients: one request per move, batching bots, or both side by side")
    p.add_argument("--store", default="single", choices=("single", "cluster"),
                   help="the game store on the queue's Redis, or on a Redis Cluster of three "
                        "masters (the queue, rate limits and live feeds stay on the Redis)")
    p.add_argument("--client", default="stream", choices=("stream", "view"),
                   help="one client per game: its players' live streams push the turns and "
                        "their legal moves (one POST per move), or a GET of the view before "
                        "every move")
    p.add_argument("--no-noop", dest="noop_phases", action="store_false",
                   help="skip the RQ no-op phases (their ratios are then not measured)")
    p.add_argument("--timeline", type=Path, default=default_folder(), metavar="DIR",
                   help="keep every timed move, the Redis log and its latency spikes and the "
                        "CPUs' speed in DIR and print when each phase's slow moves came "
                        "(bench.timeline); "
                        "default: a folder of its own under $BENCH_TIMELINE, if set")
    p.add_argument("--cpu", action="store_true",
                   help="print each phase's CPU per applied move by role (web, worker, redis, "
                        "load generators, the rest of the machine)")
    p.add_argument("--paced-rate", type=float, default=None, metavar="MOVES_PER_S",
                   help="pace the second phase at this rate instead of half the peak's: "
                        "latency compared at one load, whatever each run's peak was")


if __name__ == "__main__":
    raise SystemExit(main(run, __doc__.splitlines()[0], _extra))
