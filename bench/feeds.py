"""The load generator's push client: its players' live streams (docs/live.md), read by one thread.

A client on the stream makes one request per move, the signed POST: the `turn` entry of the
seat to act carries the legal moves its view would list, and the next `turn` (or `finished`)
tells the mover its move was applied. So the load generator's game threads wait here instead
of reading the view before every move.

Each player's stream is its own connection to the stream process (as a player's client would
have), opened through `GET /v1/players/me/stream` and its redirect, and read as HTTP/1.0 (the
body is the raw event stream, no chunking). One thread reads them all with `selectors` and
parses only the frames a player acts on: `turn` entries for the seat to act, and `finished`.
"""

from __future__ import annotations

import contextlib
import selectors
import socket
import threading
import time
from typing import Any
from urllib.parse import urlsplit

import orjson

#: how long `open` waits for a stream's `ready`
READY_TIMEOUT = 30.0


class Feeds:
    """The open streams of one load-generator process, and what their `turn` entries said."""

    def __init__(self) -> None:
        self.selector = selectors.DefaultSelector()
        self.lock = threading.Lock()
        self.turns: dict[str, dict[int, dict[str, Any]]] = {}  # game -> seat -> newest turn
        self.finished: dict[str, float] = {}  # game -> when its end was heard
        self.waiters: dict[str, threading.Event] = {}
        self.buffers: dict[socket.socket, bytes] = {}
        self.wake_r, self.wake_w = socket.socketpair()  # registers new streams with the reader
        self.pending: list[socket.socket] = []
        self.selector.register(self.wake_r, selectors.EVENT_READ)
        threading.Thread(target=self._read, daemon=True).start()

    def open(self, location: str) -> socket.socket:
        """Connect to a stream (the redirect's `Location`) and return once it is live (its
        `ready` frame): from then on its player's feed is written and read here."""
        parts = urlsplit(location)
        sock = socket.create_connection((parts.hostname, parts.port or 80), timeout=READY_TIMEOUT)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        sock.sendall(f"GET {path} HTTP/1.0\r\nHost: {parts.netloc}\r\n\r\n".encode())
        buffer = b""
        while b"event: ready" not in buffer:
            chunk = sock.recv(65536)
            if not chunk:
                raise EOFError("the stream closed before it was ready")
            buffer += chunk
        head, _, rest = buffer.partition(b"\r\n\r\n")
        if not head.startswith((b"HTTP/1.0 200", b"HTTP/1.1 200")):
            raise RuntimeError(f"stream: {head[:80]!r}")
        rest = rest[rest.index(b"event: ready"):]
        sock.setblocking(False)
        with self.lock:
            self.buffers[sock] = rest.partition(b"\n\n")[2]
            self.pending.append(sock)
        self.wake_w.send(b"x")
        return sock

    def close(self, sock: socket.socket) -> None:
        with self.lock:
            self.pending.append(sock)  # the reader unregisters it
            self.buffers.pop(sock, None)
        self.wake_w.send(b"x")

    def forget(self, gid: str) -> None:
        with self.lock:
            self.turns.pop(gid, None)
            self.finished.pop(gid, None)
            self.waiters.pop(gid, None)

    def wait(self, gid: str, after_step: int, seats: int, event: threading.Event,
             timeout: float) -> tuple[list[dict[str, Any]], float, float | None] | None:
        """(the turn entries of `gid` at a step after `after_step`, once `seats` of them are
        in (both seats of a secret setup, else one), when the first of them was heard, and
        when it was committed); ([], when heard, None) once the game has finished; None when
        nothing came within `timeout`. Each entry's `heard` is the time.time() its frame was
        read, its `committed` the time of the commit that appended it (its feed entry's id,
        the Redis clock's milliseconds)."""
        deadline = time.monotonic() + timeout
        while True:
            with self.lock:
                if gid in self.finished:
                    return [], self.finished[gid], None
                newer = [t for t in self.turns.get(gid, {}).values() if t["step"] > after_step]
                if len(newer) >= seats:
                    first = min(newer, key=lambda t: t["heard"])
                    return newer, first["heard"], first["committed"]
                event.clear()
                self.waiters[gid] = event
            left = deadline - time.monotonic()
            if left <= 0 or not event.wait(left):
                with self.lock:
                    self.waiters.pop(gid, None)
                return None

    def _read(self) -> None:
        while True:
            for key, _ in self.selector.select():
                sock = key.fileobj
                if sock is self.wake_r:
                    self.wake_r.recv(4096)
                    self._register()
                    continue
                if sock.fileno() < 0:  # type: ignore[union-attr]  # closed meanwhile
                    continue
                try:
                    chunk = sock.recv(262144)  # type: ignore[union-attr]
                except BlockingIOError:
                    continue
                except OSError:
                    chunk = b""
                if not chunk:
                    with contextlib.suppress(KeyError, ValueError):
                        self.selector.unregister(sock)
                    continue
                self._frames(sock, chunk)  # type: ignore[arg-type]

    def _register(self) -> None:
        with self.lock:
            socks, self.pending = self.pending, []
        for sock in socks:
            if sock in self.buffers:
                self.selector.register(sock, selectors.EVENT_READ)
            else:  # closed by its game thread
                with contextlib.suppress(KeyError, ValueError):
                    self.selector.unregister(sock)
                sock.close()

    def _frames(self, sock: socket.socket, chunk: bytes) -> None:
        now = time.time()
        with self.lock:
            buffer = self.buffers.get(sock, b"") + chunk
            *frames, rest = buffer.split(b"\n\n")
            if sock in self.buffers:
                self.buffers[sock] = rest
            for frame in frames:
                if b"\nevent: turn\n" in frame:
                    self._turn({**_data(frame), "committed": _committed(frame)}, now)
                elif b"\nevent: finished\n" in frame:
                    gid = _data(frame)["game"]
                    self.finished.setdefault(gid, now)
                    self._wake(gid)

    def _turn(self, entry: dict[str, Any], heard: float) -> None:  # with lock held
        if not entry["your_turn"]:
            return
        entry["heard"] = heard
        gid = entry["game"]
        seats = self.turns.setdefault(gid, {})
        old = seats.get(entry["seat"])
        if old is None or entry["step"] >= old["step"]:
            seats[entry["seat"]] = entry
        self._wake(gid)

    def _wake(self, gid: str) -> None:  # with lock held
        waiter = self.waiters.pop(gid, None)
        if waiter is not None:
            waiter.set()


def _committed(frame: bytes) -> float | None:
    """When the entry was appended (by the commit that wrote it): its id's milliseconds."""
    if not frame.startswith(b"id: "):
        return None
    return int(frame[4:frame.index(b"-")]) / 1000


def _data(frame: bytes) -> Any:
    return orjson.loads(frame[frame.index(b"\ndata: ") + 7:].partition(b"\n")[0])
