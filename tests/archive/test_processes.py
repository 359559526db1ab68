"""With real processes (`parley web`, `parley worker` and its periodic sweep): a game that ends
moves to the archive once PARLEY_ARCHIVE_AFTER has passed, and answers as before."""

from __future__ import annotations

from pathlib import Path

import pytest
import redis

from service.storage.keys import game_key
from tests.e2e.conftest import running_server
from tests.players import TestPlayer
from tests.waiting import wait_until

pytestmark = pytest.mark.slow


def _reads(server, gid: str, players: list[TestPlayer]) -> dict[str, bytes]:
    paths = [f"/v1/games/{gid}", f"/v1/games/{gid}/audit", f"/v1/games/{gid}/record",
             f"/v1/games/{gid}/events?limit=1000", f"/v1/games/{gid}/view"]
    got = {path: server.get(path).content for path in paths}
    for p in players:
        got[f"view {p.name}"] = server.get(f"/v1/games/{gid}/view", headers=p.auth).content
        got[f"games {p.name}"] = server.get("/v1/players/me/games", headers=p.auth).content
    return got


def test_the_worker_moves_an_ended_game(redis_url: str, archive_url: str,
                                        tmp_path: Path) -> None:
    r = redis.Redis.from_url(redis_url, decode_responses=True)
    r.flushall()
    with running_server(redis_url, tmp_path, PARLEY_ARCHIVE_AFTER="1",
                        PARLEY_ARCHIVE_URL=archive_url) as server:
        players = [TestPlayer(n).register(server) for n in ("ann", "bob")]
        gid = server.post("/v1/games", json={"ruleset": "stratego", "players": 2,
                                             "options": {"army": "duel"}},
                          headers=players[0].auth).json()["id"]
        for p in players:
            assert server.post(f"/v1/games/{gid}/join", json=p.join_body(gid),
                               headers=p.auth).status_code == 200
        view = server.get(f"/v1/games/{gid}/view", headers=players[0].auth).json()
        env = players[0].envelope(gid, view["seat"], view["step"], {"type": "resign"})
        assert server.post(f"/v1/games/{gid}/moves", json=env).status_code == 202
        wait_until(lambda: server.get(f"/v1/games/{gid}").json()["status"] == "finished", 20,
                   "the resignation applied", interval=0.05)
        before = _reads(server, gid, players)
        wait_until(lambda: r.hgetall(game_key(gid, "meta")) == {"status": "finished",
                                                                "archived": "1"},
                   40, "the worker moving the game to the archive", interval=0.2)
        assert _reads(server, gid, players) == before
