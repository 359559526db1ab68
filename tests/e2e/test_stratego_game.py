"""A whole Stratego Duel game through HTTP with signed moves, real workers, then its audit."""

from __future__ import annotations

import random

import pytest
from parley_protocol import signing
from parley_protocol.verify import verify_bundle

from tests.players import TestPlayer
from tests.waiting import wait_until

pytestmark = pytest.mark.slow


def _wait_applied(server, location: str) -> dict:
    return wait_until(lambda: (s := server.get(location).json())["status"] != "queued" and s,
                      20, f"{location} still queued", interval=0.01)


def test_whole_duel_game_then_audit(server) -> None:
    players = [TestPlayer(n).register(server)
               for n in ("ann", "bob")]
    created = server.post("/v1/games", json={"ruleset": "stratego", "players": 2,
                                             "options": {"army": "duel"}},
                          headers=players[0].auth).json()
    gid = created["id"]
    for p in players:
        assert server.post(f"/v1/games/{gid}/join", json=p.join_body(gid, p.name + "-seed"),
                           headers=p.auth).status_code == 200
    by_seat = {server.get(f"/v1/games/{gid}/view", headers=p.auth).json()["seat"]: p
               for p in players}
    chooser = random.Random(4)
    applied = 0
    for _ in range(2000):
        summary = server.get(f"/v1/games/{gid}").json()
        if summary["status"] == "finished":
            break
        seat = chooser.choice(summary["to_act"])
        player = by_seat[seat]
        view = server.get(f"/v1/games/{gid}/view", headers=player.auth).json()
        assert view["seat"] == seat
        move = chooser.choice(view["legal_moves"])
        env = player.envelope(gid, seat, view["step"], move)
        resp = server.post(f"/v1/games/{gid}/moves", json=env)
        assert resp.status_code == 202, resp.json()
        assert _wait_applied(server, resp.headers["Location"])["status"] == "applied"
        applied += 1
    else:
        raise AssertionError("the game did not finish")
    assert applied > 2
    result = summary["result"]
    assert result["reason"] in {"flag_captured", "no_legal_move", "both_immobile",
                                "no_battle_limit"}

    audit = server.get(f"/v1/games/{gid}/audit").json()
    assert audit["status"] == "finished"
    assert signing.sha256_hex(bytes.fromhex(audit["server_seed"])) == created["commitment"]
    assert len(audit["entries"]) == applied
    assert all(e["status"] == "applied" and "envelope" in e for e in audit["entries"])
    chain = ""
    keys = {k: v for p in audit["players"] for k, v in p["keys"].items()}
    for entry in audit["entries"]:
        env = entry["envelope"]
        assert signing.envelope_digest(env) == entry["digest"]
        chain = signing.chain_hash(chain, entry["digest"])
        assert entry["entry_hash"] == chain
        assert signing.verify_payload(signing.b64url_decode(keys[env["key_id"]]),
                                      env["payload"], env["signature"])
    assert [h["seq"] for h in audit["state_hashes"]] == list(range(applied + 1))
    assert audit["draws"][0]["purpose"] == "seat-order"
    assert audit["result"] == result
    report = verify_bundle(audit)  # replays the engine: every draw and state hash
    assert report.ok, report
