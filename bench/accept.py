"""Acceptance cost: the web process's path for one Stratego move, measured alone.

Against a real Redis, an Original game in play. `submit` calls `service.domain.accept.submit_move`
directly (strict JSON, envelope schema, key lookup, Ed25519 signature, seat/turn/step/nonce
checks, the engine's dry run, the accepting Lua script, the receipt). The two `POST` figures
call the app as the web server does, with WSGI environs built before the clock starts: the whole
web path (the fast path of service/web/fastpath, or the framework for what it hands over, the
wake of the game's first move, the response) without HTTP parsing, which is the web server's. One
runs with rate limits off; the other with them on, as deployed by default (two limits per
move, counted in Redis, their commands riding in the move's own two round trips since session
13), set high enough that nothing is refused. A third figure, side by side, is the same POST
through Flask alone (PARLEY_HOT_PATHS=0, limits on), the path every move took before
session 8. Every envelope names the current step and a fresh
nonce, so each is accepted (they would be rejected as stale later: nothing resolves them
here; these games are made without derived nonces, docs/audit.md §6, which would take one
envelope per move). Envelopes are signed before the clock starts.
Target: >= 1,000 requests/s per web process.

The settled figure plays whole Stratego games through the app, move after move, each move
signed before its clock starts: after a game's first moves (applied by a worker, here a resolve
in this process outside the clock) each POST is foreseen and settled (service/domain/settle.py),
so it measures the web process's whole part of a settled move, the round trip included; it also
reports the thread's CPU per settled POST.

The batch figure posts the same moves as a bot playing 16 games would: `POST /v1/moves` with 16
envelopes of one player, one per game, rate limits on; it reports envelopes per second.

Flask's test client, measured here until session 5, spent about a third of its time building
requests and reading responses, work no web process does; the WSGI call replaced it.
"""

from __future__ import annotations

import io
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from bench.common import Figure, bundled_redis, main
from bench.games import Player, stratego_in_play, without_derived_nonces
from engines.registry import get_engine
from service.domain.accept import submit_move
from service.domain.foresight import NO_DRAWS
from service.domain.game import resolve_pending
from service.storage.store import Store

TARGET = 1000
#: envelopes per `POST /v1/moves` in the batch figure (a bot with this many games to move)
BATCH = 16


def _game_in_play(store: Store) -> tuple[str, list[Player], int, dict]:
    """An Original game after both setups: (game, players, step, a legal move of Red); made
    without derived nonces, so that many copies of Red's move are each accepted."""
    gid, players = stratego_in_play(store, Ed25519PrivateKey.generate())
    without_derived_nonces(store, gid)
    state = store.state(gid)
    return gid, players, state["step"], next(get_engine("stratego").legal_moves(state, 0))


def _environ(path: str, body: bytes) -> dict[str, Any]:
    """A WSGI environ for `POST path` with a JSON body, as the web server hands it to the app."""
    return {"REQUEST_METHOD": "POST", "PATH_INFO": path, "QUERY_STRING": "",
            "SERVER_NAME": "127.0.0.1", "SERVER_PORT": "8000", "SERVER_PROTOCOL": "HTTP/1.1",
            "HTTP_HOST": "127.0.0.1:8000", "REMOTE_ADDR": "127.0.0.1",
            "CONTENT_TYPE": "application/json", "CONTENT_LENGTH": str(len(body)),
            "wsgi.input": io.BytesIO(body), "wsgi.errors": sys.stderr, "wsgi.version": (1, 0),
            "wsgi.url_scheme": "http", "wsgi.multithread": True, "wsgi.multiprocess": True,
            "wsgi.run_once": False}


def _batch_rate(app: Any, store: Store, count: int, size: int) -> float:
    """Envelopes per second through `app` in `POST /v1/moves` batches of `size`, one envelope
    per game of one player pair (as a bot playing `size` games sends them)."""
    server_key = Ed25519PrivateKey.generate()
    pair: list[Player] | None = None
    games = []
    for _ in range(size):
        gid, pair = stratego_in_play(store, server_key, players=pair)
        without_derived_nonces(store, gid)  # each round posts the same moves anew
        state = store.state(gid)
        games.append((gid, state["step"], next(get_engine("stratego").legal_moves(state, 0))))
    assert pair is not None
    environs = []
    for _ in range(count // size):
        envelopes = [json.loads(pair[0].envelope(gid, 0, step, move, derived=False))
                     for gid, step, move in games]
        environs.append(_environ("/v1/moves", json.dumps({"envelopes": envelopes}).encode()))
    statuses: list[str] = []
    bodies: list[bytes] = []

    def start_response(status: str, headers: Any, exc_info: Any = None) -> None:
        statuses.append(status)

    t = time.perf_counter()
    for environ in environs:
        bodies.append(b"".join(app(environ, start_response)))
    rate = len(environs) * size / (time.perf_counter() - t)
    if any(not status.startswith("200") for status in statuses) or any(
            b'"problem"' in body for body in bodies):
        raise RuntimeError(f"not accepted: {sorted(set(statuses))} {bodies[0][:300]!r}")
    return rate


def _settled_rate(app: Any, store: Store, count: int) -> tuple[float, float]:
    """(settled POSTs per second, CPU µs per settled POST) through `app`: Stratego games
    played move after move (random legal moves), `count` moves in all."""
    engine = get_engine("stratego")
    chooser = random.Random(7)
    statuses: list[str] = []

    def start_response(status: str, headers: Any, exc_info: Any = None) -> None:
        statuses.append(status)

    wall = cpu = 0.0
    settled = 0
    while settled < count:
        gid, players = stratego_in_play(store, Ed25519PrivateKey.generate())
        state = store.state(gid)
        while engine.result(state) is None and settled < count:
            decision = engine.decision(state)
            seat = decision["to_act"][0]
            move = chooser.choice(list(engine.legal_moves(state, seat)))
            environ = _environ(f"/v1/games/{gid}/moves",
                               players[seat].envelope(gid, seat, decision["step"], move))
            t, c = time.perf_counter(), time.thread_time()
            body = b"".join(app(environ, start_response))
            elapsed, spent = time.perf_counter() - t, time.thread_time() - c
            if not statuses[-1].startswith("202"):
                raise RuntimeError(f"not accepted: {statuses[-1]} {body[:300]!r}")
            state, _ = engine.apply(state, seat, move, NO_DRAWS)
            if json.loads(body)["status"] == "applied":
                wall, cpu, settled = wall + elapsed, cpu + spent, settled + 1
            else:  # a first move the process saw: a worker's, here resolved outside the clock
                resolve_pending(store, gid)
    return settled / wall, cpu / settled * 1e6


def _wsgi_rate(app: Any, store: Store, count: int) -> float:
    """POSTs per second through `app` (a WSGI callable), each a fresh accepted move."""
    gid, players, step, move = _game_in_play(store)
    path = f"/v1/games/{gid}/moves"
    environs = [_environ(path, players[0].envelope(gid, 0, step, move, derived=False))
                for _ in range(count)]
    statuses: list[str] = []

    def start_response(status: str, headers: Any, exc_info: Any = None) -> None:
        statuses.append(status)

    t = time.perf_counter()
    for environ in environs:
        b"".join(app(environ, start_response))
    rate = count / (time.perf_counter() - t)
    if any(not status.startswith("202") for status in statuses):
        raise RuntimeError(f"not accepted: {sorted(set(statuses))}")
    return rate


def run(runs: int | None = None, quick: bool = False, count: int | None = None,
        **_: Any) -> list[Figure]:
    runs = runs or (2 if quick else 5)
    count = count or (300 if quick else 1000)
    direct = Figure("accept: submit_move (Stratego)", unit="req/s", op=">=", target=TARGET)
    bare = Figure("accept: POST through the app, rate limits off (Stratego)", unit="req/s",
                  op=">=", target=TARGET)
    limited = Figure("accept: POST through the app, rate limits on (Stratego)", unit="req/s",
                     op=">=", target=TARGET)
    framework = Figure("accept: POST through Flask alone (hot paths off), rate limits on",
                       unit="req/s")
    batched = Figure(f"accept: envelopes in batches of {BATCH} through the app, limits on",
                     unit="moves/s")
    settled = Figure("accept: settled POSTs through the app, Stratego move after move, limits on",
                     unit="req/s")
    settled_cpu = Figure("accept: CPU per settled POST (the web thread's)", unit="µs")
    with bundled_redis() as url:
        os.environ["REDIS_URL"] = url
        os.environ.pop("PARLEY_STORE_URL", None)
        os.environ["PARLEY_DATA"] = tempfile.mkdtemp(prefix="parley-bench-")
        from service.config import Config
        from service.web.app import create_app

        def app_with(limits: bool, hot: bool = True) -> Any:
            config = Config()
            config.SERVER_KEY_PATH = Path(os.environ["PARLEY_DATA"]) / "server_key.pem"
            config.RATE_LIMITS_ENABLED, config.HOT_PATHS = limits, hot
            # one signer from one address posts far above any real quota here
            config.LIMIT_MOVES_PER_ADDRESS = config.LIMIT_MOVES_PER_PLAYER = "1000000/minute"
            return create_app(config)

        apps = [(bare, app_with(False)), (limited, app_with(True)),
                (framework, app_with(True, hot=False))]
        store = Store.from_url(url)
        server_key = Ed25519PrivateKey.generate()
        for _ in range(runs):
            gid, players, step, move = _game_in_play(store)
            bodies = [players[0].envelope(gid, 0, step, move, derived=False)
                      for _ in range(count)]
            t = time.perf_counter()
            for body in bodies:
                submit_move(store, gid, body, server_key)
            direct.samples.append(count / (time.perf_counter() - t))
            for figure, app in apps:
                figure.samples.append(_wsgi_rate(app, store, count))
            batched.samples.append(_batch_rate(apps[1][1], store, count, BATCH))
            rate, cpu = _settled_rate(apps[1][1], store, count)
            settled.samples.append(rate)
            settled_cpu.samples.append(cpu)
    return [direct, bare, limited, framework, batched, settled, settled_cpu]


def _extra(p: Any) -> None:
    p.add_argument("--count", type=int, default=None, help="envelopes per run")


if __name__ == "__main__":
    raise SystemExit(main(run, __doc__.splitlines()[0], _extra))
