"""Battle for Elfland's events in words, from one reader's seat (docs/rules/elfenland-war.md).

Every war event is public (draws are counts), so a sentence tells what the event holds. Units
are named by their types ("2 dragons"), towns by their names, roads by their ids as the board
lists them. The steps of a unit selection are left out: the movement or attack they make is told.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engines.elfenland.race.event_text import round_started
from engines.sentences import (
    Namer,
    Teller,
    a,
    agree,
    describe_with,
    join,
    outcome,
    place,
    plural,
    possessive,
    reshuffled,
    resigned,
    scores_told,
    seat_of,
    skip,
    stated,
    tally,
    winners,
    words,
)

Event = Mapping[str, Any]


def _roads(roads: list[int]) -> str:
    return f"road{'s' if len(roads) > 1 else ''} {join(str(r) for r in roads)}"


def _paying(cards: Mapping[str, int]) -> str:
    return f", paying {tally(cards, 'card')}" if any(cards.values()) else ""


def _dice(dice: list[int]) -> str:
    return join((str(d) for d in dice), "and")


def _attack(e: Event, name: Namer) -> str:
    who, defender = seat_of(e, name), seat_of(e, name, "defender")
    units = join(a(words(u)) for u in e["units"])
    text = (f"{who} attacked {place(e['target'])}, held by {defender}, from {place(e['from'])} "
            f"on road {e['road']} with {units}{_paying(e.get('cards', {}))}: dice "
            f"{_dice(e['attack_dice'])} against {_dice(e['defence_dice'])}")
    losses = []
    if any(e.get("attacker_losses", {}).values()):
        losses.append(f"{who} lost {tally(e['attacker_losses'])}")
    if e.get("defender_losses"):
        losses.append(f"{defender} lost {plural(e['defender_losses'], 'unit')}")
    return text + (f"; {join(losses)}" if losses else "")


def _casualties(e: Event, name: Namer) -> str:
    return f"{seat_of(e, name)} lost {tally(e['units'])} in {place(e['town'])}"


def _town_taken(e: Event, name: Namer) -> str:
    drew = f", and drew {plural(e['drew'], 'victory card')}" if e.get("drew") else ""
    return f"{seat_of(e, name)} took {place(e['town'])} with {tally(e['units'])}{drew}"


def _capital_captured(e: Event, name: Namer) -> str:
    whose = possessive(seat_of(e, name, "owner"))
    return f"{seat_of(e, name)} captured {whose} capital {place(e['town'])}"


def _capital_chosen(e: Event, name: Namer) -> str:
    return f"{seat_of(e, name)} chose {place(e['town'])} as capital"


def _moved(e: Event, name: Namer) -> str:
    claimed = f" and claimed {place(e['to'])}" if e.get("claimed") else ""
    return (f"{seat_of(e, name)} moved {tally(e['units'])} from {place(e['from'])} to "
            f"{place(e['to'])} on {_roads(e['roads'])}{claimed}{_paying(e.get('cards', {}))}")


def _income(e: Event, name: Namer) -> str:
    short = f" of {e['due']} due" if e["drawn"] < e["due"] else ""
    return f"{seat_of(e, name)} drew {plural(e['drawn'], 'victory card')}{short} as income"


def _eliminated(e: Event, name: Namer) -> str:
    who = seat_of(e, name)
    return f"{who} {agree(who, 'were', 'was')} eliminated: no units left on the board"


def _opening_ended(e: Event, name: Namer) -> str:
    return "the opening ended"


def _opening_passed(e: Event, name: Namer) -> str:
    why = " (no support counter)" if e.get("automatic") else ""
    return f"{seat_of(e, name)} passed in the opening{why}"


def _placement_submitted(e: Event, name: Namer) -> str:
    return f"{seat_of(e, name)} submitted a placement"


def _rafts_reshuffled(e: Event, name: Namer) -> str:
    return (f"the victory deck was shuffled with the {plural(e['rafts'], 'played raft card')}"
            f" ({plural(e['deck'], 'card')})")


def _traded(e: Event, name: Namer) -> str:
    kind = words(e["card"])
    if e.get("town") is None:
        return f"{seat_of(e, name)} traded 3 {kind} cards for {a(kind)} from the cloud reserve"
    return f"{seat_of(e, name)} traded 3 {kind} cards for {a(kind)} in {place(e['town'])}"


def _trunk_placed(e: Event, name: Namer) -> str:
    return f"{seat_of(e, name)} placed a trunk on road {e['road']}"


def _trunk_removed(e: Event, name: Namer) -> str:
    return f"{seat_of(e, name)} removed the trunk on road {e['road']} with a magic cloud"


def _turn_passed(e: Event, name: Namer) -> str:
    return f"{seat_of(e, name)} passed the turn"


def _victory_deck_reshuffled(e: Event, name: Namer) -> str:
    return reshuffled(e["size"], "victory deck")


def _placed_initial(e: Event, name: Namer) -> str:
    return "every player placed a first unit in each of their towns"


def _placed_rest(e: Event, name: Namer) -> str:
    return "every player placed the rest of their units"


TELLERS: Mapping[str, Teller] = {
    "placement_submitted": _placement_submitted,
    "war_placed_initial": _placed_initial,
    "capital_chosen": _capital_chosen,
    "war_placed_rest": _placed_rest,
    "opening_passed": _opening_passed,
    "opening_ended": _opening_ended,
    "round_started": round_started,
    "traded": _traded,
    "selection_started": skip,
    "unit_picked": skip,
    "selection_cancelled": skip,
    "moved": _moved,
    "attack": _attack,
    "casualties": _casualties,
    "town_taken": _town_taken,
    "capital_captured": _capital_captured,
    "trunk_placed": _trunk_placed,
    "trunk_removed": _trunk_removed,
    "turn_passed": _turn_passed,
    "turn_ended": skip,
    "rafts_reshuffled": _rafts_reshuffled,
    "income": _income,
    "victory_deck_reshuffled": _victory_deck_reshuffled,
    "eliminated": _eliminated,
    "resigned": resigned,
    "game_ended": skip,
}


def describe(event: Event, name: Namer) -> str | None:
    """One sentence for a war event as the reader sees it (`Engine.describe_event`)."""
    return describe_with(TELLERS, event, name)


def describe_result(result: Mapping[str, Any], name: Namer) -> str | None:
    """The war's result from the reader's side ("You won by taking enough enemy capitals.");
    the towns held are told where they decided (the round limit). None for a reason the war
    does not give (the race's are the race's)."""
    reason, won = result.get("reason"), winners(result)
    head = outcome(result, name)
    if reason == "capitals_captured":
        return stated(f"{head} by taking enough enemy capitals")
    if reason == "condition_fulfilled":
        return stated(f"{head} by fulfilling a condition card")
    if reason == "last_army_standing":
        if not won:
            return "No army was left on the board: nobody won."
        return stated(f"{possessive(name(won[0]))} army was the last one standing: {head}")
    if reason == "round_limit":
        return stated(f"after the last round, {head} on towns held") + " " + \
            scores_told(result, name, "Towns")
    return None
