"""Driving games through the Flask test client, as a client program would."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from typing import Any

from parley_protocol import signing

from tests.players import TestPlayer


def new_game(client: Any, ruleset: str = "stratego", options: dict | None = None,
             seats: int = 2, names: tuple[str, ...] = ("ann", "bob", "cy")
             ) -> tuple[str, dict[int, TestPlayer]]:
    """Register players, create a game, join every seat; -> (game id, players by final seat)."""
    players = [TestPlayer(n).register(client) for n in names[:seats]]
    resp = client.post("/v1/games", json={"ruleset": ruleset, "options": options or {},
                                          "players": seats}, headers=players[0].auth)
    assert resp.status_code == 201, resp.get_json()
    gid = resp.get_json()["id"]
    for p in players:
        r = client.post(f"/v1/games/{gid}/join", json=p.join_body(gid, f"seed-{p.name}"),
                        headers=p.auth)
        assert r.status_code == 200, r.get_json()
    by_seat = {}
    for p in players:
        view = client.get(f"/v1/games/{gid}/view", headers=p.auth).get_json()
        by_seat[view["seat"]] = p
    assert sorted(by_seat) == list(range(seats))
    return gid, by_seat


def view(client: Any, gid: str, player: TestPlayer | None = None) -> dict[str, Any]:
    resp = client.get(f"/v1/games/{gid}/view", headers=player.auth if player else {})
    assert resp.status_code == 200, resp.get_json()
    return resp.get_json()


def post_move(client: Any, gid: str, player: TestPlayer, seat: int, move: dict,
              step: int | None = None, nonce: str | None = None, repeat: int = 0) -> Any:
    if step is None:
        step = view(client, gid, player)["step"]
    env = player.envelope(gid, seat, step, move, nonce=nonce, repeat=repeat)
    return client.post(f"/v1/games/{gid}/moves", json=env)


def play_solo_totohu(client: Any, run_jobs: Any) -> tuple[str, TestPlayer]:
    """A solo Totohu game played to its end by seeded random moves (every move draws the
    dummy's ship): the game and its player."""
    gid, players = new_game(client, "totohu", {}, 1)
    chooser = random.Random(3)
    for _ in range(500):
        v = view(client, gid, players[0])
        if v["status"] == "finished":
            break
        resp = post_move(client, gid, players[0], 0, chooser.choice(v["legal_moves"]),
                         step=v["step"])
        assert resp.status_code == 202, resp.get_json()
        run_jobs()
    return gid, players[0]


def post_together(client: Any, envelopes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Post envelopes signed with one key in one batch: each is checked against the game as
    it was before any of them, so two moves for one step are both accepted, and the second
    is rejected when resolved (posted one by one, the second could meet the first applied
    already, and be refused at once). -> each accepted move's answer."""
    resp = client.post("/v1/moves", json={"envelopes": envelopes})
    assert resp.status_code == 200, resp.get_json()
    results = resp.get_json()["results"]
    assert all("problem" not in r for r in results), results
    return results


def play_out(client: Any, run_jobs: Any, gid: str, players: dict[int, TestPlayer], seed: int,
             limit: int = 3000, after: Callable[[], None] | None = None) -> dict[str, Any]:
    """Random legal moves by every seat asked, until the game ends; -> the final summary.

    Each seat's move is resolved before the next is chosen, so a seat that several moves of a
    decision keep asking (contract v2 point 1) is asked again with a fresh view; making the
    very same move again there, its nonce names the repeat (docs/audit.md §6). `after` is
    called once each move is resolved.
    """
    chooser = random.Random(seed)
    made: Counter[bytes] = Counter()  # accepted moves: JCS([seat, step, move])
    for _ in range(limit):
        summary = client.get(f"/v1/games/{gid}").get_json()
        if summary["status"] == "finished":
            return summary
        for seat in list(summary["to_act"]):
            v = view(client, gid, players[seat])
            if seat not in v["to_act"]:
                continue
            assert v["legal_moves"], v["state"]
            move = chooser.choice(v["legal_moves"])
            key = signing.canonical([seat, v["step"], move])
            resp = post_move(client, gid, players[seat], seat, move, step=v["step"],
                             repeat=made[key])
            assert resp.status_code == 202, resp.get_json()
            made[key] += 1
            run_jobs()
            if after is not None:
                after()
    raise AssertionError("the game did not finish")
