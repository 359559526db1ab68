"""A drainer resolves the games it takes together (`workers.resolve.drain_many`): a fixed
number of round trips for any number of games, and every rare case still handled."""

from __future__ import annotations

import json
import time

import pytest
import redis

from service.storage.keys import (
    FEEDS_CHANNEL,
    LIVE_PLAYERS_KEY,
    NOTIFY_KEY,
    drainers_key,
    game_key,
    live_key,
    ready_key,
)
from service.storage.resolve_queue import take
from service.storage.store import Store
from tests.api.helpers import new_game, view
from tests.players import TestPlayer
from workers import resolve


def _setups_pending(client, run_jobs, n: int, tag: str = "p") -> list[str]:
    """`n` started Duel games, each with both setups accepted and neither resolved."""
    started = [new_game(client, "stratego", {"army": "duel"}, names=(f"{tag}a{i}", f"{tag}b{i}"))
               for i in range(n)]
    run_jobs()
    for gid, players in started:
        for seat, player in players.items():
            v = view(client, gid, player)
            env = player.envelope(gid, seat, v["step"], v["legal_moves"][0])
            assert client.post(f"/v1/games/{gid}/moves", json=env).status_code == 202
    return [gid for gid, _ in started]


def _store(app) -> Store:
    return app.extensions["parley_store"]


def _resolved(store: Store, gid: str) -> bool:
    meta = store.meta(gid)
    return meta["applied"] == meta["head"] == "2" and meta["step_kind"] == "play"


def _settled(store: Store, gid: str) -> None:
    """Nothing left of the drain: flag, lock, pending mark, outbox and notify mark."""
    assert store.r.get(game_key(gid, "scheduled")) is None
    assert store.r.get(game_key(gid, "lock")) is None
    assert gid not in store.pending_games()
    assert store.r.llen(game_key(gid, "outbox")) == 0
    assert not store.r.sismember(NOTIFY_KEY, gid)


def _count_trips(monkeypatch, store: Store) -> list[int]:
    """Count the store's round trips from now on: its single commands and every pipeline."""
    trips = [0]
    command = store.r.execute_command
    execute = redis.client.Pipeline.execute

    def counted_command(*args, **kw):
        trips[0] += 1
        return command(*args, **kw)

    def counted_execute(pipe, *args, **kw):
        trips[0] += 1
        return execute(pipe, *args, **kw)

    monkeypatch.setattr(store.r, "execute_command", counted_command)
    monkeypatch.setattr(redis.client.Pipeline, "execute", counted_execute)
    return trips


def test_a_batch_of_games_costs_the_round_trips_of_one(app, client, run_jobs,
                                                       monkeypatch) -> None:
    store = _store(app)
    gids = _setups_pending(client, run_jobs, 8)
    assert resolve.drain_many(gids[:1], wait=0) == 2  # loads the scripts
    trips = _count_trips(monkeypatch, store)
    assert resolve.drain_many(gids[1:2], wait=0) == 2
    one = trips[0]
    assert resolve.drain_many(gids[2:] + gids[2:4], wait=0) == 12  # two woken twice
    assert trips[0] - one == one <= 3  # open (listeners), commit (outboxes), trims and release
    for gid in gids:
        assert _resolved(store, gid)
        _settled(store, gid)


def test_listening_players_get_their_entries_in_the_commits_round_trip(app, client, run_jobs,
                                                                       monkeypatch) -> None:
    """Feeds on the store's Redis: the opening script reads who listens, the commit appends
    their entries and announces them on the feeds channel; no round trip is added."""
    store = _store(app)
    gids = _setups_pending(client, run_jobs, 3, tag="l")
    seated = {gid: json.loads(store.meta(gid)["players"]) for gid in gids}
    listening = [seated[gids[1]][0], seated[gids[2]][0], seated[gids[2]][1]]
    store.r.zadd(LIVE_PLAYERS_KEY, {pid: time.time() + 60 for pid in listening})
    store.r.zadd(LIVE_PLAYERS_KEY, {seated[gids[1]][1]: time.time() - 1})  # left long ago
    channel = store.r.pubsub(ignore_subscribe_messages=True)
    channel.subscribe(FEEDS_CHANNEL)
    assert resolve.drain_many(gids[:1], wait=0) == 2  # loads the scripts; nobody listens
    trips = _count_trips(monkeypatch, store)
    assert resolve.drain_many(gids[1:], wait=0) == 4
    assert trips[0] <= 3
    for pid in (*seated[gids[0]], seated[gids[1]][1]):
        assert store.r.xlen(live_key(pid)) == 0
    announced: list[str] = []
    deadline = time.monotonic() + 1
    while time.monotonic() < deadline:  # None also for the subscription's own message
        if (message := channel.get_message(timeout=0.1)) is not None:
            announced += message["data"].split("\n")
    for pid in listening:
        feed = store.r.xrange(live_key(pid))
        kinds = [json.loads(fields["d"])["type"] for _, fields in feed]
        assert "event" in kinds and kinds[-1] == "turn"
        assert [f"{live_key(pid)} {eid} {fields['d']}" for eid, fields in feed] == [
            line for line in announced if line.startswith(live_key(pid) + " ")]
    assert len(announced) == sum(store.r.xlen(live_key(pid)) for pid in listening)


def test_a_game_woken_twice_is_drained_once(app, client, run_jobs) -> None:
    store = _store(app)
    gids = _setups_pending(client, run_jobs, 2)
    assert resolve.drain_many([gids[0], gids[1], gids[0]], wait=0) == 4
    for gid in gids:
        assert _resolved(store, gid)
        _settled(store, gid)


def test_a_game_locked_elsewhere_is_woken_again_and_the_others_resolved(app, client,
                                                                      run_jobs) -> None:
    store = _store(app)
    free, busy = _setups_pending(client, run_jobs, 2)
    queue = app.extensions["parley_queue"]
    store.r.delete(ready_key(queue.name))
    jobs_before = set(queue.job_ids)
    store.r.set(game_key(busy, "lock"), "another-worker", px=60_000)
    assert resolve.drain_many([free, busy], wait=0.05) == 2
    assert _resolved(store, free)
    _settled(store, free)
    assert store.meta(busy)["applied"] == "0"
    assert store.r.get(game_key(busy, "lock")) == "another-worker"  # not ours to release
    assert store.r.get(game_key(busy, "scheduled")) == "1"  # woken again: a job follows
    woken = store.r.lrange(ready_key(queue.name), 0, -1)
    woken += [job.args[0] for job in queue.get_jobs() if job.id not in jobs_before]
    assert busy in woken


def test_a_game_still_to_start_is_started_then_resolved(app, client, run_jobs) -> None:
    """A game whose last join was stored but whose start was lost goes through `drain`."""
    store = _store(app)
    [ready] = _setups_pending(client, run_jobs, 1)
    players = [TestPlayer(n).register(client) for n in ("sa", "sb")]
    full = client.post("/v1/games", json={"ruleset": "totohu", "players": 2},
                       headers=players[0].auth).get_json()["id"]
    assert client.post(f"/v1/games/{full}/join", json=players[0].join_body(full),
                       headers=players[0].auth).status_code == 200
    assert store.join(full, -1, players[1].id, "seed", 2)[0] == "ok"  # then the crash
    assert store.meta(full)["status"] == "full"
    assert resolve.drain_many([full, ready], wait=0) == 2
    assert store.meta(full)["status"] == "active"
    assert _resolved(store, ready)
    _settled(store, ready)


def test_more_entries_than_one_commit_takes_are_all_resolved(app, client, run_jobs,
                                                            monkeypatch) -> None:
    store = _store(app)
    gids = _setups_pending(client, run_jobs, 2)
    monkeypatch.setattr(resolve, "BATCH", 1)  # one entry per commit, so both setups need two
    assert resolve.drain_many(gids, wait=0) == 4
    for gid in gids:
        assert _resolved(store, gid)
        _settled(store, gid)


def test_one_broken_game_fails_alone(app, client, run_jobs) -> None:
    """A game whose resolve raises fails the drain, after the others were committed and every
    lock released: it cannot hold back the games taken with it."""
    store = _store(app)
    good, broken = _setups_pending(client, run_jobs, 2)
    store.r.hdel(game_key(broken, "secret"), "server_seed")  # its moves cannot be resolved
    with pytest.raises(RuntimeError, match="no server seed"):
        resolve.drain_many([broken, good], wait=0)
    assert _resolved(store, good)
    _settled(store, good)
    assert store.meta(broken)["applied"] == "0"
    assert store.r.get(game_key(broken, "lock")) is None


def test_taking_games_tells_whether_jobs_wait_behind_the_drainer(app) -> None:
    """One round trip gives a drainer its next games and the RQ queue's length: it lingers
    for a wake only when nothing waits behind it (`resolve._next_games`)."""
    queue = app.extensions["parley_queue"]
    store = _store(app)
    store.r.delete(ready_key(queue.name))
    store.r.rpush(ready_key(queue.name), "g_1", "g_2", "g_3")
    assert take(queue, "drainer-1", 2) == (["g_1", "g_2"], len(queue))
    queue.enqueue("workers.resolve.resolve_game", "g_9")
    assert take(queue, "drainer-1", 2) == (["g_3"], len(queue)) and len(queue) >= 1
    assert take(queue, "drainer-1", 2) == ([], len(queue))
    assert store.r.zscore(drainers_key(queue.name), "drainer-1") is not None  # its lease


def test_a_drainer_takes_its_next_games_in_the_release(app, client, run_jobs,
                                                       monkeypatch) -> None:
    """With the queue on the store's Redis, the release of a batch's locks also takes the
    drainer's next games off the ready list: no round trip of its own."""
    store = _store(app)
    queue = app.extensions["parley_queue"]
    assert store.inline_wake is not None
    gids = _setups_pending(client, run_jobs, 4, tag="t")
    store.r.delete(ready_key(queue.name))
    assert resolve.drain_many(gids[:1], wait=0) == 2  # loads the scripts
    store.r.rpush(ready_key(queue.name), *gids[2:])
    taking = resolve.Taking(queue, "drainer-t")
    trips = _count_trips(monkeypatch, store)
    assert resolve.drain_many(gids[1:2], wait=0, taking=taking) == 2
    assert trips[0] <= 3
    assert taking.pop() == (gids[2:], len(queue))
    assert store.r.llen(ready_key(queue.name)) == 0
    assert store.r.zscore(drainers_key(queue.name), "drainer-t") is not None
    assert resolve.drain_many(gids[2:], wait=0, taking=taking) == 4
    assert taking.pop() == ([], len(queue))
    for gid in gids:
        assert _resolved(store, gid)
        _settled(store, gid)


def test_games_taken_by_a_failed_drainer_are_woken_again(app, client, run_jobs,
                                                         monkeypatch) -> None:
    store = _store(app)
    queue = app.extensions["parley_queue"]
    first, *others = _setups_pending(client, run_jobs, 3, tag="f")
    store.r.delete(ready_key(queue.name))
    store.r.rpush(ready_key(queue.name), *others)  # taken by the release of `first`
    jobs_before = set(queue.job_ids)

    def failing(*args):  # noqa: ANN002, ARG001
        raise RuntimeError("worker trouble")

    monkeypatch.setattr(resolve, "_next_games", failing)  # after the release took them
    with pytest.raises(RuntimeError, match="worker trouble"):
        resolve.resolve_game(first)
    assert _resolved(store, first)
    woken = store.r.lrange(ready_key(queue.name), 0, -1)
    woken += [job.args[0] for job in queue.get_jobs() if job.id not in jobs_before]
    for gid in others:
        assert gid in woken and store.r.get(game_key(gid, "scheduled")) == "1"
