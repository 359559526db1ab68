"""Störtebeker through the HTTP API with signed moves: whole games (basic and extended), the
finished games' audit bundles verified offline, pirate placements secret during play."""

from __future__ import annotations

import pytest
from parley_protocol.verify import verify_bundle

from tests.api.helpers import new_game, play_out, post_move, view


# random play without the stall limit may run to thousands of moves, beyond the per-player
# rate limit: these games play with the house rule (random games by the rulebook alone are
# played to their end in tests/engines/test_stortebeker_props.py)
@pytest.mark.parametrize(("seats", "options"), [(2, {"stall-limit": True}),
                                                (3, {"extended": True, "stall-limit": True})])
def test_whole_game_through_the_api(client, run_jobs, seats: int, options: dict) -> None:
    gid, players = new_game(client, "stortebeker", options, seats)
    first = view(client, gid, players[0])
    assert len(first["state"]["hand"]) == 6 and "Störtebeker" in first["text"]
    summary = play_out(client, run_jobs, gid, players, seed=seats)
    assert summary["result"]["reason"] in {"final_round_complete", "stall_limit"}
    audit = client.get(f"/v1/games/{gid}/audit").get_json()
    purposes = {d["purpose"] for d in audit["draws"]}
    assert {"ship-deck", "action-deck", "seat-order"} <= purposes
    report = verify_bundle(audit)
    assert report.ok, report.failure


def _prefer(moves: list[dict]) -> dict:
    """A pirate placement if there is one, else a provision placement, else anything."""
    for want in (lambda m: m["type"] == "place" and m["card"].startswith("pirate"),
                 lambda m: m["type"] == "place", lambda m: m["type"] != "end_boarding"):
        found = [m for m in moves if want(m)]
        if found:
            return found[0]
    return moves[0]


def test_a_pirate_placement_stays_secret_until_the_end(client, run_jobs) -> None:
    gid, players = new_game(client, "stortebeker", {}, 2)
    placed = None
    for _ in range(200):  # a pirate comes to hand and finds a ship within a few turns
        seat = client.get(f"/v1/games/{gid}").get_json()["to_act"][0]
        move = _prefer(view(client, gid, players[seat])["legal_moves"])
        assert post_move(client, gid, players[seat], seat, move).status_code == 202
        run_jobs()
        if move["type"] == "place" and move["card"].startswith("pirate"):
            placed = (seat, move["card"])
            break
    assert placed is not None, "no pirate was placed in 200 moves"
    seat, card = placed
    other = players[1 - seat]
    assert card not in str(view(client, gid, other))
    assert card not in str(view(client, gid))
    events = client.get(f"/v1/games/{gid}/events?limit=1000", headers=other.auth).get_json()
    assert card not in str(events)
    assert {"type": "placed", "seat": seat, "ship": move["ship"], "pirate": True} in [
        e["event"] for e in events["events"]]
    audit = client.get(f"/v1/games/{gid}/audit").get_json()
    assert card not in str(audit)
    hidden = [d for d in audit["draws"] if d["purpose"] in ("ship-deck", "action-deck")]
    assert hidden and all(d["params"] is None and d["result"] is None for d in hidden)
    assert card in str(view(client, gid, players[seat]))
