"""`parley worker`: one RQ worker (with the scheduler) plus the periodic sweep.

The worker class is RQ's `SimpleWorker` by default: it runs jobs in the worker process, with
no fork per job. Measured on a 2-core machine (docs/performance.md), a fork costs tens of
milliseconds per job: one move's submit->applied latency is ~8 ms with `SimpleWorker` and
~40 ms with the forking `Worker`, and the no-op job rate drops several-fold. Resolve jobs are
plain Python over Redis (no C extension that could crash the interpreter, no leaked state:
the store and queue connections are the only per-process objects), and a job that runs over
its timeout is still stopped (SimpleWorker uses the same signal-based timeout in the main
thread). A killed worker loses nothing (the sweep re-enqueues). PARLEY_WORKER_CLASS=fork
(or `rq`) selects RQ's forking `Worker`, where isolating every job matters more than speed.
"""

from __future__ import annotations

import logging
import threading

from rq import SimpleWorker, Worker

from service.ops.heap import freeze_startup_heap
from service.ops.redis_check import ensure_safe
from workers import archiver, context
from workers.resolve import sweep

log = logging.getLogger(__name__)

SWEEP_SECONDS = context.config().SWEEP_SECONDS
#: RQ heartbeat: a worker killed outright drops out of the registry WORKER_TTL + 60 s later
WORKER_TTL = context.config().WORKER_TTL


def _sweep_forever(stop: threading.Event) -> None:
    while not stop.wait(SWEEP_SECONDS):
        try:
            sweep(context.store(), context.queue())
        except Exception:  # a Redis hiccup: try again next period
            log.exception("periodic sweep failed")
        try:
            archiver.sweep(context.store())
        except Exception:  # Redis or the archive unreachable: try again next period
            log.exception("periodic archive sweep failed")


def run_worker(burst: bool = False) -> None:
    ensure_safe(context.config().STORE_URL, "game store")
    ensure_safe(context.config().REDIS_URL, "queue")
    queue = context.queue()
    choice = context.config().WORKER_CLASS
    cls = Worker if choice in ("fork", "rq") else SimpleWorker
    missing = context.store().reindex_pending()
    if missing:
        log.warning("start-up scan: %d games with pending moves were missing from the index",
                    missing)
    sweep(context.store(), queue)
    archiver.schedule_unmarked(context.store(), context.config().ARCHIVE_AFTER)
    freeze_startup_heap()  # what the start-up loaded stays: out of the collector's walks
    stop = threading.Event()
    if not burst:
        threading.Thread(target=_sweep_forever, args=(stop,), daemon=True).start()
    # a short heartbeat, so that /v1/health notices a worker killed outright within ~90 s
    worker = cls([queue], connection=queue.connection, worker_ttl=WORKER_TTL)
    try:
        worker.work(with_scheduler=not burst, burst=burst, logging_level="WARNING")
    finally:
        stop.set()
