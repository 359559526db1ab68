"""Elfenland (race) through the HTTP API with signed moves: whole games, the base game and one
with every option on, each finished game's audit bundle verified offline."""

from __future__ import annotations

import pytest
from parley_protocol.verify import verify_bundle

from engines.elfenland import options as O
from tests.api.helpers import new_game, play_out, view

EVERY_OPTION = {**{v: True for v in O.VARIANT_IDS if v not in O.EXCLUSIVE_DEALS},
                "tickets-on-demand": True, "destination": True, "rounds": 3}



@pytest.mark.parametrize(("seats", "options"), [(2, {}), (3, EVERY_OPTION)])
def test_whole_race_through_the_api(client, run_jobs, seats: int, options: dict) -> None:
    gid, players = new_game(client, "elfenland", options, seats)
    v = view(client, gid, players[0])
    assert v["state"]["mode"] == "race" and "hand" in v["state"]["you"]
    assert "Elfenland race" in v["text"]
    summary = play_out(client, run_jobs, gid, players, seed=seats)
    assert summary["result"]["reason"] in {"rounds_complete", "all_towns_collected"}
    audit = client.get(f"/v1/games/{gid}/audit").get_json()
    assert all(e["status"] == "applied" for e in audit["entries"])
    purposes = {d["purpose"] for d in audit["draws"]}
    assert {"counter-reveal", "travel-deck", "counter-secret"} <= purposes
    report = verify_bundle(audit)
    assert report.ok, report.failure


def test_ruleset_describes_both_modes(client) -> None:
    body = client.get("/v1/rulesets/elfenland").get_json()
    assert body["id"] == "elfenland"
    text = str(body)
    for name in ("thief", "quality-of-choice", "map_data", "war-victory"):
        assert name in text


def test_invalid_combination_is_refused(client, run_jobs) -> None:
    from tests.players import TestPlayer

    ann = TestPlayer("ann").register(client)
    resp = client.post("/v1/games", json={
        "ruleset": "elfenland", "players": 3,
        "options": {"quality-of-choice": True, "eight-new-tickets": True}}, headers=ann.auth)
    assert resp.status_code >= 400
    assert resp.get_json()["code"] == "invalid_options"
