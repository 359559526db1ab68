"""Players: registration, keys, tokens; errors as problem JSON."""

from __future__ import annotations

from tests.players import TestPlayer


def test_register_and_read_profile(client) -> None:
    p = TestPlayer("ann").register(client)
    assert p.id.startswith("p_") and p.key_id.startswith("k_") and p.token.startswith("pt_")
    body = client.get(f"/v1/players/{p.id}").get_json()
    assert body["name"] == "ann"
    assert body["keys"][0] == {"key_id": p.key_id, "public_key": p.public_key,
                               "created_at": body["keys"][0]["created_at"]}
    assert "token" not in body


def test_bad_public_key_is_problem_json(client) -> None:
    resp = client.post("/v1/players", json={"name": "x", "public_key": "not-a-key!"})
    assert resp.status_code == 422
    assert resp.mimetype == "application/problem+json"
    body = resp.get_json()
    assert body["code"] == "invalid_request" and body["status"] == 422
    assert "public_key" in body["errors"]["json"]


def test_key_rotation_needs_own_token(client) -> None:
    ann = TestPlayer("ann").register(client)
    bob = TestPlayer("bob").register(client)
    new = TestPlayer("ann2")
    resp = client.post(f"/v1/players/{ann.id}/keys", json={"public_key": new.public_key})
    assert resp.status_code == 401 and resp.get_json()["code"] == "unauthorized"
    resp = client.post(f"/v1/players/{ann.id}/keys", json={"public_key": new.public_key},
                       headers=bob.auth)
    assert resp.status_code == 403 and resp.get_json()["code"] == "not_owner"
    resp = client.post(f"/v1/players/{ann.id}/keys", json={"public_key": new.public_key},
                       headers=ann.auth)
    assert resp.status_code == 201
    keys = client.get(f"/v1/players/{ann.id}").get_json()["keys"]
    assert {k["public_key"] for k in keys} == {ann.public_key, new.public_key}


def test_bad_token_and_unknown_player(client) -> None:
    resp = client.get("/v1/games", headers={"Authorization": "Bearer pt_nope"})
    assert resp.status_code == 401 and resp.get_json()["code"] == "bad_token"
    resp = client.get("/v1/players/p_missing")
    assert resp.status_code == 404 and resp.get_json()["code"] == "player_not_found"


def test_unknown_route_is_problem_json(client) -> None:
    resp = client.get("/v1/nothing-here")
    assert resp.status_code == 404 and resp.mimetype == "application/problem+json"
    assert resp.get_json()["code"] == "not_found"
