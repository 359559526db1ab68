"""Races through real web processes and real workers: one envelope posted by 20 clients at
once, duplicate resolve jobs for one game on two workers, 20 players racing for the last seat."""

from __future__ import annotations

import random
import threading
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest
import redis
import requests
from rq import Queue

from service.ops.fsck import check_game
from service.storage.store import Store
from tests.e2e.test_stratego_game import _wait_applied
from tests.players import TestPlayer

pytestmark = pytest.mark.slow

DUEL = {"army": "duel", "red_player": "joined"}


def _duel(server) -> tuple[str, list[TestPlayer]]:
    players = [TestPlayer(n).register(server) for n in ("ann", "bob")]
    gid = server.post("/v1/games", json={"ruleset": "stratego", "players": 2, "options": DUEL},
                      headers=players[0].auth).json()["id"]
    for p in players:
        assert server.post(f"/v1/games/{gid}/join", json=p.join_body(gid),
                           headers=p.auth).status_code == 200
    return gid, players


def _together(n: int, call) -> list:
    """Run `call(i)` in n threads released at the same moment."""
    gate = threading.Barrier(n)

    def run(i: int):
        gate.wait()
        return call(i)

    with ThreadPoolExecutor(n) as pool:
        return list(pool.map(run, range(n)))


def test_one_envelope_from_20_clients_is_one_move(server) -> None:
    gid, players = _duel(server)
    view = server.get(f"/v1/games/{gid}/view", headers=players[0].auth).json()
    env = players[0].envelope(gid, 0, view["step"], view["legal_moves"][0])
    url = f"{server.url}/v1/games/{gid}/moves"

    def post(_i: int):
        with requests.Session() as http:  # 20 separate connections
            return http.post(url, json=env, timeout=20)

    responses = _together(20, post)
    assert [r.status_code for r in responses] == [202] * 20
    bodies = [r.json() for r in responses]
    assert {b["id"] for b in bodies} == {1}
    assert len({r.headers["Location"] for r in responses}) == 1
    assert len({b["receipt"]["signature"] for b in bodies}) == 1  # the same receipt
    assert _wait_applied(server, responses[0].headers["Location"])["status"] == "applied"
    audit = server.get(f"/v1/games/{gid}/audit").json()
    assert [e["seq"] for e in audit["entries"]] == [1]


def test_two_workers_and_duplicate_jobs_apply_each_move_once_in_order(server, redis_url) -> None:
    server.start_worker()  # two workers on one queue
    queue = Queue("parley", connection=redis.Redis.from_url(redis_url))
    gid, players = _duel(server)
    chooser = random.Random(7)
    moves = 0
    for _ in range(24):
        summary = server.get(f"/v1/games/{gid}").json()
        if summary["status"] != "active":
            break
        for seat in summary["to_act"]:
            view = server.get(f"/v1/games/{gid}/view", headers=players[seat].auth).json()
            env = players[seat].envelope(gid, seat, view["step"],
                                         chooser.choice(view["legal_moves"]))
            resp = server.post(f"/v1/games/{gid}/moves", json=env)
            assert resp.status_code == 202
            moves += 1
            for _ in range(3):  # RQ delivers at least once: extra jobs for the same game
                queue.enqueue("workers.resolve.resolve_game", gid, job_id=uuid.uuid4().hex,
                              result_ttl=0)
        assert _wait_applied(server, resp.headers["Location"])["status"] == "applied"
    store = Store.from_url(redis_url)
    check = check_game(store, gid)  # the replay of the log equals the stored state
    assert check.ok, check.render()
    audit = server.get(f"/v1/games/{gid}/audit").json()
    assert [e["seq"] for e in audit["entries"]] == list(range(1, moves + 1))
    assert all(e["status"] == "applied" for e in audit["entries"])
    applied_seqs = [seq for seq, _ in store.hashes(gid)]  # packed or not
    assert applied_seqs == list(range(moves + 1))  # each applied once, in order
    events = server.get(f"/v1/games/{gid}/events?limit=1000", headers=players[0].auth).json()
    seqs = [e["seq"] for e in events["events"]]
    assert seqs == sorted(seqs) and len(set(e["id"] for e in events["events"])) == len(seqs)


def test_join_race_for_the_last_seat_has_one_winner(server) -> None:
    http = server
    host = TestPlayer("host").register(http)
    rivals = [TestPlayer(f"r{i}").register(http) for i in range(20)]
    gid = server.post("/v1/games", json={"ruleset": "stratego", "players": 2,
                                         "options": DUEL}, headers=host.auth).json()["id"]
    assert server.post(f"/v1/games/{gid}/join", json=host.join_body(gid),
                       headers=host.auth).status_code == 200
    url = f"{server.url}/v1/games/{gid}/join"

    def join(i: int):
        with requests.Session() as s:
            return s.post(url, json=rivals[i].join_body(gid), headers=rivals[i].auth,
                          timeout=20)

    responses = _together(20, join)
    winners = [i for i, r in enumerate(responses) if r.status_code == 200]
    assert len(winners) == 1, [r.status_code for r in responses]
    assert responses[winners[0]].json()["status"] == "active"
    losers = {r.json()["code"] for r in responses if r.status_code != 200}
    assert {r.status_code for r in responses if r.status_code != 200} == {409}
    assert losers <= {"game_not_open", "game_full"}
    summary = server.get(f"/v1/games/{gid}").json()
    assert [p["player"] for p in summary["players"]] == [host.id, rivals[winners[0]].id]
    started = [e for e in server.get(f"/v1/games/{gid}/events").json()["events"]
               if e["event"]["type"] == "game_started"]
    assert len(started) == 1  # started once
