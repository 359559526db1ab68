"""bench.clocks: the sweep finds exactly the deadlines due now among many pending ones, and
the synthetic entries have the shapes the dispatcher writes."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
import redis

from bench.clocks import (
    ClockStore,
    check,
    deadline_member,
    fill,
    index_member,
    job_id,
    schedule_real,
    sweep,
    time_sweeps,
)
from service.notify import dispatch
from service.storage.keys import DEADLINES_KEY

PENDING = 20_000
DUE = 100


@pytest.fixture
def clocks(redis_url: str) -> Iterator[ClockStore]:
    """The session's Redis, empty before and after (the entries are many)."""
    redis.Redis.from_url(redis_url).flushall()
    yield ClockStore.at(redis_url)
    redis.Redis.from_url(redis_url).flushall()


def test_the_sweep_finds_the_due_deadlines_and_none_ahead(clocks: ClockStore) -> None:
    fill(clocks, PENDING, DUE, batch=3_000)
    assert clocks.store.r.zcard(DEADLINES_KEY) == PENDING
    assert clocks.registry.count == PENDING

    overdue, jobs = sweep(clocks)
    due = [deadline_member(n) for n in range(DUE)]
    assert len(overdue) == DUE and set(overdue) == set(due)
    assert len(jobs) == DUE and set(jobs) == clocks.expected()[1]
    # the first deadline ahead is an hour away: not found, even without the grace
    assert dispatch.overdue_deadlines(clocks.store, grace=0) == overdue
    check(clocks)  # the benchmark's own check agrees
    [small_ms] = time_sweeps([clocks], repeats=3, warm=1)
    assert small_ms > 0
    assert clocks.store.r.zcard(DEADLINES_KEY) == PENDING  # a sweep only reads


def test_synthetic_entries_are_shaped_as_the_dispatcher_writes_them(clocks: ClockStore) -> None:
    due = time.time() + 3600
    members, jobs, sizes = schedule_real(clocks, "g_00000000002a", 20, due)
    # synthetic deadline 84 is game 0x2a's timeout at step 20 (85 its reminder)
    timeout = deadline_member(84)
    assert timeout == ("g_00000000002a", 20, "timeout")
    assert deadline_member(85) == ("g_00000000002a", 20, "reminder")
    assert members == [index_member(*timeout)]
    assert jobs == [job_id(*timeout, due)]
    assert len(sizes) == 1 and sizes[0] > 0
    # nothing of it is due: the sweep and RQ's tick find nothing
    assert sweep(clocks) == ([], [])
