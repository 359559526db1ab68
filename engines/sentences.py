"""Grammar shared by the engines' event sentences (`Engine.describe_event`, engines/contract.py).

A sentence is told to one reader: `name(seat)` is a player's name, or "you" for the reader's own
seat, so verbs and possessives must agree ("you were", "Bob was", "your", "Bob's"). Each engine
keeps a table of tellers, one per event type, and `describe_with` turns a teller's clause into
the sentence (capital first letter, full stop).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
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


def describe_with(tellers: Mapping[str, Teller], event: Mapping[str, Any], name: Namer
                  ) -> str | None:
    """The sentence of the event's teller; "" for a type not worth a line, None for a type the
    table does not know (the platform then writes a generic sentence)."""
    teller = tellers.get(str(event.get("type")))
    if teller is None:
        return None
    text = teller(event, name)
    return capital(text) + "." if text else ""
