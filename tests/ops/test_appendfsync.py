"""The embedded Redis's AOF: its fsync policy comes from PARLEY_REDIS_APPENDFSYNC, and it is
compacted less often than Redis's default would."""

from __future__ import annotations

from pathlib import Path

import pytest
import redis

from service.ops.embedded_redis import start_redis, stop_redis
from service.ops.ports import free_port


@pytest.mark.parametrize(("env", "expected"), [
    ({}, "everysec"), ({"PARLEY_REDIS_APPENDFSYNC": "always"}, "always"),
    ({"PARLEY_APPENDFSYNC": "no"}, "no"),  # the older name still works
])
def test_appendfsync_is_configurable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                     env: dict, expected: str) -> None:
    monkeypatch.delenv("PARLEY_REDIS_APPENDFSYNC", raising=False)
    monkeypatch.delenv("PARLEY_APPENDFSYNC", raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    port = free_port()
    proc = start_redis(tmp_path, port)
    try:
        config = redis.Redis(port=port).config_get("append*")
        assert config == {"appendonly": "yes", "appendfsync": expected,
                          "appendfilename": "appendonly.aof"}
    finally:
        stop_redis(proc)


def test_a_wrong_policy_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PARLEY_REDIS_APPENDFSYNC", "sometimes")
    with pytest.raises(ValueError, match="PARLEY_REDIS_APPENDFSYNC"):
        start_redis(tmp_path, free_port())


def test_the_aof_is_compacted_from_512_mb_on(tmp_path: Path) -> None:
    port = free_port()
    proc = start_redis(tmp_path, port)
    try:
        config = redis.Redis(port=port).config_get("auto-aof-rewrite-*")
        assert config == {"auto-aof-rewrite-min-size": str(512 * 1024 * 1024),
                          "auto-aof-rewrite-percentage": "100"}
    finally:
        stop_redis(proc)
