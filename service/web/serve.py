"""`parley web`: the HTTP front, granian serving the WSGI app of `service.web.wsgi`.

granian parses HTTP and keeps the connections in Rust (hyper on tokio), outside the GIL, and
hands each request to one of a worker process's `threads` Python threads. Chosen by
measurement over gunicorn's threaded workers (docs/performance.md, "The web server: granian"): the
same moves cost the web processes about a quarter less CPU, where gunicorn parsed every request in
Python and passed it from its main thread to a pool thread.

What the server keeps of the gunicorn settings it replaces:

- keep-alive: a client posting many moves keeps its connection (idle for up to
  `KEEP_ALIVE_SECONDS`, gunicorn's setting was the same);
- a graceful stop: on SIGTERM or SIGINT the workers stop taking connections, finish the
  requests they hold (`GRACEFUL_SECONDS` at most, then they are killed), and exit 0 (one
  known exception in docs/operations.md, "Stopping");
- a worker that dies is started again, and a master that dies (killed outright, the OOM
  killer) takes its workers along (as gunicorn's did): an orphaned worker would go on serving
  the port, with the code of its day, beside the next server started;
- a port already taken is refused before the start (`service.ops.ports`): granian's workers
  bind with SO_REUSEPORT, and would otherwise share the port with another server, another
  Parley's with other data included;
- an access log (`--access-log`) that names paths, never query strings or referrers: those
  carry secrets (an unsubscribe link's token, a stream ticket) that a log must not keep.
"""

from __future__ import annotations

import importlib
import logging
import os
import signal
from functools import partial

from service.config import Config
from service.ops.child_process import tie_to_parent
from service.ops.heap import freeze_startup_heap
from service.ops.ports import PortTaken, ensure_free
from service.ops.run_state import announce_up

#: how long the workers may take over a graceful stop before they are killed
GRACEFUL_SECONDS = 20
#: how long an idle client connection stays open, and how long a client may take to send a
#: request's headers (hyper's header read timeout covers both)
KEEP_ALIVE_SECONDS = 5
#: what an access log line holds: no query string, no referrer, no header at all
ACCESS_FORMAT = '%(addr)s - [%(time)s] "%(method)s %(path)s %(protocol)s" %(status)d %(dt_ms).1fms'
#: the app granian loads in each worker process
TARGET = "service.web.wsgi:app"


def access_log_config(access_log: str) -> dict:
    """A `logging.config.dictConfig` fragment sending granian's access lines to `access_log`
    ("-" for standard output, else a file appended to)."""
    if access_log == "-":
        handler = {"class": "logging.StreamHandler", "stream": "ext://sys.stdout"}
    else:
        handler = {"class": "logging.FileHandler", "filename": access_log}
    return {
        "formatters": {"access": {"format": "%(message)s"},
                       "generic": {"format": "[%(levelname)s] %(message)s"}},
        "handlers": {"access": {**handler, "formatter": "access"},
                     "console": {"class": "logging.StreamHandler", "formatter": "generic",
                                 "stream": "ext://sys.stderr"}},
        "loggers": {"granian.access": {"handlers": ["access"], "level": "INFO",
                                       "propagate": False},
                    "_granian": {"handlers": ["console"], "level": "INFO", "propagate": False}},
    }


def _load_app_in_worker(master: int, target: str) -> object:
    """Runs in each worker process as it starts: tie it to its master, then load the app and
    freeze the heap it made (`service.ops.heap`).

    The tie is SIGKILL, not a graceful stop: with no master left to end a stop that hangs
    (docs/operations.md, "Stopping"), a worker would keep the port for good. Nothing
    acknowledged is lost: a move is in Redis before its 202 is sent, and a client whose
    request was cut sends the same envelope again."""
    tie_to_parent(master, signal.SIGKILL)
    module, _, name = target.partition(":")
    app = getattr(importlib.import_module(module), name)
    freeze_startup_heap()
    announce_up("web")  # to `parley run`, which asks no request of a starting worker
    return app


def serve(*, host: str = "127.0.0.1", port: int | None = None, workers: int | None = None,
          threads: int | None = None, access_log: str | None = None,
          log_level: str = "info") -> int:
    """Serve until SIGTERM or SIGINT; 0 after a graceful stop, 1 when the server failed (a
    worker crashing again and again, a port taken). `log_level` applies to the server's lines
    and the app's."""
    config = Config()
    setting, port = ("PARLEY_PORT", config.PORT) if port is None else ("--port", port)
    try:
        ensure_free(host, port, setting)
    except PortTaken as err:
        logging.getLogger(__name__).error("web: %s", err)
        return 1
    from granian import Granian
    from granian.constants import Interfaces
    from granian.http import HTTP1Settings
    from granian.log import LogLevels

    logging.getLogger().setLevel(log_level.upper())  # the app's own lines too
    server = Granian(
        TARGET, address=host, port=port,
        interface=Interfaces.WSGI, websockets=False,
        http1_settings=HTTP1Settings(header_read_timeout=KEEP_ALIVE_SECONDS * 1000),
        workers=config.WEB_PROCESSES if workers is None else workers,
        blocking_threads=config.WEB_THREADS if threads is None else threads,
        log_level=LogLevels(log_level),
        log_dictconfig=access_log_config(access_log or "-"),
        log_access=access_log is not None, log_access_format=ACCESS_FORMAT,
        respawn_failed_workers=True, workers_kill_timeout=GRACEFUL_SECONDS)
    try:
        server.serve(target_loader=partial(_load_app_in_worker, os.getpid()))
    except SystemExit as stop:  # granian exits 1 when its workers failed
        return stop.code if isinstance(stop.code, int) else 1
    logging.getLogger(__name__).info("web: stopped")
    return 0
