"""The game store on a real Redis Cluster: three masters of the bundled binary for the whole
session, beside the plain Redis that keeps the queue, the rate limits and the live feeds.

`config` (and so `app`, `client`, `run_jobs`) and `server` are the suite's own fixtures with
the store moved to the cluster, so the tests collected here are the suite's tests run again
against it.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from service.config import Config
from tests.cluster.redis_cluster import LocalCluster
from tests.e2e.conftest import Server, running_server


@pytest.fixture(scope="session")
def redis_cluster() -> Iterator[LocalCluster]:
    data = Path(tempfile.mkdtemp(prefix="parley-cluster-"))
    with LocalCluster(data) as cluster:
        yield cluster
    shutil.rmtree(data, ignore_errors=True)


def cluster_settings(cluster: LocalCluster) -> dict[str, str]:
    return {"PARLEY_STORE_URL": cluster.url, "PARLEY_STORE_CLUSTER": "1"}


@pytest.fixture
def config(config: Config, redis_cluster: LocalCluster,
           monkeypatch: pytest.MonkeyPatch) -> Config:
    """The suite's `config` (a flushed queue Redis) with the store on the flushed cluster."""
    from workers import context

    redis_cluster.flush()
    for name, value in cluster_settings(redis_cluster).items():
        monkeypatch.setenv(name, value)
    for cached in (context.config, context.store, context.queue):
        cached.cache_clear()
    return Config()


@pytest.fixture
def server(redis_url: str, redis_cluster: LocalCluster, tmp_path: Path) -> Iterator[Server]:
    """The suite's running system (`parley web`, a worker) with the store on the cluster."""
    redis.Redis.from_url(redis_url).flushall()
    redis_cluster.flush()
    with running_server(redis_url, tmp_path, **cluster_settings(redis_cluster)) as srv:
        yield srv
