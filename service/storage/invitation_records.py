"""The records behind invitations by mail (docs/notifications.md "Invitations and mail-only
players"): what an invitation's token offers, and the daily counters that keep invitations from
being a way to send mail. Single-key commands only, so each runs on one node of a cluster."""

from __future__ import annotations

import json

from service.storage.keys import (
    email_key,
    game_key,
    invitation_key,
    invitations_key,
    key_claim_key,
    player_invitations_key,
    player_key,
)
from service.storage.store import Store

DAY = 86400


def save(store: Store, digest: str, record: dict[str, str], ttl: int) -> None:
    store.r.set(invitation_key(digest), json.dumps(record), ex=ttl)


def record(store: Store, digest: str) -> dict[str, str] | None:
    """What the token offers, without using it up."""
    raw = store.r.get(invitation_key(digest))
    return json.loads(raw) if raw else None


def take(store: Store, digest: str) -> dict[str, str] | None:
    """The token's record, deleted as it is read: an invitation seats once."""
    raw = store.r.getdel(invitation_key(digest))
    return json.loads(raw) if raw else None


def restore(store: Store, digest: str, record: dict[str, str], ttl: int) -> None:
    """Put back an invitation taken for a seat it could not give (the game was not open
    meanwhile, say), so that the invitee sees the reason again, not an unknown link."""
    store.r.set(invitation_key(digest), json.dumps(record), ex=ttl, nx=True)


def allowance(store: Store, pid: str, address: str, per_player: int, per_address: int) -> int:
    """Count one invitation from `pid` to `address` if today's limits allow it: 0, or else the
    seconds until one may go. A day's count starts with its first invitation."""
    keys = (player_invitations_key(pid), invitations_key(address.lower()))
    pipe = store.r.pipeline(transaction=False)
    for key in keys:
        pipe.get(key)
        pipe.ttl(key)
    got = pipe.execute()
    for (count, ttl), limit in zip(zip(got[::2], got[1::2], strict=True),
                                   (per_player, per_address), strict=True):
        if int(count or 0) >= limit:
            return max(ttl, 1)
    pipe = store.r.pipeline(transaction=False)
    for key in keys:
        pipe.set(key, 0, ex=DAY, nx=True)
        pipe.incr(key)
    pipe.execute()
    return 0


def claim_address(store: Store, address: str, pid: str) -> bool:
    """`address` enters the address index for the new player `pid` unless a player has it."""
    return bool(store.r.set(email_key(address.lower()), pid, nx=True))


def drop_player(store: Store, pid: str) -> None:
    """Remove a player record made for an address another player claimed first."""
    store.r.delete(player_key(pid))


def mark_mail_only(store: Store, gid: str, pid: str) -> None:
    """The game's record notes that `pid` holds its seat without a key, for its audit."""
    store.r.hset(game_key(gid, "meta"), f"mail_only:{pid}", "1")


def save_claim(store: Store, digest: str, pid: str, ttl: int) -> None:
    store.r.set(key_claim_key(digest), pid, ex=ttl)


def claim_record(store: Store, digest: str) -> str | None:
    return store.r.get(key_claim_key(digest))


def take_claim(store: Store, digest: str) -> str | None:
    """The player of a key-claim code, deleted as it is read: a code adds one key."""
    return store.r.getdel(key_claim_key(digest))


def end_mail_only(store: Store, pid: str) -> None:
    """The player has a key now: new seats are their own (old ones stay marked per game)."""
    store.r.hdel(player_key(pid), "mail_only")
