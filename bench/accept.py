"""Acceptance cost: the web process's path for one Stratego move, measured alone.

Against a real Redis, an Original game in play. `submit` calls `service.moves.submit_move`
directly (strict JSON, envelope schema, key lookup, Ed25519 signature, seat/turn/step/nonce
checks, the engine's dry run, the accepting Lua script, the receipt); `http` posts the same
envelopes through Flask's test client (routing, problem JSON, marking the game pending and the
RQ enqueue of the first one; rate limits off, as one signer posts far above its quota). Every
envelope names the current step and a fresh nonce, so each is accepted (they would be rejected
as stale later: nothing resolves them here). Envelopes are signed before the clock starts.
Target: >= 1,000 requests/s per web process.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from bench.common import Figure, bundled_redis, main
from bench.games import Player, stratego_in_play
from engines.registry import get_engine
from service.moves import submit_move
from service.store import Store, game_key

TARGET = 1000


def _game_in_play(store: Store) -> tuple[str, list[Player], int, dict]:
    """An Original game after both setups: (game, players, step, a legal move of Red)."""
    gid, players = stratego_in_play(store, Ed25519PrivateKey.generate())
    state = json.loads(store.r.get(game_key(gid, "state")))
    return gid, players, state["step"], next(get_engine("stratego").legal_moves(state, 0))


def run(runs: int | None = None, quick: bool = False, count: int | None = None,
        **_: Any) -> list[Figure]:
    runs = runs or (2 if quick else 5)
    count = count or (300 if quick else 1000)
    direct = Figure("accept: submit_move (Stratego)", unit="req/s", op=">=", target=TARGET)
    http = Figure("accept: POST via Flask test client (Stratego)", unit="req/s", op=">=",
                  target=TARGET)
    with bundled_redis() as url:
        os.environ["REDIS_URL"] = url
        os.environ.pop("PARLEY_STORE_URL", None)
        os.environ["PARLEY_DATA"] = tempfile.mkdtemp(prefix="parley-bench-")
        os.environ["PARLEY_RATE_LIMITS"] = "0"  # one signer posts far above its quota here
        from service.app import create_app
        from service.config import Config

        config = Config()
        config.SERVER_KEY_PATH = Path(os.environ["PARLEY_DATA"]) / "server_key.pem"
        app = create_app(config)
        client = app.test_client()
        store = Store.from_url(url)
        server_key = Ed25519PrivateKey.generate()
        for _ in range(runs):
            gid, players, step, move = _game_in_play(store)
            bodies = [players[0].envelope(gid, 0, step, move) for _ in range(count)]
            t = time.perf_counter()
            for body in bodies:
                submit_move(store, gid, body, server_key)
            direct.samples.append(count / (time.perf_counter() - t))
            gid, players, step, move = _game_in_play(store)
            bodies = [players[0].envelope(gid, 0, step, move) for _ in range(count)]
            t = time.perf_counter()
            for body in bodies:
                resp = client.post(f"/v1/games/{gid}/moves", data=body,
                                   content_type="application/json")
                if resp.status_code != 202:
                    raise RuntimeError(f"not accepted: {resp.get_json()}")
            http.samples.append(count / (time.perf_counter() - t))
    return [direct, http]


def _extra(p: Any) -> None:
    p.add_argument("--count", type=int, default=None, help="envelopes per run")


if __name__ == "__main__":
    raise SystemExit(main(run, __doc__.splitlines()[0], _extra))
