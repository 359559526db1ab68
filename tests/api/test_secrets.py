"""Secrets: tokens stored as hashes, rotated and revoked; the server key file is 0600; and no
token, private key or unrevealed seed appears in any response or log line of a live game."""

from __future__ import annotations

import hashlib
import logging
import os
import stat
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from parley_protocol import signing

from service.domain.game import load_game, seed_of
from service.ops.server_key import load_server_key
from service.web.auth import hash_token
from tests.api.helpers import new_game, post_move, view
from tests.players import TestPlayer


def _code(resp) -> str:
    return resp.get_json()["code"]


def test_tokens_are_stored_only_as_hashes(app, client) -> None:
    ann = TestPlayer("ann").register(client)
    r = app.extensions["parley_store"].r
    assert r.get(f"token:{hash_token(ann.token)}") == ann.id
    for key in r.scan_iter("*"):
        assert ann.token not in key
        kind = r.type(key)
        values = {"string": lambda k: [r.get(k)], "hash": lambda k: r.hvals(k),
                  "set": lambda k: r.smembers(k)}.get(kind, lambda k: [])(key)
        assert not any(ann.token in (v or "") for v in values), key


def test_rotate_revoke_and_list_tokens(client) -> None:
    ann, bob = TestPlayer("ann").register(client), TestPlayer("bob").register(client)
    url = f"/v1/players/{ann.id}/tokens"
    listed = client.get(url, headers=ann.auth).get_json()["tokens"]
    assert len(listed) == 1 and listed[0]["current"] and listed[0]["id"].startswith("t_")
    # rotation: a new token, shown once; the old one stops working at once
    old = ann.auth
    rotated = client.post(url, json={"rotate": True}, headers=old)
    assert rotated.status_code == 201
    body = rotated.get_json()
    assert body["rotated"] == listed[0]["id"] and body["token"] != ann.token
    ann.token = body["token"]
    resp = client.get(url, headers=old)
    assert resp.status_code == 401 and _code(resp) == "bad_token"
    assert [t["id"] for t in client.get(url, headers=ann.auth).get_json()["tokens"]] == [
        body["id"]]
    # a second token (another device), then revoke it from the first
    second = client.post(url, json={}, headers=ann.auth).get_json()
    second_auth = {"Authorization": f"Bearer {second['token']}"}
    tokens = client.get(url, headers=second_auth).get_json()["tokens"]
    assert sorted((t["id"], t["current"]) for t in tokens) == sorted(
        [(body["id"], False), (second["id"], True)])
    assert client.delete(f"{url}/{second['id']}", headers=ann.auth).status_code == 204
    assert _code(client.get(url, headers=second_auth)) == "bad_token"
    resp = client.delete(f"{url}/{second['id']}", headers=ann.auth)
    assert resp.status_code == 404 and _code(resp) == "token_not_found"
    # only the owner may see or change a player's tokens
    for resp in (client.get(url, headers=bob.auth),
                 client.post(url, json={"rotate": True}, headers=bob.auth),
                 client.delete(f"{url}/{body['id']}", headers=bob.auth)):
        assert resp.status_code == 403 and _code(resp) == "not_owner"
    assert client.get(url).status_code == 401
    # revoking the token of the request logs this client out
    assert client.delete(f"{url}/{body['id']}", headers=ann.auth).status_code == 204
    assert _code(client.get("/v1/games", headers=ann.auth)) == "bad_token"


def test_server_key_file_is_created_0600(tmp_path: Path) -> None:
    old = os.umask(0)  # even with a permissive umask
    try:
        path = tmp_path / "keys" / "server_key.pem"
        load_server_key(path)
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


class _Recorder:
    """Every response of a test client: status, headers and body, for the leak search."""

    def __init__(self, client) -> None:
        self.client = client
        self.seen: list[tuple[str, str]] = []  # (what, text)
        self.issuing: list[tuple[str, str]] = []  # responses that show a new token to its owner

    def __call__(self, method: str, path: str, issuing: bool = False, **kw):
        resp = getattr(self.client, method)(path, **kw)
        text = f"{resp.status} {list(resp.headers.items())} {resp.get_data(as_text=True)}"
        (self.issuing if issuing else self.seen).append((f"{method.upper()} {path}", text))
        return resp


def _secret_forms(raw: bytes) -> list[str]:
    return [raw.hex(), signing.b64url_encode(raw)]


def test_no_secret_in_any_response_or_log_of_a_live_game(app, client, run_jobs,
                                                        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    call = _Recorder(client)
    store = app.extensions["parley_store"]
    gid, players = new_game(client, options={"army": "duel"})  # random seats: a secret draw
    ann, bob = players[0], players[1]
    spare = TestPlayer("spare")
    call("post", "/v1/players", issuing=True,
         json=spare.registration())
    tokens = [ann.token, bob.token]
    # tokens: rotate one, add one (their responses show the new token to its owner only)
    issued = call("post", f"/v1/players/{bob.id}/tokens", issuing=True, json={},
                  headers=bob.auth).get_json()
    tokens.append(issued["token"])
    call("delete", f"/v1/players/{bob.id}/tokens/{issued['id']}", headers=bob.auth)
    old_ann = ann.token
    ann.token = call("post", f"/v1/players/{ann.id}/tokens", issuing=True,
                     json={"rotate": True}, headers={"Authorization": f"Bearer {old_ann}"}
                     ).get_json()["token"]
    tokens.append(ann.token)
    # play: both secret setups, a few moves, and every error path of a move
    for seat, p in players.items():
        v = view(client, gid, p)
        env = p.envelope(gid, seat, v["step"], v["legal_moves"][1])
        call("post", f"/v1/games/{gid}/moves", json=env)
        call("post", f"/v1/games/{gid}/moves", json=env)  # idempotent re-post
    run_jobs()
    for _ in range(3):
        summary = client.get(f"/v1/games/{gid}").get_json()
        seat = summary["to_act"][0]
        v = view(client, gid, players[seat])
        env = players[seat].envelope(gid, seat, v["step"], v["legal_moves"][0])
        call("post", f"/v1/games/{gid}/moves", json=env)
        bad = {**env, "signature": signing.b64url_encode(bytes(64))}
        call("post", f"/v1/games/{gid}/moves", json=bad)
        call("post", f"/v1/games/{gid}/moves", json={**env, "key_id": "k_nope"})
        call("post", f"/v1/games/{gid}/moves", data=b"{", content_type="application/json")
        run_jobs()
    post_move(client, gid, ann, [s for s, p in players.items() if p is ann][0],
              {"type": "move", "from": "z9", "to": "a1"})
    # walk every endpoint of the running game, as each seat, as a spectator, with a bad token
    auths = [ann.auth, bob.auth, {}, {"Authorization": "Bearer pt_wrong"},
             {"Authorization": f"Bearer {old_ann}"}]
    game_rules = [r for r in app.url_map.iter_rules() if "GET" in r.methods]
    for auth in auths:
        for rule in game_rules:
            args = {"game": gid, "player": ann.id, "move": 1, "token": issued["id"],
                    "filename": "x"}
            try:
                path = rule.build(args, append_unknown=False)[1]
            except Exception:  # a rule with a parameter this walk does not know
                path = None
            if path:
                call("get", path, headers=auth)
        call("get", f"/v1/games/{gid}/events?cursor=0&limit=1000", headers=auth)
        call("get", f"/v1/games/{gid}/moves/999", headers=auth)
        call("post", f"/v1/games/{gid}/join", json={}, headers=auth)
        call("post", "/v1/games", json={"ruleset": "nope", "players": 2}, headers=auth)
    assert client.get(f"/v1/games/{gid}").get_json()["status"] == "active"

    game = load_game(store, gid)
    server_seed = bytes.fromhex(store.secret(gid)["server_seed"])
    key = app.extensions["parley_server_key"]
    secrets_ = {"server seed": _secret_forms(server_seed),
                "game seed": _secret_forms(seed_of(store, game)),
                "server private key": _secret_forms(key.private_bytes_raw()) + [
                    key.private_bytes(serialization.Encoding.PEM,
                                      serialization.PrivateFormat.PKCS8,
                                      serialization.NoEncryption()).decode().splitlines()[1]]}
    for p in (*players.values(), spare):
        secrets_[f"private key of {p.name}"] = _secret_forms(p.key.private_bytes_raw())
    for i, token in enumerate(tokens):
        secrets_[f"token {i}"] = [token, hash_token(token)]
    logs = [r.getMessage() + (r.exc_text or "") for r in caplog.records] + [caplog.text]
    assert len(call.seen) > 60 and any("/audit" in what for what, _ in call.seen)
    for name, forms in secrets_.items():
        for form in forms:
            for what, text in call.seen:
                assert form.lower() not in text.lower(), f"{name} in the response of {what}"
            for line in logs:
                assert form.lower() not in line.lower(), f"{name} in a log line: {line}"
    for what, text in call.issuing:  # a new token is shown to its owner, nothing else is
        for name, forms in secrets_.items():
            if not name.startswith("token"):
                assert not any(f.lower() in text.lower() for f in forms), (name, what)

    # the search can find what it looks for: after the end the seed is published
    assert post_move(client, gid, bob, [s for s, p in players.items() if p is bob][0],
                     {"type": "resign"}).status_code == 202
    run_jobs()
    audit = client.get(f"/v1/games/{gid}/audit").get_data(as_text=True)
    assert server_seed.hex() in audit
    assert hashlib.sha256(server_seed).hexdigest() in audit
