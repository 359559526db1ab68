"""Nothing acknowledged is lost: workers killed mid-job, several workers, the start-up sweep."""

from __future__ import annotations

import random
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.e2e.test_stratego_game import _wait_applied
from tests.players import TestPlayer

pytestmark = pytest.mark.slow

DUEL = {"army": "duel", "red_player": "joined"}


def _duel(server, names=("ann", "bob")) -> tuple[str, list[TestPlayer]]:
    players = [TestPlayer(n).register(server) for n in names]
    gid = server.post("/v1/games", json={"ruleset": "stratego", "players": 2,
                                         "options": DUEL}, headers=players[0].auth).json()["id"]
    for p in players:
        server.post(f"/v1/games/{gid}/join", json=p.join_body(gid), headers=p.auth)
    return gid, players


def _setups(server, gid: str, players: list[TestPlayer]) -> list[str]:
    locations = []
    for seat, p in enumerate(players):
        view = server.get(f"/v1/games/{gid}/view", headers=p.auth).json()
        env = p.envelope(gid, seat, view["step"], view["legal_moves"][seat % 3])
        resp = server.post(f"/v1/games/{gid}/moves", json=env)
        assert resp.status_code == 202
        locations.append(resp.headers["Location"])
    return locations


def test_workers_killed_mid_job_lose_no_acknowledged_move(server) -> None:
    for proc in server.procs[1:]:  # no worker while the moves are acknowledged
        server.kill(proc)
    games = [_duel(server) for _ in range(12)]
    locations = [loc for gid, players in games for loc in _setups(server, gid, players)]
    assert all(server.get(loc).json()["status"] == "queued" for loc in locations)
    chooser = random.Random(1)
    for _ in range(4):  # start a worker and kill -9 it at a random moment, four times
        proc = server.start_worker()
        time.sleep(chooser.uniform(0.3, 1.5))
        server.kill(proc)
    server.start_worker()  # its start-up sweep re-enqueues whatever is still pending
    statuses = [_wait_applied(server, loc)["status"] for loc in locations]
    assert statuses == ["applied"] * len(locations)
    for gid, _players in games:
        summary = server.get(f"/v1/games/{gid}").json()
        assert summary["step_kind"] == "play" and summary["to_act"] == [0]


def test_many_games_on_several_workers_each_move_once_in_order(server) -> None:
    server.start_worker()
    server.start_worker()
    games = [_duel(server, (f"a{i}", f"b{i}")) for i in range(6)]

    def play(game: tuple[str, list[TestPlayer]]) -> int:
        gid, players = game
        for loc in _setups(server, gid, players):
            assert _wait_applied(server, loc)["status"] == "applied"
        chooser = random.Random(gid)
        moves = 0
        for _ in range(40):
            summary = server.get(f"/v1/games/{gid}").json()
            if summary["status"] == "finished":
                break
            seat = summary["to_act"][0]
            view = server.get(f"/v1/games/{gid}/view", headers=players[seat].auth).json()
            env = players[seat].envelope(gid, seat, view["step"],
                                         chooser.choice(view["legal_moves"]))
            resp = server.post(f"/v1/games/{gid}/moves", json=env)
            assert _wait_applied(server, resp.headers["Location"])["status"] == "applied"
            moves += 1
        return moves

    with ThreadPoolExecutor(6) as pool:
        counts = list(pool.map(play, games))
    for (gid, _), moves in zip(games, counts, strict=True):
        audit = server.get(f"/v1/games/{gid}/audit").json()
        assert [e["seq"] for e in audit["entries"]] == list(range(1, moves + 3))
        if audit["status"] == "finished":
            assert [h["seq"] for h in audit["state_hashes"]] == list(range(moves + 3))
        else:  # never published during play: they would let a player test guesses
            assert audit["state_hashes"] == []


def _events(server, gid: str, player: TestPlayer) -> list[dict]:
    return [e["event"] for e in server.get(f"/v1/games/{gid}/events?limit=200",
                                           headers=player.auth).json()["events"]]


def test_one_job_resolves_the_moves_of_several_waiting_games(server, monkeypatch) -> None:
    """With no worker running, the first wake enqueues a job and the games woken after it wait
    on the ready list for that job: one RQ job, every game."""
    import redis
    from rq import Queue, SimpleWorker

    from service.storage.keys import ready_key
    from workers import context, resolve

    for proc in server.procs[1:]:
        server.kill(proc)
    games = [_duel(server, (f"c{i}", f"d{i}")) for i in range(8)]
    locations = [loc for gid, players in games for loc in _setups(server, gid, players)]
    conn = redis.Redis.from_url(server.env["REDIS_URL"])
    queue = Queue("parley", connection=conn)
    waiting = queue.count
    # one wake per game (the second setup found the first's wake outstanding); the waiting
    # job's lease lasts 5 s, so a second job only on a machine slower than that
    assert 1 <= waiting <= 2
    assert waiting + conn.llen(ready_key(queue.name)) == len(games)
    monkeypatch.setenv("REDIS_URL", server.env["REDIS_URL"])
    monkeypatch.setenv("PARLEY_DATA", server.env["PARLEY_DATA"])
    monkeypatch.setattr(resolve, "DRAIN_SECONDS", 600.0)  # no time bound on a slow machine
    jobs: list[str] = []
    real_job = resolve.resolve_game

    def counted(gid: str) -> int:
        jobs.append(gid)
        return real_job(gid)

    monkeypatch.setattr(resolve, "resolve_game", counted)
    for cached in (context.config, context.store, context.queue):
        cached.cache_clear()
    try:
        worker = SimpleWorker([queue], connection=conn)
        worker.work(burst=True, logging_level="WARNING")
    finally:
        for cached in (context.config, context.store, context.queue):
            cached.cache_clear()
    assert len(jobs) == waiting  # the first job drained the games on the ready list
    assert queue.count == 0 and queue.failed_job_registry.count == 0
    assert conn.llen(ready_key(queue.name)) == 0
    assert [server.get(loc).json()["status"] for loc in locations] == \
        ["applied"] * len(locations)
    for gid, players in games:
        kinds = [e["type"] for e in _events(server, gid, players[0])]
        assert kinds.count("setup_submitted") == 2 and kinds.count("play_started") == 1


def test_kill_9_during_multi_game_drains_loses_nothing(server) -> None:
    """Workers killed while a job drains many games: every move applied exactly once."""
    for proc in server.procs[1:]:
        server.kill(proc)
    games = [_duel(server, (f"e{i}", f"f{i}")) for i in range(16)]
    locations = [loc for gid, players in games for loc in _setups(server, gid, players)]
    server.env["PARLEY_DRAIN_SECONDS"] = "600"  # one job would drain every game
    chooser = random.Random(2)
    for _ in range(4):
        procs = [server.start_worker(), server.start_worker()]
        time.sleep(chooser.uniform(0.4, 1.2))
        for proc in procs:
            server.kill(proc)
    server.start_worker()  # its start-up sweep re-enqueues whatever is still pending
    statuses = [_wait_applied(server, loc)["status"] for loc in locations]
    assert statuses == ["applied"] * len(locations)
    for gid, players in games:
        summary = server.get(f"/v1/games/{gid}").json()
        assert summary["step_kind"] == "play" and summary["to_act"] == [0]
        kinds = [e["type"] for e in _events(server, gid, players[0])]
        assert kinds.count("setup_submitted") == 2 and kinds.count("play_started") == 1
        audit = server.get(f"/v1/games/{gid}/audit").json()
        assert [e["seq"] for e in audit["entries"]] == [1, 2]
