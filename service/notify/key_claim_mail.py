"""A mail-only player adds a key later (docs/notifications.md "Invitations and mail-only
players"): they ask for a code by address, the code comes to that address only, and whoever
reads it registers a key for that player (the parley program or the browser client) and gets
a bearer token. The answer to the request is the same whether or not the address is a mail-only
player's, so it tells nobody which addresses play here.

The code is 256 random bits; the server keeps its SHA-256 for TOKEN_TTL, and it adds one key.
Claim mails count against the limits of confirmation mails (PARLEY_CONFIRM_INTERVAL and the
daily counts), which they resemble: a mail to an address the player confirmed, in the server's
words only.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
from typing import Any

from service.config import Config
from service.notify import mail
from service.storage import address_records, mail_replies
from service.storage import invitation_records as records
from service.storage.store import Store, new_id

log = logging.getLogger(__name__)

#: how long a code works
TOKEN_TTL = 3 * 86400
EVENT = "player.key_claim"
JOB = "workers.notify.key_claim_job"


def request(store: Store, queue: Any, config: Config, address: str) -> None:
    """Queue the code's mail if `address` is a mail-only player's and the limits allow."""
    pid = mail_replies.player_for_email(store, address)
    if pid is None or (store.player(pid) or {}).get("mail_only") != "1":
        log.info("key claim for an address of no mail-only player: nothing sent")
        return
    if address_records.allowance(store, pid, address, config.CONFIRM_INTERVAL,
                                 config.CONFIRMS_PER_ADDRESS, config.CONFIRMS_PER_PLAYER):
        log.info("player %s: key claim mail held back (limits)", pid)
        return
    queue.enqueue(JOB, pid, job_timeout=60, result_ttl=0, failure_ttl=7 * 86400)


def _digest(code: str) -> str:
    return hashlib.sha256(code.encode("utf-8", "surrogatepass")).hexdigest()


def send(store: Store, config: Config, pid: str) -> str:
    """The job: mail a code to the mail-only player's address -> "sent", "stale" or
    "failed"."""
    player = store.player(pid) or {}
    if player.get("mail_only") != "1" or not player.get("email"):
        return "stale"
    code = secrets.token_urlsafe(32)
    records.save_claim(store, _digest(code), pid, TOKEN_TTL)
    body = (f"Hello,\n\nsomeone asked the Parley game server at {config.BASE_URL} to add a key\n"
            f"to the player who plays by mail from this address ({pid}).\n"
            "With a key you can play with the parley program or in a browser, and sign\n"
            "your moves yourself. With the parley program:\n\n"
            f"  parley keygen\n  parley claim {code} --server {config.BASE_URL}\n\n"
            f"The code works once, for {TOKEN_TTL // 86400} days. If you did not ask for it, "
            "ignore this mail:\nnothing changes, and you keep playing by mail.\n")
    msg = mail.compose(config, to=player["email"], subject="Parley: a key for your player",
                       body=body, message_id=new_id("claim"), unsubscribe=None,
                       headers={"X-Parley-Event": EVENT})
    if not mail.send_or_log(config, msg, f"player {pid}: key claim mail"):
        return "failed"  # the player asks again
    return "sent"


def player_of(store: Store, code: str) -> str | None:
    """The mail-only player a code is for, without using it up."""
    return records.claim_record(store, _digest(code))


def take(store: Store, code: str) -> str | None:
    """Use up a code -> its player, if still mail-only (else None)."""
    pid = records.take_claim(store, _digest(code))
    if pid is None or (store.player(pid) or {}).get("mail_only") != "1":
        return None
    return pid


def put_back(store: Store, code: str, pid: str) -> None:
    """A code whose key was refused (a bad proof, a key registered already) works again."""
    records.save_claim(store, _digest(code), pid, TOKEN_TTL)
