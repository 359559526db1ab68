"""Child processes that die with the process that started them.

A supervisor starts its children in sessions of their own, so that a terminal's Ctrl-C reaches
only the supervisor, which then stops them in order. A session of its own also means that
nothing stops a child when the supervisor is killed outright (SIGKILL, the OOM killer): it
would keep its port, and the next start could not bind it. On Linux the kernel sends such a
child a signal when its parent dies (`prctl(PR_SET_PDEATHSIG)`); elsewhere the child outlives
a killed supervisor.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
from collections.abc import Callable

PR_SET_PDEATHSIG = 1


def die_with_parent(signum: int = signal.SIGTERM) -> Callable[[], None] | None:
    """A `preexec_fn` for `subprocess.Popen`: the child gets `signum` when this process dies
    (None where the platform has no such signal).

    The kernel ties the child to the *thread* that starts it: start it from the main thread,
    or it gets the signal when that thread ends. SIGTERM, the default, lets the child stop as
    it does on any graceful stop (Redis flushes its AOF, the web server stops its workers).
    """
    if not sys.platform.startswith("linux"):
        return None
    libc = ctypes.CDLL(None, use_errno=True)  # loaded before the fork, not in the child
    parent = os.getpid()

    def tie_to_parent() -> None:
        _tie(libc, signum, parent)

    return tie_to_parent


def tie_to_parent(parent: int, signum: int = signal.SIGTERM) -> None:
    """For a process already running, forked by `parent` (a web server's worker): get `signum`
    when `parent` dies; at once if it already has. Nothing where the platform has no such
    signal."""
    if sys.platform.startswith("linux"):
        _tie(ctypes.CDLL(None, use_errno=True), signum, parent)


def _tie(libc: ctypes.CDLL, signum: int, parent: int) -> None:
    if libc.prctl(PR_SET_PDEATHSIG, int(signum), 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
    if os.getppid() != parent:  # the parent died before the tie was made
        os.kill(os.getpid(), signum)
