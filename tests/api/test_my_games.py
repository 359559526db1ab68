"""`GET /v1/players/me/games`: the caller's games, filtered and paged; unknown parameters 400."""

from __future__ import annotations

from tests.api.helpers import new_game, post_move, view
from tests.players import TestPlayer

DUEL = {"army": "duel", "seat_order": "joined"}


def _ids(client, player, query: str = "") -> list[str]:
    resp = client.get(f"/v1/players/me/games{query}", headers=player.auth)
    assert resp.status_code == 200, resp.get_json()
    return [g["id"] for g in resp.get_json()["games"]]


def test_turn_mine_lists_the_games_waiting_for_the_caller(client, run_jobs) -> None:
    first, players = new_game(client, "stratego", DUEL)
    ann, bob = players[0], players[1]
    second = client.post("/v1/games", json={"ruleset": "stratego", "options": DUEL,
                                            "players": 2}, headers=ann.auth).get_json()["id"]
    for p in (ann, bob):
        assert client.post(f"/v1/games/{second}/join", json=p.join_body(second, p.name),
                           headers=p.auth).status_code == 200
    run_jobs()
    for gid in (first, second):  # both wait for both setups
        assert gid in _ids(client, ann, "?turn=mine")
    setup = view(client, first, ann)["legal_moves"][0]
    assert post_move(client, first, ann, 0, setup).status_code == 202
    run_jobs()
    assert first not in _ids(client, ann, "?turn=mine")
    assert first in _ids(client, bob, "?turn=mine")
    assert first in _ids(client, ann, "?status=active")
    assert _ids(client, ann, "?status=finished") == []
    me = client.get("/v1/players/me/games", headers=ann.auth).get_json()
    assert me == client.get("/v1/games", headers=ann.auth).get_json()
    own = client.get(f"/v1/players/{ann.id}/games", headers=ann.auth)
    assert own.get_json() == me


def test_a_filtered_list_pages_by_cursor(client, run_jobs) -> None:
    ann = TestPlayer("ann").register(client)
    created = []
    for _ in range(5):
        resp = client.post("/v1/games", json={"ruleset": "stratego", "options": DUEL,
                                              "players": 2}, headers=ann.auth)
        created.append(resp.get_json()["id"])
    seen, cursor = [], ""
    for _ in range(5):
        page = client.get(f"/v1/players/me/games?status=open&limit=2{cursor}",
                          headers=ann.auth).get_json()
        seen += [g["id"] for g in page["games"]]
        if page["next"] is None:
            break
        cursor = f"&cursor={page['next']}"
    assert seen == sorted(created)


def test_another_players_games_and_bad_parameters_are_refused(client) -> None:
    ann, bob = TestPlayer("ann").register(client), TestPlayer("bob").register(client)
    other = client.get(f"/v1/players/{bob.id}/games", headers=ann.auth)
    assert (other.status_code, other.get_json()["code"]) == (403, "not_owner")
    assert client.get("/v1/players/me/games").status_code == 401
    typo = client.get("/v1/players/me/games?stauts=active", headers=ann.auth)
    body = typo.get_json()
    assert (typo.status_code, body["code"], body["parameter"]) == (400, "unknown_parameter",
                                                                   "stauts")
    assert "stauts" in body["detail"] and "status" in body["detail"]
    bad = client.get("/v1/players/me/games?turn=theirs", headers=ann.auth)
    assert (bad.status_code, bad.get_json()["code"]) == (422, "invalid_request")
    view_typo = client.get("/v1/rulesets?verbose=1")
    assert (view_typo.status_code, view_typo.get_json()["code"]) == (400, "unknown_parameter")
