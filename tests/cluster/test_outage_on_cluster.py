"""A store node away answers 503, never 500: one master of the real 3-master cluster is killed
under a stream of requests (reads, moves, registrations, the stream process's long polls), and
every answer until it is back is a success or a 503 `unavailable` with `Retry-After`."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterator

import pytest
from aiohttp.test_utils import TestClient, TestServer
from redis.crc import key_slot

from service.config import Config
from service.domain import live_feed
from service.ops.redis_check import UnsafeRedis, ensure_safe
from service.storage.keys import game_key
from service.stream.server import make_app
from tests.api.helpers import new_game, view
from tests.cluster.redis_cluster import SLOTS, LocalCluster
from tests.players import TestPlayer
from tests.waiting import run_async, wait_until

pytestmark = pytest.mark.slow

DUEL = {"army": "duel"}
#: how long requests go on against the cluster with the node away (past the node timeout,
#: so that the other masters mark it failed and answer CLUSTERDOWN for its slots)
AWAY_SECONDS = 6.0


def node_of(cluster: LocalCluster, gid: str) -> int:
    """The master serving the game's slot (each holds an equal run of slots, in order)."""
    return key_slot(game_key(gid, "meta").encode()) // -(-SLOTS // cluster.masters)


@pytest.fixture
def node_away(redis_cluster: LocalCluster) -> Iterator[LocalCluster]:
    """The cluster, whatever a test kills of it whole again afterwards (other tests share it)."""
    yield redis_cluster
    for i in redis_cluster.exited():
        redis_cluster.start_node(i)
    redis_cluster.wait_ok(60)


class Traffic:
    """A client's requests of one game: what every answer was, by status."""

    def __init__(self, client, gid: str, players: dict[int, TestPlayer]) -> None:
        self.client = client
        self.gid = gid
        self.players = players
        v = view(client, gid, players[0])
        self.envelope = players[0].envelope(gid, 0, v["step"], v["legal_moves"][0])
        self.seen: Counter[int] = Counter()
        self.bad: list[str] = []

    def check(self, resp) -> int:
        """Count an answer (a 5xx other than a 503 `unavailable` with Retry-After is bad)."""
        self.seen[resp.status_code] += 1
        if resp.status_code >= 500 and not (
                resp.status_code == 503 and resp.get_json()["code"] == "unavailable"
                and resp.headers.get("Retry-After")):
            self.bad.append(f"{resp.request.method} {resp.request.path}: "
                            f"{resp.status_code} {resp.get_data(as_text=True)[:300]}")
        return resp.status_code

    def round(self) -> list[int]:
        """One request of each kind; their statuses."""
        return [self.check(resp) for resp in (
            self.client.get(f"/v1/games/{self.gid}"),
            self.client.get(f"/v1/games/{self.gid}/view", headers=self.players[0].auth),
            self.client.post(f"/v1/games/{self.gid}/moves", json=self.envelope),  # a re-post
            self.client.get(f"/v1/games/{self.gid}/events"),
            self.client.get("/v1/games?status=active", headers=self.players[0].auth),
            self.client.post("/v1/players", json=TestPlayer("cy").registration()),
        )]


def test_a_store_node_away_answers_503_never_500(client, node_away: LocalCluster) -> None:
    gid, players = new_game(client, options=DUEL)
    traffic = Traffic(client, gid, players)
    assert all(status < 300 for status in traffic.round())
    node = node_of(node_away, gid)

    node_away.kill_node(node)
    until = time.monotonic() + AWAY_SECONDS
    while time.monotonic() < until:
        traffic.round()
    node_away.start_node(node)  # requests go on while it loads and rejoins the cluster
    wait_until(lambda: all(status < 300 for status in traffic.round()), 60,
               "every request answered again", interval=0)
    assert not traffic.bad, "\n".join(traffic.bad[:10])
    assert traffic.seen[503] > 0, traffic.seen  # the node's slots were away


def test_a_cluster_down_answers_503_never_500(client, node_away: LocalCluster) -> None:
    """Two masters of three away: the one left cannot reach a majority, marks the cluster
    failed, and answers CLUSTERDOWN for its own slots too (what a restarted master answers
    until it has rejoined, and what the soak's clients met as 500s)."""
    gid, players = new_game(client, options=DUEL)
    traffic = Traffic(client, gid, players)
    node = node_of(node_away, gid)
    others = [i for i in range(node_away.masters) if i != node]
    for i in others:
        node_away.kill_node(i)
    wait_until(lambda: node_away.node(node).cluster("info")["cluster_state"] == "fail", 30,
               "the master left sees the cluster down")
    statuses = [traffic.check(client.get(f"/v1/games/{gid}")),
                traffic.check(client.post(f"/v1/games/{gid}/moves", json=traffic.envelope))]
    for i in others:
        node_away.start_node(i)
    node_away.wait_ok(60)
    wait_until(lambda: all(status < 300 for status in traffic.round()), 60,
               "every request answered again")
    assert statuses == [503, 503], traffic.bad
    assert not traffic.bad, "\n".join(traffic.bad[:10])


def test_the_stream_process_answers_503_while_a_store_node_is_away(
        config: Config, client, node_away: LocalCluster) -> None:
    """A long poll reads the game from the store: with its node away the stream process
    answers 503 `unavailable`, not aiohttp's 500."""
    gid, players = new_game(client, options=DUEL)
    node = node_of(node_away, gid)

    async def poll() -> list[tuple[int, dict]]:
        app = make_app(config)
        async with TestClient(TestServer(app)) as http:
            hub = app["hub"]
            answers = []
            for _ in range(2):
                ticket = live_feed.ticket(hub.server_key, players[0].id)
                resp = await http.get(f"/v1/games/{gid}/events",
                                      params={"ticket": ticket, "wait": "0"})
                answers.append((resp.status, await resp.json(content_type=None),
                                resp.headers.get("Retry-After")))
                if len(answers) == 1:
                    node_away.kill_node(node)
            return answers

    first, away = run_async(poll())
    assert first[0] == 200, first
    assert away[0] == 503 and away[1]["code"] == "unavailable" and away[2], away


def test_the_start_up_check_reads_every_node(redis_cluster: LocalCluster,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """The URL names node 0; node 2 may evict keys: the start is refused, naming node 2."""
    monkeypatch.delenv("PARLEY_ALLOW_UNSAFE_REDIS", raising=False)
    ensure_safe(redis_cluster.url, "game store")
    unsafe = redis_cluster.node(2)
    unsafe.config_set("maxmemory-policy", "allkeys-lru")
    try:
        with pytest.raises(UnsafeRedis, match=f"node 127.0.0.1:{redis_cluster.ports[2]}: "
                                              "maxmemory-policy"):
            ensure_safe(redis_cluster.url, "game store")
    finally:
        unsafe.config_set("maxmemory-policy", "noeviction")
    ensure_safe(redis_cluster.url, "game store")
