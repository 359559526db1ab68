"""A web process's foresight (service/domain/foresight.py): the next move of a game it served
is checked against the state it foresaw and appended in one round trip, only when the store
proves that state right; every other case goes on as before, with no round trip more."""

from __future__ import annotations

import random
from typing import Any

import orjson
import pytest

from service.domain.foresight import Foresight
from service.domain.game_model import Game
from service.storage import metrics_records
from service.storage.keys import METRICS_KEY, drainers_key, game_key, ready_key
from service.storage.scripts import ACCEPT_FORESEEN
from service.storage.store import Store
from tests.api.conftest import make_app
from tests.api.test_hotpaths import MOVE, _limits, _post, _refused, _round_trips
from tests.players import TestPlayer
from workers.resolve import drain

BOB_MOVE = {"type": "move", "from": "a7", "to": "a6"}


@pytest.fixture(autouse=True)
def _appending_only(apps) -> None:
    """These tests are about the foreseen append a worker then applies: the path of a move
    the web process does not settle itself (tests/api/test_settle.py), taken here for all."""
    _foresight(apps[0]).settles = False


def _calls(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[Any]]:
    """The store's two ways of starting a move, as called from now on: `contexts` (the
    first of two round trips), `foreseen` (the foreseen attempt's reply kinds)."""
    calls: dict[str, list[Any]] = {"contexts": [], "foreseen": []}
    contexts, foreseen = Store.accept_contexts, Store.accept_foreseen

    def read(self: Store, *args: Any, **kwargs: Any) -> Any:
        calls["contexts"].append(args[1])
        return contexts(self, *args, **kwargs)

    def attempt(self: Store, *args: Any, **kwargs: Any) -> Any:
        reply = foreseen(self, *args, **kwargs)
        calls["foreseen"].append(reply[0])
        return reply

    monkeypatch.setattr(Store, "accept_contexts", read)
    monkeypatch.setattr(Store, "accept_foreseen", attempt)
    return calls


def _foresight(app: Any) -> Foresight:
    return app.wsgi_app.foresight


def _live_drainer(app: Any) -> Any:
    """Pretend a drainer is live, so an accepted move needs no wake of its own (the accepting
    script puts the game on the ready list); the game is then drained here."""
    queue = app.extensions["parley_queue"]
    queue.connection.zadd(drainers_key(queue.name), {"resolve-live": 2**50})
    return queue


def _drain(queue: Any, gid: str) -> None:
    queue.connection.delete(ready_key(queue.name))
    assert drain(gid, wait=1.0) == 1


def _two_moves(app: Any, gid: str, ann: TestPlayer, bob: TestPlayer, queue: Any) -> None:
    """Ann's and Bob's first moves through `app`, each applied: the app then knows both
    keys and foresees the state after Bob's."""
    assert _post(app, gid, ann.envelope(gid, 0, 1, MOVE)).status_code == 202
    _drain(queue, gid)
    assert _post(app, gid, bob.envelope(gid, 1, 2, BOB_MOVE)).status_code == 202
    _drain(queue, gid)


def test_the_next_move_of_a_foreseen_game_costs_one_round_trip(apps, game, monkeypatch
                                                                 ) -> None:
    gid, ann, bob = game
    fast, slow = apps
    queue = _live_drainer(fast)
    _two_moves(fast, gid, ann, bob, queue)
    foreseen = _foresight(fast)._games.get(gid)
    store = fast.extensions["parley_store"]
    assert foreseen.seq == 4 == int(store.meta(gid)["applied"])
    assert foreseen.item == store.r.lindex(game_key(gid, "hashes"), -1)
    # the stored state, in the key order `apply` left (Stratego is key-order free)
    assert foreseen.state == orjson.loads(store.state_json(gid))
    store.r.script_load(ACCEPT_FORESEEN)  # as after the first foreseen move since Redis started
    before = metrics_records.counters(store)
    calls = _calls(monkeypatch)
    sent = _round_trips(monkeypatch)
    env = ann.envelope(gid, 0, 3, {"type": "move", "from": "a5", "to": "a6"})
    resp = _post(fast, gid, env)
    assert resp.status_code == 202, resp.get_json()
    assert len(sent) == 1
    assert calls == {"contexts": [], "foreseen": ["ok"]}
    body = resp.get_json()
    assert body["id"] == 5 and body["receipt"]["seq"] == 5
    assert store.r.hget(METRICS_KEY, "one_trip:foreseen") == "1"  # one counter written
    after = metrics_records.counters(store)
    assert (after["accepted:api"], after["foreseen"]) == (before["accepted:api"] + 1, 1)
    assert after.get("applied", 0) == before.get("applied", 0)  # a worker applies it
    assert store.r.hexists(game_key(gid, "submitted"), env["payload"]["nonce"])
    # the same envelope again is the same move, answered by the app as before
    again = _post(slow, gid, env)
    assert (again.status_code, again.get_json()) == (202, body)
    _drain(queue, gid)
    move = slow.test_client().get(f"/v1/games/{gid}/moves/5").get_json()
    assert move == {"id": 5, "status": "applied"}
    assert _foresight(fast)._games.get(gid).seq == 5  # and the next is foreseen again


def test_a_move_before_the_last_is_applied_misses_and_is_judged_as_before(apps, game,
                                                                         monkeypatch) -> None:
    gid, ann, bob = game
    fast, _ = apps
    queue = _live_drainer(fast)
    _two_moves(fast, gid, ann, bob, queue)
    assert _post(fast, gid, ann.envelope(gid, 0, 3, {"type": "move", "from": "a5",
                                                      "to": "a4"})).status_code == 202
    # not drained: Bob moves before Ann's move is applied
    calls = _calls(monkeypatch)
    resp = _post(fast, gid, bob.envelope(gid, 1, 4, {"type": "move", "from": "a6",
                                                      "to": "a5"}))
    assert resp.status_code == 409 and resp.get_json()["code"] == "not_your_turn"
    # the fast path missed, then handed the refusal to the app, which read its own context
    assert calls["foreseen"] == ["miss"] and len(calls["contexts"]) == 1
    _drain(queue, gid)


def test_a_wrong_foresight_appends_nothing(apps, game, monkeypatch) -> None:
    """A foreseen state that is not the stored one (here: Ann's scout moved elsewhere) lets
    a move the real state refuses pass the local checks; the store's digest refuses it, and
    the move is judged against the real state."""
    gid, ann, bob = game
    fast, slow = apps
    queue = _live_drainer(fast)
    _two_moves(fast, gid, ann, bob, queue)
    store = fast.extensions["parley_store"]
    real = store.state(gid)
    foreseen = _foresight(fast)._games.get(gid)
    move = {"type": "move", "from": "a5", "to": "a4"}
    engine = foreseen.game.engine
    engine.check(foreseen.state, 0, move)  # legal in the foreseen state...
    foreseen.item = "4 not-the-digest"  # ...which the store does not hold
    before = store.r.xlen(game_key(gid, "moves"))
    store.r.script_load(ACCEPT_FORESEEN)
    calls = _calls(monkeypatch)
    sent = _round_trips(monkeypatch)
    resp = _post(fast, gid, ann.envelope(gid, 0, 3, move))
    assert calls == {"contexts": [], "foreseen": ["miss"]}
    assert len(sent) == 2  # the miss read the context: no round trip more than before
    assert resp.status_code == 202  # judged against the real state, where it is legal too
    assert store.r.xlen(game_key(gid, "moves")) == before + 1
    assert store.state(gid) == real  # nothing applied yet
    _drain(queue, gid)
    # and a foreseen state the store disagrees with is never a basis for a refusal either
    foreseen = _foresight(fast)._games.get(gid)
    foreseen.state = {"broken": True}
    resp = _post(fast, gid, bob.envelope(gid, 1, 4, {"type": "move", "from": "a6",
                                                      "to": "a5"}))
    assert resp.status_code == 202, resp.get_json()
    assert slow.test_client().get(f"/v1/games/{gid}/moves/6").get_json()["status"] == "queued"


def test_a_move_another_process_accepted_meanwhile_costs_what_it_did(apps, game, config,
                                                                monkeypatch) -> None:
    gid, ann, bob = game
    fast, slow = apps
    other = make_app(config, hot=True)
    queue = _live_drainer(fast)
    _two_moves(fast, gid, ann, bob, queue)
    assert _post(other, gid, ann.envelope(gid, 0, 3, {"type": "move", "from": "a5",
                                                       "to": "a4"})).status_code == 202
    _drain(queue, gid)
    fast.extensions["parley_store"].r.script_load(ACCEPT_FORESEEN)
    calls = _calls(monkeypatch)
    sent = _round_trips(monkeypatch)
    resp = _post(fast, gid, bob.envelope(gid, 1, 4, {"type": "move", "from": "a6",
                                                      "to": "a5"}))
    assert resp.status_code == 202, resp.get_json()
    # the foreseen state (Ann to move) refused Bob's move locally: the two round trips
    assert calls["foreseen"] == [] and len(calls["contexts"]) == 1
    assert len(sent) == 2
    _drain(queue, gid)
    assert slow.test_client().get(f"/v1/games/{gid}/moves/6").get_json()["status"] == "applied"


def test_a_foreseen_move_is_charged_like_any_other(config, game, monkeypatch) -> None:
    """With rate limits on (counters riding), the foreseen attempt charges the address and
    the signer's quota as the two round trips do."""
    gid, ann, bob = game
    limited = make_app(config, hot=True, limits=True), make_app(config, hot=False, limits=True)
    fast = limited[0]
    _foresight(fast).settles = False
    _limits(limited, "100/minute", "2/minute")
    queue = _live_drainer(fast)
    _two_moves(fast, gid, ann, bob, queue)  # Ann: 1 of 2
    calls = _calls(monkeypatch)
    assert _post(fast, gid, ann.envelope(gid, 0, 3, {"type": "move", "from": "a5",
                                                      "to": "a4"})).status_code == 202
    assert calls["foreseen"] == ["ok"]  # Ann: 2 of 2
    _drain(queue, gid)
    assert _post(fast, gid, bob.envelope(gid, 1, 4, {"type": "move", "from": "a6",
                                                      "to": "a5"})).status_code == 202
    _drain(queue, gid)
    resp = _post(fast, gid, ann.envelope(gid, 0, 5, {"type": "move", "from": "a4",
                                                      "to": "a5"}))
    assert calls["foreseen"] == ["ok", "ok", "limit"]
    _refused(resp, 2)
    _limits(limited, "3/minute", "100/minute")  # the address: 3 of 3 after the next
    resp = _post(fast, gid, ann.envelope(gid, 0, 5, {"type": "move", "from": "a4",
                                                      "to": "a5"}))
    assert resp.status_code == 202, resp.get_json()


def test_a_move_that_draws_is_not_foreseen() -> None:
    from engines.registry import get_engine
    from engines.rng import SeededRng

    engine = get_engine("stortebeker")
    options = engine.validate_options({}, 2)
    shown = _game("g", "stortebeker", options)
    sight = Foresight(8)
    chooser, rng = random.Random(5), SeededRng(5)
    state = engine.setup(options, 2, rng)
    for _ in range(500):  # along a random game, to a seat with moves of both kinds
        seat = engine.decision(state)["to_act"][0]
        moves = list(engine.legal_moves(state, seat))
        drawing = [m for m in moves if _draws(engine, state, seat, m)]
        quiet = [m for m in moves if not _draws(engine, state, seat, m)]
        if drawing and quiet:
            break
        state, _ = engine.apply(state, seat, chooser.choice(moves), rng)
    assert drawing and quiet
    sight.foresee(shown, _copy(state), seat, drawing[0], 1, "h")
    assert sight.take("g") is None
    sight.foresee(shown, _copy(state), seat, quiet[0], 1, "h")
    assert sight.take("g").seq == 1
    assert sight.take("g") is None  # used once


def _game(gid: str, ruleset: str, options: dict) -> Game:
    return Game(id=gid, ruleset=ruleset, options=options, platform={}, seats=2,
                status="active", step=0, to_act=[0], step_kind=None, head=0, applied=0,
                players=["p0", "p1"], result=None, commitment="", created_at="", creator="",
                raw={})


def _copy(state: dict) -> dict:
    import copy

    return copy.deepcopy(state)


def _draws(engine: Any, state: dict, seat: int, move: dict) -> bool:
    from engines.rng import SeededRng

    rng = SeededRng(1)
    engine.apply(_copy(state), seat, move, rng)
    return bool(rng.draws)


def test_the_foresight_is_bounded() -> None:
    from engines.registry import get_engine
    from engines.rng import SeededRng

    engine = get_engine("stratego")
    options = engine.validate_options({}, 2)
    state = engine.setup(options, 2, SeededRng(1))
    sight = Foresight(2)
    for n in range(3):
        shown = _game(f"g{n}", "stratego", options)
        seat = engine.decision(state)["to_act"][0]
        move = next(iter(engine.legal_moves(state, seat)))
        sight.foresee(shown, _copy(state), seat, move, 1, "h")
    assert sight.take("g0") is None and sight.take("g1") and sight.take("g2")


def test_a_bad_signature_to_a_foreseen_game_is_refused(apps, game) -> None:
    """The foreseen attempt verifies the signature first; a refusal there is judged on the
    usual path, which verifies it again and refuses it."""
    gid, ann, bob = game
    fast, _ = apps
    queue = _live_drainer(fast)
    _two_moves(fast, gid, ann, bob, queue)
    store = fast.extensions["parley_store"]
    assert _foresight(fast)._games.get(gid) is not None
    before = store.r.xlen(game_key(gid, "moves"))
    move = {"type": "move", "from": "a5", "to": "a4"}
    env = ann.envelope(gid, 0, 3, move)
    env["signature"] = bob.envelope(gid, 0, 3, move)["signature"]
    resp = _post(fast, gid, env)
    assert resp.status_code == 401 and resp.get_json()["code"] == "bad_signature"
    assert store.r.xlen(game_key(gid, "moves")) == before
