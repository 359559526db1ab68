"""The records behind moves made by mail reply: reply tokens, the address index (confirmed
addresses only), the digest schedule and the answer budget (docs/notifications.md "Moves by
reply").

Single-key commands only: none of these keys belongs to a game's slot.
"""

from __future__ import annotations

from service.storage.keys import DIGESTS_KEY, answers_key, email_key, reply_token_key
from service.storage.scripts import CLAIM_DIGEST, FINISH_DIGEST, UNINDEX_ADDRESS
from service.storage.store import Store


def save_token(store: Store, digest: str, record: str, ttl: int) -> None:
    store.r.set(reply_token_key(digest), record, ex=ttl)


def token_record(store: Store, digest: str) -> str | None:
    return store.r.get(reply_token_key(digest))


def index_email(store: Store, address: str, pid: str) -> None:
    """Called when a player confirms an address (service/notify/confirmation.py): the first
    to confirm it keeps it while it is theirs (answers go to the address anyway, so which of
    two such players it names does not matter). No unconfirmed address is ever indexed."""
    store.r.set(email_key(address.lower()), pid, nx=True)


def unindex_email(store: Store, address: str, pid: str) -> None:
    """The address is no longer the player's: it leaves the index if it named them."""
    store.r.eval(UNINDEX_ADDRESS, 1, email_key(address.lower()), pid)


def player_for_email(store: Store, address: str) -> str | None:
    """The player whose confirmed address this is (the address index), or None."""
    return store.r.get(email_key(address.lower()))


def count_answer(store: Store, address: str) -> int:
    """Count one answer to `address` in the current hour; returns the hour's count so far."""
    key = answers_key(address.lower())
    pipe = store.r.pipeline(transaction=False)
    pipe.set(key, 0, ex=3600, nx=True)  # the hour starts with the first answer
    pipe.incr(key)
    return int(pipe.execute()[1])


def schedule_digest(store: Store, pid: str, due: float) -> None:
    store.r.zadd(DIGESTS_KEY, {pid: due})


def unschedule_digest(store: Store, pid: str) -> None:
    store.r.zrem(DIGESTS_KEY, pid)


def due_digests(store: Store, now: float, count: int = 100) -> list[str]:
    return store.r.zrangebyscore(DIGESTS_KEY, "-inf", now, start=0, num=count)


def claim_digest(store: Store, pid: str, now: float, lease_until: float) -> bool:
    """Take the player's digest if it is due at `now`: its due time moves to `lease_until`, so
    that no other worker sends it meanwhile, and a worker that dies before `finish_digest`
    leaves it due again then. True for the one caller that took it."""
    return bool(store.r.eval(CLAIM_DIGEST, 1, DIGESTS_KEY, pid, repr(now), repr(lease_until)))


def finish_digest(store: Store, pid: str, lease_until: float, next_due: float) -> bool:
    """The digest claimed until `lease_until` is done: schedule the next one at `next_due`,
    unless the schedule changed meanwhile (False)."""
    return bool(store.r.eval(FINISH_DIGEST, 1, DIGESTS_KEY, pid, repr(lease_until),
                             repr(next_due)))
