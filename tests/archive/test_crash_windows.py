"""A crash between the copy and the delete loses nothing and duplicates nothing: each step of a
move cut short and then the next run, a process killed for real after its copy, and a game
that is busy or changed between the copy and the swap."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import sqlalchemy as sa

from service.notify import dispatch
from service.storage import notify_records
from service.storage.archive import GAMES, PLAYERS, Archive, archive_of
from service.storage.keys import GAMES_KEY, game_key, player_games_key
from tests.archive.helpers import every_read, finished_duel, game_keys
from workers.archiver import Copied, archive_game, copy, swap, verify

ROOT = Path(__file__).resolve().parents[2]


def _rows(archive: Archive) -> tuple[int, int]:
    """(game rows, player rows) in the archive."""
    with archive.engine.connect() as conn:
        return tuple(conn.execute(sa.select(sa.func.count()).select_from(t)).scalar_one()
                     for t in (GAMES, PLAYERS))  # type: ignore[return-value]


def _listed(client, game) -> list[str]:
    player = game.players[0]
    return [g["id"] for g in client.get("/v1/players/me/games",
                                        headers=player.auth).get_json()["games"]]


def test_a_crash_after_the_copy_leaves_the_game_whole(app, client, run_jobs) -> None:
    store = app.extensions["parley_store"]
    archive = archive_of(store)
    game = finished_duel(client, run_jobs)
    keys = game_keys(store, game.gid)
    before = every_read(client, game)
    copied = copy(store, archive, game.gid)
    assert isinstance(copied, Copied)
    verify(archive, copied)
    # the process stops here: Redis still holds the whole game, and it answers as before
    assert game_keys(store, game.gid) == keys
    assert every_read(client, game) == before
    assert _rows(archive) == (1, 2)
    assert archive_game(store, game.gid) == "ok"  # the next run copies again onto the row
    assert _rows(archive) == (1, 2)
    assert every_read(client, game) == before


def test_a_crash_after_the_swap_is_finished_by_the_next_run(app, client, run_jobs) -> None:
    store = app.extensions["parley_store"]
    archive = archive_of(store)
    game = finished_duel(client, run_jobs)
    before = every_read(client, game)
    copied = copy(store, archive, game.gid)
    assert isinstance(copied, Copied)
    verify(archive, copied)
    assert swap(store, copied) == "ok"
    # the process stops here: the pointer is in, the indexes still name the game
    assert game.gid in store.r.smembers(player_games_key(game.players[0].id))
    assert store.r.zscore(GAMES_KEY, game.gid) is not None
    assert _listed(client, game).count(game.gid) == 1  # listed once, not from both
    assert every_read(client, game) == before
    assert archive_game(store, game.gid) == "archived"
    assert game.gid not in store.r.smembers(player_games_key(game.players[0].id))
    assert store.r.zscore(GAMES_KEY, game.gid) is None
    assert _rows(archive) == (1, 2)
    assert every_read(client, game) == before


COPY_THEN_WAIT = """
import sys, time
from service.config import Config
from service.storage.configured import open_store
from service.storage.store import Store
from workers.archiver import copy
store = open_store(Config())
print(type(copy(store, store.archive, sys.argv[1])).__name__, flush=True)
time.sleep(60)
"""


def test_a_process_killed_after_its_copy_loses_nothing(app, client, run_jobs) -> None:
    store = app.extensions["parley_store"]
    game = finished_duel(client, run_jobs)
    before = every_read(client, game)
    proc = subprocess.Popen([sys.executable, "-c", COPY_THEN_WAIT, game.gid], cwd=ROOT,
                            stdout=subprocess.PIPE, text=True, env=os.environ.copy())
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "Copied"
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    archive = archive_of(store)
    assert _rows(archive) == (1, 2)
    assert game_keys(store, game.gid)[game_key(game.gid, "moves")] == "stream"
    assert archive_game(store, game.gid) == "ok"
    assert _rows(archive) == (1, 2)
    assert every_read(client, game) == before


def test_notices_recorded_after_the_copy_keep_the_game_in_redis(app, client, run_jobs) -> None:
    store = app.extensions["parley_store"]
    archive = archive_of(store)
    game = finished_duel(client, run_jobs)
    copied = copy(store, archive, game.gid)
    assert isinstance(copied, Copied)
    notice = json.dumps({"type": "deadline.reminder", "seat": 0, "step": 1, "at": 0})
    notify_records.record_notices(store, game.gid, [notice])
    keys = game_keys(store, game.gid)
    assert swap(store, copied) == "busy"
    assert archive_game(store, game.gid) == "busy"
    assert game_keys(store, game.gid) == keys
    dispatch.flush(store, app.extensions["parley_queue"], app.config["PARLEY"], game.gid)
    with store.lock(game.gid, wait=1):  # a flush or a resolve holding the game
        assert archive_game(store, game.gid) == "busy"
    assert archive_game(store, game.gid) == "ok"
    assert _rows(archive) == (1, 2)


def test_a_game_changed_since_its_copy_is_copied_again(app, client, run_jobs) -> None:
    store = app.extensions["parley_store"]
    archive = archive_of(store)
    game = finished_duel(client, run_jobs)
    copied = copy(store, archive, game.gid)
    assert isinstance(copied, Copied)
    store.r.hincrby(game_key(game.gid, "meta"), "events", 1)  # stands in for a later commit
    keys = game_keys(store, game.gid)
    assert swap(store, copied) == "changed"
    assert game_keys(store, game.gid) == keys
    assert archive_game(store, game.gid) == "ok"  # copied again, as it is now
    assert archive.record(game.gid).parts["meta"]["events"] == \
        str(int(copied.record.parts["meta"]["events"]) + 1)
    assert _rows(archive) == (1, 2)
