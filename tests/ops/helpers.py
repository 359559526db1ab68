"""Games played through the Flask test client for the operations tests."""

from __future__ import annotations

import random
from typing import Any

from tests.api.helpers import new_game, post_move, view
from tests.players import TestPlayer

DUEL = {"army": "duel", "red_player": "joined"}


def play_duel(client: Any, run_jobs: Any, moves: int = 6, seed: int = 1,
              resign: bool = False, names: tuple[str, ...] = ("ann", "bob"),
              options: dict | None = None) -> tuple[str, dict[int, TestPlayer]]:
    """A Stratego Duel: both setups, then `moves` random legal moves (each applied), and a
    resignation by seat 1 if `resign`."""
    gid, players = new_game(client, options=options or DUEL, names=names)
    chooser = random.Random(seed)
    for seat in (0, 1):
        v = view(client, gid, players[seat])
        assert post_move(client, gid, players[seat], seat, v["legal_moves"][0],
                         step=v["step"]).status_code == 202
    run_jobs()
    for _ in range(moves):
        summary = client.get(f"/v1/games/{gid}").get_json()
        if summary["status"] != "active":
            break
        seat = summary["to_act"][0]
        v = view(client, gid, players[seat])
        assert post_move(client, gid, players[seat], seat, chooser.choice(v["legal_moves"]),
                         step=v["step"]).status_code == 202
        run_jobs()
    if resign:
        assert post_move(client, gid, players[1], 1, {"type": "resign"}).status_code == 202
        run_jobs()
        assert client.get(f"/v1/games/{gid}").get_json()["status"] == "finished"
    return gid, players
