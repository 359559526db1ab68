"""A whole Parley on loopback that can be killed piece by piece: Redis, web, workers.

Used by the crash soak (`python -m tests.soak`) and the fuzz tests. Redis is the bundled binary
(service/ops/embedded_redis.py) with AOF and `appendfsync always`: the promise under test is that a
move
acknowledged with 202 is never lost, and only `always` writes and fsyncs every change before
Redis answers. With `everysec` Redis may answer before a write reaches the disk (and, while a
slow fsync runs, before it reaches the kernel), so a crash can lose up to about a second.
Every process gets its own session, so a kill -9 reaches the whole process group (the web
server's workers, an RQ worker's work horse); their output goes to log files in the data directory.

With `store_cluster` the game store is a Redis Cluster of three masters of the same binary
(tests/cluster/redis_cluster.py, AOF `always` too) and the Redis above keeps the queue, the rate
limits and the live feeds; `restart_store_node` kill -9s one of its nodes.
"""

from __future__ import annotations

import contextlib
import os
import random
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import redis
import requests

from service.ops.embedded_redis import start_redis, stop_redis
from service.ops.ports import free_port
from tests.cluster.redis_cluster import LocalCluster

#: rate limits (service/config.py) generous enough for many clients on one address: the limiter
#: still runs (and meets the Redis restarts) but never refuses; the limits are tested elsewhere
GENEROUS_LIMITS = {
    "PARLEY_LIMIT_MOVES_PER_PLAYER": "100000/minute",
    "PARLEY_LIMIT_MOVES_PER_ADDRESS": "100000/minute",
    "PARLEY_LIMIT_REGISTER_PER_ADDRESS": "100000/minute",
    "PARLEY_LIMIT_CREATE_PER_PLAYER": "100000/minute",
    "PARLEY_LIMIT_CREATE_PER_ADDRESS": "100000/minute",
    "PARLEY_MAX_OPEN_GAMES": "10000",
}


@dataclass
class Cluster:
    """Redis, one web server (with `web_workers` workers) and `workers` RQ workers."""

    data: Path
    workers: int = 3
    web_workers: int = 2
    redis_port: int = field(default_factory=free_port)
    web_port: int = field(default_factory=free_port)
    env: dict[str, str] = field(default_factory=dict)
    store_cluster: bool = False
    store: LocalCluster | None = None
    redis_proc: subprocess.Popen | None = None
    web_proc: subprocess.Popen | None = None
    worker_procs: list[subprocess.Popen] = field(default_factory=list)
    restarts: dict[str, int] = field(default_factory=lambda: {"worker": 0, "web": 0,
                                                              "redis": 0, "store": 0})
    _logs: list[IO[bytes]] = field(default_factory=list)
    _started: int = 0

    def __post_init__(self) -> None:
        self.data.mkdir(parents=True, exist_ok=True)
        env = {**os.environ, **GENEROUS_LIMITS}
        env.update({
            "REDIS_URL": self.redis_url, "PARLEY_DATA": str(self.data),
            "PARLEY_PORT": str(self.web_port), "PARLEY_BASE_URL": self.url,
            "PARLEY_SWEEP_SECONDS": "1", "PARLEY_LOCK_WAIT": "2",
            "PARLEY_REDIS_APPENDFSYNC": "always",
        })
        env.pop("PARLEY_STORE_URL", None)
        env.pop("PARLEY_STORE_CLUSTER", None)
        if self.store_cluster:
            self.store = LocalCluster(self.data / "store", appendfsync="always")
        self.env = {**env, **self.env}

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.web_port}"

    @property
    def redis_url(self) -> str:
        return f"redis://127.0.0.1:{self.redis_port}/0"

    def redis(self) -> redis.Redis:
        """A client of the game store: the Redis, or the store's cluster."""
        if self.store is not None:
            return redis.RedisCluster.from_url(self.store.url, decode_responses=True,
                                               socket_timeout=10)
        return redis.Redis.from_url(self.redis_url, decode_responses=True, socket_timeout=10)

    # ---- starting ---------------------------------------------------------------------------

    def start(self) -> Cluster:
        self.start_redis()
        if self.store is not None:
            self.store.start()
            self.env.update({"PARLEY_STORE_URL": self.store.url, "PARLEY_STORE_CLUSTER": "1"})
        self.start_web()
        for i in range(self.workers):
            self.worker_procs.append(self._spawn_worker(i))
        return self

    def start_redis(self) -> None:
        """Start (or restart from its AOF: same port, same directory) the Redis server."""
        self.redis_proc = start_redis(self.data / "redis", self.redis_port, appendfsync="always")

    def start_web(self, wait: float = 60) -> None:
        self.web_proc = self._spawn(
            "web", [sys.executable, "-m", "service.cli", "web", "--port", str(self.web_port),
                    "--workers", str(self.web_workers), "--log-level", "warning"])
        self.wait_web(wait)

    def wait_web(self, wait: float = 60) -> None:
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            if self.web_proc is None or self.web_proc.poll() is not None:
                raise RuntimeError(f"the web process exited; see {self.data}/web-*.log")
            try:
                requests.get(self.url + "/v1/server-key", timeout=5)
                return
            except requests.RequestException:
                time.sleep(0.1)
        raise RuntimeError("the web process did not answer")

    def _spawn_worker(self, i: int) -> subprocess.Popen:
        # both worker classes: the forking one (a kill may hit the work horse) and SimpleWorker
        env = {"PARLEY_WORKER_CLASS": "simple" if i % 2 else "fork"}
        return self._spawn("worker", [sys.executable, "-m", "service.cli", "worker"], env)

    def _spawn(self, name: str, args: list[str], env: dict[str, str] | None = None
               ) -> subprocess.Popen:
        self._started += 1
        log = open(self.data / f"{name}-{self._started}.log", "wb")  # noqa: SIM115
        self._logs.append(log)
        return subprocess.Popen(args, env={**self.env, **(env or {})}, stdout=log,
                                stderr=subprocess.STDOUT, start_new_session=True)

    # ---- killing ----------------------------------------------------------------------------

    @staticmethod
    def kill(proc: subprocess.Popen | None, group: bool = True) -> None:
        """kill -9 a process and its whole group (the web server's workers, RQ's work horse)."""
        if proc is None:
            return
        if group:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        proc.wait()

    def kill_worker(self, chooser: random.Random) -> None:
        """kill -9 one worker at random and start another in its place."""
        i = chooser.randrange(len(self.worker_procs))
        self.kill(self.worker_procs[i])
        self.worker_procs[i] = self._spawn_worker(i)
        self.restarts["worker"] += 1

    def restart_web(self) -> None:
        """kill -9 the web server (its master and workers) and start it on the same port."""
        self.kill(self.web_proc)
        self.start_web()
        self.restarts["web"] += 1

    def restart_redis(self, down: float = 0.0) -> None:
        """kill -9 Redis, stay down `down` seconds, and start it again from its AOF."""
        self.kill(self.redis_proc, group=False)  # started in our session: the process alone
        time.sleep(down)
        self.start_redis()
        self.restarts["redis"] += 1

    def restart_store_node(self, chooser: random.Random, down: float = 0.0) -> None:
        """kill -9 one node of the store's cluster at random, stay down `down` seconds, and
        start it again from its AOF (it rejoins by itself)."""
        assert self.store is not None
        i = chooser.randrange(self.store.masters)
        self.store.kill_node(i)
        time.sleep(down)
        self.store.start_node(i)
        self.restarts["store"] += 1

    def revive(self) -> list[str]:
        """Restart whatever exited on its own (a worker that lost Redis); names what it did."""
        done = []
        if self.redis_proc is None or self.redis_proc.poll() is not None:
            self.start_redis()
            done.append("redis")
        for i in self.store.exited() if self.store is not None else ():
            self.store.start_node(i)
            done.append(f"store node {i}")
        if self.web_proc is None or self.web_proc.poll() is not None:
            self.kill(self.web_proc)
            self.start_web()
            done.append("web")
        for i, proc in enumerate(self.worker_procs):
            if proc.poll() is not None:
                self.worker_procs[i] = self._spawn_worker(i)
                done.append(f"worker {i}")
        return done

    def stop(self) -> None:
        """SIGTERM web and workers (then kill -9 what lingers); Redis last, flushing its AOF."""
        procs = [p for p in [self.web_proc, *self.worker_procs] if p is not None]
        for proc in procs:
            if proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGTERM)
        for proc in procs:
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(15)
            self.kill(proc)
        if self.redis_proc is not None:
            stop_redis(self.redis_proc)
        if self.store is not None:
            self.store.stop()
        for log in self._logs:
            log.close()

    def __enter__(self) -> Cluster:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
