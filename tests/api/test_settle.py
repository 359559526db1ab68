"""A web process applies a foreseen move itself (service/domain/settle.py): appended and
applied in the move's one round trip, written exactly as a worker would write it, heard on
the live feeds, its notices left to a worker only where a delivery may follow; every other
move goes to a worker as before."""

from __future__ import annotations

import copy
import json
import random
import threading
from typing import Any

import pytest
from parley_protocol.verify import verify_bundle

from engines.registry import get_engine
from engines.rng import SeededRng
from service.domain.foresight import Foreseen, Foresight
from service.domain.settle import plan_settlement
from service.storage import metrics_records
from service.storage.keys import (
    LIVE_PLAYERS_KEY,
    METRICS_KEY,
    NOTIFY_KEY,
    drainers_key,
    game_key,
    live_key,
    player_key,
    player_webhooks_key,
    ready_key,
)
from service.storage.scripts import SETTLE_FORESEEN
from service.storage.store import Store
from tests.api.conftest import duel, make_app
from tests.api.helpers import new_game, play_out
from tests.api.test_foresight import BOB_MOVE as BOB_FIRST
from tests.api.test_foresight import _drain, _foresight, _live_drainer, _two_moves
from tests.api.test_hotpaths import MOVE as ANN_FIRST
from tests.api.test_hotpaths import _limits, _post, _refused, _round_trips

ANN_MOVE = {"type": "move", "from": "a5", "to": "a4"}
BOB_MOVE = {"type": "move", "from": "a6", "to": "a5"}


def _settled_count(store: Store) -> int:
    return metrics_records.counters(store).get(metrics_records.SETTLED, 0)


def _history(store: Store, gid: str) -> dict[str, Any]:
    """What a game's commits wrote, as a worker or a web process writes it."""
    meta = store.meta(gid)
    return {"state": store.state_json(gid),
            "hashes": [item.split()[1] for item in store.r.lrange(game_key(gid, "hashes"), 0, -1)],
            # from the first after `game_started`, which names the players
            "events": [item.split(" ", 1)[1]
                       for item in store.r.lrange(game_key(gid, "events"), 1, -1)],
            "meta": {k: meta[k] for k in ("applied", "head", "step", "to_act", "step_kind",
                                          "events", "status")}}


def test_a_foreseen_move_is_applied_in_its_one_round_trip(apps, game, run_jobs,
                                                          monkeypatch) -> None:
    gid, ann, bob = game
    fast, slow = apps
    queue = _live_drainer(fast)
    # both first moves applied by a worker (the app knew neither key): Ann's next is foreseen
    _two_moves(fast, gid, ann, bob, queue)
    store = fast.extensions["parley_store"]
    assert store.settles and _settled_count(store) == 0
    store.r.script_load(SETTLE_FORESEEN)  # as after the first settled move since Redis started
    store._hot._connection().connect()  # and on this thread's connection, made then
    before = metrics_records.counters(store)
    sent = _round_trips(monkeypatch)
    env = ann.envelope(gid, 0, 3, ANN_MOVE)
    resp = _post(fast, gid, env)
    assert resp.status_code == 202, resp.get_json()
    assert len(sent) == 1
    body = resp.get_json()
    assert (body["id"], body["status"], body["receipt"]["seq"]) == (5, "applied", 5)
    meta = store.meta(gid)
    assert meta["applied"] == meta["head"] == "5" and meta["step"] == "4"
    # one counter written, five totals counted
    assert store.r.hget(METRICS_KEY, "one_trip:settled") == "1"
    after = metrics_records.counters(store)
    for field in ("accepted:api", "foreseen", "applied", "settled", "latency:0.005"):
        assert after[field] == before.get(field, 0) + 1, field
    # nothing waits for a worker: no wake, no notice, no note of the submit
    assert not store.r.exists(game_key(gid, "scheduled"))
    assert store.r.llen(ready_key(queue.name)) == 0
    assert store.r.llen(game_key(gid, "outbox")) == 0
    assert not store.r.sismember(NOTIFY_KEY, gid)
    assert not store.r.hexists(game_key(gid, "submitted"), env["payload"]["nonce"])
    again = _post(slow, gid, env)  # the same envelope again is the same move
    assert again.status_code == 202 and again.get_json()["status"] == "applied"
    assert again.get_json()["receipt"] == body["receipt"]
    # the very same writes as a worker's: the same moves in a twin game, through the app
    # without the fast path, each applied by a worker (an RQ job: no drainer pretends now)
    queue.connection.delete(drainers_key(queue.name))
    twin, ann2, bob2 = duel(slow.test_client(), run_jobs, ("cy", "dee"))
    for seat, player, step, move in ((0, ann2, 1, ANN_FIRST), (1, bob2, 2, BOB_FIRST),
                                     (0, ann2, 3, ANN_MOVE)):
        assert _post(slow, twin, player.envelope(twin, seat, step, move)).status_code == 202
        run_jobs()
    assert _history(store, gid) == _history(store, twin)
    assert slow.test_client().get(f"/v1/games/{gid}/moves/5").get_json() == {
        "id": 5, "status": "applied"}
    assert _foresight(fast)._games.get(gid).seq == 5  # and the next is foreseen


def test_whole_games_settled_verify_offline(client, run_jobs, app, monkeypatch) -> None:
    """Cartagena mixes moves that draw (a worker applies them) with moves that do not (the
    web process settles them): the audit bundle of a whole game verifies, its history packed
    into segments on the way, what settled moves found due by the web process's packer."""
    gid, players = new_game(client, "cartagena", {}, 2)
    store = app.extensions["parley_store"]
    packed_on = []
    pack = store._pack_history

    def recording(due: list) -> None:
        packed_on.append(threading.current_thread().name)
        pack(due)

    monkeypatch.setattr(store, "_pack_history", recording)
    monkeypatch.setattr(store.history_packer, "_pack", recording)
    packed = []
    summary = play_out(client, run_jobs, gid, players, seed=7,
                       after=lambda: packed.append(int(store.meta(gid).get("packed_moves", 0))))
    assert summary["status"] == "finished"
    settled = _settled_count(store)
    assert 0.2 * len(packed) < settled < len(packed)  # most moves, never the drawing ones
    assert max(packed) >= 16
    assert set(packed_on) == {"history-packer"}  # the web process's; a worker packs its own
    report = verify_bundle(client.get(f"/v1/games/{gid}/audit").get_json())
    assert report.ok, report.failure


def test_a_listening_player_hears_a_settled_move(apps, game) -> None:
    gid, ann, bob = game
    fast, slow = apps
    queue = _live_drainer(fast)
    _two_moves(fast, gid, ann, bob, queue)
    store = fast.extensions["parley_store"]
    store.r.zadd(LIVE_PLAYERS_KEY, {bob.id: 2**40})  # Bob's stream is open; Ann's is not
    assert _post(fast, gid, ann.envelope(gid, 0, 3, ANN_MOVE)).status_code == 202
    assert store.r.xlen(live_key(ann.id)) == 0
    entries = [json.loads(fields["d"]) for _, fields in store.r.xrange(live_key(bob.id))]
    turn = entries[-1]
    view = slow.test_client().get(f"/v1/games/{gid}/view", headers=bob.auth).get_json()
    assert (turn["type"], turn["step"], turn["your_turn"]) == ("turn", 4, True)
    assert turn["legal_moves"] == view["legal_moves"] and turn["legal_moves"]
    assert [e["type"] for e in entries[:-1]] == ["event"]


@pytest.mark.parametrize("reach", ["email", "webhook", "nothing"])
def test_a_notice_goes_to_a_worker_only_where_it_can_be_delivered(apps, game, reach) -> None:
    gid, ann, bob = game
    fast, _ = apps
    queue = _live_drainer(fast)
    _two_moves(fast, gid, ann, bob, queue)
    store = fast.extensions["parley_store"]
    if reach == "email":
        store.r.hset(player_key(bob.id), "email", "bob@example.org")
    elif reach == "webhook":
        store.r.sadd(player_webhooks_key(bob.id), "wh_x")
    assert _post(fast, gid, ann.envelope(gid, 0, 3, ANN_MOVE)).status_code == 202
    assert store.meta(gid)["applied"] == "5"
    told = [json.loads(n) for n in store.r.lrange(game_key(gid, "outbox"), 0, -1)]
    if reach == "nothing":
        assert told == [] and store.r.llen(ready_key(queue.name)) == 0
        return
    assert [(n["type"], n["seat"], n["step"]) for n in told] == [("turn.started", 1, 4)]
    assert store.r.sismember(NOTIFY_KEY, gid)
    assert store.r.lrange(ready_key(queue.name), 0, -1) == [gid]  # a drainer's to dispatch
    _drain_notices(queue, gid)
    assert store.r.llen(game_key(gid, "outbox")) == 0


def _drain_notices(queue: Any, gid: str) -> None:
    from workers.resolve import drain

    queue.connection.delete(ready_key(queue.name))
    assert drain(gid, wait=1.0) == 0  # nothing to apply; the notices dispatched


def test_a_wrong_foresight_settles_nothing(apps, game, monkeypatch) -> None:
    """A foreseen state the store does not hold (a wrong digest): the script neither appends
    nor applies; the move is judged against the stored state and appended for a worker."""
    gid, ann, bob = game
    fast, _ = apps
    queue = _live_drainer(fast)
    _two_moves(fast, gid, ann, bob, queue)
    store = fast.extensions["parley_store"]
    _foresight(fast)._games.get(gid).item = "4 not-the-digest"
    before = _history(store, gid)
    settle = Store.settle_foreseen
    replies: list[str] = []

    def settled(self: Store, *args: Any, **kwargs: Any) -> Any:
        reply = settle(self, *args, **kwargs)
        replies.append(reply[0])
        return reply

    monkeypatch.setattr(Store, "settle_foreseen", settled)
    monkeypatch.setattr(Store, "accept_contexts", _unreachable)
    resp = _post(fast, gid, ann.envelope(gid, 0, 3, ANN_MOVE))
    assert resp.status_code == 202 and resp.get_json()["status"] == "queued"
    assert replies == ["miss"]
    after = _history(store, gid)
    assert after["meta"]["head"] == "5" and {**after["meta"], "head": "4"} == before["meta"]
    assert {k: v for k, v in after.items() if k != "meta"} == {
        k: v for k, v in before.items() if k != "meta"}
    _drain(queue, gid)
    assert store.meta(gid)["applied"] == "5"


def _unreachable(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("a miss answers the context itself")


def test_a_settled_move_is_charged_like_any_other(config, game, monkeypatch) -> None:
    gid, ann, bob = game
    limited = make_app(config, hot=True, limits=True), make_app(config, hot=False, limits=True)
    fast = limited[0]
    _limits(limited, "100/minute", "2/minute")
    queue = _live_drainer(fast)
    _two_moves(fast, gid, ann, bob, queue)  # Ann: 1 of 2
    resp = _post(fast, gid, ann.envelope(gid, 0, 3, ANN_MOVE))
    assert resp.get_json()["status"] == "applied"  # Ann: 2 of 2
    assert _post(fast, gid, bob.envelope(gid, 1, 4, BOB_MOVE)).get_json()["status"] == "applied"
    resp = _post(fast, gid, ann.envelope(gid, 0, 5, {"type": "move", "from": "a4",
                                                      "to": "a5"}))
    _refused(resp, 2)
    assert fast.extensions["parley_store"].meta(gid)["head"] == "6"


def _foreseen(ruleset: str, state: dict, seq: int = 1) -> Foreseen:
    engine = get_engine(ruleset)
    meta = {"ruleset": ruleset, "options": "{}", "platform": "{}", "seats": "2",
            "status": "active", "players": '["p0", "p1"]', "commitment": "", "created_at": "",
            "creator": "p0", "events": "0",
            "step": str(engine.decision(state)["step"])}
    from service.domain.game_model import Game

    dumped = json.dumps(state)
    return Foreseen(Game.from_meta("g", meta), copy.deepcopy(state), seq, "1 digest", "h",
                    dumped)


def _payload(state: dict, ruleset: str, seat: int, move: dict) -> tuple[dict, str]:
    step = get_engine(ruleset).decision(state)["step"]
    payload = {"game": "g", "seat": seat, "step": step, "move": move, "nonce": "n",
               "issued_at": "x"}
    return payload, json.dumps({"payload": payload, "key_id": "k", "signature": "AAAA"})


def test_a_move_that_draws_or_ends_the_game_is_left_to_a_worker() -> None:
    """Along a random Störtebeker game: a move that draws is not settled, one that does not
    is; and the last move, which ends the game, is not."""
    ruleset = "stortebeker"
    engine = get_engine(ruleset)
    chooser, rng = random.Random(3), SeededRng(3)
    state = engine.setup(engine.validate_options({}, 2), 2, rng)
    kinds: set[str] = set()
    for _ in range(5000):
        seat = engine.decision(state)["to_act"][0]
        move = chooser.choice(list(engine.legal_moves(state, seat)))
        payload, env = _payload(state, ruleset, seat, move)
        settlement = plan_settlement(_foreseen(ruleset, state), payload, env)
        probe = SeededRng(1)
        after, _ = engine.apply(copy.deepcopy(state), seat, move, probe)
        if engine.result(after) is not None:
            assert settlement is None
            kinds.add("ends")
            break
        if probe.draws:
            assert settlement is None
            kinds.add("draws")
        else:
            assert settlement is not None
            assert settlement.resolution.stored_state() == json.loads(json.dumps(after))
            kinds.add("settles")
        state, _ = engine.apply(state, seat, move, rng)
    assert kinds == {"draws", "settles", "ends"}


def test_foresight_off_settles_nothing(config, game) -> None:
    gid, ann, bob = game
    fast = make_app(config, hot=True)
    _foresight(fast).settles = False
    queue = _live_drainer(fast)
    _two_moves(fast, gid, ann, bob, queue)
    resp = _post(fast, gid, ann.envelope(gid, 0, 3, ANN_MOVE))
    assert resp.get_json()["status"] == "queued"
    assert _settled_count(fast.extensions["parley_store"]) == 0
    assert isinstance(_foresight(fast), Foresight)
