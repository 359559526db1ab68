"""A job for the shutdown test: slow on purpose, and leaves a mark in Redis when it is done."""

from __future__ import annotations

import time

import redis


def slow_job(url: str, key: str, seconds: float) -> str:
    client = redis.Redis.from_url(url, socket_timeout=10, socket_connect_timeout=5)
    client.set(key + ":started", time.time())
    time.sleep(seconds)
    client.set(key, "done")
    return "done"
