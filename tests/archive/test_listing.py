"""A player's games are listed from Redis and from the archive, merged in id order, a page at
a time by cursor: the pages are the same before and after games move."""

from __future__ import annotations

import json
from typing import Any

from tests.api.helpers import view
from tests.players import TestPlayer
from workers.archiver import archive_game

QUERIES = ("", "?status=finished", "?status=active", "?status=open", "?turn=mine")


def _game(client: Any, ann: TestPlayer, bob: TestPlayer | None) -> str:
    """A Duel created by ann: open (no `bob`), or joined by both and started."""
    gid = client.post("/v1/games", json={"ruleset": "stratego", "options": {"army": "duel"},
                                         "players": 2}, headers=ann.auth).get_json()["id"]
    for p in (ann, bob) if bob else ():
        assert client.post(f"/v1/games/{gid}/join", json=p.join_body(gid),
                           headers=p.auth).status_code == 200
    return gid


def _resign(client: Any, gid: str, player: TestPlayer) -> None:
    v = view(client, gid, player)
    env = player.envelope(gid, v["seat"], v["step"], {"type": "resign"})
    assert client.post(f"/v1/games/{gid}/moves", json=env).status_code == 202


def _pages(client: Any, player: TestPlayer) -> dict[str, list[bytes]]:
    """Every page of every listing of the player's games, by query and page size."""
    out: dict[str, list[bytes]] = {}
    for query in QUERIES:
        for limit in (1, 2, 100):
            sep = "&" if query else "?"
            pages, cursor = [], ""
            for _ in range(20):
                resp = client.get(f"/v1/players/me/games{query}{sep}limit={limit}{cursor}",
                                  headers=player.auth)
                assert resp.status_code == 200
                pages.append(resp.data)
                if resp.get_json()["next"] is None:
                    break
                cursor = f"&cursor={resp.get_json()['next']}"
            out[f"{query} limit={limit}"] = pages
    return out


def _same(now: dict[str, dict[str, list[bytes]]], before: dict[str, dict[str, list[bytes]]]
          ) -> None:
    """The same pages, byte for byte, where the archive is read (no filter, `finished`);
    the same games in the same order under the other filters, which skip the archive: there
    a last page may end sooner, as no archived game is looked at after the last match."""
    for name, listings in before.items():
        for listing, pages in listings.items():
            if listing.startswith(("?status=finished", " ")):
                assert now[name][listing] == pages, (name, listing, now[name][listing], pages)
            else:
                assert _games(now[name][listing]) == _games(pages), (name, listing)


def _games(pages: list[bytes]) -> list[dict]:
    return [game for page in pages for game in json.loads(page)["games"]]


def test_pages_are_the_same_when_games_move(app, client, run_jobs) -> None:
    store = app.extensions["parley_store"]
    ann, bob, cy = (TestPlayer(n).register(client) for n in ("ann", "bob", "cy"))
    finished = [_game(client, ann, bob) for _ in range(4)] + [_game(client, cy, ann)]
    active = [_game(client, ann, bob), _game(client, bob, ann)]
    run_jobs()
    for gid in finished:
        _resign(client, gid, ann)
    run_jobs()
    _game(client, ann, None)  # one still open
    before = {p.name: _pages(client, p) for p in (ann, bob, cy)}
    listed = [g["id"] for g in client.get("/v1/players/me/games?limit=100",
                                          headers=ann.auth).get_json()["games"]]
    assert len(listed) == 8 and listed == sorted(listed)
    assert set(finished + active) <= set(listed)

    for gid in finished[1::2] + finished[-1:]:  # some moved, some not yet
        assert archive_game(store, gid) == "ok"
    _same({p.name: _pages(client, p) for p in (ann, bob, cy)}, before)
    for gid in finished:
        archive_game(store, gid)
    _same({p.name: _pages(client, p) for p in (ann, bob, cy)}, before)
