"""Engine events and results told in words, for mails: generic across games, from one seat.

The contract has no event renderer, so a sentence is derived from an event's type and fields:
`seat` (and `active`) name a player ("you" for the reader), `from`/`to` a movement, `battle`
a fight, other plain fields are listed. A few common types get a phrase of their own. Events
carrying a `result` are left out: a mail states the result once, in `result_sentence`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

SeatNamer = Callable[[int], str]

#: types whose sentence reads better written out; `{who}` is the event's seat
PHRASES: Mapping[str, str] = {
    "setup_submitted": "{who} submitted a setup",
    "resigned": "{who} resigned",
    "passed": "{who} passed",
}
#: fields the sentence already covers, or ids that mean nothing to a reader
_COVERED = frozenset({"type", "seat", "active", "from", "to", "battle", "uid", "ply", "players",
                      "result"})
_OUTCOMES = {"attacker_wins": "the attacker won", "defender_wins": "the defender won",
             "both_removed": "both pieces were removed"}


def join(names: Sequence[str]) -> str:
    """"Bob", "Bob and Carol", "Bob, Carol and Dan"."""
    names = list(names)
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def seat_namer(names: Sequence[str], reader: int) -> SeatNamer:
    """Seat -> the player's name, "you" for the reader's own seat."""
    def name(seat: int) -> str:
        if seat == reader:
            return "you"
        return names[seat] if 0 <= seat < len(names) else f"seat {seat}"
    return name


def _words(token: str) -> str:
    return str(token).replace("_", " ")


def _value(value: Any) -> str | None:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str | int | float):
        return _words(str(value)) if isinstance(value, str) else str(value)
    if isinstance(value, list) and len(value) <= 8 and all(
            isinstance(v, str | int | float) and not isinstance(v, bool) for v in value):
        return ", ".join(_words(str(v)) for v in value) if value else "none"
    return None


def _details(event: Mapping[str, Any]) -> str:
    parts = [f"{_words(key)} {shown}" for key, value in event.items()
             if key not in _COVERED and (shown := _value(value)) is not None]
    return f" ({'; '.join(parts)})" if parts else ""


def _battle(who: str, frm: str, to: str, battle: Mapping[str, Any]) -> str:
    attacker, defender = battle.get("attacker_piece"), battle.get("defender_piece")
    pieces = f": {_words(attacker)} against {_words(defender)}" if attacker and defender else ""
    result = battle.get("result")
    outcome = _OUTCOMES.get(result, _words(result)) if isinstance(result, str) else ""
    return f"{who} attacked {to} from {frm}{pieces}" + (f"; {outcome}" if outcome else "")


def describe(event: Mapping[str, Any], seat_name: SeatNamer) -> str | None:
    """One short sentence for an event as a seat sees it; None for events not worth a line."""
    kind = str(event.get("type") or "")
    if not kind or kind == "game_started" or "result" in event:
        return None
    seat = event.get("seat")
    who = seat_name(seat) if isinstance(seat, int) and not isinstance(seat, bool) else None
    active = event.get("active")
    if who and isinstance(event.get("from"), str) and isinstance(event.get("to"), str):
        frm, to = event["from"], event["to"]
        battle = event.get("battle")
        text = (_battle(who, frm, to, battle) if isinstance(battle, Mapping)
                else f"{who} moved {frm}-{to}")
    elif who and kind in PHRASES:
        text = PHRASES[kind].format(who=who) + _details(event)
    elif who:
        words = kind.split("_")
        text = (f"{who} {kind}" if len(words) == 1 else f"{who}: {_words(kind)}")
        text += _details(event)
    else:
        text = capital(_words(kind)) + _details(event)
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
        why = _words(reason)
    head = (f"{join([seat_name(w) for w in winners])} won" if winners
            else "The game ended in a draw")
    text = capital(head) + (f": {why}." if why else ".")
    if any(scores.values()):
        shown = ", ".join(f"{seat_name(int(s))} {v}" for s, v in scores.items() if s.isdigit())
        text += f" Score: {shown}."
    return text
