"""The records of players' signed consents to moves by mail (docs/audit.md §16): each
player's statements in the order they were given, and on the player's hash the one in force
(`mail_consent`) and when their last move by mail arrived (`last_mail_move`), which a new
statement must come after."""

from __future__ import annotations

import json
from typing import Any

from service.storage.keys import player_consents_key, player_key
from service.storage.store import Store


def add(store: Store, pid: str, consent: dict[str, Any]) -> None:
    """Keep the consent and make it the one in force."""
    pipe = store.r.pipeline(transaction=False)
    pipe.rpush(player_consents_key(pid), json.dumps(consent, sort_keys=True))
    pipe.hset(player_key(pid), "mail_consent",
              "1" if consent["statement"]["mail_moves"] else "0")
    pipe.execute()


def latest(store: Store, pid: str) -> dict[str, Any] | None:
    """The consent in force: the last one given."""
    raw = store.r.lindex(player_consents_key(pid), -1)
    return json.loads(raw) if raw else None


def of_player(store: Store, pid: str) -> list[dict[str, Any]]:
    return [json.loads(raw) for raw in store.r.lrange(player_consents_key(pid), 0, -1)]


def note_mail_move(store: Store, pid: str, at: float) -> None:
    """A move by mail arrived at `at` (Unix seconds): a later consent must be issued after."""
    store.r.hset(player_key(pid), "last_mail_move", str(int(at)))
