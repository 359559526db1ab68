"""Fixtures of the API tests: apps with and without the fast path over one Redis, and a
Stratego Duel in play."""

from __future__ import annotations

from typing import Any

import pytest

from service.config import Config
from service.web.app import create_app
from tests.api.test_moves import BLUE_SETUP, DUEL, RED_SETUP
from tests.players import TestPlayer


def make_app(config: Config, hot: bool, limits: bool = False) -> Any:
    config = Config()  # the fixture's environment, with the switches below
    config.HOT_PATHS, config.RATE_LIMITS_ENABLED = hot, limits
    app = create_app(config)
    app.config["TESTING"] = True
    return app


@pytest.fixture
def apps(config: Config) -> tuple[Any, Any]:
    return make_app(config, hot=True), make_app(config, hot=False)


@pytest.fixture
def game(apps, run_jobs) -> tuple[str, TestPlayer, TestPlayer]:
    """A Duel game in play, Red (ann, seat 0) to move; set up through the slow app."""
    return duel(apps[1].test_client(), run_jobs)


def duel(client: Any, run_jobs: Any, names: tuple[str, str] = ("ann", "bob")
         ) -> tuple[str, TestPlayer, TestPlayer]:
    """`game`'s Duel, through `client`, between two new players of these names."""
    ann, bob = TestPlayer(names[0]).register(client), TestPlayer(names[1]).register(client)
    gid = client.post("/v1/games", json={"ruleset": "stratego", "players": 2,
                                         "options": DUEL}, headers=ann.auth).get_json()["id"]
    for p in (ann, bob):
        assert client.post(f"/v1/games/{gid}/join", json=p.join_body(gid),
                           headers=p.auth).status_code == 200
    for seat, p, setup in ((0, ann, RED_SETUP), (1, bob, BLUE_SETUP)):
        env = p.envelope(gid, seat, 0, {"type": "setup", "placement": setup})
        assert client.post(f"/v1/games/{gid}/moves", json=env).status_code == 202
    run_jobs()
    return gid, ann, bob
