"""Waiting for something another thread or process does: one polling loop for all the tests
(and the benchmarks, which start servers as tests/e2e does), so each one's timeouts are stated
at the call and a timeout says what did not happen."""

from __future__ import annotations

import asyncio
import subprocess
import time
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import requests

T = TypeVar("T")


def wait_until(predicate: Callable[[], T], timeout: float, message: str = "", *,
               interval: float = 0.1) -> T:
    """The first truthy value of `predicate()`, called every `interval` seconds; an
    AssertionError naming `message` if none comes within `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not (value := predicate()):
        if time.monotonic() >= deadline:
            raise AssertionError(f"{message or 'condition'}: not within {timeout} s")
        time.sleep(interval)
    return value


def wait_answering(url: str, proc: subprocess.Popen, what: str, timeout: float) -> None:
    """Until `url` answers at all (any status: the process is up); RuntimeError at once if
    `proc`, which serves it, exits first, rather than waiting out `timeout` for nothing."""
    def answering() -> bool:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited")
        try:
            requests.get(url, timeout=5)
        except requests.RequestException:
            return False
        return True
    wait_until(answering, timeout, f"{what} answering")


def run_async(coroutine: Coroutine[Any, Any, T]) -> T:
    """`asyncio.run` in a thread of its own: the browser tests' Playwright keeps an event loop
    running in the main thread of their worker for the whole session, and `asyncio.run` refuses
    to start beside it."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()
