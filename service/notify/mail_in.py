"""`parley mail-in`: the inbound mail service, an SMTP (or, with --lmtp, LMTP) receiver that the
site's mail server hands replies to (docs/notifications.md "Receiving replies").

It accepts mail only for reply addresses (`move-<token>@...`, and `join-<token>@...` of an
invitation; anything else is refused at RCPT
with 550, so it never becomes a backscatter source) and one recipient per message (452 for a
second: the sending server retries it in its own transaction, which keeps LMTP's one-reply-per-
recipient rule trivially true). Each message is parsed (`service.notify.inbound.parse`, bounded)
and goes to `service.notify.replies.handle` on a worker thread, so that no mail, however
crafted, keeps the receiver from answering others. A failure to reach Redis answers 451, so the
sending server tries again later; a message that can never be processed answers 554, so it does
not try again.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import threading
from typing import Any

import redis
from aiosmtpd.controller import Controller
from aiosmtpd.lmtp import LMTP
from aiosmtpd.smtp import SMTP

from service.config import Config
from service.domain import mail_moves
from service.notify import inbound, invitation_mail, replies
from service.ops.server_key import load_server_key
from service.storage.configured import open_store
from service.storage.resolve_queue import make_queue
from service.storage.store import Store

log = logging.getLogger(__name__)

#: replies are short, but a client may quote a whole turn mail with its board picture (at most
#: 200 KB); anything bigger is refused by the SMTP layer (552) as it arrives, and the lines of a
#: refused message are never gathered (of a megabyte of empty lines, gathering alone held the
#: other connections some 70 ms)
MAX_MESSAGE_BYTES = 512 * 1024
#: what may pass if the sending server tries again later
TRANSIENT = (redis.ConnectionError, redis.TimeoutError, OSError)
#: bytes read from a connection at a time: aiosmtpd handles every line of what one read
#: brought before another connection gets a turn, and 256 KB (one read) of empty lines took
#: 0.7 s; 4 KB take milliseconds
READ_CHUNK = 4096


class ReplyHandler:
    """aiosmtpd's handler: one reply's moves (or one answer) per accepted message."""

    def __init__(self, config: Config, store: Store, queue: Any, server_key: Any) -> None:
        self.config, self.store, self.queue, self.server_key = config, store, queue, server_key
        self.outcomes: list[replies.Outcome] = []  # the latest, for the operator's logs and tests

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any,  # noqa: N802
                          address: str, rcpt_options: list[str]) -> str:
        if mail_moves.token_of(address) is None and invitation_mail.token_of(address) is None:
            return "550 5.1.1 No such mailbox: this server takes only replies to game mails"
        if envelope.rcpt_tos:
            return "452 4.5.3 One recipient per message, please"
        envelope.rcpt_tos.append(address)
        return "250 2.1.5 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802
        return await asyncio.get_running_loop().run_in_executor(
            None, self.receive, envelope.original_content or envelope.content,
            envelope.mail_from or "", envelope.rcpt_tos[0])

    def receive(self, raw: bytes, mail_from: str, recipient: str) -> str:
        """The SMTP answer to one message, on a worker thread: 4xx only for what may pass."""
        try:
            outcome = replies.handle(self.store, self.queue, self.config, self.server_key,
                                     inbound.parse(raw), mail_from, recipient)
        except inbound.Unreadable as err:
            log.info("mail-in: a mail from %s refused: %s", inbound.clean(mail_from), err)
            return f"554 5.6.0 {err}"
        except TRANSIENT:  # Redis away and the like: the sending server keeps the mail
            log.exception("mail-in: could not handle a mail from %s", inbound.clean(mail_from))
            return "451 4.3.0 Temporarily unable to process the reply; try again later"
        except Exception:  # the same mail would fail the same way: no retries
            log.exception("mail-in: could not handle a mail from %s", inbound.clean(mail_from))
            return "554 5.3.0 The reply could not be processed"
        self.outcomes = [*self.outcomes[-99:], outcome]
        return "250 2.0.0 OK"


class _InTurns(asyncio.BufferedProtocol):
    """A protocol the transport hands READ_CHUNK bytes at a time (it reads no more than the
    buffer holds), so that one connection's data never keeps the others waiting long."""

    def get_buffer(self, sizehint: int) -> bytearray:
        self._chunk = bytearray(READ_CHUNK)
        return self._chunk

    def buffer_updated(self, nbytes: int) -> None:
        self.data_received(bytes(self._chunk[:nbytes]))  # type: ignore[attr-defined]


class _SMTP(SMTP, _InTurns):
    pass


class _LMTP(LMTP, _InTurns):
    pass


class _SmtpController(Controller):
    def factory(self) -> SMTP:
        return _SMTP(self.handler, **self.SMTP_kwargs)


class _LmtpController(Controller):
    def factory(self) -> LMTP:
        return _LMTP(self.handler, **self.SMTP_kwargs)


def start(config: Config, lmtp: bool = False, handler: ReplyHandler | None = None
          ) -> Controller:
    """Start the receiver on PARLEY_MAIL_IN_HOST:PARLEY_MAIL_IN_PORT (a thread of its own).

    aiosmtpd logs every recipient at INFO, and a recipient is a reply address, whose token
    plays a move: its logger says only what goes wrong."""
    logging.getLogger("mail.log").setLevel(logging.WARNING)
    if handler is None:
        handler = ReplyHandler(config, open_store(config),
                               make_queue(config.REDIS_URL, config.QUEUE),
                               load_server_key(config.SERVER_KEY_PATH))
    cls = _LmtpController if lmtp else _SmtpController
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
