"""Waiting for something another thread or process does: one polling loop for all the tests,
so each one's timeouts are stated at the call and a timeout says what did not happen."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

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
