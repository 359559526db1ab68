"""The embedded Redis is its owner's alone: every local user can reach 127.0.0.1, and its AOF
holds unrevealed seeds and setups. It refuses a client without the password kept in the data
folder, the folders are 0700 and the files 0600, and the password outlives a restart."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import redis

from service.config import Config
from service.ops.embedded_redis import start_redis, stop_redis
from service.ops.ports import free_port
from service.ops.private_data import PASSWORD_FILE, embedded_password
from tests.ops.test_supervision import System
from tests.waiting import wait_until

pytestmark = pytest.mark.slow


def _mode(path: Path) -> int:
    return path.stat().st_mode & 0o777


def _unauthenticated(port: int) -> bytes:
    """What the Redis on `port` answers a PING from a client that gives no password."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(b"PING\r\n")
        return sock.recv(200)


def _parley_redis(env: dict[str, str]) -> subprocess.Popen:
    """`parley redis` (the Procfile's line), once it serves."""
    proc = subprocess.Popen([sys.executable, "-m", "service.cli", "redis"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    port = int(env["PARLEY_REDIS_PORT"])

    def serving() -> bool:
        assert proc.poll() is None, proc.stderr.read()
        try:
            return _unauthenticated(port) != b""
        except OSError:
            return False

    wait_until(serving, 30, "parley redis serves")
    return proc


def _stop(proc: subprocess.Popen) -> None:
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(30) == 0


def test_the_embedded_redis_asks_every_client_for_the_password(
        system: System, monkeypatch: pytest.MonkeyPatch) -> None:
    env, data = system.env, Path(system.env["PARLEY_DATA"])
    for name in ("PARLEY_DATA", "PARLEY_REDIS_PORT"):  # as the other processes read them
        monkeypatch.setenv(name, env[name])
    monkeypatch.delenv("REDIS_URL", raising=False)
    port = int(env["PARLEY_REDIS_PORT"])
    proc = _parley_redis(env)
    try:
        assert _unauthenticated(port).startswith(b"-NOAUTH")
        password = (data / PASSWORD_FILE).read_text().strip()
        with pytest.raises(redis.AuthenticationError):
            redis.Redis(port=port, password="a-guess").ping()
        # what every process of this data folder uses: the default REDIS_URL
        assert f":{password}@" in Config().REDIS_URL
        client = redis.Redis.from_url(Config().REDIS_URL)
        client.set("kept", "1")
        client.close()
        _stop(proc)
        proc = _parley_redis(env)  # a restart keeps the password, and the data
        assert (data / PASSWORD_FILE).read_text().strip() == password
        assert _unauthenticated(port).startswith(b"-NOAUTH")
        assert redis.Redis(port=port, password=password).get("kept") == b"1"
    finally:
        _stop(proc)


def test_the_data_folder_and_redis_files_are_the_owners_alone(system: System) -> None:
    """Made 0700 and 0600 at the first start; those an older start left readable by every
    user are tightened at the next."""
    data = Path(system.env["PARLEY_DATA"])
    redis_dir = data / "redis"
    redis_dir.mkdir(parents=True, mode=0o755)
    data.chmod(0o755)
    redis_dir.chmod(0o755)
    (redis_dir / "redis.log").write_text("an older start's log\n")
    (redis_dir / "redis.log").chmod(0o644)
    _stop(_parley_redis(system.env))
    aof = redis_dir / "appendonly.aof"
    assert aof.exists()
    assert _mode(data) == 0o700 and _mode(redis_dir) == 0o700
    for path in (data / PASSWORD_FILE, aof, redis_dir / "redis.log"):
        assert _mode(path) == 0o600, path
    # an older Redis's files, readable by all
    aof.chmod(0o644)
    (data / PASSWORD_FILE).chmod(0o644)
    data.chmod(0o755)
    _stop(_parley_redis(system.env))
    assert _mode(data) == 0o700 and _mode(redis_dir) == 0o700
    for path in (data / PASSWORD_FILE, aof, redis_dir / "redis.log"):
        assert _mode(path) == 0o600, path


def test_processes_started_together_agree_on_one_password(tmp_path: Path) -> None:
    """A Procfile runner starts every process at once, on a data folder with no password
    yet: whichever comes first makes it, and every one reads the same."""
    racers = [subprocess.Popen([sys.executable, "-c", RACE, str(tmp_path)],
                               stdout=subprocess.PIPE, text=True) for _ in range(6)]
    made = {racer.communicate(timeout=60)[0].strip() for racer in racers}
    assert len(made) == 1
    assert made == {(tmp_path / PASSWORD_FILE).read_text().strip()}
    assert [path.name for path in tmp_path.iterdir()] == [PASSWORD_FILE]  # nothing left over


RACE = """
import sys
from pathlib import Path
from service.ops.private_data import embedded_password
print(embedded_password(Path(sys.argv[1])))
"""


def test_parley_run_gives_the_password_to_every_process(system: System) -> None:
    """`parley run`: the web server, the workers, the stream and mail-in all reach the
    Redis that refuses clients without the password (the health check needs a worker)."""
    from tests.ops.test_supervision import _healthy

    run = subprocess.Popen([sys.executable, "-m", "service.cli", "run"], env=system.env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                           start_new_session=True)
    system.seen.add(run.pid)
    try:
        url = f"http://127.0.0.1:{system.env['PARLEY_PORT']}"
        wait_until(lambda: _healthy(url) or run.poll() is not None, 60, "parley run answers")
        assert run.poll() is None, run.stderr.read()
        assert _unauthenticated(int(system.env["PARLEY_REDIS_PORT"])).startswith(b"-NOAUTH")
        fsck = subprocess.run([sys.executable, "-m", "service.cli", "fsck"], env=system.env,
                              capture_output=True, text=True, timeout=60)
        assert fsck.returncode == 0, fsck.stderr
    finally:
        run.send_signal(signal.SIGTERM)
        run.wait(60)
    assert run.returncode == 0


def test_a_redis_url_of_ones_own_is_used_as_it_is(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """An external Redis (REDIS_URL set) is not given the embedded one's password, and a
    Redis started without one (the test suite's) asks none."""
    embedded_password(tmp_path)
    monkeypatch.setenv("PARLEY_DATA", str(tmp_path))
    port = free_port()
    proc = start_redis(tmp_path / "redis", port, appendfsync="no")
    try:
        url = f"redis://127.0.0.1:{port}/0"
        monkeypatch.setenv("REDIS_URL", url)
        config = Config()
        assert config.REDIS_URL == config.STORE_URL == url
        assert redis.Redis.from_url(config.REDIS_URL).ping()
        assert _unauthenticated(port) == b"+PONG\r\n"
    finally:
        stop_redis(proc)

