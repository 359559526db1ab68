"""The restore drill of docs/operations.md: back up a running Redis (its AOF, or an RDB
snapshot), lose it, start a new Redis from the copy; fsck passes and the game goes on."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest
import redis
from rq import SimpleWorker

from service.config import Config
from service.ops import fsck
from service.ops.embedded_redis import start_redis, stop_redis
from service.ops.ports import free_port
from tests.api.helpers import post_move, view
from tests.ops.helpers import play_duel
from tests.waiting import wait_until

pytestmark = pytest.mark.slow


def _app(url: str, monkeypatch: pytest.MonkeyPatch):
    from service.web.app import create_app
    from workers import context

    monkeypatch.setenv("REDIS_URL", url)
    for cached in (context.config, context.store, context.queue):
        cached.cache_clear()
    app = create_app(Config())
    app.config["TESTING"] = True
    return app


def _jobs(app):
    def run() -> None:
        queue = app.extensions["parley_queue"]
        SimpleWorker([queue], connection=queue.connection).work(burst=True,
                                                               logging_level="WARNING")
    return run


def _continue(app, gid: str, players) -> None:
    """One more move on the restored store, applied by a worker."""
    client = app.test_client()
    seat = client.get(f"/v1/games/{gid}").get_json()["to_act"][0]
    v = view(client, gid, players[seat])
    resp = post_move(client, gid, players[seat], seat, v["legal_moves"][0], step=v["step"])
    assert resp.status_code == 202, resp.get_json()
    _jobs(app)()
    assert client.get(resp.headers["Location"]).get_json()["status"] == "applied"
    assert all(c.ok for c in fsck.fsck(app.extensions["parley_store"]))


def test_backup_and_restore_drill(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PARLEY_DATA", str(tmp_path / "data"))  # the same server key throughout
    live_dir, port = tmp_path / "live", free_port()
    live = start_redis(live_dir, port, appendfsync="always")
    try:
        app = _app(f"redis://127.0.0.1:{port}/0", monkeypatch)
        client = app.test_client()
        gid, players = play_duel(client, _jobs(app), moves=4, seed=11)
        finished, _ = play_duel(client, _jobs(app), moves=2, seed=12, resign=True,
                                names=("cy", "dee"))
        # backup 1: copy the AOF (appendfsync always: every acknowledged write is in it)
        aof_copy = tmp_path / "backup-aof"
        aof_copy.mkdir()
        shutil.copy2(live_dir / "appendonly.aof", aof_copy / "appendonly.aof")
        # backup 2: an RDB snapshot (BGSAVE), copied once LASTSAVE moves
        r = redis.Redis(port=port)
        before = r.lastsave()
        # LASTSAVE counts whole seconds: a snapshot within the second of `before` (Redis's
        # start, on a fast run) would leave it where it was
        wait_until(lambda: time.time() >= before.timestamp() + 1, 2, "the next second",
                   interval=0.05)
        r.bgsave()
        wait_until(lambda: r.lastsave() != before, 20, "the snapshot (BGSAVE)", interval=0.05)
        rdb_copy = tmp_path / "backup-rdb"
        rdb_copy.mkdir()
        shutil.copy2(live_dir / "dump.rdb", rdb_copy / "dump.rdb")
    finally:
        stop_redis(live)  # the machine is lost
    shutil.rmtree(live_dir)

    # restore from the AOF copy: start Redis on it as it is
    port2 = free_port()
    restored = start_redis(aof_copy, port2)
    try:
        app2 = _app(f"redis://127.0.0.1:{port2}/0", monkeypatch)
        checks = fsck.fsck(app2.extensions["parley_store"])
        assert {c.game for c in checks} == {gid, finished}
        assert all(c.ok for c in checks), [c.render() for c in checks]
        _continue(app2, gid, players)
    finally:
        stop_redis(restored)

    # restore from the RDB copy: load it with AOF off, then turn AOF on (Redis rewrites it)
    port3 = free_port()
    restored = start_redis(rdb_copy, port3, extra=["--appendonly", "no",
                                                   "--dbfilename", "dump.rdb"])
    try:
        r3 = redis.Redis(port=port3)
        r3.config_set("appendonly", "yes")
        wait_until(lambda: not any(r3.info("persistence")[field] for field in (
            "aof_rewrite_in_progress", "aof_rewrite_scheduled")), 20, "the AOF rewrite",
            interval=0.05)
        assert r3.config_get("appendonly")["appendonly"] == "yes"
        app3 = _app(f"redis://127.0.0.1:{port3}/0", monkeypatch)
        assert all(c.ok for c in fsck.fsck(app3.extensions["parley_store"]))
        _continue(app3, gid, players)
    finally:
        stop_redis(restored)
