"""A thread's own connection to the store's Redis, for a settled move's one script call.

redis-py wraps each round trip in bookkeeping that costs more CPU than packing and sending the
command: a pipeline built and reset, a connection checked out of the pool and back (each with
its process check), events dispatched and its client metrics recorded. On a settled move
(`Store.settle_foreseen`) that was about a third of the web process's CPU around its one
EVALSHA (docs/performance.md "Fifth pass"). A `HotLine` gives each thread one connection of its
own, made with the pool's settings (the same decoding and timeouts), and sends the command
packed by the connection itself. Only for a single script call with nothing riding beside it,
on a standalone Redis (a cluster client routes by key).
"""

from __future__ import annotations

import os
import threading
from typing import Any

import redis


class HotLine:
    """EVALSHA on this thread's own connection (made when the thread first calls, again after
    a fork or a lost connection)."""

    def __init__(self, client: redis.Redis) -> None:
        self.client = client
        self.pool = client.connection_pool
        self.local = threading.local()

    def _connection(self) -> Any:
        local = self.local
        if getattr(local, "pid", None) != os.getpid():  # a forked child makes its own
            local.conn = self.pool.connection_class(**self.pool.connection_kwargs)
            local.pid = os.getpid()
        return local.conn

    def evalsha(self, script: Any, keys: list[str], args: list[Any]) -> Any:
        """The script's reply (a script error raises, as redis-py does). A script missing
        from Redis (restarted or flushed) is loaded and the call made again; a connection
        lost is made again once. Sending a script twice is safe where the script checks what
        it writes, as the move scripts do (a second settle finds the move appended: a miss)."""
        conn = self._connection()
        command = conn.pack_command("EVALSHA", script.sha, len(keys), *keys, *args)
        for attempt in range(2):
            try:
                conn.send_packed_command(command, check_health=False)
                return conn.read_response()
            except redis.exceptions.NoScriptError:
                self.client.script_load(script.script)
                if attempt:
                    raise
            except (redis.ConnectionError, redis.TimeoutError):
                conn.disconnect()  # the next send connects again
                if attempt:
                    raise
        raise AssertionError("unreachable")
