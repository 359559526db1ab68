"""Signed move submission: every check in order with its own code, idempotency, resolution."""

from __future__ import annotations

import json
import time

import pytest
from parley_protocol import signing

from tests.api.helpers import new_game, post_move, view
from tests.players import TestPlayer

DUEL = {"army": "duel", "red_player": "joined"}
RED_SETUP = {"a1": "flag", "b1": "bomb", "a2": "bomb", "b2": "spy", "c1": "scout",
             "a3": "scout", "c2": "miner", "b3": "miner", "d1": "general", "a4": "marshal"}
BLUE_SETUP = {sq[0] + str(11 - int(sq[1:])): piece for sq, piece in RED_SETUP.items()}


@pytest.fixture
def game(client, run_jobs):
    """A Duel game in play: Red (seat 0) to move at step 1."""
    gid, players = new_game(client, options=DUEL)
    for seat, setup in ((0, RED_SETUP), (1, BLUE_SETUP)):
        assert post_move(client, gid, players[seat], seat,
                         {"type": "setup", "placement": setup}).status_code == 202
    run_jobs()
    v = view(client, gid, players[0])
    assert v["step_kind"] == "play" and v["to_act"] == [0]
    return gid, players


def _rfc3339(epoch: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(epoch))


def _meta(app, gid: str) -> dict:
    return app.extensions["parley_store"].meta(gid)


def _problem(resp, status: int, code: str) -> dict:
    assert resp.status_code == status, resp.get_json()
    assert resp.mimetype == "application/problem+json"
    body = resp.get_json()
    assert body["code"] == code and body["status"] == status
    assert set(body) >= {"type", "title", "status", "detail", "code"}
    return body


def test_every_check_has_its_code_and_changes_nothing(app, client, game) -> None:
    gid, players = game
    red, blue = players[0], players[1]
    move = {"type": "move", "from": "a4", "to": "a5"}
    good = red.envelope(gid, 0, 1, move)
    before = _meta(app, gid)
    url = f"/v1/games/{gid}/moves"

    _problem(client.post(url, data=b"{not json", content_type="application/json"),
             400, "invalid_json")
    dup = json.dumps(good)[:-1] + ', "key_id": "x"}'
    _problem(client.post(url, data=dup, content_type="application/json"), 422, "malformed_move")
    for broken in [{**good, "extra": 1}, {**good, "signature": 5},
                   {**good, "payload": {**good["payload"], "step": "1"}},
                   {**good, "payload": {**good["payload"], "seat": True}},
                   {**good, "payload": {**good["payload"], "nonce": "short"}},
                   {**good, "payload": {**good["payload"], "move": [1]}}]:
        _problem(client.post(url, json=broken), 422, "invalid_envelope")
    big = red.envelope(gid, 0, 1, {**move, "n": 1})
    big_body = json.dumps(big).replace('"n": 1', '"n": 1152921504606846976')
    _problem(client.post(url, data=big_body, content_type="application/json"),
             422, "invalid_envelope")
    _problem(client.post(url, json={**good, "key_id": "k_nope"}), 401, "unknown_key")
    forged = {**good, "payload": {**good["payload"], "move": {**move, "to": "a6"}}}
    _problem(client.post(url, json=forged), 401, "bad_signature")
    _problem(client.post(url, json=blue.envelope(gid, 0, 1, move)), 403, "not_seated")
    outsider = TestPlayer("eve").register(client)
    _problem(client.post(url, json=outsider.envelope(gid, 1, 1, move)), 403, "not_seated")
    _problem(client.post(url, json=blue.envelope(gid, 1, 1, {"type": "move", "from": "a7",
                                                            "to": "a6"})),
             409, "not_your_turn")
    _problem(client.post(url, json=red.envelope(gid, 0, 0, move)), 409, "stale_step")
    _problem(client.post(url, json=red.envelope(gid, 0, 1, {"type": "move", "from": "b2",
                                                           "to": "b1"})),
             422, "own_piece_at_target")
    _problem(client.post(url, json=red.envelope(gid, 0, 1, {"type": "move", "from": "a3",
                                                           "to": "a6"})),
             422, "blocked_path")
    _problem(client.post("/v1/games/g_other/moves", json=good), 422, "wrong_game")
    for issued_at in ("not a date", "2026-11-22", "2026-11-22T12:00:00", "2026-02-30T12:00:00Z",
                      "2026-11-22 12:00:00Z junk"):
        _problem(client.post(url, json=red.envelope(gid, 0, 1, move, issued_at=issued_at)),
                 422, "bad_issued_at")
    now = time.time()
    for issued_at in ("2999-01-01T00:00:00Z", "1970-01-01T00:00:00Z", _rfc3339(now - 8 * 86400),
                      _rfc3339(now + 600)):
        _problem(client.post(url, json=red.envelope(gid, 0, 1, move, issued_at=issued_at)),
                 422, "stale_signature")
    assert _meta(app, gid) == before  # nothing changed by any refusal

    resp = client.post(url, json=good)
    assert resp.status_code == 202
    body = resp.get_json()
    assert body["id"] == 3 and body["status"] == "queued"  # after the two setups
    assert resp.headers["Location"].endswith(f"/v1/games/{gid}/moves/3")
    # the same move signed again (another issued_at): its derived nonce is the same
    again = red.envelope(gid, 0, 1, move, issued_at=_rfc3339(now - 60))
    assert again["payload"]["nonce"] == good["payload"]["nonce"] and again != good
    _problem(client.post(url, json=again), 409, "duplicate_nonce")


def test_receipt_is_signed_and_chained(client, game) -> None:
    gid, players = game
    env = players[0].envelope(gid, 0, 1, {"type": "move", "from": "a4", "to": "a5"})
    receipt = client.post(f"/v1/games/{gid}/moves", json=env).get_json()["receipt"]
    server_key = signing.b64url_decode(client.get("/v1/server-key").get_json()["public_key"])
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    body = {k: receipt[k] for k in ("game", "seq", "entry_hash", "accepted_at")}
    Ed25519PublicKey.from_public_bytes(server_key).verify(
        signing.b64url_decode(receipt["signature"]),
        signing.RECEIPT_PREFIX + signing.canonical(body))
    audit = client.get(f"/v1/games/{gid}/audit").get_json()
    chain = ""
    for entry in audit["entries"]:
        chain = signing.chain_hash(chain, entry["digest"])
        assert entry["entry_hash"] == chain
    assert receipt["entry_hash"] == chain


def test_idempotent_repost_and_resolution(client, game, run_jobs) -> None:
    gid, players = game
    red = players[0]
    env = red.envelope(gid, 0, 1, {"type": "move", "from": "a4", "to": "a5"})
    first = client.post(f"/v1/games/{gid}/moves", json=env)
    second = client.post(f"/v1/games/{gid}/moves", json=env)
    assert first.get_json()["id"] == second.get_json()["id"] == 3
    assert client.get(f"/v1/games/{gid}/moves/3").get_json() == {"id": 3, "status": "queued"}
    assert run_jobs() >= 1
    assert client.get(f"/v1/games/{gid}/moves/3").get_json() == {"id": 3, "status": "applied"}
    third = client.post(f"/v1/games/{gid}/moves", json=env)
    assert third.status_code == 202 and third.get_json()["status"] == "applied"
    v = view(client, gid, red)
    assert v["step"] == 2 and v["to_act"] == [1]
    _problem(client.get(f"/v1/games/{gid}/moves/99"), 404, "move_not_found")


def test_two_queued_moves_of_one_step_second_is_rejected(client, game, run_jobs) -> None:
    gid, players = game
    red = players[0]
    a = client.post(f"/v1/games/{gid}/moves",
                    json=red.envelope(gid, 0, 1, {"type": "move", "from": "a4", "to": "a5"}))
    b = client.post(f"/v1/games/{gid}/moves",
                    json=red.envelope(gid, 0, 1, {"type": "move", "from": "a4", "to": "b4"}))
    assert a.status_code == b.status_code == 202
    run_jobs()
    assert client.get(a.headers["Location"]).get_json()["status"] == "applied"
    status = client.get(b.headers["Location"]).get_json()
    assert status["status"] == "rejected" and status["code"] == "stale_step"


def test_resign_out_of_turn_ends_the_game_and_reveals_the_seed(client, game, run_jobs) -> None:
    gid, players = game
    blue = players[1]
    resp = post_move(client, gid, blue, 1, {"type": "resign"})
    assert resp.status_code == 202
    run_jobs()
    summary = client.get(f"/v1/games/{gid}").get_json()
    assert summary["status"] == "finished"
    assert summary["result"]["winners"] == [0] and summary["result"]["reason"] == "resigned"
    _problem(post_move(client, gid, players[0], 0, {"type": "move", "from": "a4", "to": "a5"},
                       step=summary["step"]), 409, "game_over")
    audit = client.get(f"/v1/games/{gid}/audit").get_json()
    assert signing.sha256_hex(bytes.fromhex(audit["server_seed"])) == audit["commitment"]
    assert all("envelope" in e for e in audit["entries"])
    types = [e["event"]["type"] for e in
             client.get(f"/v1/games/{gid}/events").get_json()["events"]]
    assert types[0] == "game_started" and types[-1] == "game_finished"


def test_setup_twice_gets_the_engines_code(client, run_jobs) -> None:
    gid, players = new_game(client, options=DUEL)
    post_move(client, gid, players[0], 0, {"type": "setup", "placement": RED_SETUP})
    run_jobs()
    again = players[0].envelope(gid, 0, 0, {"type": "setup", "placement": RED_SETUP},
                                issued_at=_rfc3339(time.time() - 60))  # not the same envelope
    _problem(client.post(f"/v1/games/{gid}/moves", json=again), 409, "setup_already_submitted")


def test_a_commit_is_announced_and_stored_compactly(app, client, game, run_jobs) -> None:
    """Every commit publishes "<game> <applied>" on the applied channel; the stored entry keeps
    its hash in base64url and its time in Unix seconds, and readers get hex and ISO back."""
    from service.storage.keys import APPLIED_CHANNEL, game_key

    gid, players = game
    store = app.extensions["parley_store"]
    sub = store.r.pubsub(ignore_subscribe_messages=True)
    sub.subscribe(APPLIED_CHANNEL)
    resp = post_move(client, gid, players[0], 0, {"type": "move", "from": "a4", "to": "a5"})
    receipt = resp.get_json()["receipt"]
    run_jobs()
    heard = []
    deadline = time.monotonic() + 5
    while f"{gid} 3" not in heard and time.monotonic() < deadline:
        msg = sub.get_message(timeout=0.5)  # None for the subscription's confirmation, too
        if msg is not None:
            heard.append(msg["data"])
    sub.close()
    assert f"{gid} 3" in heard

    raw = store.r.xrange(game_key(gid, "moves"), "3-0", "3-0")[0][1]
    assert len(raw["h"]) == 43 and raw["t"].isdigit()
    fields = store.entries(gid, 3, 3)[0][1]
    assert fields["h"] == receipt["entry_hash"] and fields["t"] == receipt["accepted_at"]
    assert store.hashes(gid)[-1][0] == 3 and len(store.hashes(gid)[-1][1]) == 64
    assert store.events(gid, 0, 100)[-1][1]["event"]["type"] == "ply"


def test_a_resolve_refuses_a_stream_that_lost_its_pending_entries(app, client, game) -> None:
    """`head` says a move is pending but the stream lost it (damage): nothing is applied or
    skipped, and `parley fsck` is left to report it."""
    from service.domain.game import resolve_pending
    from service.storage.keys import game_key

    gid, players = game
    store = app.extensions["parley_store"]
    post_move(client, gid, players[0], 0, {"type": "move", "from": "a4", "to": "a5"})
    before = _meta(app, gid)
    store.r.xdel(game_key(gid, "moves"), f"{before['head']}-0")
    assert resolve_pending(store, gid) == 0
    assert _meta(app, gid)["applied"] == before["applied"]


def test_a_move_signed_offline_days_ago_is_accepted(client, game) -> None:
    """Correspondence players sign offline: six days old, or a minute ahead, still counts."""
    gid, players = game
    for age, to in ((6 * 86400, "a5"), (-60, "b4")):  # two moves: one move is taken once
        env = players[0].envelope(gid, 0, 1, {"type": "move", "from": "a4", "to": to},
                                  issued_at=_rfc3339(time.time() - age))
        resp = client.post(f"/v1/games/{gid}/moves", json=env)
        assert resp.status_code == 202, resp.get_json()
