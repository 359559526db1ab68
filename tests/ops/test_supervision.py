"""Supervision: `parley run` killed outright leaves nothing running, the embedded Redis never
serves from a Redis it did not start, and the Procfile runs and stops cleanly under honcho."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import redis
import requests

from service.ops import embedded_redis
from service.ops.embedded_redis import RedisStartError, start_redis, stop_redis
from service.ops.ports import free_port
from tests.waiting import wait_until

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
#: every process started by a test carries this variable: found again in /proc after the fact
TAG = "SUPERVISION_TEST_TAG"


def _processes() -> dict[int, int]:
    """Every live (not zombie) process and its parent (/proc/<pid>/stat after the name:
    state, parent)."""
    found = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError):
                state, parent = (entry / "stat").read_text().rsplit(")", 1)[1].split()[:2]
                if state != "Z":
                    found[int(entry.name)] = int(parent)
    return found


def _descendants(pid: int) -> set[int]:
    processes, found, todo = _processes(), set(), [pid]
    while todo:
        parent = todo.pop()
        children = {p for p, ppid in processes.items() if ppid == parent}
        found |= children
        todo += children
    return found


def _tagged(tag: str) -> set[int]:
    """The live processes whose environment holds TAG=tag (redis-server overwrites its own
    environment with its title: find it through `_descendants`)."""
    found = set()
    for pid in _processes():
        with contextlib.suppress(OSError):
            if f"{TAG}={tag}".encode() in Path(f"/proc/{pid}/environ").read_bytes():
                found.add(pid)
    return found


def _alive(pids: set[int]) -> set[int]:
    return pids & set(_processes())


def _command_lines(pids: set[int]) -> list[str]:
    lines = []
    for pid in pids:
        with contextlib.suppress(OSError):
            lines.append((Path("/proc") / str(pid) / "cmdline").read_bytes()
                         .replace(b"\0", b" ").decode())
    return lines


def _answers(url: str, path: str = "/v1/server-key") -> bool:
    """Whether GET `path` answers 200 (the health check needs the workers too)."""
    try:
        return requests.get(url + path, timeout=2).status_code == 200
    except requests.RequestException:
        return False


def _healthy(url: str) -> bool:
    return _answers(url, "/v1/health")


def _refused(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=5).close()
    except ConnectionRefusedError:
        return True
    return False


def _port_is_free(port: int) -> bool:
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


@dataclass
class System:
    """The environment of one whole system on free ports, tagged, and the processes seen."""

    env: dict[str, str]
    seen: set[int] = field(default_factory=set)

    @property
    def tag(self) -> str:
        return self.env[TAG]


@pytest.fixture
def system(tmp_path: Path) -> Iterator[System]:
    """Whatever a test leaves running is killed afterwards (and fails the test where it
    matters): the tagged processes, and those it saw (redis-server cannot be found by tag)."""
    env = {**os.environ, TAG: uuid.uuid4().hex,
           "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
           "PARLEY_DATA": str(tmp_path / "data"), "PARLEY_PORT": str(free_port()),
           "PARLEY_STREAM_PORT": str(free_port()), "PARLEY_REDIS_PORT": str(free_port()),
           "PARLEY_MAIL_IN_PORT": str(free_port())}
    for name in ("REDIS_URL", "PARLEY_STORE_URL", "PARLEY_RATE_LIMIT_STORAGE"):
        env.pop(name, None)
    system = System(env)
    yield system
    for pid in _tagged(system.tag) | _alive(system.seen):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def test_a_killed_parley_run_takes_every_process_along(system: System) -> None:
    run = subprocess.Popen([sys.executable, "-m", "service.cli", "run"], env=system.env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           start_new_session=True)
    system.seen.add(run.pid)
    url = f"http://127.0.0.1:{system.env['PARLEY_PORT']}"
    wait_until(lambda: _healthy(url) or run.poll() is not None, 60, "parley run answers")
    assert run.poll() is None
    started = _descendants(run.pid)
    system.seen |= started
    lines = _command_lines(started)
    for part in ("redis-server", "service.cli web", "service.cli worker", "service.cli stream"):
        assert any(part in line for line in lines), (part, lines)

    os.kill(run.pid, signal.SIGKILL)
    run.wait()
    wait_until(lambda: not _alive(started) and not _tagged(system.tag), 15, "every child exits")
    # the ports are free for the next start (once the last threads of the processes are
    # gone: a process whose main thread is a zombie may still hold its sockets a moment)
    for name in ("PARLEY_PORT", "PARLEY_STREAM_PORT", "PARLEY_REDIS_PORT"):
        wait_until(lambda name=name: _port_is_free(int(system.env[name])), 15, name)


def test_a_web_server_killed_outright_takes_its_workers_along(system: System,
                                                              redis_url: str) -> None:
    """An orphaned worker would go on serving the port beside the next server started."""
    env = {**system.env, "REDIS_URL": redis_url}
    web = subprocess.Popen([sys.executable, "-m", "service.cli", "web", "--workers", "2"],
                           env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           start_new_session=True)
    system.seen.add(web.pid)
    port = int(env["PARLEY_PORT"])
    url = f"http://127.0.0.1:{port}"
    wait_until(lambda: _answers(url) and len(_descendants(web.pid)) == 2, 60,
               "two workers serve the port")
    workers = _descendants(web.pid)
    system.seen |= workers
    os.kill(web.pid, signal.SIGKILL)
    web.wait()
    wait_until(lambda: not _alive(workers), 15, "the workers exit")
    # and nothing listens there any more (once the workers' last threads are gone; a bind
    # test could fail for a reason of its own: the port is in the ephemeral range, and
    # another test's outgoing connection may take it)
    wait_until(lambda: _refused(port), 15, "nothing listens on the port")


@pytest.fixture
def foreign_redis(tmp_path: Path) -> Iterator[tuple[int, redis.Redis]]:
    """A Redis that no Parley started, holding one key."""
    port = free_port()
    proc = start_redis(tmp_path / "foreign", port, appendfsync="no")
    client = redis.Redis(port=port)
    client.set("foreign-key", "1")
    yield port, client
    client.close()
    stop_redis(proc)


@pytest.mark.parametrize("command", ["run", "redis"])
def test_a_taken_redis_port_is_refused(system: System, foreign_redis, command: str) -> None:
    port, foreign = foreign_redis
    env = {**system.env, "PARLEY_REDIS_PORT": str(port)}
    done = subprocess.run([sys.executable, "-m", "service.cli", command], env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert "PARLEY_REDIS_PORT" in done.stderr and f"port {port}" in done.stderr
    assert "Traceback" not in done.stderr
    assert foreign.keys("*") == [b"foreign-key"]  # nothing written into the other Redis
    assert not _tagged(system.tag)  # and nothing left running
    assert _port_is_free(int(env["PARLEY_PORT"]))


def test_a_redis_answering_for_another_process_is_refused(
        tmp_path: Path, foreign_redis, monkeypatch: pytest.MonkeyPatch) -> None:
    """The port was free when checked but another server took it before ours could: the
    server that answers is not ours (its process id), whatever its PING says."""
    port, foreign = foreign_redis
    monkeypatch.setattr(embedded_redis, "_ensure_port_free", lambda _port: None)
    before = _descendants(os.getpid())
    with pytest.raises(RedisStartError, match="PARLEY_REDIS_PORT"):
        start_redis(tmp_path / "mine", port)
    assert _descendants(os.getpid()) == before  # our redis-server was stopped
    assert foreign.keys("*") == [b"foreign-key"]


def test_the_procfile_runs_and_stops_cleanly_under_honcho(system: System,
                                                           tmp_path: Path) -> None:
    """`honcho start` with the README's settings only (ports, to run beside other tests, and
    the data folder under the working directory); Ctrl-C stops every process within honcho's
    grace period, without a traceback."""
    env = system.env
    env.pop("PARLEY_DATA")  # the default: ./var of the working directory
    log = tmp_path / "honcho.log"
    with log.open("wb") as out:
        honcho = subprocess.Popen([str(BIN / "honcho"), "-f", str(ROOT / "Procfile"), "start"],
                                  cwd=tmp_path, env=env, stdout=out, stderr=subprocess.STDOUT,
                                  start_new_session=True)
    system.seen.add(honcho.pid)
    url = f"http://127.0.0.1:{env['PARLEY_PORT']}"
    wait_until(lambda: _healthy(url) or honcho.poll() is not None, 60, "the Procfile answers")
    assert honcho.poll() is None, log.read_text()
    started = _descendants(honcho.pid)
    system.seen |= started
    lines = _command_lines(started)
    for part in ("redis-server", "parley web", "parley worker", "parley stream"):
        assert any(part in line for line in lines), (part, lines)
    assert (tmp_path / "var" / "redis" / "redis.log").exists()  # the default data folder

    honcho.send_signal(signal.SIGINT)  # Ctrl-C
    honcho.wait(30)
    output = log.read_text()
    assert "Traceback" not in output, output
    assert "SIGKILL" not in output, output  # everything stopped on SIGTERM, in time
    wait_until(lambda: not _alive(started) and not _tagged(system.tag), 10,
               "every process exits")
