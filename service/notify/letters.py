"""What a notification mail says: one thread per game and player, written for a person.

A player reads these mails instead of the API, so each one says, in words and from their own
seat: who they play with, what happened since their last turn mail (the events their seat may
see), the board (the engine's `render_text`), whose turn it is, the deadline in the player's
own time zone, the legal moves numbered as `parley view` numbers them, and at the end the result.
Players are named, never numbered by seat (the board gets their names too); ids and steps appear
only in the footer beside the links. The subject is the same for every mail of a game to one
player, so mail clients keep the game in one conversation; the threading headers are set by
`service.notify.mail.compose` (docs/notifications.md "Mail").
The HTML part, with the boards as pictures, is made by `service.notify.letter_parts`.
"""

from __future__ import annotations

import itertools
import logging
import textwrap
from collections import deque
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from engines.contract import Engine
from engines.sentences import join
from service.client.move_input import label
from service.config import Config
from service.domain import game_clocks, notices
from service.domain.boards import seat_names
from service.domain.game_model import PLATFORM_EVENTS, Game
from service.domain.game_reads import reads_of
from service.notify import prose
from service.notify.letter_parts import Board, Letter, Line, compose
from service.ops import clock
from service.storage.store import Store

log = logging.getLogger(__name__)

#: at most this many legal moves are listed; beyond, the mail says how to write one
LEGAL_MOVES_LISTED = 40
#: plain-text paragraphs are wrapped at this width
WIDTH = 76
#: at most this many events are told (the latest); the rest are in the game's event log
EVENTS_TOLD = 30
_PAGE = 500
#: the mails that list the legal moves (a seat asked to act at the start gets its start in
#: its first turn mail: `service.notify.dispatch`)
_ASKED_TO_MOVE = frozenset({notices.TURN_STARTED, notices.DEADLINE_REMINDER})


def thread_root(gid: str, pid: str) -> str:
    """The Message-ID (without brackets and domain) of the thread's first mail."""
    return f"game-{gid}-{pid}"


def subject_of(game: Game, names: Sequence[str], pid: str) -> str:
    """"Parley: Stratego with Bob": the same for every mail of the game to this player."""
    others = list(dict.fromkeys(n for p, n in zip(game.players, names, strict=True)
                                if p != pid))
    title = game.engine.title
    return f"Parley: {title} with {join(others)}" if others else f"Parley: {title}"


def time_zone(player: dict[str, str]) -> ZoneInfo:
    """The player's time zone setting; UTC when unset (or no longer known to this host)."""
    try:
        return ZoneInfo(player.get("time_zone") or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def when(epoch: float, zone: ZoneInfo) -> str:
    """"Tue 1 Dec 2026, 18:30 CET" in the player's own zone, its name said (UTC too)."""
    at = datetime.fromtimestamp(epoch, tz=UTC).astimezone(zone)
    return f"{at:%a} {at.day} {at:%b %Y}, {at:%H:%M} {at.tzname()}"


def time_left(seconds: float) -> str:
    """"in 2 days 5 hours", "in 3 hours 20 minutes": the two largest units, rounded down, so
    nobody has to count from the date (a mail is read later than it is written)."""
    if seconds <= 0:
        return "the time is up"
    minutes = int(seconds // 60)
    if not minutes:
        return "in less than a minute"
    units = [(minutes // 1440, "day"), (minutes // 60 % 24, "hour"), (minutes % 60, "minute")]
    first = next(i for i, (n, _) in enumerate(units) if n)
    said = [f"{n} {unit}{'s' if n != 1 else ''}" for n, unit in units[first:first + 2] if n]
    return "in " + " ".join(said)


def due_sentence(due: float, zone: ZoneInfo, yours: bool, now: float | None = None) -> str:
    """The deadline in the reader's zone and the time left, so nobody converts or counts:
    "Your move is due by Tue 1 Dec 2026, 18:00 CET (in 2 days 5 hours)."
    """
    left = time_left(due - (clock.now() if now is None else now))
    return f"{'Your' if yours else 'The'} move is due by {when(due, zone)} ({left})."


def write(store: Store, config: Config, game: Game, notice: dict[str, Any],
          player: dict[str, str], pid: str, after: int, reply: str | None = None) -> Letter:
    """The mail of one notice to the player `pid` holding seat `notice["seat"]`; the events
    told are those after event id `after` (the last one the previous turn mail told); `reply`:
    the address that takes this turn's move by reply, if any."""
    kind, seat = notice["type"], notice["seat"]
    engine = game.engine
    names = seat_names(store, game)
    others = [n for i, n in enumerate(names) if i != seat]
    seat_name = prose.seat_namer(names, seat)
    title = engine.title
    with_whom = f"{title} with {join(others)}" if others else title
    due = _due(game, player, seat, names)

    lines: list[Line] = [f"Hello {player.get('name') or 'there'},", ""]
    result = notice.get("result") or game.result
    if kind == notices.GAME_STARTED:
        lines.append(f"Your game of {with_whom} has started.")
    elif kind == notices.TURN_STARTED and notice.get("started"):
        lines.append(f"Your game of {with_whom} has started, and it is your turn.")
    elif kind == notices.TURN_STARTED:
        lines.append(f"It is your turn in {with_whom}.")
    elif kind == notices.DEADLINE_REMINDER:
        lines.append(f"Reminder: your move in {with_whom} is due soon.")
    elif kind == notices.TIMED_OUT:
        lines.append(f"You ran out of time in {with_whom}. {_timeout_action(game)}")
    else:
        lines.append(f"Your game of {with_whom} has ended.")
    if kind == notices.GAME_FINISHED and result:
        lines += ["", *_wrapped(prose.result_sentence(result, seat_name, game.seats, engine))]

    told, story, skipped = _story(store, game, seat, seat_name, after)
    if story:
        lines += ["", "Since your last turn:" if after else "So far:"]
        if skipped:
            lines.append(f"  ({skipped} earlier events are in the game's event log.)")
        lines += [f"- {sentence}" for sentence in story]

    asked = kind in _ASKED_TO_MOVE
    cid = f"board-{game.id}-{notice['step']}-{seat}-{kind}"
    lines += _position(store, game, seat, names, due, asked, reply, cid=cid)
    lines += ["", *_footer(config, game, notice)]
    return compose(subject_of(game, names, pid), lines, told)


def asks_to_move(game: Game, notice: dict[str, Any]) -> bool:
    """This notice's mail lists the seat's legal moves (and so may take a reply move)."""
    return (notice["type"] in _ASKED_TO_MOVE and game.status == "active"
            and notice["seat"] in game.to_act and notice["step"] == game.step)


def answer(store: Store, config: Config, game: Game | None, seat: int | None,
           player: dict[str, str], pid: str | None, why: str, reply: str | None,
           opening: str | None = None) -> Letter:
    """The answer to a reply that made no move (or, with `opening`, made the moves it tells
    before one of its lines stopped it): what was wrong and, where it is still this
    seat's turn, the position and the legal moves again (`reply`: where to answer now)."""
    said = opening or f"Your reply could not be played: {why} Nothing was changed."
    lines: list[Line] = [f"Hello {player.get('name') or 'there'},", "",
                         *textwrap.wrap(said, WIDTH)]
    subject = "Parley: your reply"
    if game is not None and seat is not None and pid is not None:
        names = seat_names(store, game)
        subject = subject_of(game, names, pid)
        lines += _position(store, game, seat, names, _due(game, player, seat, names), True, reply)
        lines += ["", "-- ", f"Game {game.id} ({game.ruleset}), step {game.step}",
                  f"Game:  {config.BASE_URL}/v1/games/{game.id}"]
    else:
        lines += ["", "The games where it is your turn: "
                      f"{config.BASE_URL}/v1/players/me/games?turn=mine"]
    # `parley mail-in` writes answers, not a notification worker: no picture is drawn there
    return compose(f"Re: {subject}", lines, 0, draw=False)


def digest(store: Store, config: Config, player: dict[str, str], pid: str,
           waiting: list[tuple[Game, int, str | None]]) -> Letter:
    """The daily digest: every game where it is the player's turn, each with its board, its
    numbered moves and its own reply address (game, seat, the address or None)."""
    count = f"{len(waiting)} game{'s' if len(waiting) != 1 else ''}"
    lines: list[Line] = [f"Hello {player.get('name') or 'there'},", "",
                         f"It is your turn in {count}."]
    for n, (game, seat, reply) in enumerate(waiting, 1):
        names = seat_names(store, game)
        others = [name for i, name in enumerate(names) if i != seat]
        lines += ["", f"== {n}. {game.engine.title} with {join(others)} "
                      f"(game {game.id}) =="]
        lines += _position(store, game, seat, names, _due(game, player, seat, names), True, reply,
                           own_mail=len(waiting) == 1,
                           cid=f"board-{game.id}-{game.step}-{seat}-digest")
    lines += ["", "-- ", "You get one digest a day instead of a mail per turn: change it with "
              f"PATCH {config.BASE_URL}/v1/players/{pid} (mail_digest \"off\")."]
    return compose(f"Parley: your move in {count}", lines, 0)


def _position(store: Store, game: Game, seat: int, names: Sequence[str],
              due: Sequence[str], asked: bool, reply: str | None,
              own_mail: bool = True, cid: str = "board") -> list[Line]:
    """The board from this seat (drawn with the players' names; its picture named `cid`),
    whose turn, the deadline (`due`, its lines) and, when the seat is asked to move, its
    legal moves and how to play one (by mail to `reply` when given: as a reply to this mail
    if it is the mail's own reply address, `own_mail`)."""
    engine = game.engine
    state = reads_of(store, game).state(game.id) if game.status != "open" else None
    lines: list[Line] = []
    if state is not None:
        view = engine.view(state, seat)
        lines += ["", Board(engine.render_text(view, names).rstrip(), engine, view,
                            tuple(names), f"{cid}@parley")]
    if game.status == "active":
        lines += ["", _whose_turn(game, seat, prose.seat_namer(names, seat))]
        lines += due
        if state is not None and seat in game.to_act and asked:
            lines += ["", *_legal_moves(engine, state, seat, game.id, reply, own_mail)]
    return lines


def _deadline(game: Game) -> float | None:
    raw = game.raw.get("deadline")
    return float(raw) if raw else None


def _due(game: Game, player: dict[str, str], seat: int, names: Sequence[str] = ()
         ) -> list[str]:
    """The deadline of an active game in the reader's zone and the time left ([] without
    one): the reader's own clock's when it runs, else the first to run out; and who is on
    vacation until when. A reader who set no zone is told the times are UTC."""
    if game.status != "active":
        return []
    clocks = game_clocks.seat_clocks(game.raw, game.platform, game.seats)
    due = _deadline(game)
    if clocks is not None:
        dues = [c["due"] for c in clocks if c["due"] is not None]
        due = clocks[seat]["due"] or (min(dues) if dues else None)
    if due is None:
        return []
    zone = time_zone(player)
    lines = _wrapped(due_sentence(due, zone, seat in game.to_act))
    for c in clocks or ():
        if c["away"] is not None and c["away"][0] <= clock.now():
            who = "You are" if c["seat"] == seat else \
                f"{names[c['seat']] if c['seat'] < len(names) else 'A player'} is"
            lines += _wrapped(f"{who[0].upper()}{who[1:]} on vacation until "
                              f"{when(c['away'][1], zone)}: that clock stands still "
                              "meanwhile.")
    if not player.get("time_zone"):
        lines.append("(Times are in UTC: you have set no time zone.)")
    return lines


def _timeout_action(game: Game) -> str:
    """What the deadline did: a lost clock is a forfeit (or, under `skip`, a default move),
    not a resignation."""
    policy = (game.platform.get("time_control") or {}).get("on_timeout", "forfeit")
    if policy == "skip":
        return ("The server played the game's default move for you; where the game has none, "
                "you forfeit.")
    return "By the game's time control you forfeit the game."


def _wrapped(text: str) -> list[str]:
    return textwrap.wrap(text, WIDTH, break_on_hyphens=False) or [text]


def _whose_turn(game: Game, seat: int, seat_name: prose.SeatNamer) -> str:
    if not game.to_act:
        return "Nobody is to move."
    names = [seat_name(s) for s in sorted(game.to_act, key=lambda s: s != seat)]
    return "Your move." if names == ["you"] else f"To move: {join(names)}."


def _story(store: Store, game: Game, seat: int, seat_name: prose.SeatNamer, after: int
           ) -> tuple[int, list[str], int]:
    """(last event id read, the sentences of the latest EVENTS_TOLD events this seat may see
    after `after`, how many earlier ones are left out)."""
    engine = game.engine
    told = after
    story: deque[str] = deque(maxlen=EVENTS_TOLD)
    total = 0
    reads = reads_of(store, game)  # a finished game: one record, in Redis or the archive
    teller = prose.Story(seat_name, engine)
    while True:
        page = reads.events(game.id, told, _PAGE)
        for eid, rec in page:
            told = eid
            event = rec["event"]
            if not game.finished and event.get("type") not in PLATFORM_EVENTS:
                event = engine.view_event(event, seat)
            sentence = teller.sentence(rec["seq"], event)
            if sentence:
                story.append(sentence)
                total += 1
        if len(page) < _PAGE:
            return told, list(story), total - len(story)


def _legal_moves(engine: Engine, state: dict[str, Any], seat: int, gid: str,
                 reply: str | None, own_mail: bool = True) -> list[str]:
    """The legal moves numbered as `parley view` numbers them (so "3" means the same move),
    or, where there are too many (or only examples), how to write one; then how to play it:
    by replying (when `reply` is the address to answer) or with `parley move`."""
    moves = list(itertools.islice(engine.legal_moves(state, seat), LEGAL_MOVES_LISTED + 1))
    if not moves:
        return []
    complete = engine.decision(state).get("legal_moves_complete", True)
    if complete and len(moves) <= LEGAL_MOVES_LISTED:
        out = ["Your legal moves:"]
        out += [f"  {i:>3}  {label(engine, move)}" for i, move in enumerate(moves)]
        if reply:
            out += textwrap.wrap("Reply with one move per line; a number means that move of "
                                 "this list, tried where the lines above it leave the game.",
                                 WIDTH)
        how = [f"Play one with `parley move {gid} <number or move>` (numbers as "
               f"`parley view {gid}` lists them), or 'resign'."]
        by_mail = "the number of your move (or the move, or 'resign')"
    else:
        examples = list(dict.fromkeys(label(engine, m) for m in (moves[0], moves[-1])))
        intro = "There are many legal moves" if complete else "Any valid arrangement is allowed"
        out = [*textwrap.wrap(f"{intro}; write yours in the game's notation. "
                              f"{engine.notation}", WIDTH),
               "For example: " + " or ".join(f"'{e}'" for e in examples) + "."]
        how = [f"Play it with `parley move {gid} '<move>'`."]
        by_mail = "your move (or 'resign')"
    if reply and own_mail:
        how = textwrap.wrap(f"To play, reply to this mail with {by_mail}, one move a line, "
                            f"above the quoted text (the reply goes to {reply}). Or: {how[0]}",
                            WIDTH, break_on_hyphens=False)
    elif reply:
        how = textwrap.wrap(f"To play, write to {reply} with {by_mail}, one move a line. "
                            f"Or: {how[0]}", WIDTH, break_on_hyphens=False)
    return out + how


def _footer(config: Config, game: Game, notice: dict[str, Any]) -> list[str]:
    base = f"{config.BASE_URL}/v1/games/{game.id}"
    lines = ["-- ",
             f"Game {game.id} ({game.ruleset}), step {notice['step']}, {notice['type']}",
             f"Game:  {base}", f"View:  {base}/view",
             f"Moves: POST {base}/moves (signed envelope)"]
    if game.finished:
        lines.append(f"Audit: {base}/audit")
    lines.append("Turn these mails off for this game: use the List-Unsubscribe link, or "
                 f"PUT {base}/mail.")
    return lines
