"""Grammar shared by the engines' texts: event sentences (`Engine.describe_event`), results in
words (`Engine.describe_result`) and the names in `render_text` (engines/contract.py).

A sentence is told to one reader: `name(seat)` is a player's name, or "you" for the reader's own
seat, so verbs and possessives must agree ("you were", "Bob was", "your", "Bob's"). Each engine
keeps a table of tellers, one per event type, and `describe_with` turns a teller's clause into
the sentence (capital first letter, full stop). No text names a seat by its number: a caller
without the players' names gets "Player 1", "Player 2", ... (`player_names`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from engines.contract import Namer

Teller = Callable[[Mapping[str, Any], Namer], str]

YOU = "you"


def capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def join(names: Iterable[str], last: str = "and") -> str:
    """"Bob", "Bob and Carol", "Bob, Carol and Dan"."""
    names = list(names)
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + f" {last} " + names[-1]


def words(token: Any) -> str:
    """An identifier as words: "troll_wagon" -> "troll wagon"."""
    return str(token).replace("_", " ")


def place(token: Any) -> str:
    """A place id as a name: "elvenhold" -> "Elvenhold", "tortuga" -> "Tortuga"."""
    return " ".join(capital(w) for w in words(token).split())


def a(noun: str) -> str:
    """The noun with its indefinite article: "a dragon", "an elfcycle", "a unicorn"."""
    return f"{'an' if noun[:1] in ('a', 'e', 'i', 'o') else 'a'} {noun}"


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    """"1 card", "3 cards" ("1 die", "2 dice" with `nouns`)."""
    return f"{count} {noun if count == 1 else nouns or noun + 's'}"


def tally(counts: Mapping[str, int], noun: str = "") -> str:
    """A multiset in words: {"dragon": 2, "raft": 1} -> "2 dragon cards and 1 raft card" (with
    `noun` "card"), "2 dragons and 1 raft" (without); "nothing" when empty."""
    parts = [plural(n, f"{words(kind)} {noun}".strip()) for kind, n in counts.items() if n]
    return join(parts) or "nothing"


def possessive(who: str) -> str:
    """"your" for the reader, "Bob's" for another player."""
    return "your" if who == YOU else f"{who}'s"


def agree(who: str, you_form: str, other_form: str) -> str:
    """The verb form for the subject `who`: agree("you", "have", "has") -> "have"."""
    return you_form if who == YOU else other_form


def seat_of(event: Mapping[str, Any], name: Namer, key: str = "seat") -> str:
    """The name of the seat an event field holds ("someone" where it holds none)."""
    seat = event.get(key)
    return name(seat) if isinstance(seat, int) and not isinstance(seat, bool) else "someone"


def drew_cards(event: Mapping[str, Any], name: Namer) -> str:
    """A draw of cards: the drawer sees the card ids, the others only how many."""
    who = seat_of(event, name)
    if isinstance(event.get("cards"), list):
        return f"{who} drew {join(event['cards']) or 'no card'}"
    return f"{who} drew {plural(int(event.get('count', 0)), 'card')}"


def reshuffled(count: int, deck: str = "deck") -> str:
    """The discard pile shuffled into a new deck of `count` cards."""
    return f"the discard pile was shuffled into a new {deck} of {plural(count, 'card')}"


def deck_reshuffled(event: Mapping[str, Any], name: Namer) -> str:
    """The teller of a reshuffle event whose `cards` counts the new deck (Cartagena's and
    Störtebeker's)."""
    return reshuffled(event["cards"])


def resigned(event: Mapping[str, Any], name: Namer) -> str:
    return f"{seat_of(event, name)} resigned"


def skip(event: Mapping[str, Any], name: Namer) -> str:
    """Not worth a line (the end, which a mail states once; bookkeeping the board shows)."""
    return ""


#: small counts as words ("all six pirates")
_NUMBERS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def number(count: int) -> str:
    """"six" for 6, "12" for 12."""
    return _NUMBERS[count] if 0 <= count < len(_NUMBERS) else str(count)


def player_names(seats: int, names: Sequence[str] | None = None) -> list[str]:
    """Each seat's name: the names given, or "Player 1", "Player 2", ... where there are none
    (a text never says "seat 0")."""
    given = list(names or ())
    return [given[s] if s < len(given) and given[s] else f"Player {s + 1}"
            for s in range(seats)]


def board_namer(seats: int, names: Sequence[str] | None, reader: int | None) -> Namer:
    """The `Namer` of a text drawn for one view: "you" for the view's own seat (`reader`;
    None for a spectator), the players' names (or "Player N") for the others."""
    full = player_names(seats, names)

    def name(seat: int) -> str:
        if reader is not None and seat == reader:
            return YOU
        return full[seat] if 0 <= seat < seats else "someone"
    return name


def stated(text: str) -> str:
    """A clause as a sentence: capital first letter, full stop."""
    return capital(text) + "."


# ---- results (`Engine.describe_result`) -------------------------------------------------------

def result_seats(result: Mapping[str, Any]) -> list[int]:
    """The game's seats, as its result lists them (scores are kept for every seat)."""
    seats = {int(s) for s in result.get("scores") or {} if str(s).isdigit()}
    seats.update(w for w in result.get("winners") or () if isinstance(w, int))
    return sorted(seats)


def winners(result: Mapping[str, Any]) -> list[int]:
    return [w for w in result.get("winners") or () if isinstance(w, int)]


def losers(result: Mapping[str, Any]) -> list[int]:
    won = winners(result)
    return [s for s in result_seats(result) if s not in won]


def outcome(result: Mapping[str, Any], name: Namer) -> str:
    """"you won", "Ann won", "Ann and Bob shared the win", "nobody won"."""
    won = [name(w) for w in winners(result)]
    if not won:
        return "nobody won"
    return f"{won[0]} won" if len(won) == 1 else f"{join(won)} shared the win"


def scores_told(result: Mapping[str, Any], name: Namer, label: str = "Points",
                others: Mapping[str, str] | None = None) -> str:
    """"Points: you 9, Bob 7." in seat order ("" without scores); `others` names a score kept
    for something other than a seat (Totohu's "dummy")."""
    parts = []
    for key, value in (result.get("scores") or {}).items():
        who = name(int(key)) if str(key).isdigit() else (others or {}).get(key, words(key))
        parts.append(f"{who} {value}")
    return f"{label}: {', '.join(parts)}." if parts else ""


def resigned_result(result: Mapping[str, Any], name: Namer) -> str:
    """A game ended by resignations: "You won: Bob resigned." in a two-player game, "Ann won
    as the last player left." where several others are out (some may have run out of time
    earlier: the result names only the winners)."""
    won, lost = winners(result), losers(result)
    if not won:
        return "Nobody won: every player left the game."
    if len(lost) == 1:
        return stated(f"{outcome(result, name)}: {name(lost[0])} resigned")
    return stated(f"{outcome(result, name)} as the last player left")


def describe_with(tellers: Mapping[str, Teller], event: Mapping[str, Any], name: Namer
                  ) -> str | None:
    """The sentence of the event's teller; "" for a type not worth a line, None for a type the
    table does not know (the platform then writes a generic sentence)."""
    teller = tellers.get(str(event.get("type")))
    if teller is None:
        return None
    text = teller(event, name)
    return capital(text) + "." if text else ""


def game_over_line(result: Mapping[str, Any], name: Namer,
                   describe: Callable[[Mapping[str, Any], Namer], str | None]) -> str:
    """"Game over. " and the result in words (the engine's `describe`, else `outcome`), its
    scores in seat order whatever order the result's dict came in (a picture is the same bytes
    for the same view)."""
    scores = result.get("scores") or {}
    ordered = {**result, "scores": {k: scores[k] for k in sorted(scores, key=_seat_order)}}
    told = describe(ordered, name)
    return "Game over. " + (told or capital(outcome(ordered, name)) + ".")


def _seat_order(key: str) -> tuple[int, str]:
    """Seats in order (as numbers, not as strings), anything else after them."""
    return (int(key), "") if str(key).isdigit() else (1 << 30, str(key))
