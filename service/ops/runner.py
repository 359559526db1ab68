"""`parley run`: the whole system on one machine with embedded defaults.

Starts the bundled Redis (unless REDIS_URL is set), one gunicorn web process on
127.0.0.1:$PARLEY_PORT and one RQ worker with the scheduler; Ctrl-C (or SIGTERM) stops the web
and the worker first, letting in-flight requests and jobs finish, and Redis last.
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import time

from service.config import Config, appendfsync
from service.ops.embedded_redis import start_redis, stop_redis

log = logging.getLogger(__name__)



def run_redis() -> int:
    """The embedded Redis alone, in the foreground (the Procfile's `redis`)."""
    config = Config()
    port = config.REDIS_PORT
    proc = start_redis(config.DATA_DIR / "redis", port)
    print(f"parley: embedded Redis on 127.0.0.1:{port}; set REDIS_URL=redis://127.0.0.1:{port}/0",
          flush=True)
    signal.signal(signal.SIGTERM, lambda *_: stop_redis(proc))
    try:
        return proc.wait()
    except KeyboardInterrupt:
        stop_redis(proc)
        return 0


def run() -> int:
    config = Config()
    env = dict(os.environ)
    redis_proc = None
    config.DATA_DIR.mkdir(parents=True, exist_ok=True)
    if not os.environ.get("REDIS_URL"):  # REDIS_URL unset: Config's default is no server
        port = config.REDIS_PORT
        redis_proc = start_redis(config.DATA_DIR / "redis", port)
        env["REDIS_URL"] = f"redis://127.0.0.1:{port}/0"
        print(f"parley: embedded Redis on 127.0.0.1:{port} (AOF in {config.DATA_DIR / 'redis'}, "
              f"appendfsync {appendfsync()})", flush=True)
    env.setdefault("PARLEY_DATA", str(config.DATA_DIR))
    web = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "-c", "python:service.web.gunicorn_conf",
         "--bind", f"127.0.0.1:{config.PORT}",
         "--workers", str(config.WEB_PROCESSES),
         "--access-logfile", "-", "service.web.wsgi:app"], env=env, start_new_session=True)
    # own sessions: a terminal's Ctrl-C reaches only this supervisor, which then stops the
    # children gracefully (SIGTERM) in order
    worker = subprocess.Popen([sys.executable, "-m", "service.cli", "worker"], env=env,
                              start_new_session=True)
    stream = subprocess.Popen([sys.executable, "-m", "service.cli", "stream"], env=env,
                              start_new_session=True)
    print(f"parley: web on http://127.0.0.1:{config.PORT}/v1, live streams on "
          f"{config.STREAM_URL}  (Ctrl-C stops everything)", flush=True)
    stopping = False

    def stop(_signum: int, _frame: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    rc = 0
    while not stopping:
        for name, proc in (("web", web), ("worker", worker), ("stream", stream)):
            if proc.poll() is not None:
                print(f"parley: {name} exited with {proc.returncode}; stopping", flush=True)
                rc = 1
                stopping = True
        time.sleep(0.2)
    for proc in (web, worker, stream):
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
    for proc in (web, worker, stream):
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
    if redis_proc is not None:
        stop_redis(redis_proc)
    print("parley: stopped", flush=True)
    return rc
