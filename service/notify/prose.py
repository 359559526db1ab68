"""Engine events and results told in words, for mails: from one seat.

An event's sentence is the engine's own (`describe_event`, engines/contract.py "Event
sentences") where it writes one. Otherwise it is derived from the event's type and fields:
`seat` (and `active`) name a player ("you" for the reader), `from`/`to` a movement, other plain
fields are listed, and a few common types get a phrase of their own. Events carrying a `result`
are left out: a mail states the result once, in `result_sentence`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engines.contract import Engine, Namer, event_sentence
from engines.sentences import capital, join, words

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


def seat_namer(names: Sequence[str], reader: int) -> SeatNamer:
    """Seat -> the player's name, "you" for the reader's own seat."""
    def name(seat: int) -> str:
        if seat == reader:
            return "you"
        return names[seat] if 0 <= seat < len(names) else f"seat {seat}"
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
    try:
        told = event_sentence(engine, event, seat_name)
    except _SHAPE_ERRORS:
        told = None
    if told is not None:
        return told or None
    return _generic(event, seat_name)


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


def result_sentence(result: Mapping[str, Any], seat_name: SeatNamer, seats: int) -> str:
    """"Bob won: flag captured." / "You won: Bob resigned." / "The game ended in a draw: both
    immobile." (`seats`: how many seats the game has, for who resigned)."""
    winners = [w for w in result.get("winners") or [] if isinstance(w, int)]
    reason = str(result.get("reason") or "")
    scores = result.get("scores") or {}
    losers = [s for s in range(seats) if s not in winners]
    if reason == "resigned" and winners and losers:
        why = f"{join([seat_name(s) for s in losers])} resigned"
    else:
        why = words(reason)
    head = (f"{join([seat_name(w) for w in winners])} won" if winners
            else "The game ended in a draw")
    text = capital(head) + (f": {why}." if why else ".")
    if any(scores.values()):
        shown = ", ".join(f"{seat_name(int(s))} {v}" for s, v in scores.items() if s.isdigit())
        text += f" Score: {shown}."
    return text
