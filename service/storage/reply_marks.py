"""A mark per seat while its mail reply is played, and for a moment after: the turn mails the
reply's own moves cause would only repeat what the reply's answer shows (the position and the
moves now), with addresses that go stale at once. Single-key commands only."""

from __future__ import annotations

from service.storage.keys import replying_key
from service.storage.store import Store

#: the mark while the reply is played: every turn mail of the seat waits for its answer
RUNNING = "running"


def mark(store: Store, gid: str, seat: int, value: str, ttl: int) -> None:
    store.r.set(replying_key(gid, seat), value, ex=ttl)


def covers(store: Store, gid: str, seat: int, step: int) -> bool:
    """Whether a turn mail of `seat` at `step` is needless: a reply of the seat is being
    played, or its answer showed that step or a later one."""
    value = store.r.get(replying_key(gid, seat))
    return value is not None and (value == RUNNING or (value.isdigit() and step <= int(value)))

#: how long an answer's position keeps the turn mails of its step back
SHOWN_SECONDS = 60


def shown(store: Store, gid: str, seat: int, step: int) -> None:
    """The reply's answer showed the seat's position and moves at `step`."""
    mark(store, gid, seat, str(step), SHOWN_SECONDS)


def release(store: Store, gid: str, seat: int) -> None:
    """The reply is done: if no answer showed the position, the turn mails go out again."""
    key = replying_key(gid, seat)
    if store.r.get(key) == RUNNING:
        store.r.delete(key)
