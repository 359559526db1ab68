"""`parley fsck`: silent on healthy games, and names the damage in deliberately broken ones."""

from __future__ import annotations

import io
import json

import pytest

from service.ops import fsck
from service.storage.keys import game_key
from tests.api.helpers import post_move, view
from tests.ops.helpers import play_duel


@pytest.fixture
def games(client, run_jobs):
    """An open game, a game in play (with a queued move) and a finished one."""
    from tests.players import TestPlayer

    ann = TestPlayer("opener").register(client)
    open_gid = client.post("/v1/games", json={"ruleset": "stratego", "players": 2},
                           headers=ann.auth).get_json()["id"]
    active, players = play_duel(client, run_jobs, moves=5, seed=3)
    seat = client.get(f"/v1/games/{active}").get_json()["to_act"][0]
    v = view(client, active, players[seat])
    assert post_move(client, active, players[seat], seat, v["legal_moves"][0],
                     step=v["step"]).status_code == 202  # queued: beyond `applied`
    finished, _ = play_duel(client, run_jobs, moves=4, seed=4, resign=True,
                            names=("cy", "dee"), options={"army": "duel"})  # a seat draw
    return {"open": open_gid, "active": active, "finished": finished}


def _problems(app, gid: str) -> list[str]:
    return fsck.check_game(app.extensions["parley_store"], gid).problems


def test_healthy_games_pass(app, games, monkeypatch) -> None:
    store = app.extensions["parley_store"]
    checks = {c.game: c for c in fsck.fsck(store)}
    assert set(checks) == set(games.values())
    assert all(c.ok for c in checks.values()), [c.render() for c in checks.values()]
    assert "replay of" in checks[games["finished"]].render()
    out = io.StringIO()
    assert fsck.main([], out) == 0  # the command, on the environment's Redis
    assert out.getvalue().endswith("3 games checked, 0 damaged\n")


def _entry(store, gid: str, seq: int) -> dict:
    return store.entries(gid, seq, seq)[0][1]


DAMAGES = {
    # what is broken -> a phrase the report must contain
    "state": "replay of the",
    "hashes": "the last entry of `hashes`",
    "applied": "beyond head",
    "nonce": "nonces hash",
    "last_hash": "last_hash in the meta",
    "entry": "move stream holds",
    "draw": "draw",
    "envelope": "signature does not verify",
}


def _damage(store, gid: str, what: str) -> None:
    r = store.r
    if what == "state":
        state = json.loads(store.state_json(gid))
        state["step"] = state["step"] + 7
        r.set(game_key(gid, "state"), json.dumps(state, sort_keys=True, separators=(",", ":")))
    elif what == "hashes":
        seq, _ = r.lindex(game_key(gid, "hashes"), -1).split(" ")
        r.lset(game_key(gid, "hashes"), -1, f"{seq} {'A' * 43}")  # 32 zero bytes
    elif what == "applied":
        head = int(r.hget(game_key(gid, "meta"), "head"))
        r.hset(game_key(gid, "meta"), "applied", head + 1)
    elif what == "nonce":
        nonce = next(iter(r.hkeys(game_key(gid, "nonces"))))
        r.hset(game_key(gid, "nonces"), nonce, 999)
    elif what == "last_hash":
        r.hset(game_key(gid, "meta"), "last_hash", "f" * 64)
    elif what == "entry":
        r.xdel(game_key(gid, "moves"), "3-0")
    elif what == "draw":
        draws = r.lrange(game_key(gid, "draws"), 0, -1)
        draw = json.loads(draws[0])
        draw["result"] = list(reversed(draw["result"]))
        r.lset(game_key(gid, "draws"), 0, json.dumps(draw))
    elif what == "envelope":  # rewrite entry 3's envelope, every stream id kept
        entries = r.xrange(game_key(gid, "moves"))  # as stored
        r.delete(game_key(gid, "moves"))
        for eid, fields in entries:
            seq = int(eid.split("-")[0])
            if seq == 3:
                env = json.loads(fields["env"])
                env["payload"]["issued_at"] = "2030-01-01T00:00:00Z"
                fields = {**fields, "env": json.dumps(env)}
            r.xadd(game_key(gid, "moves"), fields, id=f"{seq}-0")


def test_each_kind_of_damage_is_reported(app, games) -> None:
    store = app.extensions["parley_store"]
    r = store.r
    healthy = {key: r.dump(key) for key in r.scan_iter("*")}
    for what in sorted(DAMAGES):
        for key, dumped in healthy.items():  # every case starts from the healthy store
            r.restore(key, 0, dumped, replace=True)
        gid = games["finished"] if what == "draw" else games["active"]
        _damage(store, gid, what)
        problems = _problems(app, gid)
        assert problems, f"fsck missed damaged {what}"
        assert any(DAMAGES[what] in p for p in problems), (what, problems)
        others = [c for c in fsck.fsck(store) if c.game != gid]
        assert len(others) == 2 and all(c.ok for c in others)  # reported per game
        out = io.StringIO()
        assert fsck.main([], out) == 1
        assert f"DAMAGED  {gid}" in out.getvalue() and "1 damaged" in out.getvalue()
