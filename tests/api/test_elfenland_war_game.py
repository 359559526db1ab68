"""Battle for Elfland through the HTTP API with signed moves: whole games, their audit bundles
verified offline, and the secret placements shown to the other seats only as digests."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from parley_protocol.verify import verify_bundle

from service.ops import clock
from tests.api.helpers import new_game, play_out, post_move, view


@pytest.mark.parametrize(("seats", "options"), [
    (2, {"mode": "war", "war-max-rounds": 5}),
    (3, {"mode": "war", "war-victory": "conditions", "war-max-rounds": 5,
         "colours": ["green", "black", "red"]}),
])
def test_whole_war_game_through_the_api(client: Any, run_jobs: Any, seats: int,
                                        options: dict) -> None:
    gid, players = new_game(client, "elfenland", options, seats)
    summary = play_out(client, run_jobs, gid, players, seed=seats)
    assert summary["result"]["reason"] in {"capitals_captured", "condition_fulfilled",
                                           "last_army_standing", "round_limit"}
    audit = client.get(f"/v1/games/{gid}/audit").get_json()
    assert all(e["status"] == "applied" for e in audit["entries"])
    purposes = {d["purpose"] for d in audit["draws"]}
    assert {"war-support-pile", "war-units", "war-victory-deck", "war-town-cards"} <= purposes
    if options.get("war-victory") == "conditions":
        assert "war-condition-cards" in purposes
    report = verify_bundle(audit)
    assert report.ok, report.render()


def test_a_placement_stays_secret_until_all_have_placed(client: Any, run_jobs: Any) -> None:
    """Seat 0's initial placement: the others see only that it was submitted (its envelope as
    a digest); once every seat has placed, all placements are public."""
    gid, players = new_game(client, "elfenland", {"mode": "war", "seat_order": "joined"}, 3)
    v = view(client, gid, players[0])
    assert v["legal_moves_complete"] is False  # a free arrangement: examples only
    move = v["legal_moves"][-1]
    assert post_move(client, gid, players[0], 0, move).status_code == 202
    run_jobs()
    secret = json.dumps(move["towns"], sort_keys=True)
    for who in (players[1], players[2], None):
        other = view(client, gid, who)
        assert other["state"]["submitted"] == [True, False, False]
        assert other["state"]["garrison"] == {}
        assert other["state"].get("my_submission") is None
        events = client.get(f"/v1/games/{gid}/events",
                            headers=who.auth if who else {}).get_json()["events"]
        text = json.dumps(events, sort_keys=True) + json.dumps(other, sort_keys=True)
        assert secret not in text and "war_placed_initial" not in text
    assert view(client, gid, players[0])["state"]["my_submission"] == move["towns"]
    audit = client.get(f"/v1/games/{gid}/audit").get_json()
    assert "envelope" not in audit["entries"][0] and len(audit["entries"][0]["digest"]) == 64
    # signed again a minute apart: the same derived nonce, yet another envelope, so refused
    # (the very same envelope again would be the same move, accepted once)
    earlier = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(clock.now() - 60))
    again = client.post(f"/v1/games/{gid}/moves", json=players[0].envelope(
        gid, 0, v["step"], move, issued_at=earlier)).get_json()
    assert again["code"] in {"already_submitted", "not_your_turn"}
    for seat in (1, 2):
        mine = view(client, gid, players[seat])
        assert post_move(client, gid, players[seat], seat,
                         mine["legal_moves"][0]).status_code == 202
        run_jobs()
    after = view(client, gid, players[1])["state"]
    assert {t: g["units"] for t, g in after["garrison"].items() if g["seat"] == 0} == \
        {t: {u: 1} for t, u in move["towns"].items()}
