"""`parley run`: the whole system on one machine with embedded defaults.

Starts the bundled Redis (unless REDIS_URL is set), then the processes of `children`: one
web server (`parley web`) on 127.0.0.1:$PARLEY_PORT, one RQ worker with the scheduler, the
stream process and the inbound mail receiver (`parley mail-in`, replies that make moves).
Ctrl-C (or SIGTERM) stops them first, letting in-flight requests and jobs finish, and Redis
last.

Nothing starts while a port it needs is taken (`service.ops.ports`): another Parley on the same
web port would share it with this one. The embedded Redis asks for the password kept in the
data folder, which is its owner's alone (`service.ops.private_data`).

Every child runs in a session of its own, so that a terminal's Ctrl-C reaches only this
supervisor and the stop keeps its order; and every child is tied to the supervisor
(`service.ops.child_process`), so that a supervisor killed outright (`kill -9`) takes them
with it instead of leaving them holding the ports. The web process's own workers stop with
their master.

The web is told whether the run is whole (`service.ops.run_state`): `starting` until every
child is up (the worker registered on the queue, the stream and mail-in ports accepting, the
web's app loaded), `ready` then, and `stopping` from the moment the stop begins, before any child is
signalled. Meanwhile `/v1/health` answers 503 and a request that could change something is
refused with 503 `unavailable`, so a server with a child missing never passes for a whole one.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import redis
from rq import Worker

from service.config import Config, appendfsync, embedded_redis_url
from service.notify import mail
from service.ops import run_state
from service.ops.child_process import die_with_parent
from service.ops.embedded_redis import (
    RedisStartError,
    start_redis,
    stop_redis,
    wait_for_clients_to_leave,
)
from service.ops.ports import PortTaken, ensure_served_ports_free, served_ports
from service.ops.private_data import PasswordFileError, embedded_password, tighten

#: how long each child may take over a graceful stop before it is killed (the web server's own
#: is 20 s, service.web.serve.GRACEFUL_SECONDS)
STOP_SECONDS = 30
#: `parley redis`, stopped alongside its users, waits this long for them to disconnect
#: (honcho kills what has not stopped 5 s after its SIGTERM)
REDIS_LAST_SECONDS = 3.0


def children(config: Config) -> list[tuple[str, list[str]]]:
    """The processes `parley run` starts after Redis, one line each, in start order; they
    stop together, before Redis."""
    parley = [sys.executable, "-m", "service.cli"]
    return [
        ("web", [*parley, "web", "--access-log", "-"]),
        ("worker", [*parley, "worker"]),
        ("stream", [*parley, "stream"]),
        ("mail-in", [*parley, "mail-in"]),
    ]


class StopRequest:
    """Set by SIGINT or SIGTERM: the supervisor stops its children in order instead of dying."""

    def __init__(self) -> None:
        self.requested = False
        signal.signal(signal.SIGINT, self._request)
        signal.signal(signal.SIGTERM, self._request)

    def _request(self, _signum: int, _frame: object) -> None:
        self.requested = True


def _private_data_dir(config: Config) -> None:
    """The data folder (the server key, Redis's files and password, the outbox) 0700."""
    config.DATA_DIR.mkdir(parents=True, exist_ok=True, mode=0o700)
    tighten(config.DATA_DIR, 0o700)


def _start_embedded_redis(config: Config, password: str) -> subprocess.Popen:
    proc = start_redis(config.DATA_DIR / "redis", config.REDIS_PORT, password=password,
                       die_with_parent=True)
    print(f"parley: embedded Redis on 127.0.0.1:{config.REDIS_PORT} (AOF in "
          f"{config.DATA_DIR / 'redis'}, appendfsync {appendfsync()})", flush=True)
    return proc


def run_redis() -> int:
    """The embedded Redis alone, in the foreground (the Procfile's `redis`). On SIGTERM or
    Ctrl-C it lets the other processes disconnect first (up to REDIS_LAST_SECONDS)."""
    config = Config()
    stop = StopRequest()
    try:
        _private_data_dir(config)
        password = embedded_password(config.DATA_DIR)
        proc = _start_embedded_redis(config, password)
    except (RedisStartError, PasswordFileError) as err:
        print(f"parley: {err}", file=sys.stderr, flush=True)
        return 1
    while not stop.requested and proc.poll() is None:
        time.sleep(0.2)
    if proc.poll() is not None:
        print(f"parley: redis-server exited with {proc.returncode}", file=sys.stderr, flush=True)
        return 1
    wait_for_clients_to_leave(config.REDIS_PORT, REDIS_LAST_SECONDS, password)
    stop_redis(proc)
    return 0


def _spawn(argv: list[str], env: dict[str, str]) -> subprocess.Popen:
    return subprocess.Popen(argv, env=env, start_new_session=True,
                            preexec_fn=die_with_parent())


def _accepts(host: str, port: int) -> bool:
    """Whether something listens on `host`:`port` (a wildcard address is reached on loopback)."""
    host = {"": "127.0.0.1", "0.0.0.0": "127.0.0.1", "::": "::1"}.get(host, host)
    try:
        socket.create_connection((host, port), timeout=1).close()
    except OSError:
        return False
    return True


def _all_up(config: Config, procs: dict[str, subprocess.Popen], redis_url: str,
            state: Path) -> Callable[[], bool]:
    """A check that every child is up: the worker child is registered on the queue under its
    own process id (RQ registers a worker once its start-up scan and sweep are done, just
    before it takes its first job), the stream and mail-in ports accept connections, and a
    worker process of the web has loaded the app (it says so, `run_state.announce_up`: no
    request may probe a starting web worker, docs/operations.md "Stopping")."""
    ports = served_ports(config)
    connection = redis.Redis.from_url(redis_url, socket_timeout=2, socket_connect_timeout=2)

    def worker_registered() -> bool:
        try:
            return any(w.pid == procs["worker"].pid for w in Worker.all(connection=connection))
        except redis.RedisError:
            return False

    def up() -> bool:
        return (("worker" not in procs or worker_registered())
                and all(_accepts(*ports[name][:2]) for name in procs
                        if name in ports and name != "web")
                and ("web" not in procs or run_state.up_marker(state, "web").exists()))

    return up


def _supervise(procs: dict[str, subprocess.Popen], stop: StopRequest,
               up: Callable[[], bool], state: Path) -> int:
    """Until a stop is requested (0) or a child exits on its own (1); the run state turns
    `ready` once `up()` says every child is."""
    ready = False
    while not stop.requested:
        for name, proc in procs.items():
            if proc.poll() is not None:
                print(f"parley: {name} exited with {proc.returncode}; stopping", flush=True)
                return 1
        if not ready and up():
            ready = True
            run_state.write(state, run_state.READY)
            print("parley: ready", flush=True)
        time.sleep(0.2)
    return 0


def _stop_all(procs: list[subprocess.Popen]) -> None:
    """SIGTERM to every child at once, then wait for each (killed after STOP_SECONDS)."""
    for proc in procs:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
    for proc in procs:
        try:
            proc.wait(STOP_SECONDS)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def run() -> int:
    config = Config()
    stop = StopRequest()
    _private_data_dir(config)
    env = dict(os.environ)
    env.setdefault("PARLEY_DATA", str(config.DATA_DIR))
    redis_proc = None
    try:
        ensure_served_ports_free(config, [name for name, _ in children(config)])
        if not os.environ.get("REDIS_URL"):  # REDIS_URL unset: start the embedded Redis
            password = embedded_password(config.DATA_DIR)
            redis_proc = _start_embedded_redis(config, password)
            env["REDIS_URL"] = embedded_redis_url(config.DATA_DIR, config.REDIS_PORT, password)
    except (PortTaken, RedisStartError, PasswordFileError) as err:
        print(f"parley: {err}", file=sys.stderr, flush=True)
        return 1
    print(f"parley: mail: {mail.destination(config)}", flush=True)
    state = config.DATA_DIR / "run-state"
    run_state.write(state, run_state.STARTING)
    run_state.up_marker(state, "web").unlink(missing_ok=True)  # a killed run's
    env[run_state.ENV] = str(state)
    procs: dict[str, subprocess.Popen] = {}
    rc = 0
    try:
        if not stop.requested:
            for name, argv in children(config):
                procs[name] = _spawn(argv, env)
            print(f"parley: web on http://127.0.0.1:{config.PORT}/v1, live streams on "
                  f"{config.STREAM_URL}, mail replies to {config.MAIL_IN_HOST}:"
                  f"{config.MAIL_IN_PORT}  (Ctrl-C stops everything)", flush=True)
            rc = _supervise(procs, stop, _all_up(config, procs, env["REDIS_URL"], state),
                            state)
    finally:
        run_state.write(state, run_state.STOPPING)  # before any child hears of the stop
        _stop_all(list(procs.values()))
        state.unlink(missing_ok=True)
        run_state.up_marker(state, "web").unlink(missing_ok=True)
        if redis_proc is not None:
            stop_redis(redis_proc)
    print("parley: stopped", flush=True)
    return rc
