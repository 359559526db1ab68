"""The fast path for the seat view GET and the move POST (service/web/fastpath).

Two apps share one Redis: `fast` with the hot paths, `slow` without (every request through
Flask). Whatever the fast path answers must be what the app answers, byte for byte; whatever it
cannot answer (every problem) it must hand to the app with nothing changed.
"""

from __future__ import annotations

from typing import Any

import pytest

from service.config import Config
from service.domain import accept as moves
from service.web import fastpath as hotpaths
from service.web.api.move_schemas import MoveAcceptedSchema
from tests.api.conftest import make_app
from tests.players import TestPlayer

MOVE = {"type": "move", "from": "a4", "to": "a5"}
#: Red's other moves at step 1: a test that posts several moves signs another each time (the
#: same move at one step is one move: its nonce is derived from it, docs/audit.md §6)
OTHER_MOVES = [{"type": "move", "from": f, "to": t}
               for f, t in (("a4", "b4"), ("b3", "b4"), ("b3", "c3"), ("c2", "c3"))]


@pytest.fixture
def handed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Paths the fast path handed to the app (or never tried), in order."""
    calls: list[str] = []
    original = hotpaths.HotPaths.__call__

    def call(self: Any, environ: dict, start_response: Any) -> Any:
        inner = self.next

        def next_(env: dict, sr: Any) -> Any:
            calls.append(env["PATH_INFO"])
            return inner(env, sr)

        self.next = next_
        try:
            return original(self, environ, start_response)
        finally:
            self.next = inner

    monkeypatch.setattr(hotpaths.HotPaths, "__call__", call)
    return calls


def _both(apps, method: str, path: str, **kwargs: Any) -> tuple[Any, Any]:
    fast, slow = (app.test_client().open(path, method=method, **kwargs) for app in apps)
    return fast, slow


def _same(fast: Any, slow: Any) -> None:
    assert fast.status == slow.status
    assert fast.headers == slow.headers
    assert fast.data == slow.data


def test_views_are_answered_by_the_fast_path_exactly_as_by_the_app(apps, game,
                                                                   handed) -> None:
    gid, ann, bob = game
    stranger = TestPlayer("cy").register(apps[1].test_client())
    for headers in (ann.auth, bob.auth, stranger.auth, {}):
        fast, slow = _both(apps, "GET", f"/v1/games/{gid}/view", headers=headers)
        assert fast.status_code == 200
        _same(fast, slow)
    assert ann.auth and fast.get_json()["seat"] is None  # the last: a spectator
    assert handed == []  # the fast path answered all four itself
    assert _both(apps, "GET", f"/v1/games/{gid}/view", headers=ann.auth)[0].get_json()[
        "legal_moves"]


@pytest.mark.parametrize(("path", "headers", "status"), [
    ("/v1/games/{gid}/view", {"Authorization": "Bearer nope"}, 401),
    ("/v1/games/{gid}/view", {"Authorization": "Basic abc"}, 401),
    ("/v1/games/{gid}/view", {"Authorization": "Bearer "}, 401),
    ("/v1/games/missing/view", {}, 404),
    ("/v1/games/{gid}/view?x=1", {}, 400),  # unknown_parameter
])
def test_views_the_fast_path_cannot_answer_go_to_the_app(apps, game, handed, path, headers,
                                                         status) -> None:
    gid = game[0]
    fast, slow = _both(apps, "GET", path.format(gid=gid), headers=headers)
    assert fast.status_code == status
    _same(fast, slow)
    assert handed == [path.format(gid=gid).partition("?")[0]]


def test_an_accepted_move_is_answered_as_the_app_would(apps, game, handed,
                                                       run_jobs) -> None:
    gid, ann, _ = game
    fast_app, slow_app = apps
    env = ann.envelope(gid, 0, 1, MOVE)
    fast = fast_app.test_client().post(f"/v1/games/{gid}/moves", json=env)
    assert fast.status_code == 202 and handed == []
    body = fast.get_json()
    assert body["location"] == f"/v1/games/{gid}/moves/3" == fast.headers["Location"]
    with slow_app.test_request_context():  # the bytes the app's schema and JSON would write
        assert fast.data == slow_app.json.response(MoveAcceptedSchema().dump(body)).data
    again = slow_app.test_client().post(f"/v1/games/{gid}/moves", json=env)
    assert (again.status, again.get_json()) == (fast.status, body)  # the same move
    assert sorted(fast.headers.keys()) == sorted(again.headers.keys())
    run_jobs()
    move = slow_app.test_client().get(f"/v1/games/{gid}/moves/3").get_json()
    assert move == {"id": 3, "status": "applied"}


@pytest.mark.parametrize("case", ["bad_signature", "wrong_step", "invalid_json", "wrong_game",
                                  "not_to_act"])
def test_a_refused_move_goes_to_the_app_and_changes_nothing(apps, game, handed,
                                                            case) -> None:
    gid, ann, bob = game
    store = apps[0].extensions["parley_store"]
    env: Any = ann.envelope(gid, 0, 1, MOVE)
    if case == "bad_signature":
        env["signature"] = bob.envelope(gid, 0, 1, MOVE)["signature"]
    elif case == "wrong_step":
        env = ann.envelope(gid, 0, 7, MOVE)
    elif case == "wrong_game":
        env = ann.envelope("other", 0, 1, MOVE)
    elif case == "not_to_act":
        env = bob.envelope(gid, 1, 1, {"type": "move", "from": "a7", "to": "a6"})
    kwargs = {"data": b"{not json"} if case == "invalid_json" else {"json": env}
    before = store.meta(gid), store.r.xlen(f"game:{gid}:moves")
    fast, slow = _both(apps, "POST", f"/v1/games/{gid}/moves", **kwargs)
    assert 400 <= fast.status_code < 500
    _same(fast, slow)
    assert handed == [f"/v1/games/{gid}/moves"]
    assert (store.meta(gid), store.r.xlen(f"game:{gid}:moves")) == before


def test_a_move_whose_wake_fails_is_answered_by_the_app_as_a_repost(
        apps, game, handed, run_jobs, monkeypatch: pytest.MonkeyPatch) -> None:
    """The append happened, the wake did not: the app's re-post path answers the same move
    and wakes the game again, so the move is applied."""
    gid, ann, _ = game

    def broken(queue: Any, game: str) -> bool:
        raise ConnectionError("queue down")

    monkeypatch.setattr(moves, "wake", broken)
    resp = apps[0].test_client().post(f"/v1/games/{gid}/moves",
                                      json=ann.envelope(gid, 0, 1, MOVE))
    assert resp.status_code == 202 and resp.get_json()["id"] == 3
    assert handed == [f"/v1/games/{gid}/moves"]
    run_jobs()
    assert apps[1].test_client().get(f"/v1/games/{gid}/moves/3").get_json()["status"] == \
        "applied"


@pytest.fixture(params=["riding", "apart"])
def limited(request: pytest.FixtureRequest, config: Config,
            monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any]:
    """Both apps with rate limits on: they must count into one quota. `riding`: the counters
    on the store's Redis (the default), charged in the move's own round trips; `apart`: in
    another database, where the fast path charges them a round trip each."""
    if request.param == "apart":
        monkeypatch.setenv("PARLEY_RATE_LIMIT_STORAGE", config.REDIS_URL.rsplit("/", 1)[0] + "/1")
    apps = make_app(config, hot=True, limits=True), make_app(config, hot=False, limits=True)
    assert (apps[0].wsgi_app.quota.incr_script is not None) == (request.param == "riding")
    return apps


def _limits(apps: tuple[Any, Any], address: str, player: str) -> None:
    for app in apps:
        app.config["PARLEY"].LIMIT_MOVES_PER_ADDRESS = address
        app.config["PARLEY"].LIMIT_MOVES_PER_PLAYER = player
        app.extensions["parley_limiter"].reset()


def _post(app: Any, gid: str, env: dict) -> Any:
    return app.test_client().post(f"/v1/games/{gid}/moves", json=env)


def _refused(resp: Any, limit: int) -> None:
    assert resp.status_code == 429, resp.get_json()
    assert resp.get_json()["code"] == "rate_limited"
    assert resp.headers["X-RateLimit-Limit"] == str(limit)
    assert resp.headers["X-RateLimit-Remaining"] == "0"


def test_with_rate_limits_on_the_fast_path_shares_the_apps_address_quota(limited, game,
                                                                         handed) -> None:
    gid, ann, _ = game
    fast, slow = limited
    _limits(limited, "3/minute", "100/minute")
    for app, move in zip((fast, slow, fast), (MOVE, *OTHER_MOVES[:2]), strict=True):
        assert _post(app, gid, ann.envelope(gid, 0, 1, move)).status_code == 202
    assert handed == []  # the slow app has no fast path; the fast one answered both itself
    _refused(_post(fast, gid, ann.envelope(gid, 0, 1, OTHER_MOVES[2])), 3)
    assert handed == [f"/v1/games/{gid}/moves"]  # the 429 is the app's
    _refused(_post(slow, gid, ann.envelope(gid, 0, 1, OTHER_MOVES[3])), 3)


def test_with_rate_limits_on_the_fast_path_shares_the_signers_quota(limited, game,
                                                                    handed) -> None:
    gid, ann, bob = game
    fast, slow = limited
    _limits(limited, "100/minute", "2/minute")
    assert _post(slow, gid, ann.envelope(gid, 0, 1, MOVE)).status_code == 202
    assert _post(fast, gid, ann.envelope(gid, 0, 1, OTHER_MOVES[0])).status_code == 202
    _refused(_post(fast, gid, ann.envelope(gid, 0, 1, OTHER_MOVES[1])), 2)
    _refused(_post(slow, gid, ann.envelope(gid, 0, 1, OTHER_MOVES[2])), 2)
    # bob's allowance is his own: refused for the turn, not for the quota
    resp = _post(fast, gid, bob.envelope(gid, 1, 1, {"type": "move", "from": "a7", "to": "a6"}))
    assert resp.status_code == 409, resp.get_json()


def test_a_move_the_fast_path_hands_over_is_counted_once(limited, game, handed) -> None:
    """Refused after the fast path charged the address: the app answers without charging it
    again, so the next move still fits a quota of two."""
    gid, ann, _ = game
    fast, _ = limited
    _limits(limited, "2/minute", "100/minute")
    assert _post(fast, gid, ann.envelope(gid, 0, 7, MOVE)).status_code == 409  # stale step
    assert handed == [f"/v1/games/{gid}/moves"]
    assert _post(fast, gid, ann.envelope(gid, 0, 1, MOVE)).status_code == 202
    _refused(_post(fast, gid, ann.envelope(gid, 0, 1, OTHER_MOVES[0])), 2)


def test_an_oversize_or_unsized_body_is_not_read_by_the_fast_path(apps, game,
                                                                 handed) -> None:
    gid = game[0]
    big = b"x" * (apps[0].config["PARLEY"].MAX_CONTENT_LENGTH + 1)
    fast, slow = _both(apps, "POST", f"/v1/games/{gid}/moves", data=big,
                       content_type="application/json")
    assert fast.status_code == 413
    _same(fast, slow)
    assert handed == [f"/v1/games/{gid}/moves"]


def test_a_move_handed_over_after_its_append_charges_the_signer_once(
        limited, game, handed, monkeypatch: pytest.MonkeyPatch) -> None:
    """The append (and with it, riding, the signer's charge) happened, the wake did not: the
    app answers the re-post without charging the signer again, so a second move still fits a
    quota of two."""
    gid, ann, _ = game
    fast, slow = limited
    _limits(limited, "100/minute", "2/minute")
    monkeypatch.setattr(moves, "wake", lambda queue, game: (_ for _ in ()).throw(
        ConnectionError("queue down")))
    resp = _post(fast, gid, ann.envelope(gid, 0, 1, MOVE))
    assert resp.status_code == 202 and resp.get_json()["id"] == 3
    assert handed == [f"/v1/games/{gid}/moves"]
    monkeypatch.undo()
    assert _post(fast, gid, ann.envelope(gid, 0, 1, OTHER_MOVES[0])).status_code == 202
    _refused(_post(slow, gid, ann.envelope(gid, 0, 1, OTHER_MOVES[1])), 2)


def _round_trips(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every request sent to any Redis from now on (a command, or a whole pipeline), one
    entry each."""
    import redis

    sent: list[int] = []
    original = redis.connection.AbstractConnection.send_packed_command

    def counted(self: Any, command: Any, check_health: bool = True) -> None:
        sent.append(1)
        original(self, command, check_health)

    monkeypatch.setattr(redis.connection.AbstractConnection, "send_packed_command", counted)
    return sent


def test_riding_rate_limits_cost_a_move_no_round_trip(limited, game, request,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A move whose game needs no wake: two round trips with the counters riding (context,
    append), three more with them apart (address, signer test, signer charge)."""
    gid, ann, _ = game
    fast, _ = limited
    _limits(limited, "100/minute", "100/minute")
    assert _post(fast, gid, ann.envelope(gid, 0, 1, MOVE)).status_code == 202  # the wake
    sent = _round_trips(monkeypatch)
    assert _post(fast, gid, ann.envelope(gid, 0, 1, OTHER_MOVES[0])).status_code == 202
    riding = request.node.callspec.params["limited"] == "riding"
    assert len(sent) == (2 if riding else 5)


@pytest.mark.parametrize("where", ["inline", "script"])
def test_a_move_that_wakes_its_game_costs_one_round_trip_less_inline(
        apps, game, monkeypatch: pytest.MonkeyPatch, where: str) -> None:
    """A drainer is live and the move needs a wake: the accepting script puts the game on its
    ready list itself (two round trips: context, append), where the wake script took a third."""
    from service.storage.keys import drainers_key, ready_key

    gid, ann, _ = game
    fast, _ = apps
    if where == "script":
        fast.extensions["parley_store"].inline_wake = None
    queue = fast.extensions["parley_queue"]
    queue.connection.zadd(drainers_key(queue.name), {"resolve-live": 2**50})  # a drainer running
    assert fast.test_client().get(f"/v1/games/{gid}/view").status_code == 200  # connected
    fast.extensions["parley_store"]._hot._connection().connect()  # and this thread's own
    sent = _round_trips(monkeypatch)
    assert _post(fast, gid, ann.envelope(gid, 0, 1, MOVE)).status_code == 202
    assert len(sent) == (2 if where == "inline" else 3)
    assert queue.connection.lrange(ready_key(queue.name), 0, -1) == [gid.encode()]
    assert queue.count == 0


def test_a_store_apart_from_the_queue_is_woken_by_script(config: Config,
                                                         monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    assert make_app(config, hot=True).extensions["parley_store"].inline_wake is not None
    monkeypatch.setenv("PARLEY_STORE_URL", config.REDIS_URL.rsplit("/", 1)[0] + "/1")
    assert make_app(config, hot=True).extensions["parley_store"].inline_wake is None


def test_the_fast_paths_routes_and_location_come_from_the_apps_url_map(apps) -> None:
    route, location = hotpaths.routes(apps[1])
    assert route.fullmatch("/v1/games/g_1/view")["view"] == "g_1"
    assert route.fullmatch("/v1/games/g_1/moves")["moves"] == "g_1"
    for other in ("/v1/games/g_1/events", "/v1/games/g_1/moves/3", "/v1/games/a/b/view",
                  "/v1/games//view"):
        assert route.fullmatch(other) is None, other
    adapter = apps[1].url_map.bind("localhost")
    assert location.format(game="g_1", move=7) == adapter.build(
        hotpaths.MOVE, {"game": "g_1", "move": 7})
    for path, endpoint in (("/v1/games/g_1/view", hotpaths.VIEW),
                           ("/v1/games/g_1/moves", hotpaths.MOVES)):
        assert adapter.match(path, method="GET" if endpoint == hotpaths.VIEW else "POST"
                             )[0] == endpoint


def test_the_limits_internals_the_riding_charges_rely_on_are_still_there(config) -> None:
    """MoveQuota lets a move's rate-limit counters ride in its round trips by running
    `limits`' own increment script on `limits`' own key: if a new release of `limits` renames
    or changes either, this fails instead of the fast path silently losing its saving (or
    counting into keys flask-limiter no longer reads)."""
    from service.web.fastpath.quota import MoveQuota, _items
    from service.web.limits import KEY_PREFIX

    app = make_app(config, hot=False, limits=True)
    quota = MoveQuota(app)
    assert quota.incr_script is not None, "the counters no longer ride: limits changed"
    strategy = quota.limiter.limiter
    item = _items(quota.config.LIMIT_MOVES_PER_PLAYER)[0]
    counter = quota.counter(item, "player:p_x", "moves-player")
    store = app.extensions["parley_store"]
    assert strategy.hit(item, KEY_PREFIX, "player:p_x", "moves-player")
    assert store.r.get(counter) == "1"  # flask-limiter's own hit counts in the key we compute
    assert store.r.eval(quota.incr_script, 1, counter, item.get_expiry(), 1) == 2
    assert strategy.get_window_stats(item, KEY_PREFIX, "player:p_x", "moves-player"
                                     ).remaining == item.amount - 2
