"""A worker keeps the state it committed (service/domain/kept_states.py): the game's next
resolve uses it, without reading the state again, only where the store proves it is the
stored one (the last item of `hashes`); and it is what a fresh read would give, key order
included."""

from __future__ import annotations

from typing import Any

import orjson

from service.domain import game as game_module
from service.storage.keys import game_key
from service.storage.store import KEPT_STATE
from tests.api.helpers import new_game, view
from workers import context, resolve


def _opened(monkeypatch) -> list[Any]:
    """The state each resolve was planned from from now on: KEPT_STATE or as read."""
    seen: list[Any] = []
    plan = game_module.plan_resolve

    def spy(gid: str, read: Any, kept: Any = None) -> Any:
        seen.append(KEPT_STATE if kept is not None else read[1])
        return plan(gid, read, kept)

    monkeypatch.setattr(resolve, "plan_resolve", spy)
    return seen


def _move(client, gid: str, players: dict) -> None:
    summary = client.get(f"/v1/games/{gid}").get_json()
    seat = summary["to_act"][0]
    v = view(client, gid, players[seat])
    env = players[seat].envelope(gid, seat, v["step"], v["legal_moves"][-1])
    assert client.post(f"/v1/games/{gid}/moves", json=env).status_code == 202


def test_the_next_resolve_uses_the_state_the_worker_kept(app, client, run_jobs,
                                                         monkeypatch) -> None:
    store = app.extensions["parley_store"]
    app.wsgi_app.foresight.settles = False  # every move for the worker to apply
    gid, players = new_game(client, "stratego", {"army": "duel"})
    run_jobs()
    for seat, p in players.items():  # the setups
        v = view(client, gid, p)
        env = p.envelope(gid, seat, v["step"], v["legal_moves"][0])
        assert client.post(f"/v1/games/{gid}/moves", json=env).status_code == 202
    run_jobs()
    kept = context.kept_states().get(gid)
    assert kept.item == store.r.lindex(game_key(gid, "hashes"), -1)
    # the stored state, in the key order `apply` left (Stratego is key-order free)
    assert kept.state == orjson.loads(store.state_json(gid))
    seen = _opened(monkeypatch)
    for _ in range(3):
        _move(client, gid, players)
        run_jobs()
    assert seen == [KEPT_STATE] * 3
    meta = store.meta(gid)
    assert meta["applied"] == meta["head"] == "5"
    kept = context.kept_states().get(gid)
    assert kept.item == store.r.lindex(game_key(gid, "hashes"), -1)
    assert kept.state == orjson.loads(store.state_json(gid))


def test_a_kept_state_the_store_no_longer_holds_is_not_used(app, client, run_jobs,
                                                            monkeypatch) -> None:
    """Another worker resolved the game meanwhile (here: the kept item is an older one):
    the state is read as before, and the resolve is right."""
    store = app.extensions["parley_store"]
    gid, players = new_game(client, "stratego", {"army": "duel"})
    run_jobs()
    for seat, p in players.items():
        v = view(client, gid, p)
        env = p.envelope(gid, seat, v["step"], v["legal_moves"][0])
        assert client.post(f"/v1/games/{gid}/moves", json=env).status_code == 202
    run_jobs()
    kept = context.kept_states().get(gid)
    kept.item = store.r.lindex(game_key(gid, "hashes"), 0)  # seq 0's: not the last
    kept.state = {"not": "the state"}
    seen = _opened(monkeypatch)
    _move(client, gid, players)
    run_jobs()
    assert len(seen) == 1 and seen[0] != KEPT_STATE and seen[0].startswith("{")
    meta = store.meta(gid)
    assert meta["applied"] == meta["head"] == "3" and not store.rejections(gid)
