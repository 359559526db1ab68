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
    resp = client.post("/v1/players", json={**TestPlayer("x").registration(),
                                            "public_key": "not-a-key!"})
    assert resp.status_code == 422
    assert resp.mimetype == "application/problem+json"
    body = resp.get_json()
    assert body["code"] == "invalid_request" and body["status"] == 422
    assert "public_key" in body["errors"]["json"]


def test_key_rotation_needs_own_token(client) -> None:
    ann = TestPlayer("ann").register(client)
    bob = TestPlayer("bob").register(client)
    new = TestPlayer("ann2")
    resp = client.post(f"/v1/players/{ann.id}/keys", json=new.key_for(ann.id))
    assert resp.status_code == 401 and resp.get_json()["code"] == "unauthorized"
    resp = client.post(f"/v1/players/{ann.id}/keys", json=new.key_for(ann.id),
                       headers=bob.auth)
    assert resp.status_code == 403 and resp.get_json()["code"] == "not_owner"
    resp = client.post(f"/v1/players/{ann.id}/keys", json=new.key_for(ann.id),
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


def test_a_key_is_registered_only_with_proof_of_possession(client) -> None:
    """Registering someone else's public key would let one player re-label another's
    envelopes (`key_id` lies outside the signature): the key must sign the registration."""
    ann = TestPlayer("ann").register(client)
    eve = TestPlayer("eve")
    for body in ({"name": "eve", "public_key": ann.public_key},  # no proof at all
                 {**eve.registration(), "public_key": ann.public_key},  # eve's proof
                 {**eve.registration(), "name": "mallory"}):  # a proof of another name
        resp = client.post("/v1/players", json=body)
        assert resp.status_code == 422, resp.get_json()
        assert resp.get_json()["code"] in ("invalid_request", "bad_key_proof")
    resp = client.post("/v1/players", json={**eve.registration(), "public_key": ann.public_key})
    assert resp.get_json()["code"] == "bad_key_proof"
    # a proof replayed from ann's own registration: the key is taken
    resp = client.post("/v1/players", json=TestPlayer("ann").registration() | {
        "public_key": ann.public_key, "proof": ann.registration()["proof"]})
    assert resp.status_code == 409 and resp.get_json()["code"] == "key_registered"
    eve.register(client)
    # adding a key: the proof names the player it is added to
    new = TestPlayer("new")
    resp = client.post(f"/v1/players/{eve.id}/keys", json=new.key_for(ann.id), headers=eve.auth)
    assert resp.status_code == 422 and resp.get_json()["code"] == "bad_key_proof"
    resp = client.post(f"/v1/players/{eve.id}/keys", json=ann.key_for(eve.id), headers=eve.auth)
    assert resp.status_code == 409 and resp.get_json()["code"] == "key_registered"
    assert client.post(f"/v1/players/{eve.id}/keys", json=new.key_for(eve.id),
                       headers=eve.auth).status_code == 201
    assert {k["public_key"] for k in client.get(f"/v1/players/{eve.id}").get_json()["keys"]} \
        == {eve.public_key, new.public_key}


def test_names_with_control_characters_are_refused(client) -> None:
    for name in ("Eve\r\nBcc: all@example.org", "Eve\nX", "a\x00b", "a\x7fb", "a\x85b",
                 "a\u2028b", "tab\there"):
        resp = client.post("/v1/players", json=TestPlayer(name).registration())
        assert resp.status_code == 422, name
        assert "name" in resp.get_json()["errors"]["json"]
    resp = client.post("/v1/players", json=TestPlayer("Éva Nováková").registration(
        email="eva@example.org"))
    assert resp.status_code == 201
    resp = client.post("/v1/players", json=TestPlayer("eve").registration(
        email="eve@example.org\r\nBcc: all@example.org"))
    assert resp.status_code == 422 and "email" in resp.get_json()["errors"]["json"]


def test_names_that_disguise_text_are_refused(client) -> None:
    """Bidi controls reorder what a mail or terminal shows ("Eve\u202egnp.exe"); an
    encoded-word would be decoded into something else by a mail reader that shows a header."""
    for name in ("Eve\u202egnp.exe", "a\u202ab", "a\u202bb", "a\u202cb", "a\u202db",
                 "a\u2066b\u2069", "a\u2067b", "a\u2068b", "\u200eX", "X\u200f",
                 "=?utf-8?q?Admin?=", "Ann =?UTF-8?B?QWRtaW4=?= Lee"):
        resp = client.post("/v1/players", json=TestPlayer(name).registration())
        assert resp.status_code == 422 and resp.get_json()["code"] == "invalid_request", name
        assert "name" in resp.get_json()["errors"]["json"], name
    for name in ("Ann = Bob?", "x=?", "?=y", "שלום", "أحمد"):  # right-to-left script is fine
        resp = client.post("/v1/players", json=TestPlayer(name).registration())
        assert resp.status_code == 201, (name, resp.get_json())


def test_the_servers_own_addresses_are_refused(app, client) -> None:
    """Mail to the server's From address or its reply domain would come back to the server
    (by default both are at `localhost`)."""
    for address in ("parley@localhost", "PARLEY@LocalHost", "move-abcdefghijklmnopqrstuvwxyz"
                    "@localhost", "anyone@localhost"):
        resp = client.post("/v1/players", json=TestPlayer("eve").registration(email=address))
        assert resp.status_code == 422 and resp.get_json()["code"] == "invalid_request", address
        assert "email" in resp.get_json()["errors"]["json"], address
    settings = app.config["PARLEY"]
    settings.MAIL_FROM, settings.MAIL_REPLY_DOMAIN = "Parley <parley@example.org>", \
        "games.example.org"
    ann = TestPlayer("ann").register(client)
    for address in ("parley@example.org", "move-x@games.example.org", "x@GAMES.example.org"):
        resp = client.put(f"/v1/players/{ann.id}/email", json={"email": address},
                          headers=ann.auth)
        assert resp.status_code == 422 and "email" in resp.get_json()["errors"]["json"], address
        resp = client.post("/v1/players", json=TestPlayer("eve").registration(email=address))
        assert resp.status_code == 422, address
    for address in ("ann@example.org", "x@mail.games.example.org"):  # others at that domain
        resp = client.put(f"/v1/players/{ann.id}/email", json={"email": address},
                          headers=ann.auth)
        assert resp.status_code == 200, (address, resp.get_json())


def test_webhook_urls_with_control_characters_are_refused(client) -> None:
    ann = TestPlayer("ann").register(client)
    for url in ("http://8.8.8.8/a\r\nX: y", "http://8.8.8.8/a b", "http://8.8.8.8/\x00"):
        resp = client.post(f"/v1/players/{ann.id}/webhooks", json={"url": url},
                           headers=ann.auth)
        assert resp.status_code == 422 and resp.get_json()["code"] == "unsafe_url", url
