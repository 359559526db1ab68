"""The store's pipelines of scripts and other commands (`Store._after`), on a real Redis."""

from __future__ import annotations

import pytest
import redis

from service.config import Config
from service.storage.keys import game_key
from service.storage.store import Store

DIGEST = "ab" * 32


def _active_game(store: Store, gid: str) -> None:
    store.r.hset(game_key(gid, "meta"), mapping={"status": "active", "step": "1"})


def test_a_flushed_script_runs_again_and_nothing_else_twice(config: Config) -> None:
    """After SCRIPT FLUSH (a restarted Redis), the append's script is loaded and run once
    more; the commands riding with it (a rate-limit charge) ran once."""
    store = Store.from_url(config.STORE_URL)
    _active_game(store, "g1")
    store.r.script_flush()
    reply = store.accept("g1", 1, "n1", "{}", "", DIGEST, 1_700_000_000,
                         then=[("INCR", "charged")])
    assert reply[:2] == ["ok", "1"]
    assert store.r.get("charged") == "1"
    assert store.r.hget(game_key("g1", "meta"), "head") == "1"
    reply = store.accept("g1", 1, "n2", "{}", store.r.hget(game_key("g1", "meta"), "last_hash"),
                         DIGEST, 1_700_000_000, then=[("INCR", "charged")])
    assert reply[:2] == ["ok", "2"] and store.r.get("charged") == "2"


def test_an_error_among_the_riders_is_raised_after_the_append(config: Config) -> None:
    store = Store.from_url(config.STORE_URL)
    _active_game(store, "g1")
    store.r.set("text", "x")
    with pytest.raises(redis.ResponseError, match="not an integer"):
        store.accept("g1", 1, "n1", "{}", "", DIGEST, 1_700_000_000, then=[("INCR", "text")])
    assert store.r.hget(game_key("g1", "meta"), "head") == "1"
