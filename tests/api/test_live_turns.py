"""A live feed's turn lists the seat's legal moves exactly as its view does, in the same order,
move after move (service/domain/live_feed.py): the feed's moves come from the state as stored,
not from the one the engine's `apply` returned, whose keys are in another order."""

from __future__ import annotations

import random
import time

import orjson

from service.storage.keys import LIVE_PLAYERS_KEY, live_key
from tests.api.helpers import new_game, view


def test_every_turn_lists_the_moves_in_the_views_order(app, run_jobs) -> None:
    client = app.test_client()
    store = app.extensions["parley_store"]
    gid, players = new_game(client, "cartagena", seats=2)
    store.r.zadd(LIVE_PLAYERS_KEY, {p.id: time.time() + 600 for p in players.values()})
    chooser = random.Random(7)
    turns = 0
    for _ in range(60):
        summary = client.get(f"/v1/games/{gid}").get_json()
        if summary["status"] == "finished":
            break
        seat = summary["to_act"][0]
        shown = view(client, gid, players[seat])
        move = chooser.choice(shown["legal_moves"])
        env = players[seat].envelope(gid, seat, shown["step"], move)
        assert client.post(f"/v1/games/{gid}/moves", json=env).status_code == 202
        run_jobs()
        for s, p in players.items():
            entries = store.r.xrevrange(live_key(p.id), count=1)
            last = orjson.loads(entries[0][1]["d"])
            if last["type"] == "turn" and last["your_turn"] and last["step"] == view(
                    client, gid, p)["step"]:
                assert last["legal_moves"] == view(client, gid, p)["legal_moves"], s
                turns += 1
    assert turns > 20
