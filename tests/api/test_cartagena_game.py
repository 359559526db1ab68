"""Cartagena through the HTTP API with signed moves: whole games on every route, their audit
bundles verified offline, and the Rascals discard answered by several seats through the API."""

from __future__ import annotations

import pytest
from parley_protocol.verify import verify_bundle

from tests.api.helpers import new_game, play_out, view


@pytest.mark.parametrize(("seats", "options"), [
    (2, {}), (3, {"route": "complete", "draw_mode": {"tunnel": "both", "jungle": "morgan"},
                  "rascals": True, "witch": True, "pirates": 4}),
    (3, {"route": "tortuga", "tiles": 4, "pirates": 4}),
])
def test_whole_game_through_the_api(client, run_jobs, seats: int, options: dict) -> None:
    gid, players = new_game(client, "cartagena", options, seats)
    first = view(client, gid, players[0])
    assert len(first["state"]["hand"]) == 6 and "Cartagena" in first["text"]
    summary = play_out(client, run_jobs, gid, players, seed=seats)
    assert summary["result"]["reason"] == "all_pirates_escaped"
    audit = client.get(f"/v1/games/{gid}/audit").get_json()
    assert {"board-tiles", "tile-orientation", "deck-initial"} <= {
        d["purpose"] for d in audit["draws"]}
    report = verify_bundle(audit)
    assert report.ok, report.failure


def test_a_hand_stays_hidden_from_the_other_seats(client, run_jobs) -> None:
    gid, players = new_game(client, "cartagena", {}, 2)
    hands = {s: view(client, gid, p)["state"]["hand"] for s, p in players.items()}
    for seat, p in players.items():
        other = view(client, gid, p)
        assert other["state"]["hand_sizes"] == {"0": 6, "1": 6}
        assert not set(hands[1 - seat]) & set(str(other).split("'"))
    audit = client.get(f"/v1/games/{gid}/audit").get_json()
    deal = [d for d in audit["draws"] if d["purpose"] == "deck-initial"]
    assert deal and deal[0]["params"] is None and deal[0]["result"] is None
