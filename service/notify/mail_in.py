"""`parley mail-in`: the inbound mail service, an SMTP (or, with --lmtp, LMTP) receiver that the
site's mail server hands replies to (docs/notifications.md "Receiving replies").

It accepts mail only for reply addresses (`move-<token>@...`; anything else is refused at RCPT
with 550, so it never becomes a backscatter source) and one recipient per message (452 for a
second: the sending server retries it in its own transaction, which keeps LMTP's one-reply-per-
recipient rule trivially true). Each message goes to `service.notify.replies.handle` on a worker
thread. A failure to reach Redis answers 451, so the sending server tries again later.
"""

from __future__ import annotations

import asyncio
import email
import email.policy
import logging
import signal
import threading
from email.message import EmailMessage
from typing import Any

from aiosmtpd.controller import Controller
from aiosmtpd.lmtp import LMTP

from service.config import Config
from service.domain import mail_moves
from service.notify import replies
from service.ops.server_key import load_server_key
from service.storage.resolve_queue import make_queue
from service.storage.store import Store

log = logging.getLogger(__name__)

#: replies are short; anything bigger is refused by the SMTP layer
MAX_MESSAGE_BYTES = 1 << 20


class ReplyHandler:
    """aiosmtpd's handler: one move (or one answer) per accepted message."""

    def __init__(self, config: Config, store: Store, queue: Any, server_key: Any) -> None:
        self.config, self.store, self.queue, self.server_key = config, store, queue, server_key
        self.outcomes: list[replies.Outcome] = []  # the latest, for the operator's logs and tests

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any,  # noqa: N802
                          address: str, rcpt_options: list[str]) -> str:
        if mail_moves.token_of(address) is None:
            return "550 5.1.1 No such mailbox: this server takes only replies to game mails"
        if envelope.rcpt_tos:
            return "452 4.5.3 One recipient per message, please"
        envelope.rcpt_tos.append(address)
        return "250 2.1.5 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802
        raw = envelope.original_content or envelope.content
        msg: EmailMessage = email.message_from_bytes(raw, policy=email.policy.default)  # type: ignore[assignment]
        try:
            outcome = await asyncio.get_running_loop().run_in_executor(
                None, replies.handle, self.store, self.queue, self.config, self.server_key, msg,
                envelope.mail_from or "", envelope.rcpt_tos[0])
        except Exception:  # Redis away and the like: the sending server keeps the mail
            log.exception("mail-in: could not handle %s", msg.get("Message-ID"))
            return "451 4.3.0 Temporarily unable to process the reply; try again later"
        self.outcomes = [*self.outcomes[-99:], outcome]
        return "250 2.0.0 OK"


class _LmtpController(Controller):
    def factory(self) -> LMTP:
        return LMTP(self.handler, **self.SMTP_kwargs)


def start(config: Config, lmtp: bool = False, handler: ReplyHandler | None = None
          ) -> Controller:
    """Start the receiver on PARLEY_MAIL_IN_HOST:PARLEY_MAIL_IN_PORT (a thread of its own)."""
    if handler is None:
        handler = ReplyHandler(config, Store.from_config(config),
                               make_queue(config.REDIS_URL, config.QUEUE),
                               load_server_key(config.SERVER_KEY_PATH))
    cls = _LmtpController if lmtp else Controller
    controller = cls(handler, hostname=config.MAIL_IN_HOST, port=config.MAIL_IN_PORT,
                     data_size_limit=MAX_MESSAGE_BYTES, server_hostname=config.MAIL_REPLY_DOMAIN)
    controller.start()
    return controller


def main(lmtp: bool = False) -> int:
    """`parley mail-in`: serve until SIGTERM or Ctrl-C."""
    config = Config()
    controller = start(config, lmtp)
    log.info("mail-in: %s on %s:%d, replies to move-<token>@%s", "LMTP" if lmtp else "SMTP",
             config.MAIL_IN_HOST, config.MAIL_IN_PORT, config.MAIL_REPLY_DOMAIN)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    stop.wait()
    controller.stop()
    log.info("mail-in: stopped")
    return 0
