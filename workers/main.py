"""`parley worker`: one RQ worker (with the scheduler) plus the periodic sweep.

The worker class is RQ's forking `Worker` by default: a job that crashes the interpreter
takes only its work horse down. PARLEY_WORKER_CLASS=simple selects `SimpleWorker` (no fork per
job), which is much faster for many short jobs; see docs/performance.md.
"""

from __future__ import annotations

import logging
import os
import threading

from rq import SimpleWorker, Worker

from service.redis_check import ensure_safe
from workers import context
from workers.resolve import sweep

log = logging.getLogger(__name__)

SWEEP_SECONDS = float(os.environ.get("PARLEY_SWEEP_SECONDS", "30"))


def _sweep_forever(stop: threading.Event) -> None:
    while not stop.wait(SWEEP_SECONDS):
        try:
            sweep(context.store(), context.queue())
        except Exception:  # a Redis hiccup: try again next period
            log.exception("periodic sweep failed")


def run_worker(burst: bool = False) -> None:
    ensure_safe(context.config().STORE_URL, "game store")
    ensure_safe(context.config().REDIS_URL, "queue")
    queue = context.queue()
    cls = SimpleWorker if os.environ.get("PARLEY_WORKER_CLASS") == "simple" else Worker
    sweep(context.store(), queue)
    stop = threading.Event()
    if not burst:
        threading.Thread(target=_sweep_forever, args=(stop,), daemon=True).start()
    worker = cls([queue], connection=queue.connection)
    try:
        worker.work(with_scheduler=not burst, burst=burst, logging_level="WARNING")
    finally:
        stop.set()
