"""Moves made by replying to a turn mail (docs/notifications.md "Moves by reply").

A turn mail asks for its reply at `move-<token>@<domain>`. The token is derived from the server
key and (game, seat, step, player), so a reminder of the same turn carries the same token; the
server stores only the token's digest, mapped to what it authorises. A reply is played only if
the token is known, the sender is the seat player's registered address, the player allows mail
moves, the token was not spent, the step is still the seat's turn, the text names one move and
the rules accept it. The move is then appended as an envelope the server signs on the player's
behalf (key id `mail`, docs/audit.md §15) whose nonce is the token's digest: one token makes at
most one move, and the audit shows which moves were authorised by mail.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import itertools
import re
from dataclasses import dataclass
from typing import Any

from parley_protocol import signing

from engines.contract import Engine, IllegalMove
from service.domain.chain import Accepted, append_server_move, mail_envelope
from service.domain.game import load_game
from service.domain.problems import Problem
from service.ops.server_key import derived_secret
from service.storage import mail_replies as records
from service.storage.resolve_queue import wake
from service.storage.store import Store

#: how long a reply token is known (a stale one still gets a helpful answer meanwhile)
TOKEN_TTL = 180 * 86400
#: the local part of a reply address: lower case only, as some mail systems fold case
ADDRESS = re.compile(r"move-([a-z2-7]{26})", re.IGNORECASE)
_NUMBER = re.compile(r"#?(\d{1,4})\.?")


@dataclass(frozen=True)
class Ticket:
    """What one reply token authorises: a move of `seat` at `step` of game `gid` by `pid`."""

    gid: str
    seat: int
    step: int
    pid: str
    token: str


class Refusal(Exception):
    """A reply that makes no move: `code` and a sentence for the answer mail. `answer` is
    False where answering would mail someone who did not write (an unknown sender)."""

    def __init__(self, code: str, message: str, ticket: Ticket | None = None,
                 answer: bool = True) -> None:
        super().__init__(message)
        self.code, self.message, self.ticket, self.answer = code, message, ticket, answer


def allows_mail_moves(player: dict[str, str]) -> bool:
    """On by default for a player with an email address; `mail_moves` turns it off."""
    return bool(player.get("email")) and player.get("mail_moves", "1") == "1"


def token_for(server_key: Any, gid: str, seat: int, step: int, pid: str) -> str:
    """26 base32 letters (130 bits): unguessable, and safe in an address's local part."""
    mac = hmac.new(derived_secret(server_key, b"parley-mail-reply-v1"),
                   f"{gid}|{seat}|{step}|{pid}".encode(), hashlib.sha256).digest()
    return base64.b32encode(mac[:17]).decode("ascii")[:26].lower()


def token_digest(token: str) -> str:
    """The token's SHA-256 as base64url: the key of its record and the move's nonce."""
    return signing.b64url_encode(hashlib.sha256(token.lower().encode("ascii")).digest())


def reply_to(store: Store, server_key: Any, domain: str, gid: str, seat: int, step: int,
             pid: str) -> str:
    """The turn's reply address `move-<token>@domain`, its token recorded (again) for
    TOKEN_TTL."""
    token = token_for(server_key, gid, seat, step, pid)
    records.save_token(store, token_digest(token), f"{gid} {seat} {step} {pid}", TOKEN_TTL)
    return f"move-{token}@{domain}"


def token_of(address: str) -> str | None:
    """The token of a reply address (any domain), or None if it is not one."""
    match = ADDRESS.fullmatch(address.rsplit("@", 1)[0].strip("<> "))
    return match[1].lower() if match else None


def ticket(store: Store, token: str) -> Ticket | None:
    record = records.token_record(store, token_digest(token))
    if record is None:
        return None
    gid, seat, step, pid = record.split(" ")
    return Ticket(gid, int(seat), int(step), pid, token)


def play(store: Store, queue: Any, server_key: Any, ticket: Ticket, sender: str, text: str,
         received_at: str) -> Accepted:
    """Make the move the reply `text` names, or raise a Refusal saying why not."""
    player = store.player(ticket.pid) or {}
    if sender.lower() != (player.get("email") or "").lower():
        raise Refusal("wrong_sender", "The reply came from another address than the player's.",
                      ticket, answer=False)
    if not allows_mail_moves(player):
        raise Refusal("mail_moves_off", "You turned moves by mail off; play with a signed move "
                      "(`parley move`), or turn them on again (PATCH /v1/players/{id} "
                      "with mail_moves true).", ticket)
    game = load_game(store, ticket.gid)
    if game is None or game.finished:
        raise Refusal("game_over", "The game has ended.", ticket)
    nonce = token_digest(ticket.token)
    if nonce in store.nonces(ticket.gid):
        raise Refusal("token_spent", "A move was made with this reply address already; each "
                      "turn mail takes one move.", ticket)
    if game.step != ticket.step or ticket.seat not in game.to_act:
        raise Refusal("stale_step", "That turn is over: the game moved on since the mail you "
                      "answered.", ticket)
    engine = game.engine
    state = store.state(ticket.gid)
    move = read_move(engine, state, ticket.seat, text, ticket)
    try:
        engine.check(state, ticket.seat, move)
    except IllegalMove as err:
        raise Refusal(err.code, err.message, ticket) from err
    envelope = mail_envelope(server_key, ticket.gid, ticket.seat, ticket.step, move, nonce,
                             received_at)
    try:
        accepted = append_server_move(store, server_key, envelope)
    except Problem as problem:  # the step passed or the token was spent meanwhile
        raise Refusal(problem.code, problem.detail, ticket) from problem
    if not accepted.created:
        raise Refusal("token_spent", "A move was made with this reply address already.", ticket)
    if accepted.schedule:
        wake(queue, ticket.gid)
    return accepted


def read_move(engine: Engine, state: Any, seat: int, text: str,
              ticket: Ticket | None = None) -> dict[str, Any]:
    """The move a reply names: a number of the mail's list (numbered as `parley view`
    numbers them), or a line in the game's notation."""
    raw = [line.strip() for line in text.splitlines()]
    lines = [line for line in raw if line]
    if not lines:
        raise Refusal("no_move", "The reply named no move: write the number of a move, or the "
                      "move in the game's notation, on the first line.", ticket)
    number = _NUMBER.fullmatch(lines[0].split()[0]) if len(lines[0].split()) == 1 else None
    if number is not None:
        return _numbered(engine, state, seat, int(number[1]), ticket)
    # a long move (a setup) may have been wrapped by the mail client: try the paragraph first
    paragraph = itertools.takewhile(bool, itertools.dropwhile(lambda line: not line, raw))
    for candidate in dict.fromkeys((" ".join(paragraph), lines[0])):
        try:
            return engine.parse_move(candidate)
        except IllegalMove as err:
            problem = err
    raise Refusal(problem.code, f"{problem.message} {engine.notation}", ticket)


def _numbered(engine: Engine, state: Any, seat: int, number: int,
              ticket: Ticket | None) -> dict[str, Any]:
    if not engine.decision(state).get("legal_moves_complete", True):
        raise Refusal("no_move", "This turn's moves are not numbered: write the move in the "
                      f"game's notation. {engine.notation}", ticket)
    for i, move in enumerate(engine.legal_moves(state, seat)):
        if i == number:
            return move
    raise Refusal("no_move", f"There is no move number {number}.", ticket)
