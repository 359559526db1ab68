"""The records behind address confirmation (docs/notifications.md "Address confirmation"): a
player's address waiting for confirmation, the confirmation tokens, and the counters that
limit confirmation mails.

A player's hash holds `email` (the confirmed address: every mail goes there, and it is in the
address index) or `email_pending` (an address that gets nothing but its confirmation), never
both. Single-key commands and scripts only, so each runs on one node of a cluster.
"""

from __future__ import annotations

import json

from service.storage import mail_replies
from service.storage.keys import (
    confirm_sent_key,
    confirm_token_key,
    confirms_key,
    player_confirms_key,
    player_key,
)
from service.storage.scripts import CHANGE_ADDRESS, CONFIRM_ADDRESS
from service.storage.store import Store

DAY = 86400


def change(store: Store, pid: str, address: str | None) -> None:
    """The player's address becomes `address`, waiting for confirmation (None: no address);
    the confirmed address it replaces gets no more mail and leaves the address index."""
    old = store.r.eval(CHANGE_ADDRESS, 1, player_key(pid), address or "")
    if old:
        mail_replies.unindex_email(store, old, pid)


def confirm(store: Store, pid: str, address: str) -> bool:
    """`address` becomes the player's confirmed address and enters the address index; False if
    the player has given it up meanwhile."""
    if not store.r.eval(CONFIRM_ADDRESS, 1, player_key(pid), address):
        return False
    mail_replies.index_email(store, address, pid)
    return True


def save_token(store: Store, digest: str, pid: str, address: str, ttl: int) -> None:
    store.r.set(confirm_token_key(digest), json.dumps({"player": pid, "address": address}),
                ex=ttl)


def token_record(store: Store, digest: str) -> dict[str, str] | None:
    raw = store.r.get(confirm_token_key(digest))
    return json.loads(raw) if raw else None


def take_token(store: Store, digest: str) -> dict[str, str] | None:
    """The token's record, deleted as it is read: a link confirms once."""
    raw = store.r.getdel(confirm_token_key(digest))
    return json.loads(raw) if raw else None


def allowance(store: Store, pid: str, address: str, interval: int, per_address: int,
              per_player: int) -> int:
    """Count one confirmation mail to `address` for `pid` if the limits allow it: 0, or else
    the seconds until one may go. A day's count starts with its first mail."""
    keys = (confirm_sent_key(address.lower()), confirms_key(address.lower()),
            player_confirms_key(pid))
    pipe = store.r.pipeline(transaction=False)
    for key in keys:
        pipe.get(key)
        pipe.ttl(key)
    got = pipe.execute()
    (sent, sent_ttl), (to_address, address_ttl), (for_player, player_ttl) = \
        zip(got[::2], got[1::2], strict=True)
    if sent is not None:
        return max(sent_ttl, 1)
    if int(to_address or 0) >= per_address:
        return max(address_ttl, 1)
    if int(for_player or 0) >= per_player:
        return max(player_ttl, 1)
    if interval > 0 and not store.r.set(keys[0], 1, ex=interval, nx=True):
        return interval  # another request took this address's turn just now
    pipe = store.r.pipeline(transaction=False)
    for key in keys[1:]:
        pipe.set(key, 0, ex=DAY, nx=True)
        pipe.incr(key)
    pipe.execute()
    return 0
