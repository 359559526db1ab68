"""The store as a process opens it: its Redis (or Redis Cluster), the live feeds' Redis, and the
archive of finished games, from the configuration. Above both `store` and `archive`, which the
store itself does not import (the archive builds on the store)."""

from __future__ import annotations

from service.config import Config
from service.storage.archive import open_archive
from service.storage.store import Store, feeds_url


def open_store(config: Config) -> Store:
    """The store as configured (PARLEY_STORE_URL, PARLEY_STORE_CLUSTER), with its archive of
    finished games (PARLEY_ARCHIVE_URL)."""
    live = feeds_url(config)
    store = Store.from_url(config.STORE_URL, cluster=config.STORE_CLUSTER,
                           live_url=live if live != config.STORE_URL else None)
    store.archive = open_archive(config.ARCHIVE_URL)
    if config.STORE_CLUSTER and config.STORE_WAIT_REPLICAS:
        store.wait_for_replicas(config.STORE_WAIT_REPLICAS, config.STORE_WAIT_MS)
    return store
