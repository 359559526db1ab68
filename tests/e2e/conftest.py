"""A running system on loopback: real `parley web`, `parley worker` and `parley stream`
processes."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import redis

from service.ops.ports import free_port
from tests.players import Site
from tests.waiting import wait_answering


@dataclass
class Server(Site):
    """The web and worker processes of one test; requests by path on the web (`Site`)."""

    env: dict[str, str] = field(default_factory=dict)
    procs: list[subprocess.Popen] = field(default_factory=list)

    def kill(self, proc: subprocess.Popen) -> None:
        """kill -9 a process and everything it started (an RQ worker's work horse too)."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()

    def start_stream(self) -> subprocess.Popen:
        """The stream process (SSE feeds, long polls) on PARLEY_STREAM_PORT."""
        proc = subprocess.Popen([sys.executable, "-m", "service.cli", "stream"], env=self.env,
                                start_new_session=True)
        self.procs.append(proc)
        wait_answering(f"http://127.0.0.1:{self.env['PARLEY_STREAM_PORT']}/health", proc,
                       "the stream process", 30)
        return proc

    def start_worker(self) -> subprocess.Popen:
        proc = subprocess.Popen([sys.executable, "-m", "service.cli", "worker"], env=self.env,
                                start_new_session=True)
        self.procs.append(proc)
        return proc


@pytest.fixture
def server(redis_url: str, tmp_path: Path) -> Iterator[Server]:
    redis.Redis.from_url(redis_url).flushall()
    with running_server(redis_url, tmp_path) as srv:
        yield srv


@contextlib.contextmanager
def running_server(redis_url: str, data: Path, **settings: str) -> Iterator[Server]:
    """`parley web` and one worker on `redis_url` (and the environment `settings`, such as a
    separate store), stopped on leaving."""
    port = free_port()
    env = {**os.environ, "REDIS_URL": redis_url, "PARLEY_DATA": str(data),
           "PARLEY_PORT": str(port), "PARLEY_SWEEP_SECONDS": "1",
           "PARLEY_STREAM_PORT": str(free_port())}
    env.pop("PARLEY_STORE_URL", None)
    env.pop("PARLEY_STORE_CLUSTER", None)
    env.update(settings)
    srv = Server(f"http://127.0.0.1:{port}", env=env)
    web = subprocess.Popen(
        [sys.executable, "-m", "service.cli", "web", "--port", str(port), "--workers", "2",
         "--log-level", "warning"], env=env, start_new_session=True)
    srv.procs.append(web)
    try:
        wait_answering(srv.url + "/v1/server-key", web, "the web process", 60)
        srv.start_worker()
        yield srv
    finally:
        srv.http.close()
        # a test's end needs no grace (tests/ops/test_shutdown.py tests the graceful stop),
        # and the web server's can last its 20 s (docs/operations.md, "Stopping")
        srv.kill(web)
        for proc in srv.procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc in srv.procs:
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(20)
            srv.kill(proc)
