"""A thread's own connection to the store's Redis, for the move path's round trips.

redis-py wraps each round trip in bookkeeping that costs more CPU than packing and sending the
commands: a pipeline built and reset, a connection checked out of the pool and back (each with
its process check), events dispatched and its client metrics recorded. On a settled move
(`Store.settle_foreseen`) that was about a third of the web process's CPU around its one
EVALSHA (docs/performance.md "HotLine: a thread's own connection"); on a move accepted in two round
trips (`Store._after`), about a sixth of its CPU. A `HotLine` gives each thread one
connection of its own, made with the pool's settings (the same decoding and timeouts), and
sends the commands as hiredis packs them. Only on a standalone Redis (a cluster client routes
by key).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import Any

import hiredis
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
        command = [hiredis.pack_command(("EVALSHA", script.sha, len(keys), *keys, *args))]
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

    def pipeline(self, commands: Sequence[Sequence[Any]]) -> list[Any]:
        """The commands in one round trip, and their replies as a redis-py pipeline without
        a transaction returns them with `raise_on_error=False`: each through the client's
        response callback, an error reply as its exception, in place. A connection lost is
        made again once and the commands sent again (as redis-py's own retry does)."""
        conn = self._connection()
        # hiredis packs each command itself: redis-py's packer only adds a pass over every
        # argument (for command names of two words and buffer types the move path never sends)
        packed = [b"".join([hiredis.pack_command(tuple(command)) for command in commands])]
        callbacks = self.client.response_callbacks
        for attempt in range(2):
            try:
                conn.send_packed_command(packed, check_health=False)
                replies: list[Any] = []
                for command in commands:
                    try:
                        reply = conn.read_response()
                    except redis.exceptions.ResponseError as err:
                        replies.append(err)
                        continue
                    callback = callbacks.get(command[0])
                    replies.append(reply if callback is None else callback(reply))
                return replies
            except (redis.ConnectionError, redis.TimeoutError):
                conn.disconnect()
                if attempt:
                    raise
        raise AssertionError("unreachable")
