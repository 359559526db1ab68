"""The receipt of a reply whose moves were all played (docs/notifications.md "Moves by
reply"): a mail in the game's thread saying what the reply played, as which moves, and what
happens next, so a player who wrote six lines from a phone knows they all counted. Where the
seat is still to act (two of Cartagena's three actions, say), it is also the turn's mail: the
position and the numbered moves with an address for the rest, in place of the turn mails the
reply's own moves caused, which wait for it.

A short receipt (the seat not to act) is on by default; the setting `reply_receipts` turns it
off. A reply stopped by one of its lines gets the answer that says why instead
(service/notify/replies.py).
"""

from __future__ import annotations

import textwrap
import time
from email.message import EmailMessage
from typing import Any

from engines.sentences import join
from service.config import Config
from service.domain import mail_moves
from service.domain.boards import seat_names
from service.domain.game import load_game
from service.domain.game_model import Game
from service.domain.mail_moves import Reply
from service.notify import inbound, letters, mail
from service.notify.letter_parts import compose
from service.storage import reply_marks
from service.storage.store import Store, new_id

#: how long a receipt waits for the reply's last move to be applied before it says what next
SETTLE_WAIT = 3.0
EVENT = "reply.receipt"


def wanted(player: dict[str, str]) -> bool:
    return player.get("reply_receipts", "1") == "1"


def send(store: Store, config: Config, server_key: Any, msg: EmailMessage, sender: str,
         reply: Reply) -> bool:
    """Mail the receipt of `reply` to its sender; False if none went. Where the seat is still
    to act, the receipt is the turn's mail too (the position, the numbered moves, an address
    for the rest), whatever the setting: the turn mails the reply's own moves caused were held
    back for it (service.storage.reply_marks)."""
    ticket = reply.ticket
    player = store.player(ticket.pid) or {}
    game = _settled(store, ticket.gid, reply.played[-1].seq) if reply.played else None
    if game is None:
        return False
    done = "; ".join(f"{p.line.quoted()} as '{p.notation}'" for p in reply.played)
    count = f"{len(reply.played)} move{'s' if len(reply.played) != 1 else ''}"
    said = f"Your reply made {count}: {done}."
    names = seat_names(store, game)
    asked = game.status == "active" and ticket.seat in game.to_act
    if asked and mail_moves.allows_mail_moves(player):
        address = mail_moves.answer_address(store, server_key, config.MAIL_REPLY_DOMAIN, game,
                                            ticket.seat, ticket.pid)
        letter = letters.answer(store, config, game, ticket.seat, player, ticket.pid, "",
                                address, f"{said} It is still your turn.")
    elif wanted(player) and not asked:
        address = None
        lines = [f"Hello {player.get('name') or 'there'},", "",
                 *textwrap.wrap(said, letters.WIDTH), "",
                 *textwrap.wrap(_next(game, ticket.seat, names), letters.WIDTH),
                 "", "-- ", f"Game {game.id} ({game.ruleset}), step {game.step}",
                 "No more receipts like this one: PATCH "
                 f"{config.BASE_URL}/v1/players/{ticket.pid} (reply_receipts false)."]
        letter = compose(f"Re: {letters.subject_of(game, names, ticket.pid)}", lines, 0,
                         draw=False)
    else:
        return False
    receipt = mail.compose(
        config, to=sender, subject=letter.subject, body=letter.text, message_id=new_id("receipt"),
        unsubscribe=None, thread=letters.thread_root(game.id, ticket.pid), reply_to=address,
        answering=inbound.message_id(msg), headers={"X-Parley-Event": EVENT})
    if not mail.send_or_log(config, receipt, f"mail-in: receipt to {sender}"):
        return False
    if address is not None:
        reply_marks.shown(store, game.id, ticket.seat, game.step)
    return True


def _settled(store: Store, gid: str, seq: int) -> Game | None:
    """The game once the entry `seq` is applied (or as it is after SETTLE_WAIT)."""
    deadline = time.monotonic() + SETTLE_WAIT
    while True:
        game = load_game(store, gid)
        if game is None or game.applied >= seq or time.monotonic() > deadline:
            return game
        time.sleep(0.02)


def _next(game: Game, seat: int, names: list[str]) -> str:
    """What happens next, from the seat's side (not asked to act)."""
    if game.finished:
        return "The game has ended; a mail with the result follows."
    waiting = [names[s] for s in game.to_act]
    return f"Now it is the turn of {join(waiting)}; you get a mail when it is yours." \
        if waiting else "Nobody is to move now."
