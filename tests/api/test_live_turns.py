"""A live feed's turn lists the seat's legal moves exactly as its view does, in the same order,
move after move (service/domain/live_feed.py): the feed's moves come from the state as stored,
not from the one the engine's `apply` returned, whose keys are in another order."""

from __future__ import annotations

import time

import orjson

from service.storage.keys import LIVE_PLAYERS_KEY, live_key
from tests.api.helpers import new_game, play_out, view


def test_every_turn_lists_the_moves_in_the_views_order(app, run_jobs) -> None:
    client = app.test_client()
    store = app.extensions["parley_store"]
    gid, players = new_game(client, "cartagena", seats=2)
    store.r.zadd(LIVE_PLAYERS_KEY, {p.id: time.time() + 600 for p in players.values()})
    turns: list[int] = []

    def compare() -> None:  # each player's last entry, if it is their turn now
        for p in players.values():
            last = orjson.loads(store.r.xrevrange(live_key(p.id), count=1)[0][1]["d"])
            shown = view(client, gid, p)
            if last["type"] == "turn" and last["your_turn"] and last["step"] == shown["step"]:
                assert last["legal_moves"] == shown["legal_moves"]
                turns.append(last["step"])

    assert play_out(client, run_jobs, gid, players, seed=7, after=compare)["status"] == \
        "finished"
    assert len(turns) > 20
