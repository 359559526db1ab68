"""A port another server listens on is refused before anything starts serving: a second
Parley on the same web port would otherwise share it with the first (granian's workers bind
with SO_REUSEPORT), and the kernel would split the requests between two servers with
different data."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from service.ops.ports import PortTaken, ensure_free
from tests.ops.test_supervision import System, _answers, _port_is_free, _tagged
from tests.ops.test_web_server import quiet_web_server

pytestmark = pytest.mark.slow

#: a refusal comes before anything starts: well within this, Python's start included
REFUSED_WITHIN = 20


@contextlib.contextmanager
def listener() -> Iterator[int]:
    """A socket listening on a free port of 127.0.0.1 with SO_REUSEPORT, as each of granian's
    workers binds: the kind of listener another socket could share the port with."""
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        yield sock.getsockname()[1]


def _refused(argv: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    """`parley <argv>` run to its end; it must end, with status 1, within REFUSED_WITHIN."""
    started = time.monotonic()
    try:
        done = subprocess.run([sys.executable, "-m", "service.cli", *argv], env=env,
                              capture_output=True, text=True, timeout=REFUSED_WITHIN,
                              start_new_session=True)
    except subprocess.TimeoutExpired as err:
        raise AssertionError(f"parley {' '.join(argv)} served on a taken port") from err
    assert done.returncode == 1, done.stderr
    assert time.monotonic() - started < REFUSED_WITHIN
    assert "Traceback" not in done.stderr, done.stderr
    return done


@pytest.mark.parametrize("setting", ["PARLEY_PORT", "PARLEY_STREAM_PORT",
                                     "PARLEY_MAIL_IN_PORT"])
def test_parley_run_refuses_a_taken_port_before_starting_anything(system: System,
                                                                  setting: str) -> None:
    with listener() as port:
        env = {**system.env, setting: str(port)}
        done = _refused(["run"], env)
    assert f"port {port}" in done.stderr and setting in done.stderr
    assert not _tagged(system.tag)  # nothing left running
    assert not (Path(env["PARLEY_DATA"]) / "redis" / "redis.log").exists()  # Redis not started
    for other in ("PARLEY_PORT", "PARLEY_STREAM_PORT", "PARLEY_MAIL_IN_PORT", "PARLEY_REDIS_PORT"):
        if other != setting:
            assert _port_is_free(int(env[other])), other


@pytest.mark.parametrize(("command", "setting"), [("stream", "PARLEY_STREAM_PORT"),
                                                  ("mail-in", "PARLEY_MAIL_IN_PORT")])
def test_a_process_refuses_its_taken_port(system: System, redis_url: str, command: str,
                                          setting: str) -> None:
    with listener() as port:
        done = _refused([command], {**system.env, "REDIS_URL": redis_url, setting: str(port)})
    assert f"port {port}" in done.stderr and setting in done.stderr


def test_a_second_web_server_on_the_port_of_another_is_refused(system: System,
                                                               redis_url: str,
                                                               tmp_path: Path) -> None:
    """The issue's case: a second `parley web`, with data of its own, on a port a first one
    serves; it exits at once, and the first goes on serving every request."""
    with quiet_web_server(redis_url, tmp_path / "first") as (first, port):
        env = {**system.env, "REDIS_URL": redis_url, "PARLEY_DATA": str(tmp_path / "second"),
               "PARLEY_PORT": str(port)}
        done = _refused(["web"], env)
        assert f"port {port}" in done.stderr and "PARLEY_PORT" in done.stderr
        done = _refused(["web", "--port", str(port)], env)
        assert f"port {port}" in done.stderr and "--port" in done.stderr
        assert first.poll() is None
        assert _answers(f"http://127.0.0.1:{port}")


def test_a_closed_connection_does_not_take_the_port() -> None:
    """A server stopped a moment ago leaves its closed connections in TIME_WAIT on the port;
    they are no listener, and a restart on the same port is not refused."""
    with listener() as port, pytest.raises(PortTaken, match=f"port {port} on 127.0.0.1"):
        ensure_free("127.0.0.1", port, "SETTING")
    with socket.socket() as server:
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind(("127.0.0.1", port))
        server.listen()
        with socket.create_connection(("127.0.0.1", port)) as client:
            accepted, _ = server.accept()
            accepted.close()  # the server side closes first: TIME_WAIT on the port
            client.recv(1)
    assert _time_wait_on(port)
    ensure_free("127.0.0.1", port, "SETTING")


def _time_wait_on(port: int) -> bool:
    """Whether a connection of local port `port` is in TIME_WAIT (the kernel's table)."""
    with open("/proc/net/tcp") as rows:
        next(rows)
        return any(int(local.rsplit(":", 1)[1], 16) == port and state == "06"
                   for _, local, _, state, *_ in (row.split() for row in rows))
