"""The Elfenland race's events in words, from one reader's seat (docs/rules/elfenland.md).

Reads only the event as `view.view_event` showed it: the public fields, and under `yours` the
reader's own private part (its hand after a deal, the counter it drew face down, the card it
picked, stole or lost). The `private` field of a full event is never read, so no sentence can
tell another player's cards, even of an event shown in full after the end. Roads are named by
their ids, as the board lists them; towns by their names.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from engines.sentences import (
    YOU,
    Namer,
    Teller,
    a,
    describe_with,
    join,
    outcome,
    place,
    plural,
    possessive,
    resigned,
    resigned_result,
    scores_told,
    seat_of,
    skip,
    stated,
    tally,
    words,
)

Event = Mapping[str, Any]

#: how a payment is made (`travelled.form`, `payment_started.form`)
_FORMS = {"caravan": " by caravan", "ferryman": " with the ferryman"}
_PAYING = {"caravan": "began a caravan", "ferryman": "began paying the ferryman",
           "cards": "began paying for the bridge"}


def counter(kind: Any) -> str:
    """"a dragon counter", "an elfcycle counter"."""
    return a(f"{words(kind)} counter")


def card(kind: Any) -> str:
    """"a raft card", "an elfcycle card"."""
    return a(f"{words(kind)} card")


def _yours(e: Event, key: str) -> Any:
    """The reader's own private value of this event, or None."""
    mine = e.get("yours")
    return mine.get(key) if isinstance(mine, Mapping) else None


def round_started(e: Event, name: Namer) -> str:
    """Both modes: a new round and who starts it."""
    return f"round {e['round']} began with {seat_of(e, name, 'start')} as the starting player"


def _monopoly_towns(e: Event, name: Namer) -> str:
    return f"the monopoly towns this round are {join(place(t) for t in e['towns'])}"


def _cards_dealt(e: Event, name: Namer) -> str:
    dealt = [f"{plural(n, 'card')} to {name(int(s))}" for s, n in e["dealt"].items() if n]
    text = f"travel cards were dealt: {join(dealt) or 'none'}"
    hand = _yours(e, "hand")
    return text + (f"; your hand is now {tally(hand, 'card')}" if hand is not None else "")


def _secret_counter(e: Event, name: Namer) -> str:
    kind = _yours(e, "counter")
    return f"{seat_of(e, name)} drew a face-down counter" + (f": {counter(kind)}" if kind else "")


def _counter_taken(e: Event, name: Namer) -> str:
    return f"{seat_of(e, name)} took {counter(e['counter'])} from the display"


def _counter_drawn(e: Event, name: Namer) -> str:
    return f"{seat_of(e, name)} drew {counter(e['counter'])} from the pile"


def _card_display(e: Event, name: Namer) -> str:
    return f"the face-up cards are {tally(Counter(e['cards']), 'card')}"


def _card_taken(e: Event, name: Namer) -> str:
    return f"{seat_of(e, name)} took {card(e['card'])} from the face-up cards"


def _card_drawn(e: Event, name: Namer) -> str:
    kind = _yours(e, "card")
    return f"{seat_of(e, name)} drew {card(kind) if kind else 'a card'} from the deck"


def _hellish_road(e: Event, name: Namer) -> str:
    laid = [f"{counter(kind)} on road {road}" for road, kind in e["counters"].items()]
    start, end = (place(t) for t in e["towns"])
    return f"the hellish road from {start} to {end} laid {join(laid) or 'no counter'}"


def _discarded(e: Event, name: Namer) -> str:
    limit = " (hand limit)" if e.get("why") == "hand_limit" else ""
    return f"{seat_of(e, name)} discarded {tally(e['cards'], 'card')}{limit}"


def _centre_put(e: Event, name: Namer) -> str:
    return f"{seat_of(e, name)} put {card(e['card'])} in the centre"


def _centre_taken(e: Event, name: Namer) -> str:
    last = " (the last one)" if e.get("automatic") else ""
    return f"{seat_of(e, name)} took {card(e['card'])} from the centre{last}"


def _counter_passed(e: Event, name: Namer) -> str:
    return f"{seat_of(e, name)} passed {counter(e['counter'])} to {seat_of(e, name, 'to')}"


def _counter_placed(e: Event, name: Namer) -> str:
    return f"{seat_of(e, name)} placed {counter(e['counter'])} on road {e['road']}"


def _obstacle_placed(e: Event, name: Namer) -> str:
    side = f" at the {place(e['side'])} end" if e.get("side") else ""
    return f"{seat_of(e, name)} placed an obstacle on road {e['road']}{side}"


def _bridge_built(e: Event, name: Namer) -> str:
    return f"{seat_of(e, name)} built a bridge on road {e['road']}"


def _substituted(e: Event, name: Namer) -> str:
    return (f"{seat_of(e, name)} replaced the {words(e['removed'])} counter on road "
            f"{e['road']} with {counter(e['counter'])}")


def _passed(e: Event, name: Namer) -> str:
    return f"{seat_of(e, name)} passed" + (" automatically" if e.get("automatic") else "")


def _objection_answers(e: Event, name: Namer) -> str:
    if e.get("objector") is None:
        return "nobody objected to the counter"
    return f"{seat_of(e, name, 'objector')} objected to the counter; a vote follows"


def _vote_result(e: Event, name: Namer) -> str:
    allow, forbid = e["allow"], e["forbid"]
    if forbid <= allow:
        return f"the vote kept the counter, {allow} to {forbid}"
    return f"the vote refused the counter, {forbid} to {allow}"


def _counter_refused(e: Event, name: Namer) -> str:
    return (f"{possessive(seat_of(e, name))} {words(e['counter'])} counter on road {e['road']} "
            f"was refused")


def _payment_started(e: Event, name: Namer) -> str:
    form = str(e.get("form"))
    return (f"{seat_of(e, name)} {_PAYING.get(form, 'began paying')} on road {e['road']}: "
            f"{plural(e['need'], 'card')} to pick")


def _picked(e: Event, name: Namer) -> str:
    kind = _yours(e, "card")
    return f"{seat_of(e, name)} picked {card(kind) if kind else 'a card'}"


def _travelled(e: Event, name: Namer) -> str:
    roads = e.get("roads")
    via = (f"on roads {join(str(r) for r in roads)} non-stop" if roads
           else f"on road {e['road']}")
    text = (f"{seat_of(e, name)} travelled to {place(e['to'])} {via}"
            f"{_FORMS.get(str(e.get('form')), '')} for {tally(e['paid'], 'card')}")
    return text + (" and collected the town piece" if e.get("collected") else "")


def _stolen(e: Event, name: Namer) -> str:
    kind = _yours(e, "card")
    return (f"{seat_of(e, name)} stole {card(kind) if kind else 'a card'} from "
            f"{seat_of(e, name, 'victim')}")


def _no_steal(e: Event, name: Namer) -> str:
    return f"{seat_of(e, name)} chose not to steal"


def _theft_failed(e: Event, name: Namer) -> str:
    who, victim = seat_of(e, name), seat_of(e, name, "victim")
    returned, penalty = _yours(e, "returned"), _yours(e, "penalty")
    text = (f"{who} had no step left after the theft: the stolen card"
            f"{f' ({words(returned)})' if returned else ''} went back to {victim}")
    if e.get("penalty"):
        text += f", who took {card(penalty) if penalty else 'a random card'} from {who}"
    return text


def _by_seat(pairs: list[list[Any]], name: Namer, word: str) -> str:
    """[[seat, kind], ...] -> "2 dragon cards to Ann and 1 raft card to Bob"."""
    kinds: dict[int, Counter[str]] = {}
    for seat, kind in pairs:
        kinds.setdefault(seat, Counter())[kind] += 1
    return join(f"{tally(k, 'card')} {word} {name(seat)}" for seat, k in kinds.items())


def _cards_exchanged(e: Event, name: Namer) -> str:
    text = "junk exchange: every player gave cards to their neighbours"
    gave, got = _yours(e, "gave") or [], _yours(e, "got") or []
    if gave or got:
        text += (f"; you gave {_by_seat(gave, name, 'to') or 'nothing'} and got "
                 f"{_by_seat(got, name, 'from') or 'nothing'}")
    return text


def _kept(who: str, kind: Any, own: Any) -> str:
    """What one seat kept at the round's end: a face-up counter, or a face-down one whose type
    only its owner reads (`own`, the reader's private part)."""
    if kind:
        return f"{who} kept {counter(kind)}"
    if own and who == YOU:
        return f"{who} kept a face-down {words(own)} counter"
    return f"{who} kept a face-down counter"


def _round_finished(e: Event, name: Namer) -> str:
    own = _yours(e, "kept")
    parts = [_kept(name(int(s)), kind, own) for s, kind in e.get("kept", {}).items()]
    parts += [f"{name(int(s))} discarded {tally(m, 'card')}"
              for s, m in e.get("lost_cards", {}).items()]
    adj = [f"{name(s)} {plural(abs(n), 'card')} {'more' if n > 0 else 'fewer'}"
           for s, n in enumerate(e.get("adj") or []) if n]
    if adj:
        parts.append(f"monopoly at the next deal: {join(adj)}")
    return f"round {e['round']} ended" + (f": {'; '.join(parts)}" if parts else "")


TELLERS: Mapping[str, Teller] = {
    "round_started": round_started,
    "monopoly_towns": _monopoly_towns,
    "deck_shuffled": skip,
    "cards_dealt": _cards_dealt,
    "secret_counter": _secret_counter,
    "counter_taken": _counter_taken,
    "counter_drawn": _counter_drawn,
    "display_refilled": skip,
    "card_display": _card_display,
    "card_taken": _card_taken,
    "card_drawn": _card_drawn,
    "hellish_road": _hellish_road,
    "answered": skip,
    "discarded": _discarded,
    "centre_put": _centre_put,
    "centre_taken": _centre_taken,
    "counter_passed": _counter_passed,
    "counter_placed": _counter_placed,
    "obstacle_placed": _obstacle_placed,
    "bridge_built": _bridge_built,
    "substituted": _substituted,
    "passed": _passed,
    "objection_answers": _objection_answers,
    "vote_result": _vote_result,
    "counter_refused": _counter_refused,
    "payment_started": _payment_started,
    "picked": _picked,
    "travelled": _travelled,
    "move_ended": skip,
    "stolen": _stolen,
    "no_steal": _no_steal,
    "theft_failed": _theft_failed,
    "cards_exchanged": _cards_exchanged,
    "round_finished": _round_finished,
    "resigned": resigned,
    "game_ended": skip,
}


def describe(event: Event, name: Namer) -> str | None:
    """One sentence for a race event as the reader sees it (`Engine.describe_event`)."""
    return describe_with(TELLERS, event, name)


#: why the race ended (rules "End and scoring")
_ENDINGS = {"rounds_complete": "after the last round, {won}",
            "all_towns_collected": "a player collected every town piece, which ended the game: "
                                   "{won}"}


def describe_result(result: Mapping[str, Any], name: Namer) -> str | None:
    """"After the last round, you won. Score: you 15, Bob 15, Carol 12." (the score, town
    pieces less any destination distance, decides). None for a reason the race does not give
    (the war's are the war's)."""
    reason = str(result.get("reason"))
    if reason == "resigned":
        return resigned_result(result, name)
    if reason not in _ENDINGS:
        return None
    return stated(_ENDINGS[reason].format(won=outcome(result, name))) + " " + \
        scores_told(result, name, "Score")
