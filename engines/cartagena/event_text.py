"""Cartagena's events in words, from one reader's seat (docs/rules/cartagena.md).

Reads only the event as `view.view_event` showed it to the reader: a draw shows its cards to the
drawer alone, a pistol's card to the caster and the target, a rum's gifts to their recipients.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engines.sentences import (
    Namer,
    Teller,
    deck_reshuffled,
    describe_with,
    drew_cards,
    join,
    number,
    place,
    plural,
    possessive,
    resigned,
    resigned_result,
    seat_of,
    skip,
    stated,
    winners,
)

Event = Mapping[str, Any]

#: what a chest token is, by the start of its id (the data set names treasures "treasure-…")
_TOKENS = {"treasure": "a treasure", "empty": "an empty chest", "snake": "the snake"}


def _where(loc: Any) -> str:
    """A location: "square 7", "the prison", "the ship"."""
    return f"square {loc}" if isinstance(loc, int) else f"the {loc}"


def _symbol(card: Any) -> str:
    """"rum-05" -> "rum"."""
    return str(card).split("-")[0]


def _cards(cards: Any) -> str:
    return join(cards) if isinstance(cards, list) else plural(int(cards), "card")


def _played(e: Event, name: Namer) -> str:
    return (f"{seat_of(e, name)} played a {_symbol(e['card'])} card and moved a pirate from "
            f"{_where(e['from'])} to {_where(e['to'])}")


def _moved_back(e: Event, name: Namer) -> str:
    return (f"{seat_of(e, name)} moved a pirate back from {_where(e['from'])} to "
            f"{_where(e['to'])}")


def _morgan(e: Event, name: Namer) -> str:
    whose = possessive(seat_of(e, name, "pirate_of"))
    return (f"{seat_of(e, name)} called Morgan and moved {whose} pirate from "
            f"{_where(e['from'])} to {_where(e['to'])}")


def _sailed(e: Event, name: Namer) -> str:
    free = " (the captain's free sail)" if e.get("free") else ""
    return f"{seat_of(e, name)} sailed the ship to {place(e['shore'])}{free}"


def _passed(e: Event, name: Namer) -> str:
    return f"{seat_of(e, name)} passed"


def _turn_started(e: Event, name: Namer) -> str:
    if not e.get("captain"):
        return ""
    return f"{seat_of(e, name)} began the turn as the ship's captain"


def _discard_owed(e: Event, name: Namer) -> str:
    owed = [f"{name(int(s))} ({plural(n, 'card')})" for s, n in e["owed"].items()]
    return f"Rascals: {join(owed)} must discard down to 7 cards"


def _discard_named(e: Event, name: Namer) -> str:
    return f"{seat_of(e, name)} set aside {_cards(e['cards'])} to discard"


def _discarded(e: Event, name: Namer) -> str:
    told = [f"{name(int(s))} discarded {join(cards)}" for s, cards in e["cards"].items() if cards]
    return "; ".join(told) or "Rascals: nobody discarded"


def _spell(e: Event, name: Namer) -> str:
    who, spell = seat_of(e, name), e.get("spell")
    if spell == "pistol":
        return f"{who} cast the pistol at {seat_of(e, name, 'target')}"
    if spell in ("rum", "lantern"):
        return f"{who} cast the {spell}" + ("" if e.get("drew") else ", but the deck was empty")
    if spell == "parrot":
        return (f"{who} cast two parrots as a wild card and moved a pirate from "
                f"{_where(e['from'])} to {_where(e['to'])}")
    if spell == "hook":
        return (f"{who} cast the hook and moved two pirates together from {_where(e['from'])}"
                f" to {_where(e['to'])}")
    return f"{who} cast the {spell}"


def _chest_opened(e: Event, name: Namer) -> str:
    token = str(e["token"])
    found = _TOKENS.get(token.split("-")[0], token)
    return f"{seat_of(e, name)} opened the chest on square {e['square']}: {found}"


def _snake(e: Event, name: Namer) -> str:
    return (f"the snake sent {possessive(seat_of(e, name))} pirate back from "
            f"{_where(e['from'])} to {_where(e['to'])}")


def _chests_reshuffled(e: Event, name: Namer) -> str:
    return "the chest tokens were shuffled onto the chest squares again"


def _pistol_took(e: Event, name: Namer) -> str:
    card = e.get("card")
    return (f"{seat_of(e, name)} took {card or 'a card'} from {seat_of(e, name, 'target')} "
            f"with the pistol")


def _lantern_kept(e: Event, name: Namer) -> str:
    who = seat_of(e, name)
    if "keep" in e:
        return (f"{who} kept {e['keep']} and put {join(e['return']) or 'nothing'} back on top "
                f"of the deck")
    return f"{who} kept 1 card and put {plural(e['returned'], 'card')} back on top of the deck"


def _rum_dealt(e: Event, name: Namer) -> str:
    who = seat_of(e, name)
    gifts = [f"{g.get('card', 'a card')} to {name(g['seat'])}" for g in e.get("give", [])]
    text = f"{who} kept {_cards(e['keep'])}"
    if gifts:
        text += f" and gave {join(gifts)}"
    if e.get("discarded"):
        text += f"; {join(e['discarded'])} went to the discard pile"
    return text


TELLERS: Mapping[str, Teller] = {
    "turn_started": _turn_started,
    "played": _played,
    "moved_back": _moved_back,
    "morgan": _morgan,
    "sailed": _sailed,
    "passed": _passed,
    "drew": drew_cards,
    "deck_reshuffled": deck_reshuffled,
    "discard_owed": _discard_owed,
    "discard_named": _discard_named,
    "discarded": _discarded,
    "spell": _spell,
    "chest_opened": _chest_opened,
    "snake": _snake,
    "chests_reshuffled": _chests_reshuffled,
    "pistol_took": _pistol_took,
    "lantern_kept": _lantern_kept,
    "rum_dealt": _rum_dealt,
    "resigned": resigned,
    "game_ended": skip,
}


def describe(event: Event, name: Namer) -> str | None:
    """One sentence for a Cartagena event as the reader sees it (see `Engine.describe_event`)."""
    return describe_with(TELLERS, event, name)



def describe_result(result: Mapping[str, Any], name: Namer) -> str | None:
    """"Ann got all six pirates to safety first. Pirates safe: you 4, Carol 2." (a score is the
    pirates a seat got to the finish: the others' tell how close they came). None for a reason
    the rules do not give."""
    reason = result.get("reason")
    if reason == "resigned":
        return resigned_result(result, name)
    won = winners(result)
    if reason != "all_pirates_escaped" or len(won) != 1:
        return None
    scores = result.get("scores") or {}
    first = stated(f"{name(won[0])} got all {number(int(scores.get(str(won[0]), 0)))} "
                   "pirates to safety first")
    others = [f"{name(int(s))} {n}" for s, n in scores.items() if int(s) != won[0]]
    return first + (f" Pirates safe: {', '.join(others)}." if others else "")
