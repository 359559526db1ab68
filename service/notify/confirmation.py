"""Address confirmation (docs/notifications.md "Address confirmation"): an address a player
gives gets nothing but one confirmation mail until its owner follows the link in it, so that
nobody can make the server mail an address that is not theirs, nor have a reply forged from it
answered.

Registering with an address, or changing it, leaves it waiting (`email_pending`), outside the
address index. A confirmation mail goes out only as the limits allow (one per address per
PARLEY_CONFIRM_INTERVAL, PARLEY_CONFIRMS_PER_ADDRESS a day to an address and
PARLEY_CONFIRMS_PER_PLAYER a day for a player), so confirmations cannot be used to send mail
either; and it says nothing a player chose (not even their name), only the server's own text.
Its link carries a random token of 256 bits, of which the server keeps only the SHA-256; the
link works once, for TOKEN_TTL. Opening it shows a page with a button; only the button's POST
confirms, so a mail system's link scanner that fetches every link confirms nothing.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
from email.utils import parseaddr
from typing import Any

from service.config import Config
from service.notify import mail
from service.storage import address_records as records
from service.storage.store import Store, new_id

log = logging.getLogger(__name__)

#: how long a confirmation link works
TOKEN_TTL = 3 * 86400
#: the `X-Parley-Event` of a confirmation mail (filters; and mail-in ignores it coming back)
EVENT = "address.confirmation"
SUBJECT = "Parley: confirm your email address"
JOB = "workers.notify.confirmation_job"


def own_address(config: Config, address: str) -> bool:
    """Whether mail to `address` would come back to this server: its From address, or any
    address at its reply domain."""
    address = address.strip().lower()
    domain = address.rsplit("@", 1)[-1].rstrip(".")
    return (address == parseaddr(config.MAIL_FROM)[1].lower()
            or domain == config.MAIL_REPLY_DOMAIN.strip().lower().rstrip("."))


def state(player: dict[str, str]) -> dict[str, Any]:
    """The player's address as the API shows it: the one waiting, else the confirmed one."""
    address = player.get("email_pending") or player.get("email") or None
    return {"email": address, "email_confirmed": bool(player.get("email"))
            and not player.get("email_pending")}


def ask(store: Store, queue: Any, config: Config, pid: str, address: str) -> int:
    """Queue a confirmation mail to the player's waiting `address` if the limits allow:
    0, or else the seconds until one may go."""
    wait = records.allowance(store, pid, address, config.CONFIRM_INTERVAL,
                             config.CONFIRMS_PER_ADDRESS, config.CONFIRMS_PER_PLAYER)
    if wait:
        log.info("player %s: confirmation mail held back for %d s (limits)", pid, wait)
        return wait
    queue.enqueue(JOB, pid, address, job_timeout=60, result_ttl=0, failure_ttl=7 * 86400)
    return 0


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def link(config: Config, token: str) -> str:
    return f"{config.BASE_URL}/v1/email/confirm?token={token}"


def text(config: Config, pid: str, url: str) -> str:
    """The mail's plain text: the server's words only."""
    days = TOKEN_TTL // 86400
    return (f"Hello,\n\nthis address was given to the Parley game server at {config.BASE_URL}\n"
            f"for the player {pid}. Before Parley sends this player's game mails here,\n"
            "please confirm that the address is yours: open this link and press Confirm.\n\n"
            f"  {url}\n\n"
            f"The link works once, for {days} days.\n\n"
            "If you did not give this address to Parley, ignore this mail: nothing more will\n"
            "be sent to it, and mail from it will not be answered.\n")


def send(store: Store, config: Config, pid: str, address: str) -> str:
    """The job: mail a new link to `address` if it still waits for the player's confirmation.
    -> "sent", "stale" (the address changed or was confirmed meanwhile) or "failed" (the
    player may ask again)."""
    if (store.player(pid) or {}).get("email_pending") != address:
        return "stale"
    token = secrets.token_urlsafe(32)
    records.save_token(store, _digest(token), pid, address, TOKEN_TTL)
    msg = mail.compose(config, to=address, subject=SUBJECT,
                       body=text(config, pid, link(config, token)),
                       message_id=new_id("confirm"), unsubscribe=None,
                       headers={"X-Parley-Event": EVENT})
    if not mail.send_or_log(config, msg, f"player {pid}: confirmation mail"):
        return "failed"  # the player asks again
    log.info("player %s: confirmation mail sent", pid)
    return "sent"


def pending(store: Store, token: str) -> dict[str, str] | None:
    """What a link would confirm ({"player", "address"}), without using it up."""
    return records.token_record(store, _digest(token))


def confirm(store: Store, token: str) -> dict[str, str] | None:
    """Use up a link: its address becomes the player's confirmed address (mails flow, the
    address index names the player). None if the link is unknown, used, expired, or its
    address is no longer the player's."""
    record = records.take_token(store, _digest(token))
    if record is None or not records.confirm(store, record["player"], record["address"]):
        return None
    log.info("player %s: address confirmed", record["player"])
    return record
