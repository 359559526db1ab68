"""The daily digest: one mail a day listing every game where it is the player's turn, for a
player who chose `mail_digest: daily` instead of a mail per turn (docs/notifications.md
"Daily digest").

Turn mails and reminders of such a player are not sent (their deliveries say so); the start,
the end and timeouts still come one by one. The digest goes out at the player's `digest_hour`
in their own time zone. Each game in it has its board, its numbered moves and its own reply
address, which takes a move exactly as a turn mail's does.

The schedule is a sorted set of players by due time. A worker claims a due digest by moving
its due time a lease ahead (`LEASE_SECONDS`), so no other worker sends it meanwhile; once the
mail is sent it schedules the next day's. A worker that dies between the claim and the send
leaves the digest due again when the lease ends, and the next sweep sends it: a crash delays
that day's digest by the lease instead of losing it. One that dies after the send but before
scheduling the next day makes the player get the digest a second time, once. A send that fails
(the mail server refuses or is away) is tried again the same way for `RETRY_SECONDS` after the
digest was due, then given up for the day, as a turn mail is after its last attempt.
"""

from __future__ import annotations

import logging
import time
from datetime import UTC, datetime, timedelta
from typing import Any

from service.config import Config
from service.domain import mail_moves, notices
from service.domain.game import load_game
from service.notify import letters, mail
from service.storage import mail_replies as records
from service.storage.store import Store, new_id

log = logging.getLogger(__name__)

#: the kinds a digest replaces
DIGESTED = frozenset({notices.TURN_STARTED, notices.DEADLINE_REMINDER})
DEFAULT_HOUR = 8
#: how long a claimed digest is the claiming worker's to send: longer than a send can take
#: (its SMTP timeout is 15 s), short enough that a crash delays the digest little
LEASE_SECONDS = 600
#: a digest whose send fails is tried again at each lease's end for this long after its hour
RETRY_SECONDS = 3600


def wants_digest(player: dict[str, str]) -> bool:
    return player.get("mail_digest") == "daily"


def hour_of(player: dict[str, str]) -> int:
    return int(player.get("digest_hour") or DEFAULT_HOUR)


def next_due(now: float, player: dict[str, str]) -> float:
    """The next `digest_hour`:00 in the player's time zone strictly after `now`."""
    zone = letters.time_zone(player)
    local = datetime.fromtimestamp(now, tz=UTC).astimezone(zone)
    at = local.replace(hour=hour_of(player), minute=0, second=0, microsecond=0)
    if at.timestamp() <= now:
        at += timedelta(days=1)  # aware arithmetic keeps the wall-clock hour
    return at.timestamp()


def last_due(now: float, player: dict[str, str]) -> float:
    """The last `digest_hour`:00 in the player's time zone at or before `now`."""
    zone = letters.time_zone(player)
    local = datetime.fromtimestamp(now, tz=UTC).astimezone(zone)
    at = local.replace(hour=hour_of(player), minute=0, second=0, microsecond=0)
    if at.timestamp() > now:
        at -= timedelta(days=1)
    return at.timestamp()


def reschedule(store: Store, pid: str, player: dict[str, str], now: float | None = None) -> None:
    """Put the player's next digest on the schedule (or take it off)."""
    if wants_digest(player):
        records.schedule_digest(store, pid, next_due(now or time.time(), player))
    else:
        records.unschedule_digest(store, pid)


def send_due(store: Store, config: Config, server_key: Any, now: float | None = None) -> int:
    """Send every digest that is due (from the sweep); returns how many went out."""
    now = now or time.time()
    sent = 0
    for pid in records.due_digests(store, now):
        player = store.player(pid) or {}
        if not wants_digest(player):
            records.unschedule_digest(store, pid)
            continue
        lease = now + LEASE_SECONDS
        if not records.claim_digest(store, pid, now, lease):
            continue  # another worker took it
        try:
            sent += send_digest(store, config, server_key, pid, player)
        except Exception:  # one player's failure must not stop the others
            if now - last_due(now, player) < RETRY_SECONDS:
                log.exception("digest for %s failed; tried again in %d s", pid, LEASE_SECONDS)
                continue
            log.exception("digest for %s failed; given up until tomorrow", pid)
        records.finish_digest(store, pid, lease, next_due(now, player))
    return sent


def send_digest(store: Store, config: Config, server_key: Any, pid: str,
                player: dict[str, str]) -> bool:
    """Mail the player's digest now; False if no game waits for them (nothing is sent)."""
    if not player.get("email"):
        return False
    waiting = []
    for gid in store.player_games(pid):
        game = load_game(store, gid)
        seat = game.seat_of(pid) if game is not None else None
        if game is None or seat is None or game.status != "active" or seat not in game.to_act:
            continue
        reply = None
        if mail_moves.allows_mail_moves(player):
            reply = mail_moves.reply_to(store, server_key, config.MAIL_REPLY_DOMAIN, gid,
                                        seat, game.step, pid)
        waiting.append((game, seat, reply))
    if not waiting:
        return False
    letter = letters.digest(store, config, player, pid, waiting)
    only_reply = waiting[0][2] if len(waiting) == 1 else None
    msg = mail.compose(config, to=player["email"], subject=letter.subject, body=letter.text,
                       html=letter.html, images=letter.pictures,
                       message_id=new_id("digest"), unsubscribe=None,
                       reply_to=only_reply, headers={"X-Parley-Event": "digest"})
    mail.send(config, msg)
    log.info("digest: %d games to %s", len(waiting), pid)
    return True
