"""The server refuses a Redis that could evict keys or has no persistence."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
import redis

from service.ops.embedded_redis import start_redis, stop_redis
from service.ops.ports import free_port
from service.ops.redis_check import UnsafeRedis, ensure_safe, problems


def test_safe_redis_passes(redis_url: str) -> None:
    assert problems(redis.Redis.from_url(redis_url)) == []
    ensure_safe(redis_url, "test")


def test_unsafe_redis_is_refused_unless_overridden(monkeypatch: pytest.MonkeyPatch) -> None:
    port = free_port()
    proc = start_redis(Path(tempfile.mkdtemp()), port,
                       extra=["--appendonly", "no", "--maxmemory-policy", "allkeys-lru"])
    url = f"redis://127.0.0.1:{port}/0"
    try:
        found = problems(redis.Redis.from_url(url))
        assert len(found) == 2 and "noeviction" in found[0] and "AOF" in found[1]
        monkeypatch.delenv("PARLEY_ALLOW_UNSAFE_REDIS", raising=False)
        with pytest.raises(UnsafeRedis, match="maxmemory-policy"):
            ensure_safe(url, "game store")
        monkeypatch.setenv("PARLEY_ALLOW_UNSAFE_REDIS", "1")
        ensure_safe(url, "game store")
    finally:
        stop_redis(proc)
