"""Totohu's events in words, from one reader's seat (docs/rules/totohu.md).

Ships are named by their ids (`p2`, `m1`, `h`), as the board and the notation name them; a side
is a seat ("0".."2") or the solo game's dummy. Reads only the event as `view.view_event` showed
it: in blind play a reader never gets another fleet's effects, departures or robberies.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engines.sentences import (
    Namer,
    Teller,
    agree,
    describe_with,
    join,
    losers,
    outcome,
    plural,
    possessive,
    resigned,
    result_seats,
    scores_told,
    seat_of,
    skip,
    stated,
)

Event = Mapping[str, Any]

DUMMY = "dummy"
_DEPARTED = {"sunk": "sank", "port": "went to port", "left": "left the sea"}
_RAID = {"rob": "chose to rob the merchant", "shoot": "chose to shoot"}


def _whose(side: Any, name: Namer) -> str:
    """The owner of a side as a possessive: "your", "Bob's", "the dummy's"."""
    return "the dummy's" if side == DUMMY else possessive(name(int(side)))


def _ship(ref: Mapping[str, Any], name: Namer) -> str:
    """{"side": "1", "ship": "p2"} -> "Bob's p2"."""
    return f"{_whose(ref['side'], name)} {ref['ship']}"


def _chosen(e: Event, name: Namer) -> str:
    return f"{seat_of(e, name)} chose a ship"


def _reveal(e: Event, name: Namer) -> str:
    ships = [f"{_whose(side, name)} {ship}" for side, ship in e["ships"].items()]
    return f"round {e['round']} revealed {join(ships)}"


def _dummy_roll(e: Event, name: Namer) -> str:
    rolled = f"the dummy rolled {e['face']}: {e['ship']}"
    return rolled + (" sails" if e.get("sails") else " is no longer at sea, so it rolled again")


def _dummy_faces(e: Event, name: Namer) -> str:
    faces = [f"{face} {ship}" for face, ship in sorted(e["faces"].items())]
    return f"the dummy's die faces now read {join(faces)}"


def _order(e: Event, name: Namer) -> str:
    fights = [f"{name(a)} against {name(b)}" for a, b in e["pairs"]]
    return f"{seat_of(e, name)} ordered the encounters: {join(fights, 'then')}"


def _encounter(e: Event, name: Namer) -> str:
    first, second = e["ships"]
    return f"{_ship(first, name)} met {_ship(second, name)}"


def _encounter_skipped(e: Event, name: Namer) -> str:
    first, second = e["ships"]
    return (f"the encounter of {_ship(first, name)} and {_ship(second, name)} was skipped: "
            f"one of them had left")


def _barrels(e: Event) -> str:
    gained = int(e.get("deck", 0)) + int(e.get("hold", 0))
    where = [f"{n} {place}" for n, place in ((e.get("deck", 0), "on deck"),
                                            (e.get("hold", 0), "hidden in the hold")) if n]
    text = f"gained {plural(gained, 'barrel')}" + (f" ({join(where)})" if gained else "")
    lost = int(e.get("discarded", 0))
    return text + (f", and {plural(lost, 'barrel')} found no room" if lost else "")


def _effect(e: Event, name: Namer) -> str:
    ship, effect = _ship(e, name), e.get("effect")
    told = {"hit": "was hit", "cannon": "gained a cannon", "anchor": "dropped an anchor",
            "none": "was spared", "robbed": "was robbed of a barrel",
            "spared": "was spared: its deck was empty"}
    if effect in ("barrel", "barrel2"):
        return f"{ship} {_barrels(e)}"
    return f"{ship} {told.get(str(effect), str(effect))}"


def _robbery(e: Event, name: Namer) -> str:
    pirate, merchant = _ship(e["pirate"], name), _ship(e["merchant"], name)
    if e.get("taken"):
        return f"{pirate} robbed {merchant} and took a barrel into its hold"
    return f"{pirate} robbed {merchant}, but its deck was empty"


def _departure(e: Event, name: Namer) -> str:
    status = str(e.get("status"))
    return f"{_ship(e, name)} {_DEPARTED.get(status, status)}"


def _fleet_exhausted(e: Event, name: Namer) -> str:
    return f"{_whose(e['side'], name)} fleet has no ship left at sea"


def _round_started(e: Event, name: Namer) -> str:
    who = seat_of(e, name, "starter")
    return f"round {e['round']} began; {who} {agree(who, 'start', 'starts')}"


def _raid(e: Event, name: Namer) -> str:
    action = str(e.get("action"))
    return f"{seat_of(e, name)} {_RAID.get(action, action)}"


TELLERS: Mapping[str, Teller] = {
    "chosen": _chosen,
    "reveal": _reveal,
    "dummy_roll": _dummy_roll,
    "dummy_faces": _dummy_faces,
    "order": _order,
    "encounter": _encounter,
    "encounter_skipped": _encounter_skipped,
    "raid": _raid,
    "robbery": _robbery,
    "effect": _effect,
    "departure": _departure,
    "fleet_exhausted": _fleet_exhausted,
    "round_started": _round_started,
    "resigned": resigned,
    "game_over": skip,
}


def describe(event: Event, name: Namer) -> str | None:
    """One sentence for a Totohu event as the reader sees it (`Engine.describe_event`)."""
    return describe_with(TELLERS, event, name)


#: why the game ended (rules §8); a resignation names nobody: several seats may have left
_ENDINGS = {"one_fleet_left": "only one fleet was left at sea",
            "all_fleets_exhausted": "no fleet was left at sea",
            "resigned": "a resignation left at most one fleet at sea"}


def describe_result(result: Mapping[str, Any], name: Namer) -> str | None:
    """"Only one fleet was left at sea: you won. Points: you 9, Bob 7." The points (cannons and
    barrels of the ships not sunk) decide the winner, so they are told; a solo game is won or
    lost against the dummy. None for a reason the rules do not give."""
    reason = str(result.get("reason"))
    why = _ENDINGS.get(reason)
    if why is None:
        return None
    solo = result_seats(result) == [0] and DUMMY in (result.get("scores") or {})
    if solo:
        won = f"{name(0)} beat the dummy" if result.get("winners") else "the dummy won"
    else:
        won = outcome(result, name)
    lost = losers(result)
    if reason == "resigned" and (solo or len(lost) == 1):  # the one who lost is who resigned
        told = stated(f"{won}: {name(lost[0] if lost else 0)} resigned")
    else:
        told = stated(f"{why}: {won}")
    points = scores_told(result, name, others={DUMMY: "the dummy"})
    return told + (f" {points}" if points else "")
