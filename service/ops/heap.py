"""The long-running processes' start-up heap, kept out of the cyclic garbage collector's way.

A web, stream or worker process imports a few hundred thousand objects (Flask, marshmallow,
aiohttp, redis-py, the engines) that live as long as the process. CPython's full collection
walks every one of them: 20-55 ms on this project's processes, with every thread of the
process stopped meanwhile, and a move in flight waits that long (docs/performance.md,
"The frozen heap"). `gc.freeze()` moves everything alive at that moment into a permanent
generation the collector no longer walks, so a later full collection only walks what the
process made since (1-2 ms measured). The price: a reference cycle among the frozen objects
that becomes garbage later is never collected. What the start-up makes (modules, the app,
the engines' tables) lives as long as the process anyway.
"""

from __future__ import annotations

import gc


def freeze_startup_heap() -> int:
    """Collect once, then freeze what survives; returns how many objects are frozen now.

    Call it once a process has loaded what it keeps for its lifetime, before it serves."""
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()
