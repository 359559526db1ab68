"""Batches: several signed moves in one POST, several seat views in one GET.

Each item must answer exactly what its single endpoint answers, a refused item must change
nothing and leave the others alone; how a batch counts against the move rate limits (once per
envelope, one quota with single moves) is in test_limits.py.
"""

from __future__ import annotations

from typing import Any

import pytest
from parley_protocol import signing

from tests.api.helpers import post_move, view
from tests.api.test_moves import BLUE_SETUP, DUEL, RED_SETUP
from tests.players import TestPlayer

MOVE = {"type": "move", "from": "a4", "to": "a5"}


@pytest.fixture
def games(client, run_jobs):
    """Three Duel games between the same two players, each in play with Red (ann) to move."""
    ann, bob = TestPlayer("ann").register(client), TestPlayer("bob").register(client)
    gids = []
    for _ in range(3):
        resp = client.post("/v1/games", json={"ruleset": "stratego", "players": 2,
                                              "options": DUEL}, headers=ann.auth)
        gid = resp.get_json()["id"]
        for p in (ann, bob):
            assert client.post(f"/v1/games/{gid}/join", json=p.join_body(gid), headers=p.auth
                               ).status_code == 200
        for seat, p, setup in ((0, ann, RED_SETUP), (1, bob, BLUE_SETUP)):
            assert post_move(client, gid, p, seat, {"type": "setup", "placement": setup}
                             ).status_code == 202
        gids.append(gid)
    run_jobs()
    assert all(view(client, gid, ann)["to_act"] == [0] for gid in gids)
    return gids, ann, bob


def _batch(client, envelopes: list, **kwargs):
    return client.post("/v1/moves", json={"envelopes": envelopes}, **kwargs)


def _metas(app, gids: list[str]) -> list[dict]:
    return [app.extensions["parley_store"].meta(gid) for gid in gids]


def test_a_batch_submits_moves_of_several_games_and_each_is_applied(client, games,
                                                                    run_jobs) -> None:
    gids, ann, _ = games
    resp = _batch(client, [ann.envelope(gid, 0, 1, MOVE) for gid in gids])
    assert resp.status_code == 200, resp.get_json()
    results = resp.get_json()["results"]
    assert [r["game"] for r in results] == gids
    for gid, r in zip(gids, results, strict=True):
        assert r["status"] == "queued" and r["id"] == 3  # after the two setups
        assert r["location"] == f"/v1/games/{gid}/moves/3"
        assert r["receipt"]["game"] == gid and r["receipt"]["seq"] == 3
        assert "problem" not in r
    run_jobs()
    for gid in gids:
        assert client.get(f"/v1/games/{gid}/moves/3").get_json()["status"] == "applied"
        assert view(client, gid, ann)["step"] == 2


def test_each_refused_envelope_has_its_problem_and_changes_nothing(app, client, games) -> None:
    gids, ann, bob = games
    good = ann.envelope(gids[0], 0, 1, MOVE)
    forged = ann.envelope(gids[1], 0, 1, MOVE)
    forged["signature"] = signing.b64url_encode(bytes(64))
    before = _metas(app, gids[1:])
    envelopes = [good, forged, ann.envelope(gids[2], 0, 0, MOVE), [1],
                 ann.envelope("g_nope", 0, 1, MOVE),
                 ann.envelope(gids[2], 0, 1, {"type": "move", "from": "b2", "to": "b1"}),
                 ann.envelope(gids[2], 1, 1, MOVE)]
    resp = _batch(client, envelopes)
    assert resp.status_code == 200, resp.get_json()
    results = resp.get_json()["results"]
    assert results[0]["status"] == "queued" and results[0]["game"] == gids[0]
    expected = [(gids[1], 401, "bad_signature"), (gids[2], 409, "stale_step"),
                (None, 422, "invalid_envelope"), ("g_nope", 404, "game_not_found"),
                (gids[2], 422, "own_piece_at_target"), (gids[2], 403, "not_seated")]
    for r, (gid, status, code) in zip(results[1:], expected, strict=True):
        assert r["game"] == gid and set(r) == {"game", "problem"}, r
        problem = r["problem"]
        assert (problem["status"], problem["code"]) == (status, code), r
        assert problem["type"].endswith(code) and problem["title"] and problem["detail"]
    assert results[2]["problem"]["current_step"] == 1  # a problem keeps its extra fields
    assert _metas(app, gids[1:]) == before
    # what a single POST of the same envelope answers
    single = client.post(f"/v1/games/{gids[1]}/moves", json=forged).get_json()
    assert {k: single[k] for k in ("status", "code")} == {"status": 401,
                                                          "code": "bad_signature"}
    assert bob  # the other player is untouched by ann's batch


def test_a_batch_posted_again_returns_the_same_moves(app, client, games) -> None:
    gids, ann, _ = games
    envelopes = [ann.envelope(gid, 0, 1, MOVE) for gid in gids]
    first = _batch(client, envelopes).get_json()["results"]
    again = _batch(client, envelopes).get_json()["results"]
    assert again == first
    assert [m["head"] for m in _metas(app, gids)] == ["3", "3", "3"]  # stored once


def test_two_envelopes_of_one_game_are_appended_in_order(client, games, run_jobs) -> None:
    gids, ann, _ = games
    first, second = view(client, gids[0], ann)["legal_moves"][:2]  # both legal at step 1
    resp = _batch(client, [ann.envelope(gids[0], 0, 1, first),
                           ann.envelope(gids[0], 0, 1, second)])
    results = resp.get_json()["results"]
    assert [r["id"] for r in results] == [3, 4]  # the second met a moved chain head: retried
    run_jobs()
    statuses = [client.get(f"/v1/games/{gids[0]}/moves/{n}").get_json() for n in (3, 4)]
    assert statuses[0]["status"] == "applied"
    assert statuses[1]["status"] == "rejected"  # the step had moved on by then
    chain, hashes = "", []  # the receipts name the entries of one unbroken chain
    for entry in client.get(f"/v1/games/{gids[0]}/audit").get_json()["entries"]:
        chain = signing.chain_hash(chain, entry["digest"])
        assert entry["entry_hash"] == chain
        hashes.append(chain)
    assert [r["receipt"]["entry_hash"] for r in results] == hashes[2:4]


def _wakes(monkeypatch, queue) -> list[tuple]:
    """The wake scripts run on the queue's connection from now on (their round trips)."""
    calls: list[tuple] = []
    command = queue.connection.execute_command

    def counted(*args, **kw):
        if args[0] == "EVALSHA":
            calls.append(args)
        return command(*args, **kw)

    monkeypatch.setattr(queue.connection, "execute_command", counted)
    return calls


def _wake_by(app: Any, where: str) -> None:
    """`inline`: the accepting script hands each game to a live drainer (the queue on the
    store's Redis, as here by default); `script`: the batch wakes its games with one wake
    script afterwards (a queue elsewhere)."""
    assert app.extensions["parley_store"].inline_wake is not None
    if where == "script":
        app.extensions["parley_store"].inline_wake = None


def test_a_batch_wakes_its_games_in_one_round_trip(app, client, games, monkeypatch) -> None:
    """No drainer is live: the first game gets the RQ job, the others wait on the ready list
    for it, as one wake after another would have it, with one script for the batch."""
    from service.storage.keys import ready_key

    gids, ann, _ = games
    queue = app.extensions["parley_queue"]
    jobs_before = set(queue.job_ids)
    wakes = _wakes(monkeypatch, queue)
    resp = _batch(client, [ann.envelope(gid, 0, 1, MOVE) for gid in gids])
    assert resp.status_code == 200, resp.get_json()
    assert len(wakes) == 1
    new_jobs = [job for job in queue.get_jobs() if job.id not in jobs_before]
    assert [job.args[0] for job in new_jobs] == gids[:1]
    assert queue.connection.lrange(ready_key(queue.name), 0, -1) == [g.encode() for g in gids[1:]]


@pytest.mark.parametrize("where", ["inline", "script"])
def test_a_batch_with_a_drainer_live_enqueues_nothing(app, client, games, run_jobs,
                                                      monkeypatch, where: str) -> None:
    from service.storage.keys import drainers_key, ready_key

    gids, ann, _ = games
    _wake_by(app, where)
    queue = app.extensions["parley_queue"]
    queue.connection.zadd(drainers_key(queue.name), {"resolve-live": 2**50})  # a drainer running
    jobs = queue.count
    wakes = _wakes(monkeypatch, queue)
    envelopes = [ann.envelope(gid, 0, 1, MOVE) for gid in gids]
    assert _batch(client, envelopes).status_code == 200
    assert _batch(client, envelopes).status_code == 200  # a re-post: the games woken again
    assert len(wakes) == (0 if where == "inline" else 1) + len(gids)
    assert queue.count == jobs
    assert queue.connection.lrange(ready_key(queue.name), 0, -1) == [g.encode() for g in gids * 2]
    queue.connection.zrem(drainers_key(queue.name), "resolve-live")  # it died, its list lost:
    queue.connection.delete(ready_key(queue.name))
    assert _batch(client, envelopes).status_code == 200  # re-posts wake again: one job
    run_jobs()
    assert [client.get(f"/v1/games/{gid}/moves/3").get_json()["status"] for gid in gids] == \
        ["applied"] * 3


@pytest.mark.parametrize("body", [
    b"{not json", b'{"envelopes": [], "envelopes": []}', b"[]", b'{"envelopes": []}',
    b'{"envelopes": {}}', b'{"envelopes": [{}], "more": 1}'])
def test_a_malformed_batch_is_refused_whole(client, games, body: bytes) -> None:
    resp = client.post("/v1/moves", data=body, content_type="application/json")
    expected = {b"{not json": (400, "invalid_json"),
                b'{"envelopes": [], "envelopes": []}': (422, "malformed_move")}
    status, code = expected.get(body, (422, "invalid_batch"))
    assert resp.status_code == status and resp.get_json()["code"] == code, resp.get_json()
    assert resp.mimetype == "application/problem+json"


def test_a_batch_is_at_most_64_envelopes_of_one_key(app, client, games) -> None:
    gids, ann, bob = games
    before = _metas(app, gids)
    too_many = [ann.envelope(gids[0], 0, 1, MOVE) for _ in range(65)]
    resp = _batch(client, too_many)
    assert (resp.status_code, resp.get_json()["code"]) == (422, "invalid_batch")
    mixed = [ann.envelope(gids[0], 0, 1, MOVE), bob.envelope(gids[1], 1, 1, MOVE)]
    resp = _batch(client, mixed)
    assert (resp.status_code, resp.get_json()["code"]) == (422, "invalid_batch")
    assert _metas(app, gids) == before


def test_views_of_several_games_are_the_single_views(client, games) -> None:
    gids, ann, bob = games
    for player in (ann, bob):
        query = "&".join(f"game={gid}" for gid in [*gids, "g_nope"])
        resp = client.get(f"/v1/views?{query}", headers=player.auth)
        assert resp.status_code == 200, resp.get_json()
        views = resp.get_json()["views"]
        assert views[:3] == [view(client, gid, player) for gid in gids]
        assert views[0]["legal_moves"] if player is ann else not views[0]["legal_moves"]
        assert views[3]["game"] == "g_nope"
        assert (views[3]["problem"]["status"], views[3]["problem"]["code"]) == (
            404, "game_not_found")


def test_views_need_a_token_and_one_to_64_games(client, games) -> None:
    gids, ann, _ = games
    assert client.get(f"/v1/views?game={gids[0]}").status_code == 401
    resp = client.get(f"/v1/views?game={gids[0]}", headers={"Authorization": "Bearer pt_x"})
    assert (resp.status_code, resp.get_json()["code"]) == (401, "bad_token")
    for query in ("", "?" + "&".join(["game=" + gids[0]] * 65)):
        resp = client.get(f"/v1/views{query}", headers=ann.auth)
        assert resp.status_code == 422, resp.get_json()
