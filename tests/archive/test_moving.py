"""Who moves games, and when: the archive job at a game's end, the sweep once the wait is
over, the start-up scan for games never marked; and the workers leave a moved game alone."""

from __future__ import annotations

import time

import pytest

from service.notify import dispatch
from service.ops.server_key import load_server_key
from service.storage.archive import archive_of, open_archive
from service.storage.keys import ARCHIVE_KEY, PENDING_KEY, game_key
from tests.archive.helpers import finished_duel, game_keys
from workers import archiver, context


def _archived(store, gid: str) -> bool:
    return store.meta(gid) == {"status": "finished", "archived": "1"}


def test_with_no_wait_the_end_of_a_game_moves_it(app, client, run_jobs,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PARLEY_ARCHIVE_AFTER", "0")
    context.config.cache_clear()
    store = app.extensions["parley_store"]
    game = finished_duel(client, run_jobs)  # its last run of the jobs ran the archive job
    assert _archived(store, game.gid)
    assert store.r.zscore(ARCHIVE_KEY, game.gid) is None
    assert client.get(f"/v1/games/{game.gid}").get_json()["status"] == "finished"


def test_the_sweep_moves_games_once_their_wait_is_over(app, client, run_jobs) -> None:
    store = app.extensions["parley_store"]
    game = finished_duel(client, run_jobs)  # PARLEY_ARCHIVE_AFTER: 600 s by default
    due = store.r.zscore(ARCHIVE_KEY, game.gid)
    assert due is not None
    assert archiver.sweep(store) == 0  # not yet
    assert not _archived(store, game.gid)
    store.r.zadd(ARCHIVE_KEY, {game.gid: due - 600})  # the wait is over
    assert archiver.sweep(store) == 1
    assert _archived(store, game.gid)
    assert archiver.sweep(store) == 0


def test_the_start_up_scan_marks_finished_games_never_marked(app, client, run_jobs) -> None:
    store = app.extensions["parley_store"]
    game = finished_duel(client, run_jobs)
    store.r.zrem(ARCHIVE_KEY, game.gid)  # as if it had ended before the archive existed
    assert archiver.schedule_unmarked(store, after=0) == 1
    assert archiver.schedule_unmarked(store, after=0) == 0
    assert archiver.sweep(store) == 1
    assert _archived(store, game.gid)


def test_the_workers_leave_a_moved_game_alone(app, client, run_jobs) -> None:
    from workers import resolve

    store, queue = app.extensions["parley_store"], app.extensions["parley_queue"]
    game = finished_duel(client, run_jobs)
    assert archiver.archive_game(store, game.gid) == "ok"
    store.r.sadd(PENDING_KEY, game.gid)  # a stale mark, a stale wake
    assert resolve.sweep(store, queue) == 0
    assert resolve.drain_many([game.gid], wait=1) == 0
    assert dispatch.flush(store, queue, context.config(), game.gid) == 0
    key = load_server_key(context.config().SERVER_KEY_PATH)
    assert dispatch.deadline_due(store, queue, context.config(), key, game.gid, 1,
                                 "timeout") == "past"
    run_jobs()
    assert game_keys(store, game.gid) == {game_key(game.gid, "meta"): "hash"}
    assert _archived(store, game.gid)
    assert archive_of(store).count() == 1


def test_an_unreachable_archive_leaves_the_game_in_redis(app, client, run_jobs) -> None:
    store = app.extensions["parley_store"]
    game = finished_duel(client, run_jobs)
    keys = game_keys(store, game.gid)
    store.r.zadd(ARCHIVE_KEY, {game.gid: 0})  # due
    store.archive = open_archive("postgresql+psycopg://parley@127.0.0.1:1/nothing_listens")
    assert archiver.sweep(store) == 0
    assert game_keys(store, game.gid) == keys
    assert store.r.zscore(ARCHIVE_KEY, game.gid) > time.time() + archiver.RETRY_SECONDS - 60
    assert client.get(f"/v1/games/{game.gid}").get_json()["status"] == "finished"
