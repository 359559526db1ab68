"""`GET /metrics`: Prometheus's text format, read from Redis at each scrape (docs/operations.md
"Metrics").

The counters live in Redis (`service.storage.metrics_records`), where every web process, resolve
job and notification job adds to them, so any web process answers a scrape with the same
totals. The gauges (RQ's jobs, the pending index, games by status) are read at the scrape. No
per-process metric (CPU, memory, garbage collection) is served: under several web
processes it would describe whichever one answered.

Not part of the public API (the OpenAPI document does not list it). With
PARLEY_METRICS_TOKEN set, a scrape must carry it as a bearer token; without it, only a loopback
client may scrape (the client's address as PARLEY_PROXY_HOPS gives it).
"""

from __future__ import annotations

from collections.abc import Iterator

from flask import Flask, Response, current_app, request
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.utils import floatToGoString
from rq import Queue

from service.domain.metrics_access import admit_scraper
from service.domain.problems import Problem
from service.storage import metrics_records as records
from service.storage.store import Store
from service.web.errors import render_problem
from service.web.fastpath import MOVES


class StoreCollector:
    """Every Parley metric, read from the store and the queue when collected."""

    def __init__(self, store: Store, queue: Queue, game_count_seconds: int = 0) -> None:
        self.store = store
        self.queue = queue
        self.game_count_seconds = game_count_seconds

    def describe(self) -> list[Metric]:
        return []  # registering must not read Redis; the names are Parley's own

    def collect(self) -> Iterator[Metric]:
        counts = records.counters(self.store)
        accepted = CounterMetricFamily(
            "parley_moves_accepted", "Moves appended to a game's move stream, by source: api "
            "(a player's signed POST) or server (a timeout action, a move made by mail reply).",
            labels=["source"])
        by_source = records.labelled(counts, records.ACCEPTED)
        for source in records.SOURCES:
            accepted.add_metric([source], by_source.get(source, 0))
        yield accepted
        yield CounterMetricFamily(
            "parley_moves_foreseen", "Moves of source api appended in one round trip, checked "
            "against the state the web process foresaw (the rest took two).",
            value=counts.get(records.FORESEEN, 0))
        yield CounterMetricFamily(
            "parley_moves_settled", "Of the foreseen moves, those the web process applied in "
            "that same round trip (the rest were applied by a worker).",
            value=counts.get(records.SETTLED, 0))
        yield CounterMetricFamily(
            "parley_moves_applied", "Accepted moves applied, by a worker's resolve or settled "
            "by the web process.", value=counts.get(records.APPLIED, 0))
        yield _by_code(counts, records.REJECTED, "parley_moves_rejected",
                       "Accepted moves the resolve rejected (status `rejected`), by code.")
        yield _by_code(counts, records.REFUSED, "parley_moves_refused",
                       "Moves refused when posted (a problem answer, no move stored), by code.")
        yield _histogram(counts, records.MOVE_LATENCY, "parley_move_latency_seconds",
                         "From a move's acceptance to the commit that applied or rejected it.")
        yield _histogram(counts, records.RESOLVE_JOB, "parley_resolve_job_seconds",
                         "One RQ resolve job, start to end (a job drains many games).")
        deliveries = CounterMetricFamily(
            "parley_deliveries", "Delivery attempts by channel (mail, webhook) and outcome "
            "(delivered, retrying, failed, skipped, superseded, suppressed).",
            labels=["channel", "outcome"])
        for key, n in sorted(records.labelled(counts, records.DELIVERIES).items()):
            deliveries.add_metric(key.split(":", 1), n)
        yield deliveries
        jobs = GaugeMetricFamily("parley_queue_jobs", "RQ's jobs on Parley's queue, by state.",
                                 labels=["queue", "state"])
        for state, n in records.queue_jobs(self.queue).items():
            jobs.add_metric([self.queue.name, state], n)
        yield jobs
        yield GaugeMetricFamily("parley_ready_games", "Games woken onto the resolve drainers' "
                                "ready list, not yet taken.",
                                value=records.ready_games(self.queue))
        yield GaugeMetricFamily("parley_pending_games", "Games that may have moves not yet "
                                "resolved (the sweep's pending index).",
                                value=records.pending_games(self.store))
        games = GaugeMetricFamily("parley_games", "Games by status: open, full, active, "
                                  "finished in Redis; archived.", labels=["status"])
        for status, n in sorted(records.game_counts_kept(self.store,
                                                         self.game_count_seconds).items()):
            games.add_metric([status], n)
        yield games


def _by_code(counts: dict[str, int], prefix: str, name: str, doc: str) -> CounterMetricFamily:
    family = CounterMetricFamily(name, doc, labels=["code"])
    for code, n in sorted(records.labelled(counts, prefix).items()):
        family.add_metric([code], n)
    return family


def _histogram(counts: dict[str, int], histogram: records.Histogram, name: str,
               doc: str) -> HistogramMetricFamily:
    buckets, total = histogram.read(counts)
    return HistogramMetricFamily(name, doc, sum_value=total,
                                 buckets=[(floatToGoString(b), n) for b, n in buckets])


def init_metrics(app: Flask) -> None:
    """Serve `GET /metrics` from the app's store and queue (outside the OpenAPI document)."""
    registry = CollectorRegistry(auto_describe=False)
    config = app.config["PARLEY"]
    registry.register(StoreCollector(app.extensions["parley_store"],
                                     app.extensions["parley_queue"], config.GAME_COUNT_SECONDS))
    token = config.METRICS_TOKEN

    def metrics() -> Response:
        admit_scraper(token, request.headers.get("Authorization", ""),
                      request.remote_addr or "")
        return Response(generate_latest(registry), content_type=CONTENT_TYPE_LATEST)

    app.add_url_rule("/metrics", endpoint="metrics", view_func=metrics, methods=["GET"])


def counted_problem(problem: Problem) -> Response:
    """`render_problem`, counting a refused move POST by its code first. Only the app answers
    refusals (the fast path hands them to it), so each is counted once; a batch counts its
    items' refusals itself (`service.domain.accept.submit_moves`)."""
    if request.endpoint == MOVES and request.method == "POST":
        records.settle(current_app.extensions["parley_store"], refused=[problem.code])
    return render_problem(problem)
