"""Whether `parley run` is whole: the supervisor's word to its web process.

`parley run` starts its children side by side; one may fail at start (a port taken in the
meantime, a Redis refused) while the others are already serving, and a stop (Ctrl-C, a child
that exited) takes a while: the web may finish its requests for up to 20 seconds. Through
either window the web alone cannot tell that the server is not whole, so it would answer
`/v1/health` 200 and accept moves that no worker would apply before the next start. The
supervisor therefore writes its state (`starting`, `ready`, `stopping`) to a file and names
the file to its children in PARLEY_RUN_STATE; the web reads it on every health check and every
request that could change something (`service.web.readiness`).

Why a file: it needs no Redis (the state matters most when something is down) and no port, a
check costs one stat(2) (the file is read again only when it was replaced), and a supervisor
killed outright takes its children with it (`service.ops.child_process`), so no stale file
speaks for a live run. A process started on its own (the Procfile, a test) has no such file
and is as ready as its own checks say.
"""

from __future__ import annotations

import os
from pathlib import Path

#: the environment variable `parley run` sets for its children: the state file's path
ENV = "PARLEY_RUN_STATE"
STARTING, READY, STOPPING = "starting", "ready", "stopping"
#: what a not-ready state means for a client, in words
MEANING = {STARTING: "the server is starting: not every process is up yet",
           STOPPING: "the server is stopping"}


def write(path: Path, state: str) -> None:
    """Replace the file's content with `state` in one step (a reader sees the old or the new
    state, never a partial one)."""
    partial = path.with_name(path.name + ".new")
    partial.write_text(state)
    os.replace(partial, path)


class RunState:
    """The supervisor's state as last written to `path`, read again only when replaced.

    Safe to share between threads: the cache is one tuple, replaced whole."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._seen: tuple[tuple[int, int, int], str] | None = None

    def current(self) -> str:
        """`ready`, `starting` or `stopping`; a missing or unreadable file is `stopping` (the
        supervisor removes it once every child has stopped)."""
        try:
            stat = os.stat(self.path)
        except OSError:
            return STOPPING
        key = (stat.st_ino, stat.st_mtime_ns, stat.st_size)
        seen = self._seen
        if seen is not None and seen[0] == key:
            return seen[1]
        try:
            state = self.path.read_text().strip()
        except OSError:
            return STOPPING
        if state not in (STARTING, READY, STOPPING):
            state = STARTING
        self._seen = (key, state)
        return state


def up_marker(path: Path, child: str) -> Path:
    """The file a child (`web`) of the run whose state file is `path` makes once it serves."""
    return path.with_name(f"{path.name}.{child}-up")


def announce_up(child: str) -> None:
    """Tell the supervisor, if any, that `child` serves now (one file made; nothing without
    PARLEY_RUN_STATE). For a server whose readiness no probe may ask: a connection that a web
    worker accepts while it is starting may keep it from a later graceful stop
    (docs/operations.md, "Stopping")."""
    path = os.environ.get(ENV)
    if path:
        up_marker(Path(path), child).touch()


def from_environment() -> RunState | None:
    """The run's state when this process is a child of `parley run`, else None."""
    path = os.environ.get(ENV)
    return RunState(Path(path)) if path else None
