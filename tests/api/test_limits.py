"""Limits: request size (413), rate limits in Redis (429 + Retry-After), caps, pagination."""

from __future__ import annotations

import time

import pytest
from parley_protocol import signing

from tests.api.helpers import new_game, post_move, view
from tests.api.test_moves import BLUE_SETUP, DUEL, RED_SETUP
from tests.players import TestPlayer


def _problem(resp, status: int, code: str) -> dict:
    assert resp.status_code == status, (resp.status_code, resp.get_data(as_text=True))
    assert resp.mimetype == "application/problem+json"
    body = resp.get_json()
    assert body["code"] == code and body["status"] == status and body["detail"]
    return body


def _rate_limited(resp) -> None:
    """429 with the breached limit's window: Retry-After and the X-RateLimit-* headers."""
    _problem(resp, 429, "rate_limited")
    assert 0 < int(resp.headers["Retry-After"]) <= 60
    assert int(resp.headers["X-RateLimit-Limit"]) in (2, 3, 4, 10)  # the limits of `limited`
    assert resp.headers["X-RateLimit-Remaining"] == "0"
    reset = int(resp.headers["X-RateLimit-Reset"])
    assert 0 < reset - time.time() <= 61


@pytest.fixture
def limited(config):
    """An app with low limits (the defaults are generous enough for every other test)."""
    from service.web.app import create_app

    config.LIMIT_REGISTER_PER_ADDRESS = "3/minute"
    config.LIMIT_CREATE_PER_PLAYER = "2/minute"
    config.LIMIT_CREATE_PER_ADDRESS = "4/minute"
    config.LIMIT_MOVES_PER_PLAYER = "3/minute"
    config.LIMIT_MOVES_PER_ADDRESS = "10/minute"
    app = create_app(config)
    app.config["TESTING"] = True
    return app


def _from(address: str) -> dict:
    return {"environ_base": {"REMOTE_ADDR": address}}


def test_oversize_bodies_are_refused_with_413(client, config) -> None:
    big = b'{"name": "' + b"x" * config.MAX_CONTENT_LENGTH + b'"}'
    for path in ("/v1/players", "/v1/games", "/v1/games/g_x/moves", "/v1/games/g_x/join"):
        _problem(client.post(path, data=big, content_type="application/json"), 413,
                 "payload_too_large")
    assert client.get("/v1/games", headers={}).status_code == 401  # nothing else changed


def test_registration_is_limited_per_address(limited) -> None:
    client = limited.test_client()
    for i in range(3):
        TestPlayer(f"p{i}").register(client)
    resp = client.post("/v1/players", json=TestPlayer("p3").registration())
    _rate_limited(resp)
    other = limited.test_client()
    resp = other.post("/v1/players", json=TestPlayer("p4").registration(),
                      **_from("10.1.2.3"))
    assert resp.status_code == 201


def test_game_creation_is_limited_per_token_and_per_address(limited) -> None:
    client = limited.test_client()
    ann, bob = TestPlayer("ann").register(client), TestPlayer("bob").register(client)
    body = {"ruleset": "stratego", "players": 2}
    assert [client.post("/v1/games", json=body, headers=ann.auth).status_code
            for _ in range(2)] == [201, 201]
    _rate_limited(client.post("/v1/games", json=body, headers=ann.auth))  # ann's token
    assert client.post("/v1/games", json=body, headers=bob.auth).status_code == 201
    # the address's 4 a minute: ann's refused request may or may not have counted
    statuses = [client.post("/v1/games", json=body, headers=bob.auth) for _ in range(2)]
    assert [r.status_code for r in statuses][-1] == 429
    _rate_limited(statuses[-1])
    assert client.post("/v1/games", json=body, headers=bob.auth,
                       **_from("10.9.9.9")).status_code == 201
    assert len(client.get("/v1/games", headers=ann.auth).get_json()["games"]) == 2
    assert client.get("/v1/games", headers=ann.auth).status_code == 200  # reads: no limit


def test_moves_are_limited_per_signer_and_per_address(limited, run_jobs) -> None:
    client = limited.test_client()
    limited.config["PARLEY"].LIMIT_MOVES_PER_PLAYER = "1000/minute"
    gid, players = new_game(client, options={"army": "duel", "red_player": "joined"})
    red, blue = players[0], players[1]
    for seat, p in ((0, red), (1, blue)):
        v = view(client, gid, p)
        assert post_move(client, gid, p, seat, v["legal_moves"][0], step=v["step"]
                         ).status_code == 202
    run_jobs()
    limited.extensions["parley_limiter"].reset()
    limited.config["PARLEY"].LIMIT_MOVES_PER_PLAYER = "3/minute"
    url = f"/v1/games/{gid}/moves"
    # forged envelopes naming red's key do not use up red's allowance (401, not charged)
    for _ in range(4):
        env = red.envelope(gid, 0, 1, {"type": "resign"})
        env["signature"] = signing.b64url_encode(bytes(64))
        _problem(client.post(url, json=env, **_from("10.0.0.66")), 401, "bad_signature")
    for _ in range(3):  # signed but stale: checked, refused, charged to red
        resp = client.post(url, json=red.envelope(gid, 0, 0, {"type": "resign"}))
        _problem(resp, 409, "stale_step")
        # a request within its limits carries no limit headers (they would cost Redis reads)
        assert not [name for name, _ in resp.headers.items()
                    if name.lower().startswith(("x-ratelimit", "retry-after"))]
    _rate_limited(client.post(url, json=red.envelope(gid, 0, 0, {"type": "resign"})))
    _problem(client.post(url, json=blue.envelope(gid, 1, 0, {"type": "resign"})), 409,
             "stale_step")  # blue is another player
    for _ in range(2):  # the address: 10 posts a minute, the 11th is refused
        client.post(url, json=blue.envelope(gid, 1, 0, {"type": "resign"}))
    _rate_limited(client.post(url, json=blue.envelope(gid, 1, 0, {"type": "resign"})))
    assert client.get(f"/v1/games/{gid}").get_json()["step"] == 1  # nothing was applied


def test_open_games_are_capped_per_player(client, config) -> None:
    config.MAX_OPEN_GAMES = 2
    ann, bob = TestPlayer("ann").register(client), TestPlayer("bob").register(client)
    body = {"ruleset": "stratego", "players": 2}
    g1, _g2 = (client.post("/v1/games", json=body, headers=ann.auth).get_json()["id"]
               for _ in range(2))
    _problem(client.post("/v1/games", json=body, headers=ann.auth), 409, "too_many_open_games")
    # bob: two games of his own, then joining ann's first seat would be a third open one
    for _ in range(2):
        assert client.post("/v1/games", json=body, headers=bob.auth).status_code == 201
    _problem(client.post(f"/v1/games/{g1}/join", json=bob.join_body(g1), headers=bob.auth), 409,
             "too_many_open_games")
    # ann joins her own game (already counted); bob takes the last seat: that starts it
    assert client.post(f"/v1/games/{g1}/join", json=ann.join_body(g1),
                       headers=ann.auth).status_code == 200
    joined = client.post(f"/v1/games/{g1}/join", json=bob.join_body(g1),
                         headers=bob.auth).get_json()
    assert joined["status"] == "active"
    assert client.post("/v1/games", json=body, headers=ann.auth).status_code == 201


def test_keys_and_tokens_are_capped(client, config) -> None:
    config.MAX_KEYS_PER_PLAYER = 2
    config.MAX_TOKENS_PER_PLAYER = 2
    ann = TestPlayer("ann").register(client)
    url = f"/v1/players/{ann.id}"
    assert client.post(url + "/keys", json=TestPlayer("k").key_for(ann.id),
                       headers=ann.auth).status_code == 201
    _problem(client.post(url + "/keys", json=TestPlayer("l").key_for(ann.id),
                         headers=ann.auth), 409, "too_many_keys")
    assert client.post(url + "/tokens", json={}, headers=ann.auth).status_code == 201
    _problem(client.post(url + "/tokens", json={}, headers=ann.auth), 409, "too_many_tokens")
    assert client.post(url + "/tokens", json={"rotate": True},
                       headers=ann.auth).status_code == 201  # rotation adds none


def test_game_list_pages_by_cursor(client) -> None:
    ann = TestPlayer("ann").register(client)
    made = sorted(client.post("/v1/games", json={"ruleset": "stratego", "players": 2},
                              headers=ann.auth).get_json()["id"] for _ in range(5))
    seen, cursor, pages = [], None, 0
    while True:
        query = "?limit=2" + (f"&cursor={cursor}" if cursor else "")
        page = client.get("/v1/games" + query, headers=ann.auth).get_json()
        seen += [g["id"] for g in page["games"]]
        pages += 1
        cursor = page["next"]
        if cursor is None:
            break
    assert seen == made and pages == 3
    # the older name `after` still works; a game created meanwhile does not shift a page
    first = client.get("/v1/games?limit=2", headers=ann.auth).get_json()
    late = client.post("/v1/games", json={"ruleset": "stratego", "players": 2},
                       headers=ann.auth).get_json()["id"]
    rest = client.get(f"/v1/games?after={first['next']}&limit=100",
                      headers=ann.auth).get_json()
    rest_ids = [g["id"] for g in rest["games"]]
    # pages are in id order: the new game shows up on this page only if its id sorts later
    assert rest_ids == sorted(made[2:] + ([late] if late > made[1] else []))
    assert rest["next"] is None
    _problem(client.get("/v1/games?limit=0", headers=ann.auth), 422, "invalid_request")


def test_events_page_by_cursor(client, run_jobs) -> None:
    gid, players = new_game(client, options={"army": "duel", "red_player": "joined"})
    for seat in (0, 1):
        v = view(client, gid, players[seat])
        post_move(client, gid, players[seat], seat, v["legal_moves"][0], step=v["step"])
    run_jobs()
    everything = client.get(f"/v1/games/{gid}/events", headers=players[0].auth).get_json()
    assert len(everything["events"]) >= 2
    seen, cursor = [], None
    for _ in range(len(everything["events"]) + 1):
        query = "?limit=1" + (f"&cursor={cursor}" if cursor else "")
        page = client.get(f"/v1/games/{gid}/events{query}", headers=players[0].auth).get_json()
        assert isinstance(page["next"], str)
        seen += page["events"]
        cursor = page["next"]
    assert seen == everything["events"] and cursor == everything["next"]
    assert client.get(f"/v1/games/{gid}/events?cursor={cursor}").get_json()["events"] == []
    _problem(client.get(f"/v1/games/{gid}/events?cursor=abc"), 422, "invalid_cursor")


def test_a_batch_counts_each_envelope_against_the_move_limits(limited, run_jobs) -> None:
    client = limited.test_client()
    gid, players = new_game(client, options=DUEL)
    red = players[0]
    for seat, setup in ((0, RED_SETUP), (1, BLUE_SETUP)):
        assert post_move(client, gid, players[seat], seat,
                         {"type": "setup", "placement": setup}).status_code == 202
    run_jobs()
    limited.extensions["parley_limiter"].reset()  # red's limit: 3 a minute

    def batch(envelopes: list, **kwargs):
        return client.post("/v1/moves", json={"envelopes": envelopes}, **kwargs)

    forged = red.envelope(gid, 0, 1, {"type": "resign"})
    forged["signature"] = signing.b64url_encode(bytes(64))
    resp = batch([forged] * 3, **_from("10.0.0.66"))  # unsigned: red not charged
    assert [r["problem"]["code"] for r in resp.get_json()["results"]] == ["bad_signature"] * 3
    # a batch needs quota for all its envelopes, or it is refused whole
    resp = batch([forged] * 4, **_from("10.0.0.67"))
    assert (resp.status_code, resp.get_json()["code"]) == (429, "rate_limited")
    assert resp.headers["X-RateLimit-Remaining"] == "3"  # red's: 3 left, the batch needs 4
    stale = [red.envelope(gid, 0, 0, {"type": "resign"}) for _ in range(2)]
    assert [r["problem"]["code"] for r in batch(stale).get_json()["results"]] == [
        "stale_step"] * 2  # signed: charged 2
    assert client.post(f"/v1/games/{gid}/moves", json=stale[0]).status_code == 409  # the 3rd
    _rate_limited(batch(stale[:1]))  # a 4th signed envelope
    _rate_limited(client.post(f"/v1/games/{gid}/moves", json=stale[0]))  # one quota for both
