"""Notification jobs (thin RQ entry points over `service.notify.dispatch`).

`flush` runs in the resolve job after each drained game and in the sweep; `deliver` makes one
attempt of one delivery; `deadline_job` is the scheduled reminder or timeout of one decision;
`confirmation_job` mails an address its confirmation link.
"""

from __future__ import annotations

import logging
from typing import Any

from service.domain.game_model import Game
from service.notify import confirmation, digest, dispatch, invitation_mail, key_claim_mail
from service.ops.server_key import load_server_key
from service.storage.notify_records import Outboxes
from service.storage.store import Store
from workers import context

log = logging.getLogger(__name__)


def _server_key() -> Any:
    return load_server_key(context.config().SERVER_KEY_PATH)  # cached per path


def flush(store: Store, queue: Any, gid: str, game: Game | None = None) -> int:
    """Turn the game's recorded notices into delivery jobs; returns how many notices.
    With `game`, the caller holds the game's lock (see `dispatch.flush`)."""
    return dispatch.flush(store, queue, context.config(), gid, game=game)


def flush_resolved(store: Store, queue: Any, games: list[Game],
                   read: Outboxes | None = None,
                   trims: list[tuple[str, int]] | None = None) -> list[int]:
    """`flush` for games whose locks the caller holds (a resolve job's batch), in two round
    trips for all of them, one when their outboxes were `read` already, none when the caller
    sends the `trims` (`dispatch.flush_locked`); per game, how many notices."""
    return dispatch.flush_locked(store, queue, context.config(), games, read, trims)


def sweep(store: Store, queue: Any) -> int:
    """Flush every game whose commit recorded notices that were not dispatched (a crash), and
    run every deadline whose scheduled job is overdue (a worker died); returns how many."""
    total = 0
    for gid in dispatch.pending_games(store):
        try:
            total += dispatch.flush(store, queue, context.config(), gid)
        except Exception:  # one broken game must not stop the others
            log.exception("game %s: flushing notices failed", gid)
    for gid, step, kind in dispatch.overdue_deadlines(store):
        log.warning("game %s: the %s of step %d is overdue; running it now", gid, kind, step)
        try:
            dispatch.deadline_due(store, queue, context.config(), _server_key(), gid, step, kind)
            total += 1
        except Exception:
            log.exception("game %s: deadline %s of step %d failed", gid, kind, step)
    try:
        total += digest.send_due(store, context.config(), _server_key())
    except Exception:
        log.exception("sending the daily digests failed")
    return total


def deliver(did: str, attempt: int) -> str:
    """RQ job: one attempt of one delivery (mail or webhook)."""
    return dispatch.deliver(context.store(), context.queue(), context.config(), _server_key(),
                            did, attempt)


def deadline_job(gid: str, step: int, kind: str) -> str:
    """RQ scheduled job: the reminder or the timeout of a game's decision `step`."""
    return dispatch.deadline_due(context.store(), context.queue(), context.config(),
                                 _server_key(), gid, step, kind)


def confirmation_job(pid: str, address: str) -> str:
    """RQ job: the confirmation mail of a player's address (queued by the web process, which
    applied the limits: no web process waits for a mail server)."""
    return confirmation.send(context.store(), context.config(), pid, address)


def invitation_job(gid: str, inviter: str, address: str) -> str:
    """RQ job: an invitation mail (queued by the web process, which applied the limits)."""
    return invitation_mail.send(context.store(), context.config(), gid, inviter, address)


def key_claim_job(pid: str) -> str:
    """RQ job: the mail with a code that adds a key to a mail-only player."""
    return key_claim_mail.send(context.store(), context.config(), pid)
