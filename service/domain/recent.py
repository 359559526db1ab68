"""A bounded map of the values most recently put, for the per-process caches of the move's
path (`foresight`: foreseen games and known keys; `kept_states`: a worker's last commits)."""

from __future__ import annotations

import threading
from typing import Generic, TypeVar

V = TypeVar("V")


class Recent(Generic[V]):
    """Up to `size` values by key; putting one more drops the one put longest ago. Safe to
    share between threads. A size of 0 keeps nothing."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: dict[str, V] = {}
        self._lock = threading.Lock()

    def get(self, key: str) -> V | None:
        return self._items.get(key)

    def take(self, key: str) -> V | None:
        """The value, removed: for values used once."""
        return self._items.pop(key, None)

    def put(self, key: str, value: V) -> None:
        if self.size <= 0:
            return
        with self._lock:
            self._items.pop(key, None)
            if len(self._items) >= self.size:
                self._items.pop(next(iter(self._items)))
            self._items[key] = value
