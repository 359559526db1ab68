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
from service.domain.problems import Problem
from service.notify import inbound, invitation_mail, letters, mail, receipts
from service.storage import mail_replies as records
from service.storage import reply_marks
from service.storage.store import Store, new_id

log = logging.getLogger(__name__)

#: at most this many answers to one address per hour
ANSWERS_PER_HOUR = 10


@dataclass(frozen=True)
class Outcome:
    """What became of one inbound mail: `played` (the seqs of its moves, space-separated),
    `joined` (the seat an invitation's reply took), `answered` (code), `refused` (code, nobody
    answered) or `ignored` (why). `stopped`: the
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
    invitation = invitation_mail.token_of(recipient)
    if invitation:
        return _join(store, queue, config, msg, sender, invitation)
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
    try:
        return _played(store, config, server_key, msg, sender, reply)
    finally:
        reply_marks.release(store, ticket.gid, ticket.seat)


def _played(store: Store, config: Config, server_key: Any, msg: EmailMessage, sender: str,
            reply: mail_moves.Reply) -> Outcome:
    """A reply that was played, line by line as far as it went: its receipt or answer."""
    ticket = reply.ticket
    seqs = " ".join(str(p.seq) for p in reply.played)
    if reply.stop is None:
        receipt = receipts.send(store, config, server_key, msg, sender, reply)
        log.info("mail-in: %s played seq %s in %s by mail (%s)", sender, seqs, ticket.gid,
                 "receipt sent" if receipt else "no receipt")
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
    if not mail.send_or_log(config, answer, f"mail-in: answer to {sender}"):
        return False
    if address is not None and game is not None and seat is not None:
        reply_marks.shown(store, game.id, seat, game.step)
    return True


def _join(store: Store, queue: Any, config: Config, msg: EmailMessage, sender: str,
          token: str) -> Outcome:
    """A reply to an invitation: the word `join` takes the seat; the invited address is
    answered either way (it got the invitation), a stranger never."""
    words = inbound.reply_text(msg).split()
    if not words or words[0].strip(".!").lower() != invitation_mail.WORD:
        offer = invitation_mail.pending(store, token)
        if offer is None or offer["email"].lower() != sender:
            return Outcome("refused", "bad_invitation")
        _answer_invited(store, config, msg, sender, "no_join", "Parley: your invitation",
                        f"To take the seat, reply to the invitation with the word "
                        f"'{invitation_mail.WORD}' alone on the first line.")
        return Outcome("answered", "no_join", offer["game"])
    try:
        seated = invitation_mail.accept(store, queue, config, token, sender)
    except Problem as problem:
        log.info("mail-in: invitation reply from %s refused: %s", sender, problem.code)
        if problem.code in ("bad_invitation", "wrong_sender"):
            return Outcome("refused", problem.code)
        _answer_invited(store, config, msg, sender, problem.code, "Parley: your invitation",
                        f"{problem.detail} The invitation stands while it lasts.")
        return Outcome("answered", problem.code)
    _answer_invited(store, config, msg, sender, "joined", "Parley: you have a seat",
                    f"You hold seat {seated['seat']} of game {seated['game']}. The game starts "
                    "when every seat is taken; a mail will come whenever it is your turn, and "
                    "you play by replying to it with your moves.")
    return Outcome("joined", str(seated["seat"]), seated["game"])


def _answer_invited(store: Store, config: Config, msg: EmailMessage, to: str, code: str,
                    subject: str, text: str) -> bool:
    """A short answer to the invited address (at most ANSWERS_PER_HOUR an hour)."""
    if records.count_answer(store, to) > ANSWERS_PER_HOUR:
        return False
    answer = mail.compose(config, to=to, subject=subject, body=text + "\n",
                          message_id=new_id("answer"), unsubscribe=None,
                          answering=inbound.message_id(msg),
                          headers={"X-Parley-Answer": code})
    return mail.send_or_log(config, answer, f"mail-in: answer to {to}")
