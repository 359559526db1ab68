"""Soak clients: players who play random games over HTTP and keep every receipt they get.

A client behaves as a careful real one: on a connection error, a timeout, a 5xx or a 429 it
waits a little and sends the *same* request again (re-posting the same envelope is idempotent:
the server answers with the move it already stored). Everything it was told is kept: every
202 with its move id, envelope digest and signed receipt, so that the end of the soak can prove
that no acknowledged move was lost or applied twice.
"""

from __future__ import annotations

import random
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import requests
from parley_protocol import signing

from tests.players import TestPlayer

#: statuses worth the same request again: the server (or Redis behind it) is restarting
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})


class Unreachable(Exception):
    """The server did not answer usefully within the client's patience."""


class Stats:
    """Counters shared by every client thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.counts: Counter[str] = Counter()

    def add(self, name: str, n: int = 1) -> None:
        with self._lock:
            self.counts[name] += n

    def __getitem__(self, name: str) -> int:
        return self.counts[name]


class Http:
    """A requests session on the web process that retries what a restart can interrupt."""

    def __init__(self, url: str, stats: Stats, patience: float = 120) -> None:
        self.url = url
        self.stats = stats
        self.patience = patience
        self.session = requests.Session()

    def call(self, method: str, path: str, **kw: Any) -> requests.Response:
        deadline = time.monotonic() + self.patience
        while True:
            try:
                resp = self.session.request(method, self.url + path, timeout=15, **kw)
            except requests.RequestException:
                self.stats.add("connection_errors")
            else:
                if resp.status_code not in RETRY_STATUSES:
                    return resp
                self.stats.add(f"http_{resp.status_code}")
            if time.monotonic() > deadline:
                raise Unreachable(f"{method} {path}: no answer within {self.patience:.0f} s")
            time.sleep(0.2)

    def get(self, path: str, **kw: Any) -> requests.Response:
        return self.call("GET", path, **kw)

    def post(self, path: str, **kw: Any) -> requests.Response:
        return self.call("POST", path, **kw)


@dataclass
class Ack:
    """A 202: the server's promise that this envelope is stored as move `seq`."""

    seq: int
    digest: str
    receipt: dict[str, Any]
    location: str
    status: str = "queued"  # the last status the client saw when polling


@dataclass
class SoakGame:
    id: str
    ruleset: str
    seats: int
    players: dict[int, TestPlayer] = field(default_factory=dict)  # by final seat
    acks: dict[int, Ack] = field(default_factory=dict)  # by seq
    stalled: str | None = None  # why its client stopped playing it early
    resigned: set[int] = field(default_factory=set)


GAME_KINDS = (
    ("stratego", 2, {"army": "duel"}),
    ("stratego", 2, {"army": "duel", "seat_order": "joined"}),
    ("totohu", 2, {}),
    ("totohu", 2, {"hidden_treasure": True}),
    ("totohu", 3, {"blind": True}),
    ("totohu", 3, {}),
)


class Client:
    """One client thread's view of the server: it creates games, plays them, keeps receipts.

    `double_rate`: how often a seat posts a second, different legal move for the same decision
    (a racing client; one of the two is refused at once or rejected by the worker).
    `repost_rate`: how often it posts an envelope it already posted (must give the same move).
    """

    def __init__(self, http: Http, stats: Stats, chooser: random.Random, settle: float = 90,
                 double_rate: float = 0.03, repost_rate: float = 0.03,
                 stop: threading.Event | None = None) -> None:
        self.http = http
        self.stats = stats
        self.chooser = chooser
        self.settle = settle
        self.stop = stop or threading.Event()
        self.double_rate = double_rate
        self.repost_rate = repost_rate

    # ---- a new game -------------------------------------------------------------------------

    def new_game(self, n: int) -> SoakGame | None:
        ruleset, seats, options = self.chooser.choice(GAME_KINDS)
        players = [self._register(f"soak{n}-{i}") for i in range(seats)]
        resp = self.http.post("/v1/games", json={"ruleset": ruleset, "players": seats,
                                                 "options": options}, headers=players[0].auth)
        if resp.status_code != 201:
            raise AssertionError(f"create: {resp.status_code} {resp.text}")
        game = SoakGame(resp.json()["id"], ruleset, seats)
        for p in players:
            resp = self.http.post(f"/v1/games/{game.id}/join",
                                  json=p.join_body(game.id, f"seed-{p.name}"), headers=p.auth)
            # a retried join whose first attempt got through: the seat is ours already
            if resp.status_code != 200 and resp.json().get("code") not in (
                    "already_seated", "game_not_open"):
                raise AssertionError(f"join: {resp.status_code} {resp.text}")
        deadline = time.monotonic() + self.settle
        while time.monotonic() < deadline:  # the start may fall to a worker after a crash
            if self.http.get(f"/v1/games/{game.id}").json()["status"] not in ("open", "full"):
                break
            time.sleep(0.2)
        else:
            game.stalled = "the game did not start"
            return game
        for p in players:
            seat = self.http.get(f"/v1/games/{game.id}/view", headers=p.auth).json()["seat"]
            game.players[seat] = p
        self.stats.add("games_started")
        return game

    def _register(self, name: str) -> TestPlayer:
        """A new player. A registration retried after a kill of the web process, whose first
        attempt got through, is refused (`key_registered`) and its token was lost with the
        answer: register a fresh key instead."""
        for attempt in range(3):
            player = TestPlayer(f"{name}-{attempt}")
            resp = self.http.post("/v1/players", json=player.registration())
            if resp.status_code == 201:
                body = resp.json()
                player.id, player.key_id, player.token = body["id"], body["key_id"], body["token"]
                return player
            if resp.json().get("code") != "key_registered":
                break
            self.stats.add("refused_key_registered")
        raise AssertionError(f"register: {resp.status_code} {resp.text}")

    # ---- playing ----------------------------------------------------------------------------

    def play(self, game: SoakGame, max_moves: int) -> None:
        """Random legal moves until the game ends, `stop` is set, or `max_moves` were made."""
        made = 0
        while not self.stop.is_set() and game.stalled is None and made < max_moves:
            summary = self.http.get(f"/v1/games/{game.id}").json()
            if summary["status"] == "finished":
                self.stats.add("games_finished")
                return
            waiting: list[Ack] = []
            for seat in summary["to_act"]:
                waiting += self._act(game, seat)
            if not waiting:  # nothing to do this round (a refusal): look again shortly
                time.sleep(0.1)
            made += len(waiting)
            self._settle(game, waiting)

    def _act(self, game: SoakGame, seat: int) -> list[Ack]:
        player = game.players[seat]
        view = self.http.get(f"/v1/games/{game.id}/view", headers=player.auth).json()
        moves = view["legal_moves"]
        if seat not in view["to_act"] or not moves:
            return []
        envelope = player.envelope(game.id, seat, view["step"], self.chooser.choice(moves))
        acks = self.post(game, envelope)
        if self.chooser.random() < self.repost_rate:
            self.stats.add("reposts")
            acks += self.post(game, envelope)
        if len(moves) > 1 and self.chooser.random() < self.double_rate:
            self.stats.add("doubles")
            other = player.envelope(game.id, seat, view["step"], self.chooser.choice(moves))
            acks += self.post(game, other)
        return acks

    def post(self, game: SoakGame, envelope: dict[str, Any]) -> list[Ack]:
        """Post an envelope (retrying as needed); the acknowledgement, if it got one."""
        resp = self.http.post(f"/v1/games/{game.id}/moves", json=envelope)
        if resp.status_code != 202:
            self.stats.add(f"refused_{resp.json().get('code')}")
            return []
        body = resp.json()
        ack = Ack(body["id"], signing.envelope_digest(envelope), body["receipt"],
                  resp.headers["Location"])
        known = game.acks.get(ack.seq)
        if known is not None:
            if known.digest != ack.digest:  # two envelopes acknowledged as one move
                self.stats.add("ack_collisions")
            else:
                self.stats.add("idempotent_reposts")
            return [known]
        game.acks[ack.seq] = ack
        self.stats.add("acknowledged")
        return [ack]

    def _settle(self, game: SoakGame, acks: list[Ack]) -> None:
        """Poll every acknowledged move until it is applied or rejected (or give up; once
        `stop` is set the soak's drain phase does the waiting)."""
        deadline = time.monotonic() + self.settle
        for ack in acks:
            while ack.status == "queued" and not self.stop.is_set():
                ack.status = self.http.get(ack.location).json()["status"]
                if ack.status != "queued":
                    self.stats.add(f"seen_{ack.status}")
                    break
                if time.monotonic() > deadline:
                    game.stalled = f"move {ack.seq} still queued after {self.settle:.0f} s"
                    return
                time.sleep(0.05)

    # ---- ending -----------------------------------------------------------------------------

    def finish(self, game: SoakGame) -> None:
        """End a running game by resignations (signed moves like any other) so that its record
        is published and can be verified offline."""
        for _ in range(4 * game.seats):
            summary = self.http.get(f"/v1/games/{game.id}").json()
            if summary["status"] != "active" or game.stalled:
                return
            left = [s for s in range(game.seats) if s not in game.resigned]
            seat = self.chooser.choice(left)
            envelope = game.players[seat].envelope(game.id, seat, summary["step"],
                                                   {"type": "resign"})
            acks = self.post(game, envelope)
            self._settle(game, acks)
            if any(a.status == "applied" for a in acks):
                game.resigned.add(seat)
                self.stats.add("resignations")
