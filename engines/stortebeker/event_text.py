"""Störtebeker's events in words, from one reader's seat (docs/rules/stortebeker.md).

Reads only the event as `view.view_event` showed it to the reader: another seat's pirate
placement names no card ("Bob placed a pirate at black-4"), another seat's draw only a count.
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
    outcome,
    plural,
    possessive,
    resigned,
    resigned_result,
    scores_told,
    seat_of,
    skip,
    stated,
)

Event = Mapping[str, Any]


def _dice(dice: list[int]) -> str:
    return "+".join(str(d) for d in dice)


def _pirates(values: list[int]) -> str:
    """The revealed pirates' values added to an attack ("" with none)."""
    return f", pirates {join(str(v) for v in values)}" if values else ""


def _placed(e: Event, name: Namer) -> str:
    card = "a pirate" if e.get("pirate") else e["card"]
    return f"{seat_of(e, name)} placed {card} at {e['ship']}"


def _exchange_discarded(e: Event, name: Namer) -> str:
    return f"{seat_of(e, name)} discarded {join(e['cards'])} for an exchange"


def _exchange_took(e: Event, name: Namer) -> str:
    return (f"{seat_of(e, name)} took {e['card']} from the discard pile into the exchange "
            f"area")


def _cannon_fired(e: Event, name: Namer) -> str:
    return f"{seat_of(e, name)} fired the cannons at {e['ship']}, discarding {e['card']}"


def _cannon_dice(e: Event, name: Namer) -> str:
    return f"the cannon dice at {e['ship']} showed {join(e['kinds'])}"


def _cannon_missed(e: Event, name: Namer) -> str:
    return f"cannon die {e['die']} ({e['kind']}) hit nothing"


def _cannon_hit(e: Event, name: Namer) -> str:
    goes = "the shooter's side" if e.get("to") == "side" else "the discard pile"
    return (f"cannon die {e['die']} hit {possessive(seat_of(e, name, 'from'))} {e['card']} at "
            f"{e['ship']}; it went to {goes}")


def _pirates_trimmed(e: Event, name: Namer) -> str:
    return (f"{seat_of(e, name)} lost {join(e['cards'])} at {e['ship']}: more pirates than "
            f"provisions")


def _boarded(e: Event, name: Namer) -> str:
    outcome = "the boarding succeeded" if e.get("success") else "the boarding failed"
    return (f"{seat_of(e, name)} boarded {e['ship']}: dice {_dice(e['dice'])}"
            f"{_pirates(e.get('pirates', []))}, attack {e['value']} against defence "
            f"{e['defence']}; {outcome}")


def _boarding_penalty(e: Event, name: Namer) -> str:
    lost = join(e["cards"]) or "nothing"
    return (f"the penalty dice ({join(e['kinds'])}) cost {seat_of(e, name)} {lost} at "
            f"{e['ship']}")


def _counter_attacked(e: Event, name: Namer) -> str:
    who = seat_of(e, name)
    added = f", adding {join(e['added'])}" if e.get("added") else ""
    lead = f"{who} took the lead" if e.get("leads") else "not enough to take the lead"
    return (f"{who} counter-attacked at {e['ship']}{added}: dice {_dice(e['dice'])}"
            f"{_pirates(e.get('pirates', []))}, attack {e['value']}; {lead}")


def _counter_declined(e: Event, name: Namer) -> str:
    return f"{seat_of(e, name)} declined to counter-attack"


def _captured(e: Event, name: Namer) -> str:
    return (f"{seat_of(e, name)} captured {e['ship']} for {plural(e['points'], 'point')} "
            f"(score {e['score']})")


def _sailed_in(e: Event, name: Namer) -> str:
    nxt = f" (next in the harbour: {join(e['harbour'])})" if e.get("harbour") else ""
    return f"the ship {e['ship']} sailed in from the harbour{nxt}"


def _last_ship_sailed(e: Event, name: Namer) -> str:
    return "the last ship has left the harbour: the next capture starts the final round"


TELLERS: Mapping[str, Teller] = {
    "turn_started": skip,
    "placed": _placed,
    "exchange_discarded": _exchange_discarded,
    "exchange_took": _exchange_took,
    "cannon_fired": _cannon_fired,
    "play_ended": skip,
    "cannon_dice": _cannon_dice,
    "cannon_missed": _cannon_missed,
    "cannon_hit": _cannon_hit,
    "pirates_trimmed": _pirates_trimmed,
    "boarded": _boarded,
    "boarding_penalty": _boarding_penalty,
    "boarding_ended": skip,
    "counter_attacked": _counter_attacked,
    "counter_declined": _counter_declined,
    "captured": _captured,
    "sailed_in": _sailed_in,
    "last_ship_sailed": _last_ship_sailed,
    "reshuffled": deck_reshuffled,
    "drew": drew_cards,
    "resigned": resigned,
    "game_ended": skip,
}


def describe(event: Event, name: Namer) -> str | None:
    """One sentence for a Störtebeker event as the reader sees it (`Engine.describe_event`)."""
    return describe_with(TELLERS, event, name)


#: why the game ended (rules §8)
_ENDINGS = {"final_round_complete": "after the final round, {won}",
            "stall_limit": "after too many turns without a capture, {won}"}


def describe_result(result: Mapping[str, Any], name: Namer) -> str | None:
    """"After the final round, you won. Points: you 48, Ann 46, Bob 12." (the points decide);
    a game ended by resignations names who is left. None for a reason the rules do not give."""
    reason = str(result.get("reason"))
    if reason == "resigned":
        return resigned_result(result, name)
    if reason not in _ENDINGS:
        return None
    points = scores_told(result, name)
    return stated(_ENDINGS[reason].format(won=outcome(result, name))) + (
        f" {points}" if points else "")
