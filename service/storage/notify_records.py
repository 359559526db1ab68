"""What notifications keep in Redis: each game's outbox of notices, delivery records and their
attempt logs, webhook health, deadlines and mail preferences (docs/notifications.md).

The dispatcher (`service.notify.dispatch`) decides; this module only reads and writes, so every
key and command of the notification path lives in the storage layer.
"""

from __future__ import annotations

import json
import time
from typing import Any

from service.storage.keys import (
    DEADLINES_KEY,
    NOTIFY_KEY,
    attempts_key,
    deliveries_key,
    delivery_key,
    game_key,
    mail_prefs_key,
    mail_thread_key,
    player_key,
    player_webhooks_key,
    webhook_key,
)
from service.storage.scripts import CREATE_DELIVERY
from service.storage.store import Store

# ---- each game's outbox of notices ----------------------------------------------------------


def record_notices(store: Store, gid: str, items: list[str]) -> None:
    """Add notices to a game's outbox (the game is marked first, so a sweep finds it)."""
    store.r.sadd(NOTIFY_KEY, gid)
    if items:
        store.r.rpush(game_key(gid, "outbox"), *items)


def outbox_length(store: Store, gid: str) -> int:
    return store.r.llen(game_key(gid, "outbox"))


def unmark(store: Store, gid: str, drop_outbox: bool = False) -> None:
    """The game has nothing to notify (or is gone: `drop_outbox`)."""
    if drop_outbox:
        store.r.delete(game_key(gid, "outbox"))
    store.r.srem(NOTIFY_KEY, gid)


def games_to_notify(store: Store) -> list[str]:
    return sorted(store.r.smembers(NOTIFY_KEY))


Outboxes = tuple[list[list[str]], dict[str, tuple[dict[str, str], list[str]]]]


def read_outboxes(store: Store, gids: list[str], players: list[str]) -> Outboxes:
    """In one round trip: each game's notices, and each player's record and webhook ids."""
    pipe = store.r.pipeline(transaction=False)
    for command in outbox_commands(gids, players):
        pipe.execute_command(*command)
    return outboxes_from(pipe.execute(), gids, players)


def outbox_commands(gids: list[str], players: list[str]) -> list[tuple[Any, ...]]:
    """The reads of `read_outboxes`, to ride in another round trip (a resolve's commit)."""
    return ([("LRANGE", game_key(gid, "outbox"), 0, -1) for gid in gids]
            + [command for pid in players for command in (
                ("HGETALL", player_key(pid)), ("SMEMBERS", player_webhooks_key(pid)))])


def outboxes_from(replies: list[Any], gids: list[str], players: list[str]) -> Outboxes:
    """`read_outboxes` from the replies of `outbox_commands` (raises the first failed one)."""
    _raise_failed(replies)
    outboxes, found = replies[:len(gids)], replies[len(gids):]
    reach = {pid: (found[2 * i], sorted(found[2 * i + 1])) for i, pid in enumerate(players)}
    return outboxes, reach


def _raise_failed(replies: list[Any]) -> None:
    """Raise the first failed reply of a pipeline sent with `raise_on_error=False`."""
    for reply in replies:
        if isinstance(reply, Exception):
            raise reply


def trim_outboxes(store: Store, taken: list[tuple[str, int]]) -> None:
    """Drop the notices taken from each game's outbox, (game, how many) each, in one round trip
    (two where commits added notices meanwhile: those games are marked again)."""
    pipe = store.r.pipeline(transaction=False)
    for command in trim_commands(taken):
        pipe.execute_command(*command)
    mark_grown(store, taken, pipe.execute())


def trim_commands(taken: list[tuple[str, int]]) -> list[tuple[Any, ...]]:
    """The commands of `trim_outboxes`, to ride in another round trip (a drain's release of
    its locks); their replies go to `mark_grown`."""
    return [*(("LTRIM", game_key(gid, "outbox"), count, -1) for gid, count in taken if count),
            ("SREM", NOTIFY_KEY, *(gid for gid, _ in taken)),
            # after the SREM: a commit adds its game to the set before its notices
            *(("LLEN", game_key(gid, "outbox")) for gid, _ in taken)]


def mark_grown(store: Store, taken: list[tuple[str, int]], replies: list[Any]) -> None:
    """After the trims (`replies`: those of `trim_commands`): mark again the games whose
    outbox a commit added to meanwhile."""
    _raise_failed(replies)
    lengths = replies[-len(taken):]
    grown = [gid for (gid, _), n in zip(taken, lengths, strict=True) if n]
    if grown:
        store.r.sadd(NOTIFY_KEY, *grown)


# ---- deliveries and their attempts ----------------------------------------------------------


def create_delivery(store: Store, did: str, record: dict[str, str], ttl: int) -> bool:
    """Create a delivery record whole, or not at all if it exists (a flush that runs twice)."""
    args: list[str | int] = [ttl]
    for field, value in record.items():
        args += [field, value]
    created = bool(store.r.eval(CREATE_DELIVERY, 1, delivery_key(did), *args))
    if created and record.get("webhook"):
        store.r.zadd(deliveries_key(record["webhook"]), {did: time.time()})
    return created


def attempt_claimed(store: Store, did: str, attempt: int) -> bool:
    return bool(store.r.hexists(delivery_key(did), f"claim:{attempt}"))


def claim_attempt(store: Store, did: str, attempt: int, at: str) -> dict[str, str] | None:
    """Claim attempt `attempt` (at most once) -> the delivery's record; None if claimed
    already; {} if the record expired (the claim goes with it)."""
    key = delivery_key(did)
    if not store.r.hsetnx(key, f"claim:{attempt}", at):
        return None
    record = store.r.hgetall(key)
    if "channel" not in record:
        store.r.delete(key)
        return {}
    store.r.hset(key, "attempts", str(attempt))
    return record


def update_delivery(store: Store, did: str, fields: dict[str, str]) -> None:
    store.r.hset(delivery_key(did), mapping=fields)


def log_attempt(store: Store, did: str, entry: dict[str, Any], ttl: int) -> None:
    store.r.rpush(attempts_key(did), json.dumps(entry))
    store.r.expire(attempts_key(did), ttl)


def next_attempt(store: Store, did: str) -> int:
    """Mark the delivery pending again under the first attempt number not yet claimed."""
    key = delivery_key(did)
    attempt = int(store.r.hget(key, "attempts") or "0") + 1
    while store.r.hexists(key, f"claim:{attempt}"):
        attempt += 1
    store.r.hset(key, mapping={"status": "pending", "attempts": str(attempt)})
    return attempt


def delivery(store: Store, did: str) -> tuple[dict[str, str], list[dict[str, Any]]]:
    """A delivery's record and its attempt log."""
    pipe = store.r.pipeline(transaction=False)
    pipe.hgetall(delivery_key(did))
    pipe.lrange(attempts_key(did), 0, -1)
    record, attempts = pipe.execute()
    return record, [json.loads(a) for a in attempts]


def webhook_deliveries(store: Store, wid: str, start: int, count: int) -> list[str]:
    """Delivery ids of a webhook, newest first."""
    return store.r.zrevrange(deliveries_key(wid), start, start + count - 1)


# ---- webhooks: records and health -----------------------------------------------------------


def save_webhook(store: Store, pid: str, wid: str, record: dict[str, str]) -> None:
    """The record, then the player's index (no transaction: the two keys lie in different
    slots of a cluster; a reader skips an id whose record is missing)."""
    pipe = store.r.pipeline(transaction=False)
    pipe.hset(webhook_key(wid), mapping=record)
    pipe.sadd(player_webhooks_key(pid), wid)
    pipe.execute()


def webhook(store: Store, wid: str) -> dict[str, str] | None:
    return store.r.hgetall(webhook_key(wid)) or None


def player_webhook_ids(store: Store, pid: str) -> list[str]:
    return sorted(store.r.smembers(player_webhooks_key(pid)))


def update_webhook(store: Store, wid: str, fields: dict[str, str]) -> None:
    store.r.hset(webhook_key(wid), mapping=fields)


def delete_webhook(store: Store, pid: str, wid: str) -> None:
    """Out of the index first, then the record (the order of `save_webhook`, reversed)."""
    pipe = store.r.pipeline(transaction=False)
    pipe.srem(player_webhooks_key(pid), wid)
    pipe.delete(webhook_key(wid))
    pipe.execute()


def webhook_succeeded(store: Store, wid: str) -> None:
    store.r.hdel(webhook_key(wid), "failing_since")


def webhook_failed(store: Store, wid: str) -> float:
    """Note a failure; -> since when the webhook has been failing (Unix seconds)."""
    now = time.time()
    store.r.hsetnx(webhook_key(wid), "failing_since", str(now))
    return float(store.r.hget(webhook_key(wid), "failing_since") or now)


# ---- deadlines -------------------------------------------------------------------------------


def add_deadline(store: Store, member: str, at: float) -> None:
    store.r.zadd(DEADLINES_KEY, {member: at})


def due_deadlines(store: Store, until: float) -> list[str]:
    return store.r.zrangebyscore(DEADLINES_KEY, "-inf", until)


def remove_deadline(store: Store, member: str) -> None:
    store.r.zrem(DEADLINES_KEY, member)


# ---- mail preferences ------------------------------------------------------------------------


def mail_prefs(store: Store, pid: str, gid: str | None = None) -> dict[str, str]:
    return store.r.hgetall(mail_prefs_key(pid, gid))


def set_mail_prefs(store: Store, pid: str, gid: str | None, fields: dict[str, str]) -> None:
    store.r.hset(mail_prefs_key(pid, gid), mapping=fields)


# ---- mail threads -----------------------------------------------------------------------------


def join_thread(store: Store, pid: str, gid: str, did: str) -> tuple[bool, int]:
    """(whether delivery `did` is the thread's first mail, the last event id already told).

    The first delivery to ask becomes the root for good (HSETNX), so its retries stay the root.
    """
    key = mail_thread_key(pid, gid)
    pipe = store.r.pipeline(transaction=False)
    pipe.hsetnx(key, "root", did)
    pipe.hmget(key, "root", "told")
    root, told = pipe.execute()[1]
    return root == did, int(told or 0)


def mark_told(store: Store, pid: str, gid: str, event_id: int) -> None:
    """The player's turn mail told the events up to `event_id`; the next mail tells on."""
    key = mail_thread_key(pid, gid)
    if event_id > int(store.r.hget(key, "told") or 0):
        store.r.hset(key, "told", str(event_id))
