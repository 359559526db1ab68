"""A running Parley for the fuzz tests: Redis, `parley web` and a worker on loopback, with a
registered player and a live game, so that generated requests reach real games."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.players import Site, TestPlayer
from tests.soak.cluster import Cluster
from tests.waiting import wait_until

#: examples per operation (and per property); `make fuzz` sets 500
EXAMPLES = int(os.environ.get("PARLEY_FUZZ_EXAMPLES", "25"))


@dataclass
class Live:
    """The running server and what exists on it."""

    url: str
    player: TestPlayer  # seated in `game`
    other: TestPlayer
    game: str  # an active Stratego Duel game, both setups applied (moves 1 and 2)
    open_game: str  # created by `player`, nobody seated yet
    finished_game: str  # a finished game (its record is published)


def _wait_applied(http: Site, location: str) -> None:
    wait_until(lambda: http.get(location).json()["status"] != "queued", 30,
               f"{location} still queued", interval=0.05)


def _duel(http: Site, players: list[TestPlayer]) -> str:
    gid = http.post("/v1/games", json={"ruleset": "stratego", "players": 2,
                                       "options": {"army": "duel", "seat_order": "joined"}},
                    headers=players[0].auth).json()["id"]
    for p in players:
        assert http.post(f"/v1/games/{gid}/join", json=p.join_body(gid),
                         headers=p.auth).status_code == 200
    for seat, p in enumerate(players):
        view = http.get(f"/v1/games/{gid}/view", headers=p.auth).json()
        resp = http.post(f"/v1/games/{gid}/moves",
                         json=p.envelope(gid, seat, view["step"], view["legal_moves"][0]))
        assert resp.status_code == 202, resp.text
        _wait_applied(http, resp.headers["Location"])
    return gid


@pytest.fixture(scope="session")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    data = Path(tmp_path_factory.mktemp("fuzz-server"))
    with Cluster(data, workers=1, web_workers=2) as cluster:
        http = Site(cluster.url, timeout=30)
        player, other = (TestPlayer(n).register(http) for n in ("fuzz-ann", "fuzz-bob"))
        game = _duel(http, [player, other])
        finished = _duel(http, [player, other])
        resign = player.envelope(finished, 0, http.get(f"/v1/games/{finished}").json()["step"],
                                 {"type": "resign"})
        _wait_applied(http, http.post(f"/v1/games/{finished}/moves",
                                      json=resign).headers["Location"])
        open_game = http.post("/v1/games", json={"ruleset": "totohu", "players": 3},
                              headers=player.auth).json()["id"]
        yield Live(cluster.url, player, other, game, open_game, finished)
