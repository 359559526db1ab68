"""`GET /v1/games?status=open`: the lobby, every game with a free seat whoever created it,
paged by cursor; a game leaves it when it starts."""

from __future__ import annotations

from tests.players import TestPlayer

DUEL = {"army": "duel"}


def _lobby(client, player, query: str = "") -> dict:
    resp = client.get(f"/v1/games?status=open{query}", headers=player.auth)
    assert resp.status_code == 200, resp.get_json()
    return resp.get_json()


def test_the_lobby_lists_open_games_to_everyone_until_they_start(client) -> None:
    ann, bob, cid = (TestPlayer(n).register(client) for n in ("ann", "bob", "cid"))
    made = [client.post("/v1/games", json={"ruleset": "stratego", "options": DUEL,
                                           "players": 2}, headers=ann.auth).get_json()["id"]
            for _ in range(3)]
    assert _ids(_lobby(client, bob)) == sorted(made)  # not only the caller's own games
    assert client.get("/v1/players/me/games?status=open", headers=bob.auth
                      ).get_json()["games"] == []
    first = _lobby(client, cid, "&limit=2")
    assert len(first["games"]) == 2 and first["next"]
    rest = _lobby(client, cid, f"&limit=2&cursor={first['next']}")
    assert _ids(first) + _ids(rest) == sorted(made) and rest["next"] is None

    started = made[1]
    for p in (ann, bob):
        assert client.post(f"/v1/games/{started}/join", json=p.join_body(started),
                           headers=p.auth).status_code == 200
    half = made[2]
    assert client.post(f"/v1/games/{half}/join", json=ann.join_body(half),
                       headers=ann.auth).status_code == 200
    lobby = _lobby(client, cid)
    assert _ids(lobby) == sorted({made[0], half})
    seats = {g["id"]: g["players"] for g in lobby["games"]}
    assert [p["player"] for p in seats[half]].count(ann.id) == 1
    assert started not in client.application.extensions["parley_store"].lobby_ids(None, 10)


def _ids(page: dict) -> list[str]:
    return [g["id"] for g in page["games"]]


def test_a_game_no_longer_live_leaves_the_lobby_without_a_look_in_the_archive(client) -> None:
    """An entry whose game is finished and moved (a pointer in Redis, the record in an archive
    this process may not even have) is dropped; the page never asks the archive."""
    from service.storage.game_records import ARCHIVED
    from service.storage.keys import game_key

    ann, bob = (TestPlayer(n).register(client) for n in ("ann", "bob"))
    gid = client.post("/v1/games", json={"ruleset": "stratego", "options": DUEL,
                                         "players": 2}, headers=ann.auth).get_json()["id"]
    store = client.application.extensions["parley_store"]
    store.r.hset(game_key(gid, "meta"), mapping={"status": "finished", ARCHIVED: "1"})
    assert gid not in _ids(_lobby(client, bob))  # was 500: the archive had no record of it
    assert gid not in store.lobby_ids(None, 1000)
