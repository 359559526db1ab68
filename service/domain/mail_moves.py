"""Moves made by replying to a turn mail (docs/notifications.md "Moves by reply").

A turn mail asks for its reply at `move-<token>@<domain>`. The token is derived from the server
key and (game, seat, step, player), so a reminder of the same turn carries the same token; the
server stores only the token's digest, mapped to what it authorises. A reply is tried only if
the token is known, the sender is the seat player's registered address, the player allows mail
moves, the token made no move yet and the step is still the seat's turn.

Every line of the reply's words is a move, in order (at most MAX_LINES): a number of the
answered mail's list, read as that move's notation, or the game's notation. Each is appended as
an envelope the server signs on the player's behalf (key id `mail`, docs/audit.md §15), the
n-th with the nonce `line_nonce(token, n)`: one token makes the moves of one reply, and the
audit shows which moves mail authorised. A line is checked against the position the lines
before it left, so each entry is awaited until a worker has applied it (APPLY_WAIT in all),
and the next line is tried only while the seat is still to act in the decision that entry left
it in. Other seats may move meanwhile (a simultaneous decision), so the state read may be
later than that: when every entry the rules applied after ours names the step the state is at
now, no decision closed since, and a seat only leaves a decision's `to_act`, never rejoins it,
so a seat asked now was asked right after our entry. Anything else stops the reply (`moved_on`).
The first line that cannot be played stops it; the lines before it stand.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import time
from dataclasses import dataclass, field
from typing import Any

from parley_protocol import signing

from engines.contract import Engine, IllegalMove
from service.domain.chain import Accepted, append_server_move, mail_envelope
from service.domain.game import load_game
from service.domain.game_model import Game
from service.domain.game_reads import reads_of
from service.domain.problems import Problem
from service.ops.server_key import derived_secret
from service.storage import consent_records, reply_marks
from service.storage import mail_replies as records
from service.storage.resolve_queue import wake
from service.storage.store import Store

#: how long a reply token is known (a stale one still gets a helpful answer meanwhile)
TOKEN_TTL = 180 * 86400
#: the local part of a reply address: lower case only, as some mail systems fold case
ADDRESS = re.compile(r"move-([a-z2-7]{26})", re.IGNORECASE)
#: the move lines one reply may hold (a turn of several actions is a handful)
MAX_LINES = 30
#: how long one reply waits, all its lines together, for its moves to be applied (a worker
#: takes milliseconds); then the lines left are given up, so no reply holds the receiver long
APPLY_WAIT = 10.0
_POLL = 0.02
#: how much of a line an answer quotes
_QUOTED = 60
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
    """A reply, or one of its lines, that makes no move: `code` and a sentence for the answer
    mail. `answer` is False where answering would mail someone who did not write (an unknown
    sender)."""

    def __init__(self, code: str, message: str, ticket: Ticket | None = None,
                 answer: bool = True) -> None:
        super().__init__(message)
        self.code, self.message, self.ticket, self.answer = code, message, ticket, answer


def allows_mail_moves(player: dict[str, str]) -> bool:
    """Whether replies make moves for this player: a confirmed address, and a signed consent
    in force (service.domain.consent; a mail-only player, who has no key, consented by joining
    by mail), and the setting `mail_moves` not turned off."""
    return bool(player.get("email")) and player.get("mail_moves", "1") == "1" and (
        player.get("mail_consent") == "1" or player.get("mail_only") == "1")


def token_for(server_key: Any, gid: str, seat: int, step: int, pid: str, after: int = 0) -> str:
    """26 base32 letters (130 bits): unguessable, and safe in an address's local part.
    `after`: an address for the same turn's moves after entry `after`, once a reply to the
    turn's own address made some (`answer_address`)."""
    message = f"{gid}|{seat}|{step}|{pid}" + (f"|{after}" if after else "")
    mac = hmac.new(derived_secret(server_key, b"parley-mail-reply-v1"), message.encode(),
                   hashlib.sha256).digest()
    return base64.b32encode(mac[:17]).decode("ascii")[:26].lower()


def token_digest(token: str) -> str:
    """The token's SHA-256 as base64url: the key of its record and its first move's nonce."""
    return line_nonce(token, 1)


def line_nonce(token: str, n: int) -> str:
    """The nonce of the n-th move (from 1) a reply with this token makes: base64url of the
    SHA-256 of the token, and of `<token>|<n>` after the first (docs/audit.md §15)."""
    text = token.lower() if n == 1 else f"{token.lower()}|{n}"
    return signing.b64url_encode(hashlib.sha256(text.encode("ascii")).digest())


def reply_to(store: Store, server_key: Any, domain: str, gid: str, seat: int, step: int,
             pid: str, after: int = 0) -> str:
    """The turn's reply address `move-<token>@domain`, its token recorded (again) for
    TOKEN_TTL."""
    token = token_for(server_key, gid, seat, step, pid, after)
    records.save_token(store, token_digest(token), f"{gid} {seat} {step} {pid}", TOKEN_TTL)
    return f"move-{token}@{domain}"


def answer_address(store: Store, server_key: Any, domain: str, game: Game, seat: int,
                   pid: str) -> str:
    """Where the seat's next reply goes: its turn's address, unless a reply to that one made
    moves already and the step stayed (a seat moving several times at one step): then an
    address for the moves after the game's last entry."""
    spent = token_digest(token_for(server_key, game.id, seat, game.step, pid))
    after = game.head if spent in store.nonces(game.id) else 0
    return reply_to(store, server_key, domain, game.id, seat, game.step, pid, after)


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


@dataclass(frozen=True)
class Line:
    """A line of a reply's words: its number (from 1, blank lines not counted), its text, and
    its paragraph (a move the mail client wrapped continues in the same paragraph)."""

    number: int
    text: str
    paragraph: int

    def quoted(self) -> str:
        """The line as an answer quotes it: `line 2 ('E5-E6')`."""
        text = self.text if len(self.text) <= _QUOTED else self.text[:_QUOTED - 1] + "…"
        return f"line {self.number} ({text!r})"


@dataclass(frozen=True)
class Played:
    """A move a reply made: its line (the first, for a wrapped move), the move in notation,
    its entry's seq."""

    line: Line
    notation: str
    seq: int


@dataclass
class Reply:
    """What a reply did: the moves it made, in order, and why the line `stopped_at` was not
    played (`stop`; None: every line was)."""

    ticket: Ticket
    lines: list[Line]
    played: list[Played] = field(default_factory=list)
    stop: Refusal | None = None
    stopped_at: Line | None = None


def move_lines(text: str, ticket: Ticket | None = None) -> list[Line]:
    """The reply's move lines, or a Refusal if it names none or more than MAX_LINES."""
    lines: list[Line] = []
    paragraph = 0
    for raw in text.splitlines():
        if not raw.strip():
            paragraph += 1
            continue
        lines.append(Line(len(lines) + 1, " ".join(raw.split()), paragraph))
    if not lines:
        raise Refusal("no_move", "The reply named no move: write the number of a move, or the "
                      "move in the game's notation, one move per line above the quoted mail.",
                      ticket)
    if len(lines) > MAX_LINES:
        raise Refusal("too_many_lines", f"A reply takes at most {MAX_LINES} moves, one per line; "
                      f"this one has {len(lines)} lines, so none was tried.", ticket)
    return lines


def play(store: Store, queue: Any, server_key: Any, ticket: Ticket, sender: str, text: str,
         received_at: str) -> Reply:
    """Play the reply's lines in order as far as they go (`Reply`), or raise a Refusal where
    it may play none: the wrong sender, moves by mail off, the game over, the token spent, the
    turn over, nothing to read."""
    player = store.player(ticket.pid) or {}
    if sender.lower() != (player.get("email") or "").lower():
        raise Refusal("wrong_sender", "The reply came from another address than the player's.",
                      ticket, answer=False)
    if not allows_mail_moves(player):
        why = ("You turned moves by mail off; turn them on again (PATCH /v1/players/{id} with "
               "mail_moves true)" if player.get("mail_moves") == "0" else
               "Moves by mail need your signed consent first (`parley mail-moves on`, or the "
               "browser client's settings)")
        raise Refusal("mail_moves_off", f"{why}, or play with a signed move (`parley move`).",
                      ticket)
    game = load_game(store, ticket.gid)
    if game is None or game.finished:
        raise Refusal("game_over", "The game has ended.", ticket)
    if token_digest(ticket.token) in store.nonces(ticket.gid):
        raise Refusal("token_spent", "Moves were made with this reply address already; each "
                      "turn mail takes one reply.", ticket)
    engine = game.engine
    state = store.state(ticket.gid)
    decision = engine.decision(state)
    if decision["step"] != ticket.step or ticket.seat not in decision["to_act"]:
        raise Refusal("stale_step", "That turn is over: the game moved on since the mail you "
                      "answered.", ticket)
    reply = Reply(ticket, move_lines(text, ticket))
    # the turn mails this reply's own moves cause wait for its answer (service.notify.replies)
    reply_marks.mark(store, ticket.gid, ticket.seat, reply_marks.RUNNING, int(APPLY_WAIT) + 20)
    listed = _Listed(engine, state, ticket.seat, ticket)
    deadline = time.monotonic() + APPLY_WAIT
    i = 0
    while i < len(reply.lines):
        try:
            if reply.played:
                state = position_after(store, engine, ticket, reply.played[-1], deadline)
            move, used = _read(engine, state, ticket.seat, reply.lines, i, listed, ticket)
            accepted = _append(store, queue, server_key, ticket, engine.decision(state)["step"],
                               move, len(reply.played) + 1, received_at)
        except _Rejected as rejected:  # the line before was refused when it was applied
            reply.stop, reply.stopped_at = rejected.refusal, reply.played.pop().line
            return reply
        except Refusal as refusal:
            reply.stop, reply.stopped_at = refusal, reply.lines[i]
            return reply
        reply.played.append(Played(reply.lines[i], engine.format_move(move), accepted.seq))
        i += used
    return reply


class _Rejected(Exception):
    """A line's move was appended, then refused by the rules when a worker applied it."""

    def __init__(self, refusal: Refusal) -> None:
        super().__init__(refusal.message)
        self.refusal = refusal


class _Listed:
    """The numbered moves of the mail being answered: the seat's legal moves where the reply's
    first line is tried, numbered as `parley view` numbers them; listed at the first number."""

    def __init__(self, engine: Engine, state: Any, seat: int, ticket: Ticket) -> None:
        self.engine, self.state, self.seat, self.ticket = engine, state, seat, ticket
        self.moves: list[dict[str, Any]] | None = None

    def notation(self, number: int) -> str:
        if self.moves is None:
            if not self.engine.decision(self.state).get("legal_moves_complete", True):
                raise Refusal("no_move", "This turn's moves are not numbered: write the move in "
                              f"the game's notation. {self.engine.notation}", self.ticket)
            self.moves = list(self.engine.legal_moves(self.state, self.seat))
        if number >= len(self.moves):
            raise Refusal("no_move", f"There is no move number {number}.", self.ticket)
        return self.engine.format_move(self.moves[number])


def _read(engine: Engine, state: Any, seat: int, lines: list[Line], i: int, listed: _Listed,
          ticket: Ticket) -> tuple[dict[str, Any], int]:
    """The move line `i` names, checked against `state`, and how many lines it took: one, or
    more where the line alone cannot be played and, joined with the lines after it in its
    paragraph, makes a move the mail client wrapped."""
    line = lines[i]
    number = _NUMBER.fullmatch(line.text)
    if number is not None:
        return _checked(engine, state, seat, listed.notation(int(number[1])), ticket), 1
    try:
        return _checked(engine, state, seat, line.text, ticket), 1
    except Refusal as refusal:
        alone = refusal
    for j in range(i + 1, len(lines)):
        if lines[j].paragraph != line.paragraph or _NUMBER.fullmatch(lines[j].text):
            break
        try:
            text = " ".join(x.text for x in lines[i:j + 1])
            return _checked(engine, state, seat, text, ticket), j - i + 1
        except Refusal:
            continue
    raise alone


def _checked(engine: Engine, state: Any, seat: int, text: str,
             ticket: Ticket) -> dict[str, Any]:
    """The move `text` names in the game's notation, if the rules accept it at `state`."""
    try:
        move = engine.parse_move(text)
    except IllegalMove as err:
        raise Refusal(err.code, f"{err.message} {engine.notation}", ticket) from err
    try:
        engine.check(state, seat, move)
    except IllegalMove as err:
        raise Refusal(err.code, err.message, ticket) from err
    return move


def _append(store: Store, queue: Any, server_key: Any, ticket: Ticket, step: int,
            move: dict[str, Any], n: int, received_at: str) -> Accepted:
    """Append the reply's n-th move at `step`, signed on the player's behalf, and wake the
    game."""
    envelope = mail_envelope(server_key, ticket.gid, ticket.seat, step, move,
                             line_nonce(ticket.token, n), received_at)
    try:
        accepted = append_server_move(store, server_key, envelope)
    except Problem as problem:  # the step passed or the token was spent meanwhile
        raise Refusal(problem.code, problem.detail, ticket) from problem
    if not accepted.created:
        raise Refusal("token_spent", "Moves were made with this reply address already.", ticket)
    consent_records.note_mail_move(store, ticket.pid,
                                   signing.parse_issued_at(received_at) or time.time())
    if accepted.schedule:
        wake(queue, ticket.gid)
    return accepted


def position_after(store: Store, engine: Engine, ticket: Ticket, last: Played,
                   deadline: float) -> Any:
    """The state the reply's last move left, once a worker applied it (by `deadline`, a
    monotonic time), if the seat is still to act there (see the module's docstring); else a
    Refusal saying why the next line is not tried, or `_Rejected` if the rules refused that
    move."""
    gid = ticket.gid
    game = load_game(store, gid)
    while game is not None and game.applied < last.seq:
        if time.monotonic() >= deadline:
            raise Refusal("not_applied", f"The move of {last.line.quoted()} is not applied "
                          "yet; send the rest again once the game shows it.", ticket)
        time.sleep(_POLL)
        game = load_game(store, gid)
    if game is None:
        raise Refusal("game_over", "The game has ended.", ticket)
    rejection = reads_of(store, game).rejection(gid, last.seq)
    if rejection:
        raise _Rejected(Refusal(rejection["code"], rejection["detail"], ticket))
    if game.finished:
        raise Refusal("game_over", "The game has ended.", ticket)
    state, applied = _applied_state(store, game)
    decision = engine.decision(state)
    later = store.entries(gid, last.seq + 1, applied)
    refused = store.rejections(gid) if later else {}
    if any(seq not in refused and signing.load_json(fields["env"])["payload"]["step"]
           != decision["step"] for seq, fields in later):
        raise Refusal("moved_on", f"Another move came in after {last.line.quoted()} and the "
                      "game moved on.", ticket)
    if ticket.seat not in decision["to_act"]:
        raise Refusal("turn_over", f"Your turn ended with {last.line.quoted()}.", ticket)
    return state


def _applied_state(store: Store, game: Game) -> tuple[Any, int]:
    """The stored state and the last entry applied to it: read between two reads of the meta
    that agree (a commit writes the state and `applied` together)."""
    while True:
        state = store.state(game.id)
        again = load_game(store, game.id)
        if again is None or again.applied == game.applied:
            return state, game.applied
        game = again
