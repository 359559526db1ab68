"""Totohu through the HTTP API with signed moves: whole games for 1, 2 and 3 seats."""

from __future__ import annotations

import json

import pytest

from tests.api.helpers import new_game, play_out, post_move, view


@pytest.mark.parametrize(("seats", "options"), [
    (1, {}), (2, {"hidden_treasure": True}), (3, {"blind": True}),
    (3, {"hidden_treasure": True, "blind": True}),
])
def test_whole_game_through_the_api(client, run_jobs, seats: int, options: dict) -> None:
    gid, players = new_game(client, "totohu", options, seats)
    summary = play_out(client, run_jobs, gid, players, seed=seats)
    assert summary["result"]["reason"] in {"one_fleet_left", "all_fleets_exhausted"}
    audit = client.get(f"/v1/games/{gid}/audit").get_json()
    assert all(e["status"] == "applied" for e in audit["entries"])
    if seats == 1:
        assert {d["purpose"] for d in audit["draws"]} >= {"solo-dummy-ship"}


def _others_see(client, run_jobs, ship: str) -> str:
    gid, players = new_game(client, "totohu", {"seat_order": "joined"}, 3)
    assert post_move(client, gid, players[0], 0, {"type": "play", "ship": ship}).status_code \
        == 202
    run_jobs()
    seen = []
    for who in (players[1], players[2], None):
        v = view(client, gid, who)
        events = client.get(f"/v1/games/{gid}/events",
                            headers=who.auth if who else {}).get_json()["events"]
        for e in events:
            e["event"].pop("players", None)  # the start event names this game's players
        seen.append([v["state"], v["text"], v["to_act"], events])
    audit = client.get(f"/v1/games/{gid}/audit").get_json()
    assert "envelope" not in audit["entries"][0] and len(audit["entries"][0]["digest"]) == 64
    assert post_move(client, gid, players[0], 0, {"type": "play", "ship": "h"}).get_json()[
        "code"] == "already_chosen"
    return json.dumps(seen, sort_keys=True)


def test_a_choice_stays_secret_until_the_reveal(client, run_jobs) -> None:
    """Non-interference: games differing only in seat 0's choice look the same to the others."""
    assert _others_see(client, run_jobs, "p3") == _others_see(client, run_jobs, "m1")
