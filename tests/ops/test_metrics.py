"""`GET /metrics` (docs/operations.md "Metrics"): real moves through the app, then a scrape
parsed as Prometheus parses it, every count exact; and the same totals from every process."""

from __future__ import annotations

import mailbox
import time
from pathlib import Path
from typing import Any

import redis
from parley_protocol import signing
from prometheus_client.parser import text_string_to_metric_families
from redis.crc import key_slot
from rq import SimpleWorker

from service.storage.keys import METRICS_KEY, PENDING_KEY, game_key
from tests.api.helpers import new_game, post_move, view
from tests.api.test_moves import BLUE_SETUP, RED_SETUP
from tests.e2e.conftest import running_server
from tests.notify.conftest import register, start_game
from tests.ops.helpers import DUEL
from tests.players import TestPlayer
from workers import notify
from workers.archiver import archive_game

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def parse(text: str) -> Samples:
    """Every sample of a scrape, by (name, labels)."""
    return {(s.name, frozenset(s.labels.items())): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def scrape(client: Any, **kw: Any) -> Samples:
    resp = client.get("/metrics", **kw)
    assert resp.status_code == 200, resp.get_data(as_text=True)
    assert resp.headers["Content-Type"].startswith("text/plain; version=")
    return parse(resp.get_data(as_text=True))


def value(samples: Samples, name: str, **labels: str) -> float:
    """One sample's value; a sample missing from the scrape fails the test."""
    return samples[(name, frozenset(labels.items()))]


def by_label(samples: Samples, name: str, label: str) -> dict[str, float]:
    return {dict(labels)[label]: v for (n, labels), v in samples.items() if n == name}


def notes(store: Any, gid: str) -> dict[str, str]:
    """The game's submit notes: nonce -> when its move was accepted (ms)."""
    return store.r.hgetall(game_key(gid, "submitted"))


def _minute_ago() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 60))


def _duel_in_play(client: Any, run_jobs: Any) -> tuple[str, dict[int, TestPlayer], int]:
    """A Duel with both setups applied (Red to move); -> (game, players, resolve jobs run)."""
    gid, players = new_game(client, options=DUEL)
    for seat, setup in ((0, RED_SETUP), (1, BLUE_SETUP)):
        assert post_move(client, gid, players[seat], seat,
                         {"type": "setup", "placement": setup}).status_code == 202
    return gid, players, run_jobs()


def test_moves_are_counted_exactly_by_outcome_and_code(app, client, run_jobs) -> None:
    gid, players, jobs = _duel_in_play(client, run_jobs)
    red, blue = players[0], players[1]
    url = f"/v1/games/{gid}/moves"
    # refused when posted: the engine's dry run, a bad signature, a seat not held
    illegal = post_move(client, gid, red, 0, {"type": "move", "from": "a1", "to": "a2"})
    assert illegal.status_code == 422
    engine_code = illegal.get_json()["code"]
    good = red.envelope(gid, 0, 1, {"type": "move", "from": "a4", "to": "a5"})
    forged = {**good, "signature": signing.b64url_encode(bytes(64))}
    assert client.post(url, json=forged).get_json()["code"] == "bad_signature"
    assert client.post(url, json=blue.envelope(gid, 0, 1, {"type": "resign"})
                       ).get_json()["code"] == "not_seated"
    # two moves queued for one step: the first is applied, the second rejected (stale_step)
    assert client.post(url, json=good).status_code == 202
    assert client.post(url, json=good).status_code == 202  # a re-post: no second move
    other = red.envelope(gid, 0, 1, {"type": "move", "from": "a4", "to": "b4"})
    assert client.post(url, json=other).status_code == 202
    jobs += run_jobs()
    assert view(client, gid, red)["step"] == 2

    samples = scrape(client)
    assert all(name.startswith("parley_") for name, _ in samples)  # nothing per process
    assert by_label(samples, "parley_moves_accepted_total", "source") == {"api": 4,
                                                                          "server": 0}
    assert value(samples, "parley_moves_applied_total") == 3
    assert by_label(samples, "parley_moves_rejected_total", "code") == {"stale_step": 1}
    assert by_label(samples, "parley_moves_refused_total", "code") == {
        engine_code: 1, "bad_signature": 1, "not_seated": 1}
    # every resolved move is observed once, from its note in milliseconds
    buckets = by_label(samples, "parley_move_latency_seconds_bucket", "le")
    assert value(samples, "parley_move_latency_seconds_count") == buckets["+Inf"] == 4
    assert 0 < value(samples, "parley_move_latency_seconds_sum") < 4 * 30
    assert buckets["30.0"] == 4 and list(buckets.values()) == sorted(buckets.values())
    assert value(samples, "parley_resolve_job_seconds_count") == jobs >= 2
    store = app.extensions["parley_store"]
    assert not notes(store, gid)  # dropped by the resolve
    assert value(samples, "parley_queue_jobs", queue="parley", state="queued") == 0
    assert value(samples, "parley_pending_games") == 0
    assert by_label(samples, "parley_games", "status") == {"active": 1, "archived": 0}


def test_a_batch_counts_its_appends_and_its_refusals(app, client, run_jobs) -> None:
    """Both copies of one envelope and a second envelope with the same nonce pass the checks
    and reach the accepting script: one append, one re-post, one refusal there."""
    gid, players, _ = _duel_in_play(client, run_jobs)
    red = players[0]
    good = red.envelope(gid, 0, 1, {"type": "move", "from": "a4", "to": "a5"})
    stale = red.envelope(gid, 0, 7, {"type": "move", "from": "a4", "to": "b4"})
    twin = red.envelope(gid, 0, 1, {"type": "move", "from": "a4", "to": "a5"},  # signed anew
                        issued_at=_minute_ago())
    resp = client.post("/v1/moves", json={"envelopes": [good, stale, good, twin]})
    assert [r.get("status") or r["problem"]["code"] for r in resp.get_json()["results"]] == [
        "queued", "stale_step", "queued", "duplicate_nonce"]
    run_jobs()
    samples = scrape(client)
    assert value(samples, "parley_moves_accepted_total", source="api") == 3  # 2 setups + 1
    assert value(samples, "parley_moves_applied_total") == 3
    assert value(samples, "parley_move_latency_seconds_count") == 3
    assert by_label(samples, "parley_moves_refused_total", "code") == {
        "stale_step": 1, "duplicate_nonce": 1}
    assert not notes(app.extensions["parley_store"], gid)


def test_the_one_game_drain_counts_the_same(app, client, run_jobs) -> None:
    """`drain` (a game whose lock was busy, or with more moves waiting than one commit takes)
    reads its entries back to count them; the job that follows finds nothing more to count."""
    from workers.resolve import drain

    gid, players, _ = _duel_in_play(client, run_jobs)
    url = f"/v1/games/{gid}/moves"
    for to in ("a5", "b4"):  # the second is rejected: stale_step
        assert client.post(url, json=players[0].envelope(
            gid, 0, 1, {"type": "move", "from": "a4", "to": to})).status_code == 202
    assert drain(gid, wait=1) == 2
    run_jobs()
    samples = scrape(client)
    assert value(samples, "parley_moves_applied_total") == 3
    assert by_label(samples, "parley_moves_rejected_total", "code") == {"stale_step": 1}
    assert value(samples, "parley_move_latency_seconds_count") == 4
    assert not notes(app.extensions["parley_store"], gid)


def test_a_resolve_that_catches_up_drops_a_stale_note(app, client, run_jobs) -> None:
    """A note whose append never happened (its process died before taking it back) goes with
    the game's next resolve that catches up."""
    gid, players, _ = _duel_in_play(client, run_jobs)
    store = app.extensions["parley_store"]
    store.r.hset(game_key(gid, "submitted"), "lost", "1")
    assert post_move(client, gid, players[0], 0,
                     {"type": "move", "from": "a4", "to": "a5"}).status_code == 202
    run_jobs()
    assert not notes(store, gid)
    assert value(scrape(client), "parley_move_latency_seconds_count") == 3


def test_queue_depth_pending_games_and_games_by_status(app, client, run_jobs) -> None:
    gid, players, _ = _duel_in_play(client, run_jobs)
    open_game = client.post("/v1/games", json={"ruleset": "stratego", "players": 2,
                                               "options": DUEL}, headers=players[0].auth)
    assert open_game.status_code == 201
    done, done_players = new_game(client, options=DUEL, names=("dee", "eve"))
    assert post_move(client, done, done_players[1], 1, {"type": "resign"}).status_code == 202
    move = players[0].envelope(gid, 0, 1, {"type": "move", "from": "a4", "to": "a5"})
    assert client.post(f"/v1/games/{gid}/moves", json=move).status_code == 202
    store = app.extensions["parley_store"]
    noted = int(notes(store, gid)[move["payload"]["nonce"]])  # until resolved
    assert abs(noted / 1000 - time.time()) < 5
    before = scrape(client)
    assert value(before, "parley_queue_jobs", queue="parley", state="queued") == \
        app.extensions["parley_queue"].count >= 1
    assert value(before, "parley_pending_games") == 2
    assert value(before, "parley_moves_accepted_total", source="api") == 4
    assert value(before, "parley_moves_applied_total") == 2
    run_jobs()
    after = scrape(client)
    assert value(after, "parley_queue_jobs", queue="parley", state="queued") == 0
    assert value(after, "parley_pending_games") == 0
    assert value(after, "parley_moves_applied_total") == 4
    assert by_label(after, "parley_games", "status") == {"open": 1, "active": 1, "finished": 1,
                                                         "archived": 0}
    assert not notes(store, gid) and not notes(store, done)
    assert archive_game(store, done) == "ok"  # the finished game moves to the SQL archive
    assert by_label(scrape(client), "parley_games", "status") == {"open": 1, "active": 1,
                                                                  "archived": 1}


def test_a_timeout_is_counted_once_as_a_server_move(app, client, monkeypatch, travel) -> None:
    from workers import resolve

    monkeypatch.setattr(resolve, "DRAIN_LINGER", 0.0)
    queue = app.extensions["parley_queue"]

    def work() -> None:  # the deadline jobs stay scheduled: they are called below
        SimpleWorker([queue], connection=queue.connection).work(burst=True,
                                                                logging_level="WARNING")

    ann, bob = register(client, "ann"), register(client, "bob")
    gid = start_game(client, [ann, bob], options=DUEL, time_control={
        "seconds_per_move": 3600, "on_timeout": "forfeit"})
    setup = view(client, gid, ann)["legal_moves"][0]
    assert post_move(client, gid, ann, 0, setup).status_code == 202
    work()
    travel(3601)
    assert notify.deadline_job(gid, 0, "timeout") == "timed_out"
    assert notify.deadline_job(gid, 0, "timeout") == "timed_out"  # the same envelope again
    work()
    samples = scrape(client)
    assert by_label(samples, "parley_moves_accepted_total", "source") == {"api": 1,
                                                                          "server": 1}
    assert value(samples, "parley_moves_applied_total") == 2
    assert value(samples, "parley_move_latency_seconds_count") == 2
    assert by_label(samples, "parley_games", "status") == {"finished": 1, "archived": 0}


def test_mail_deliveries_are_counted_by_outcome(client, run_jobs, config) -> None:
    ann = register(client, "ann", "ann@example.org")
    start_game(client, [ann, register(client, "bob")], options=DUEL)
    run_jobs()
    run_jobs()
    sent = len(mailbox.Maildir(config.DATA_DIR / "outbox", create=False))
    assert sent == 1  # Ann's setup is asked at the start: one mail tells the start and asks
    samples = scrape(client)
    assert by_label(samples, "parley_deliveries_total", "outcome") == {"delivered": sent}
    assert value(samples, "parley_deliveries_total", channel="mail", outcome="delivered") == 1


def test_the_counters_share_the_pending_index_slot() -> None:
    """A move's append touches both: on a cluster it still reaches at most two nodes."""
    assert key_slot(METRICS_KEY.encode()) == key_slot(PENDING_KEY.encode())


def test_one_trip_moves_count_in_every_total_they_belong_to(app, client) -> None:
    """A move of one round trip writes one field (`metrics_records.ONE_TRIP`); the scrape adds
    it to each total it counts in, beside the totals an earlier version wrote directly."""
    store = app.extensions["parley_store"]
    store.r.delete(METRICS_KEY)
    # an earlier version's totals: 7 accepted from the api, of which 3 foreseen and 2 settled
    store.r.hset(METRICS_KEY, mapping={"accepted:api": 7, "foreseen": 3, "settled": 2,
                                       "applied": 6, "latency:0.005": 4})
    store.r.hset(METRICS_KEY, mapping={"one_trip:foreseen": 5, "one_trip:settled": 11})
    samples = scrape(client)
    assert value(samples, "parley_moves_accepted_total", source="api") == 7 + 5 + 11
    assert value(samples, "parley_moves_foreseen_total") == 3 + 5 + 11
    assert value(samples, "parley_moves_settled_total") == 2 + 11
    assert value(samples, "parley_moves_applied_total") == 6 + 11
    assert value(samples, "parley_move_latency_seconds_bucket", le="0.005") == 4 + 11
    assert value(samples, "parley_move_latency_seconds_count") == 4 + 11
    assert not any("one_trip" in name for name, _ in samples)


def test_only_loopback_scrapes_without_a_token(client) -> None:
    scrape(client)
    resp = client.get("/metrics", environ_base={"REMOTE_ADDR": "192.0.2.7"})
    assert resp.status_code == 403 and resp.get_json()["code"] == "forbidden"
    assert "/metrics" not in client.get("/openapi.json").get_json()["paths"]


def test_games_by_status_are_counted_once_a_period(monkeypatch, config) -> None:
    """`parley_games` reads every game's status: with PARLEY_GAME_COUNT_SECONDS a scrape reads
    the last count, and only once the period is over does one scrape count again."""
    from service.storage import metrics_records
    from service.web.app import create_app

    monkeypatch.setenv("PARLEY_GAME_COUNT_SECONDS", "60")
    app = create_app(type(config)())
    client = app.test_client()
    ann = TestPlayer("ann").register(client)

    def create() -> None:
        assert client.post("/v1/games", json={"ruleset": "stratego", "players": 2},
                           headers=ann.auth).status_code == 201

    create()
    assert by_label(scrape(client), "parley_games", "status") == {"open": 1, "archived": 0}
    create()  # within the period: the last count
    assert by_label(scrape(client), "parley_games", "status") == {"open": 1, "archived": 0}
    store = app.extensions["parley_store"]
    later = time.time() + 61
    assert metrics_records.game_counts_kept(store, 60, now=later)["open"] == 2
    kept = metrics_records.game_counts_kept(store, 60, now=later + 1)  # the new count kept
    assert kept["open"] == 2 and store.r.get("parley:metrics:games:lock") is None


def test_a_token_guards_the_scrape(monkeypatch, config) -> None:
    from service.web.app import create_app

    monkeypatch.setenv("PARLEY_METRICS_TOKEN", "scrape-secret")
    client = create_app(type(config)()).test_client()
    assert client.get("/metrics").status_code == 401
    assert client.get("/metrics", headers={"Authorization": "Bearer wrong"}).status_code == 401
    scrape(client, headers={"Authorization": "Bearer scrape-secret"},
           environ_base={"REMOTE_ADDR": "192.0.2.7"})


def test_every_process_counts_into_the_same_totals(redis_url: str, tmp_path: Path) -> None:
    """Two web servers (two processes each) and their two `parley worker`s on one Redis:
    moves posted to either are counted once, and both serve the same totals."""
    redis.Redis.from_url(redis_url).flushall()
    with running_server(redis_url, tmp_path) as one, running_server(redis_url, tmp_path) as two:
        ann, bob = TestPlayer("ann").register(one), TestPlayer("bob").register(two)
        games = []
        for server in (one, two, one, two):
            resp = server.post("/v1/games", json={"ruleset": "stratego", "players": 2,
                                                  "options": DUEL}, headers=ann.auth)
            gid = resp.json()["id"]
            for player in (ann, bob):
                assert server.post(f"/v1/games/{gid}/join", json=player.join_body(gid),
                                   headers=player.auth).status_code == 200
            games.append(gid)
        posted = 0
        for i, gid in enumerate(games):  # setups, each game's seats on different servers
            for seat, player, setup in ((0, ann, RED_SETUP), (1, bob, BLUE_SETUP)):
                server = (one, two)[(i + seat) % 2]
                assert server.post(f"/v1/games/{gid}/moves", json=player.envelope(
                    gid, seat, 0, {"type": "setup", "placement": setup})).status_code == 202
                posted += 1
        refused = two.post(f"/v1/games/{games[0]}/moves", json=ann.envelope(
            games[0], 1, 1, {"type": "resign"}))
        assert refused.json()["code"] == "not_seated"
        totals = []
        for _ in range(100):  # until every move is resolved and the jobs have ended
            totals = [parse(s.get("/metrics").text) for s in (one, two, one, two)]
            if (value(totals[0], "parley_moves_applied_total") == posted
                    and all(t == totals[0] for t in totals)):
                break
            time.sleep(0.1)
        assert all(t == totals[0] for t in totals)
        assert value(totals[0], "parley_moves_accepted_total", source="api") == posted == 8
        assert value(totals[0], "parley_moves_applied_total") == posted
        assert value(totals[0], "parley_move_latency_seconds_count") == posted
        assert by_label(totals[0], "parley_moves_refused_total", "code") == {"not_seated": 1}
        assert by_label(totals[0], "parley_games", "status") == {"active": 4, "archived": 0}

