"""A mail that arrives at a reply address: play its moves, or answer what was wrong.

`parley mail-in` hands every accepted mail here (docs/notifications.md "Moves by reply").
Bounces, automatic replies, list mail and loops are logged and never answered. A reply that
makes no move (unknown or spent token, stale step, no move, an illegal move, moves by mail
turned off) is answered in the game's thread with the reason and, while it is still the
player's turn, the position and the legal moves; nothing changes. A reply that one of its lines
stopped after it made moves is answered too: the moves it made, and why that line was not
played. Answers go only to a registered player's own address, and at most ANSWERS_PER_HOUR to
one address, so a misbehaving mail system can never start a loop. A mail whose From is not
exactly one well-formed address (`bad_from`) is neither acted on nor answered: the address it
seems to name may not be the one a mail server checked. What a mail says is logged only with
its line breaks and other unprintable characters replaced, and an answer quotes its Message-ID
only if it is well-formed.
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
    """What became of one inbound mail: `played` (the seqs of its moves, space-separated),
    `answered` (code), `refused` (code, nobody answered) or `ignored` (why). `stopped`: the
    code of the line that stopped a reply after it played some (answered where allowed)."""

    kind: str
    detail: str
    game: str | None = None
    stopped: str | None = None


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
        reply = mail_moves.play(store, queue, server_key, ticket, sender,
                                inbound.reply_text(msg), signing.issued_now())
    except mail_moves.Refusal as refusal:
        return _refused(store, config, server_key, msg, sender, refusal, None)
    seqs = " ".join(str(p.seq) for p in reply.played)
    if reply.stop is None:
        log.info("mail-in: %s played seq %s in %s by mail", sender, seqs, ticket.gid)
        return Outcome("played", seqs, ticket.gid)
    if not reply.played:
        return _refused(store, config, server_key, msg, sender, reply.stop, reply)
    answered = reply.stop.answer and _answer(store, config, server_key, msg, sender,
                                             reply.stop, reply)
    log.info("mail-in: %s played seq %s in %s by mail; line %d stopped the reply: %s (%s)",
             sender, seqs, ticket.gid, reply.stopped_at.number if reply.stopped_at else 0,
             reply.stop.code, "answered" if answered else "not answered")
    return Outcome("played", seqs, ticket.gid, stopped=reply.stop.code)


def _refused(store: Store, config: Config, server_key: Any, msg: EmailMessage, sender: str,
             refusal: mail_moves.Refusal, reply: mail_moves.Reply | None) -> Outcome:
    """A reply that made no move: answered where allowed, logged."""
    answered = refusal.answer and _answer(store, config, server_key, msg, sender, refusal,
                                          reply)
    gid = refusal.ticket.gid if refusal.ticket else None
    log.info("mail-in: reply from %s for %s refused: %s (%s)", sender, gid, refusal.code,
             "answered" if answered else "not answered")
    return Outcome("answered" if answered else "refused", refusal.code, gid)


def _said(refusal: mail_moves.Refusal, reply: mail_moves.Reply | None) -> tuple[str, str | None]:
    """The answer's reason, and its opening where the reply made some moves (None: the
    letter's own, that nothing was changed)."""
    if reply is None or reply.stopped_at is None or len(reply.lines) == 1:
        return refusal.message, None
    why = f"{reply.stopped_at.quoted()}: {refusal.message} Nothing after it was tried."
    if not reply.played:
        return f"its {why}", None
    done = "; ".join(p.line.quoted() + ("" if p.line.text == p.notation else
                                        f" as '{p.notation}'") for p in reply.played)
    moves = f"{len(reply.played)} move{'s' if len(reply.played) != 1 else ''}"
    return why, f"Your reply made {moves}: {done}. Its {why}"


def _answer(store: Store, config: Config, server_key: Any, msg: EmailMessage, sender: str,
            refusal: mail_moves.Refusal, reply: mail_moves.Reply | None = None) -> bool:
    """Mail the reason back to the player who wrote (with what `reply` played, if anything);
    False if nobody may be answered."""
    ticket = refusal.ticket
    pid = ticket.pid if ticket else records.player_for_email(store, sender)
    player = store.player(pid) if pid else None
    if not player or (player.get("email") or "").lower() != sender:
        return False  # never mail an address that is not a registered player's own
    if records.count_answer(store, sender) > ANSWERS_PER_HOUR:
        return False
    game = load_game(store, ticket.gid) if ticket else None
    seat = ticket.seat if ticket else None
    address = None
    if game is not None and seat is not None and game.status == "active" and \
            seat in game.to_act and mail_moves.allows_mail_moves(player):
        address = mail_moves.answer_address(store, server_key, config.MAIL_REPLY_DOMAIN, game,
                                            seat, ticket.pid)
    why, opening = _said(refusal, reply)
    letter = letters.answer(store, config, game if seat is not None else None, seat, player,
                            pid, why, address, opening)
    answer = mail.compose(
        config, to=player["email"], subject=letter.subject, body=letter.text, html=letter.html,
        message_id=new_id("answer"), unsubscribe=None, reply_to=address,
        thread=letters.thread_root(game.id, pid) if game is not None and pid else None,
        answering=inbound.message_id(msg), headers={"X-Parley-Answer": refusal.code})
    try:
        mail.send(config, answer)
    except Exception as err:  # the move was refused either way; the answer is best effort
        log.warning("mail-in: answer to %s not sent: %s", sender, err)
        return False
    return True
