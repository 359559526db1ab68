"""Engine events and results told in words, for mails and the CLI: from one seat.

An event's sentence is the engine's own (`describe_event`, engines/contract.py "Event
sentences") where it writes one. Otherwise it is derived from the event's type and fields:
`seat` (and `active`) name a player ("you" for the reader), `from`/`to` a movement, other plain
fields are listed, and a few common types get a phrase of their own. Events carrying a `result`
are left out: a mail states the result once, in `result_sentence`, which is likewise the
engine's (`describe_result`) or a generic one. The platform's own `timeout` (event and result
reason, `parley_protocol.timeouts`) is told here: a seat that ran out of time did not resign.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from parley_protocol.timeouts import TIMEOUT

from engines.contract import Engine, Namer, event_sentence, result_text
from engines.sentences import capital, outcome, player_names, stated, words

SeatNamer = Namer

#: types whose sentence reads better written out; `{who}` is the event's seat
PHRASES: Mapping[str, str] = {
    "setup_submitted": "{who} submitted a setup",
    "resigned": "{who} resigned",
    "passed": "{who} passed",
}
#: fields the sentence already covers, or ids that mean nothing to a reader
_COVERED = frozenset({"type", "seat", "active", "from", "to", "uid", "ply", "players", "result"})
#: what a sentence of the engine's may fail with on an event whose shape it does not expect (one
#: stored by an older version of the engine): the generic sentence stands in, the mail goes out
_SHAPE_ERRORS = (KeyError, IndexError, TypeError, ValueError, AttributeError)


def seat_namer(names: Sequence[str], reader: int | None) -> SeatNamer:
    """Seat -> the player's name, "you" for the reader's own seat (None: a spectator);
    "Player 3" for a seat without a name, never "seat 2"."""
    full = player_names(len(names), names)

    def name(seat: int) -> str:
        if seat == reader:
            return "you"
        return full[seat] if 0 <= seat < len(full) else f"Player {seat + 1}"
    return name


def _value(value: Any) -> str | None:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str | int | float):
        return words(str(value)) if isinstance(value, str) else str(value)
    if isinstance(value, list) and len(value) <= 8 and all(
            isinstance(v, str | int | float) and not isinstance(v, bool) for v in value):
        return ", ".join(words(str(v)) for v in value) if value else "none"
    return None


def _details(event: Mapping[str, Any]) -> str:
    parts = [f"{words(key)} {shown}" for key, value in event.items()
             if key not in _COVERED and (shown := _value(value)) is not None]
    return f" ({'; '.join(parts)})" if parts else ""


def describe(event: Mapping[str, Any], seat_name: SeatNamer, engine: Engine | None = None
             ) -> str | None:
    """One short sentence for an event as a seat sees it, the engine's own where it has one;
    None for events not worth a line."""
    if event.get("type") == TIMEOUT:
        return _timed_out(event, seat_name)
    try:
        told = event_sentence(engine, event, seat_name)
    except _SHAPE_ERRORS:
        told = None
    if told is not None:
        return told or None
    return _generic(event, seat_name)


def _timed_out(event: Mapping[str, Any], seat_name: SeatNamer) -> str:
    """"Bob ran out of time and forfeited." / "You ran out of time; the server played the
    game's default move for you." """
    who = seat_name(event["seat"])
    if event.get("forfeit"):
        return stated(f"{who} ran out of time and forfeited")
    return stated(f"{who} ran out of time; the server played the game's default move for {who}")


class Story:
    """The sentences of a run of events, in order: each told once. A forfeit on time is told
    as what it was, so the rules' `resigned` of that seat in the same entry (seq) is left
    out."""

    def __init__(self, seat_name: SeatNamer, engine: Engine | None = None) -> None:
        self.seat_name = seat_name
        self.engine = engine
        self.forfeit: tuple[int, Any] | None = None  # (seq, seat) of the last forfeit told

    def sentence(self, seq: int, event: Mapping[str, Any] | None) -> str | None:
        """The sentence of one event as the reader sees it (None: not shown, or no line)."""
        if not event:
            return None
        if event.get("type") == TIMEOUT and event.get("forfeit"):
            self.forfeit = (seq, event.get("seat"))
        elif event.get("type") == "resigned" and self.forfeit == (seq, event.get("seat")):
            return None
        return describe(event, self.seat_name, self.engine)


def _generic(event: Mapping[str, Any], seat_name: SeatNamer) -> str | None:
    """The sentence derived from the event's type and fields."""
    kind = str(event.get("type") or "")
    if not kind or kind == "game_started" or "result" in event:
        return None
    seat = event.get("seat")
    who = seat_name(seat) if isinstance(seat, int) and not isinstance(seat, bool) else None
    active = event.get("active")
    if who and isinstance(event.get("from"), str) and isinstance(event.get("to"), str):
        text = f"{who} moved {event['from']}-{event['to']}"
    elif who and kind in PHRASES:
        text = PHRASES[kind].format(who=who) + _details(event)
    elif who:
        text = f"{who} {kind}" if "_" not in kind else f"{who}: {words(kind)}"
        text += _details(event)
    else:
        text = capital(words(kind)) + _details(event)
    if isinstance(active, int) and not isinstance(active, bool):
        text += f"; {seat_name(active)} to move"
    return capital(text) + "."


def result_sentence(result: Mapping[str, Any], seat_name: SeatNamer, seats: int,
                    engine: Engine | None = None) -> str:
    """The result from the reader's side: the engine's own words ("You captured Bob's
    flag."), or, for the platform's `timeout` and an engine without them, the generic
    sentence ("You won: Bob ran out of time."). `seats`: how many seats the game has."""
    if result.get("reason") != TIMEOUT:
        try:
            told = result_text(engine, result, seat_name)
        except _SHAPE_ERRORS:
            told = None
        if told:
            return told
    return _generic_result(result, seat_name, seats)


def _generic_result(result: Mapping[str, Any], seat_name: SeatNamer, seats: int) -> str:
    """"You won: Bob ran out of time." / "Ann won: Bob resigned." / "Nobody won: both
    immobile. Score: you 2, Bob 1." (scores only for a reason the platform does not know)."""
    winners = [w for w in result.get("winners") or [] if isinstance(w, int)]
    reason = str(result.get("reason") or "")
    losers = [s for s in range(seats) if s not in winners]
    head = outcome(result, seat_name)
    if reason in (TIMEOUT, "resigned"):
        verb = "ran out of time" if reason == TIMEOUT else "resigned"
        if len(losers) == 1:
            return stated(f"{head}: {seat_name(losers[0])} {verb}")
        if reason == TIMEOUT:
            return stated(f"{head} on time" if winners else f"{head}: the game ended on time")
        return stated(f"{head} as the last player left" if winners
                      else f"{head}: every player left the game")
    text = stated(f"{head}: {words(reason)}" if reason else head)
    scores = result.get("scores") or {}
    if any(scores.values()):
        shown = ", ".join(f"{seat_name(int(s))} {v}" for s, v in scores.items()
                          if str(s).isdigit())
        text += f" Score: {shown}."
    return text
