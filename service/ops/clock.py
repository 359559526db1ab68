"""The server's clock: every moment the server records or acts on (a move's acceptance, a
game's start, a deadline, a vacation, time given) is read here.

It is the system clock, shifted by `PARLEY_CLOCK_OFFSET` seconds (default 0) and by `travel`:
tests move a whole server days ahead to watch clocks run out without sleeping. A deployment
never sets either.
"""

from __future__ import annotations

import os
import time

_offset = float(os.environ.get("PARLEY_CLOCK_OFFSET", "0") or 0)


def now() -> float:
    return time.time() + _offset


def travel(seconds: float) -> None:
    """Move this process's clock `seconds` ahead (negative: back)."""
    global _offset
    _offset += seconds


def offset() -> float:
    return _offset


def set_offset(seconds: float) -> None:
    global _offset
    _offset = seconds
