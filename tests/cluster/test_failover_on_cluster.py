"""A master of the store's cluster fails over to its replica: every move acknowledged before the
master died is still there on the replica that took over, the moves sent meanwhile get 503s
until the replica serves (never a 500), and then everything goes on. With
`PARLEY_STORE_WAIT_REPLICAS=1` a move is acknowledged only once the replica holds it (WAIT)."""

from __future__ import annotations

import shutil
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from rq import SimpleWorker

from service.config import Config
from service.storage.keys import game_key
from tests.api.helpers import new_game
from tests.cluster.redis_cluster import LocalCluster
from tests.conftest import testing_app as app_for
from tests.waiting import wait_until

pytestmark = pytest.mark.slow

DUEL = {"army": "duel"}


@pytest.fixture(scope="module")
def replicated() -> Iterator[LocalCluster]:
    """Three masters, each with two replicas (so a promoted one still has a replica to
    acknowledge to), all with `appendfsync always`."""
    data = Path(tempfile.mkdtemp(prefix="parley-failover-"))
    with LocalCluster(data, replicas=2, appendfsync="always") as cluster:
        yield cluster
    shutil.rmtree(data, ignore_errors=True)


@pytest.fixture
def app_on_replicas(config: Config, replicated: LocalCluster,
                    monkeypatch: pytest.MonkeyPatch) -> Flask:
    """The app with its store on the replicated cluster, acknowledging a move once a
    replica holds it."""
    from workers import context

    for name, value in {"PARLEY_STORE_URL": replicated.url, "PARLEY_STORE_CLUSTER": "1",
                        "PARLEY_STORE_WAIT_REPLICAS": "1"}.items():
        monkeypatch.setenv(name, value)
    for cached in (context.config, context.store, context.queue):
        cached.cache_clear()
    return app_for(Config())


def _until_served(call: Callable[[], Any], seen: Counter[int], what: str) -> Any:
    """Send the same request until it is answered (a 503 means: again, after a while); a
    5xx other than 503 fails the test."""
    deadline = time.monotonic() + 60
    while True:
        resp = call()
        seen[resp.status_code] += 1
        if resp.status_code < 500:
            return resp
        assert resp.status_code == 503 and resp.get_json()["code"] == "unavailable", \
            f"{what}: {resp.status_code} {resp.get_data(as_text=True)[:300]}"
        assert resp.headers.get("Retry-After")
        assert time.monotonic() < deadline, f"{what}: still 503 after a minute"
        time.sleep(0.2)


def test_a_master_fails_over_and_no_acknowledged_move_is_lost(app_on_replicas: Flask,
                                                              replicated: LocalCluster) -> None:
    client = app_on_replicas.test_client()
    queue = app_on_replicas.extensions["parley_queue"]

    def work() -> None:
        SimpleWorker([queue], connection=queue.connection).work(burst=True,
                                                                logging_level="WARNING")

    games = [new_game(client, options=DUEL, names=(f"a{i}", f"b{i}")) for i in range(6)]
    # the node the processes were given (PARLEY_STORE_URL) is the one to fail: a client made
    # after it died must still find the cluster
    victim = 0
    while not any(replicated.master_of(game_key(gid, "meta")) == victim for gid, _ in games):
        games.append(new_game(client, options=DUEL, names=(f"a{len(games)}", "b")))
    games.sort(key=lambda g: replicated.master_of(game_key(g[0], "meta")) != victim)
    work()  # the games start
    seen: Counter[int] = Counter()
    receipts: dict[tuple[str, int], dict] = {}

    def set_up(gid: str, players: dict, seat: int) -> None:
        view = _until_served(lambda: client.get(f"/v1/games/{gid}/view",
                                                headers=players[seat].auth), seen, "view")
        envelope = players[seat].envelope(gid, seat, 0, view.get_json()["legal_moves"][0])
        resp = _until_served(lambda: client.post(f"/v1/games/{gid}/moves", json=envelope),
                             seen, "setup")  # the same envelope again after each 503
        assert resp.status_code == 202, resp.get_json()
        receipts[(gid, seat)] = resp.get_json()["receipt"]

    for gid, players in games:  # Red's setups, acknowledged before the master dies
        set_up(gid, players, 0)
    replicated.kill_node(victim)
    for gid, players in games:  # Blue's, while its replica takes over
        set_up(gid, players, 1)
    promoted = replicated.master_of(game_key(games[0][0], "meta"))
    assert promoted != victim  # the replica serves the slot now

    def read(path: str) -> dict:
        return _until_served(lambda: client.get(path), seen, path).get_json()

    wait_until(lambda: work() or all(read(f"/v1/games/{gid}")["step"] > 0
                                     for gid, _ in games), 30,
               "every game resolved on the promoted replica")
    for gid, _ in games:
        audit = read(f"/v1/games/{gid}/audit")
        assert [(e["seq"], e["status"]) for e in audit["entries"]] == [(1, "applied"),
                                                                      (2, "applied")]
        for seat in (0, 1):  # each acknowledged entry is the one its receipt names
            receipt = receipts[(gid, seat)]
            entry = audit["entries"][receipt["seq"] - 1]
            assert (entry["entry_hash"], entry["accepted_at"]) == (receipt["entry_hash"],
                                                                   receipt["accepted_at"])
    assert 500 not in seen and seen[503] > 0, seen  # the failover was seen, honestly
