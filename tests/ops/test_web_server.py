"""`parley web` on the wire: keep-alive, its idle limit, the server's own refusals, and a
worker that dies."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from service.ops.ports import free_port
from service.web.serve import KEEP_ALIVE_SECONDS
from tests.ops.test_supervision import _descendants
from tests.waiting import wait_until

pytestmark = pytest.mark.slow


@contextlib.contextmanager
def quiet_web_server(redis_url: str, data: Path, workers: int = 2
                     ) -> Iterator[tuple[subprocess.Popen, int]]:
    """`parley web` and its port, answered only once every worker has started (it logs
    each start) and listens on the port (on Linux each worker binds the port itself, a moment
    after its start is logged), and a moment more: no connection reaches a worker still
    starting. Counted from the kernel's socket table, not by connecting: a probe that
    connects and hangs up is itself the kind of connection that can hang a starting worker's
    later stop (docs/operations.md, "Stopping")."""
    port = free_port()
    env = {**os.environ, "REDIS_URL": redis_url, "PARLEY_DATA": str(data)}
    web = subprocess.Popen([sys.executable, "-m", "service.cli", "web", "--port", str(port),
                            "--workers", str(workers)], env=env, stderr=subprocess.PIPE,
                           text=True, start_new_session=True)
    try:
        started = 0
        while started < workers:
            line = web.stderr.readline()
            assert line, "the web server exited"
            started += "Started worker" in line
        wait_until(lambda: _listeners(port) >= workers, 10, "every worker listens")
        time.sleep(STARTED_SECONDS)
        yield web, port
    finally:
        if web.poll() is None:
            os.killpg(web.pid, signal.SIGKILL)
            web.wait()


#: how long a worker is given after it listens before a connection may reach it
STARTED_SECONDS = 0.5


def _listeners(port: int) -> int:
    """How many sockets listen on `port` (the kernel's table: /proc/net/tcp and tcp6)."""
    count = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(FileNotFoundError), open(table) as rows:
            next(rows)  # the header
            for row in rows:
                _, local, _, state = row.split()[:4]
                count += int(local.rsplit(":", 1)[1], 16) == port and state == "0A"  # LISTEN
    return count


def get(sock: socket.socket, path: bytes) -> bytes:
    """One GET on a kept-alive connection: the whole response, read to its Content-Length."""
    sock.sendall(b"GET " + path + b" HTTP/1.1\r\nHost: test\r\n\r\n")
    response = b""
    while b"\r\n\r\n" not in response or len(response) < _length(response):
        chunk = sock.recv(65536)
        assert chunk, response
        response += chunk
    return response


def _length(response: bytes) -> int:
    head, _, _ = response.partition(b"\r\n\r\n")
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return len(head) + 4 + int(value)
    raise AssertionError(f"no Content-Length: {head!r}")


@pytest.fixture(scope="module")
def web_port(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    with quiet_web_server(redis_url, tmp_path_factory.mktemp("web"), workers=1) as (_, port):
        yield port


def test_a_connection_is_kept_alive_between_requests(web_port: int) -> None:
    with socket.create_connection(("127.0.0.1", web_port), timeout=10) as sock:
        for _ in range(3):
            assert get(sock, b"/v1/server-key").startswith(b"HTTP/1.1 200")


def test_an_idle_connection_is_closed_after_the_keep_alive_limit(web_port: int) -> None:
    with socket.create_connection(("127.0.0.1", web_port), timeout=30) as sock:
        assert get(sock, b"/v1/server-key").startswith(b"HTTP/1.1 200")
        idle_from = time.monotonic()
        assert sock.recv(65536) == b""
        idle = time.monotonic() - idle_from
    assert KEEP_ALIVE_SECONDS - 1 < idle < KEEP_ALIVE_SECONDS + 3


def test_a_long_path_reaches_the_app_and_an_overlong_one_is_refused(web_port: int) -> None:
    """Up to 65,534 bytes the app answers with problem JSON (tests/fuzz relies on it)."""
    with socket.create_connection(("127.0.0.1", web_port), timeout=10) as sock:
        response = get(sock, b"/v1/games/g_" + b"x" * 60_000)
        assert response.startswith(b"HTTP/1.1 404")
        assert b"application/problem+json" in response
    with socket.create_connection(("127.0.0.1", web_port), timeout=10) as sock:
        sock.sendall(b"GET /v1/games/g_" + b"x" * 70_000 + b" HTTP/1.1\r\nHost: test\r\n\r\n")
        assert sock.recv(65536).startswith(b"HTTP/1.1 414")


@pytest.mark.parametrize("header", [b"Content-Length: U-UY]", b"Transfer-Encoding: U-UY]"])
def test_a_malformed_length_or_encoding_is_refused_by_the_server(web_port: int,
                                                                 header: bytes) -> None:
    """The server's HTTP layer answers it (400, an empty body) before the app: tests/fuzz
    checks such requests only for "no 5xx"."""
    with socket.create_connection(("127.0.0.1", web_port), timeout=10) as sock:
        sock.sendall(b"GET /v1/server-key HTTP/1.1\r\nHost: test\r\n" + header + b"\r\n\r\n")
        response = sock.recv(65536)
    assert response.startswith(b"HTTP/1.1 400")
    assert b"application/problem+json" not in response


def test_a_worker_that_dies_is_started_again(redis_url: str, tmp_path: Path) -> None:
    with quiet_web_server(redis_url, tmp_path) as (web, port):
        first = _descendants(web.pid)
        assert len(first) == 2
        os.kill(min(first), signal.SIGKILL)
        wait_until(lambda: web.poll() is not None or _descendants(web.pid) - first, 30,
                  "granian starts another worker")
        assert web.poll() is None, "the web server exited"
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            assert get(sock, b"/v1/server-key").startswith(b"HTTP/1.1 200")
        assert len(_descendants(web.pid)) == 2  # the dead one reaped, the new one serving
