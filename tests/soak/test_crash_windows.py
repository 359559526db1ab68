"""Crash windows the soak found, replayed deterministically through the Flask test client.

Each test stops a request half-way (the part that ran before the crash is called directly),
then lets the client retry as the soak's clients do, and checks that nothing stays stuck.
"""

from __future__ import annotations

import json

from service.domain.accept import Accepted, submit_move
from service.storage.keys import game_key
from service.storage.store import Store
from tests.api.helpers import new_game, view
from tests.players import TestPlayer


def _stored_just_before_a_crash(app, client, run_jobs) -> tuple[Store, str, Accepted, bytes]:
    """A Duel game with Red's setup checked and stored by the request's first half, which then
    died before scheduling: -> (store, game id, the accepted move, the envelope's bytes)."""
    gid, players = new_game(client, "stratego", {"army": "duel"})
    run_jobs()
    store = app.extensions["parley_store"]
    v = view(client, gid, players[0])
    body = json.dumps(players[0].envelope(gid, 0, v["step"], v["legal_moves"][0])).encode()
    with app.app_context():
        accepted = submit_move(store, gid, body, app.extensions["parley_server_key"])
    return store, gid, accepted, body


def test_a_repost_schedules_a_move_stored_just_before_a_crash(app, client, run_jobs) -> None:
    """Redis (or the web process) died after the accepting script but before the game was
    marked pending: the client saw no 202 and posts the same envelope again."""
    store, gid, accepted, body = _stored_just_before_a_crash(app, client, run_jobs)
    # the sweep's index got the game before the append, so a sweep alone would find it; the
    # accepting script set the game's flag, but the job was never enqueued
    assert accepted.created and accepted.schedule and gid in store.pending_games()
    assert store.r.get(game_key(gid, "scheduled")) == "1"
    assert app.extensions["parley_queue"].count == 0

    resp = client.post(f"/v1/games/{gid}/moves", data=body,
                       headers={"Content-Type": "application/json"})
    assert resp.status_code == 202 and resp.get_json()["id"] == accepted.seq
    assert app.extensions["parley_queue"].count == 1  # the re-post enqueued the lost job
    assert run_jobs() == 1
    assert client.get(resp.headers["Location"]).get_json()["status"] == "applied"


def test_the_sweep_resolves_a_move_stored_just_before_a_crash(app, client, run_jobs) -> None:
    """As above, but the client never retries: the worker's sweep finds the game."""
    store, gid, accepted, _ = _stored_just_before_a_crash(app, client, run_jobs)
    from workers.resolve import sweep

    assert sweep(store, app.extensions["parley_queue"]) == 1
    assert run_jobs() == 1
    assert client.get(f"/v1/games/{gid}/moves/{accepted.seq}").get_json()["status"] == \
        "applied"


def test_a_retried_join_starts_a_game_whose_start_was_lost(app, client, run_jobs) -> None:
    """The web process died between the join script that took the last seat and the start."""
    players = [TestPlayer(n).register(client) for n in ("ann", "bob")]
    gid = client.post("/v1/games", json={"ruleset": "totohu", "players": 2},
                      headers=players[0].auth).get_json()["id"]
    assert client.post(f"/v1/games/{gid}/join", json=players[0].join_body(gid),
                       headers=players[0].auth).status_code == 200
    store = app.extensions["parley_store"]
    assert store.join(gid, -1, players[1].id, "seed", 2)[0] == "ok"  # then the crash
    assert store.meta(gid)["status"] == "full" and gid not in store.pending_games()

    resp = client.post(f"/v1/games/{gid}/join", json=players[1].join_body(gid),
                       headers=players[1].auth)
    assert resp.status_code == 409
    assert resp.get_json()["code"] in ("already_seated", "game_not_open")
    run_jobs()
    assert store.meta(gid)["status"] == "active"
    assert store.r.get(game_key(gid, "state")) is not None


def test_a_worker_start_finds_a_move_missing_from_the_pending_index(app, client,
                                                                    run_jobs) -> None:
    """The web process died after the append while a worker's drain had just taken the game
    out of the pending index: only the start-up scan of every game finds the move."""
    store, gid, accepted, _ = _stored_just_before_a_crash(app, client, run_jobs)
    store.done_pending(gid)  # the drain's removal that raced the append
    from workers.resolve import sweep

    assert sweep(store, app.extensions["parley_queue"]) == 0  # the index alone misses it
    assert store.reindex_pending() == 1 and store.reindex_pending() == 0
    assert sweep(store, app.extensions["parley_queue"]) == 1
    assert run_jobs() == 1
    assert client.get(f"/v1/games/{gid}/moves/{accepted.seq}").get_json()["status"] == \
        "applied"
