"""A mail that arrives at a reply address: play its move, or answer what was wrong.

`parley mail-in` hands every accepted mail here (docs/notifications.md "Moves by reply").
Bounces, automatic replies, list mail and loops are logged and never answered. A reply that
makes no move (unknown or spent token, stale step, no move, an illegal move, moves by mail
turned off) is answered in the game's thread with the reason and, while it is still the
player's turn, the position and the legal moves; nothing changes. Answers go only to a
registered player's own address, and at most ANSWERS_PER_HOUR to one address, so a
misbehaving mail system can never start a loop. A mail whose From is not exactly one well-formed
address (`bad_from`) is neither acted on nor answered: the address it seems to name may not be
the one a mail server checked. What a mail says is logged only with its line breaks and other
unprintable characters replaced, and an answer quotes its Message-ID only if it is well-formed.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from email.message import EmailMessage
from typing import Any

from parley_protocol import signing

from service.config import Config
from service.domain import mail_moves
from service.domain.game import load_game
from service.notify import inbound, letters, mail
from service.storage import mail_replies as records
from service.storage.store import Store, new_id

log = logging.getLogger(__name__)

#: at most this many answers to one address per hour
ANSWERS_PER_HOUR = 10


@dataclass(frozen=True)
class Outcome:
    """What became of one inbound mail: `played` (seq), `answered` (code), `refused` (code,
    nobody answered) or `ignored` (why)."""

    kind: str
    detail: str
    game: str | None = None


def handle(store: Store, queue: Any, config: Config, server_key: Any, msg: EmailMessage,
           mail_from: str, recipient: str) -> Outcome:
    """Act on one mail delivered to `recipient` (envelope sender `mail_from`)."""
    reason = inbound.ignore_reason(msg, mail_from, inbound.address_of(config.MAIL_FROM))
    if reason:
        log.info("mail-in: %s from %s ignored (%s)", inbound.message_id(msg),
                 inbound.clean(mail_from), reason)
        return Outcome("ignored", reason)
    sender = inbound.sender_of(msg)
    if sender is None:
        log.info("mail-in: %s from %s refused: bad_from (not one well-formed From address)",
                 inbound.message_id(msg), inbound.clean(mail_from))
        return Outcome("refused", "bad_from")
    token = mail_moves.token_of(recipient)
    try:
        ticket = mail_moves.ticket(store, token) if token else None
        if ticket is None:
            raise mail_moves.Refusal("unknown_token", "The address you replied to is not one "
                                     "this server gave out, or it has expired.")
        accepted = mail_moves.play(store, queue, server_key, ticket, sender,
                                   inbound.reply_text(msg), signing.issued_now())
    except mail_moves.Refusal as refusal:
        answered = refusal.answer and _answer(store, config, server_key, msg, sender, refusal)
        gid = refusal.ticket.gid if refusal.ticket else None
        log.info("mail-in: reply from %s for %s refused: %s (%s)", sender, gid, refusal.code,
                 "answered" if answered else "not answered")
        return Outcome("answered" if answered else "refused", refusal.code, gid)
    log.info("mail-in: %s played seq %d in %s by mail", sender, accepted.seq, ticket.gid)
    return Outcome("played", str(accepted.seq), ticket.gid)


def _answer(store: Store, config: Config, server_key: Any, msg: EmailMessage, sender: str,
            refusal: mail_moves.Refusal) -> bool:
    """Mail the reason back to the player who wrote; False if nobody may be answered."""
    ticket = refusal.ticket
    pid = ticket.pid if ticket else records.player_for_email(store, sender)
    player = store.player(pid) if pid else None
    if not player or (player.get("email") or "").lower() != sender:
        return False  # never mail an address that is not a registered player's own
    if records.count_answer(store, sender) > ANSWERS_PER_HOUR:
        return False
    game = load_game(store, ticket.gid) if ticket else None
    seat = ticket.seat if ticket else None
    reply = None
    if game is not None and seat is not None and game.status == "active" and \
            seat in game.to_act and mail_moves.allows_mail_moves(player):
        reply = mail_moves.reply_to(store, server_key, config.MAIL_REPLY_DOMAIN, game.id, seat,
                                    game.step, ticket.pid)
    letter = letters.answer(store, config, game if seat is not None else None, seat, player,
                            pid, refusal.message, reply)
    answer = mail.compose(
        config, to=player["email"], subject=letter.subject, body=letter.text, html=letter.html,
        message_id=new_id("answer"), unsubscribe=None, reply_to=reply,
        thread=letters.thread_root(game.id, pid) if game is not None and pid else None,
        answering=inbound.message_id(msg), headers={"X-Parley-Answer": refusal.code})
    try:
        mail.send(config, answer)
    except Exception as err:  # the move was refused either way; the answer is best effort
        log.warning("mail-in: answer to %s not sent: %s", sender, err)
        return False
    return True
