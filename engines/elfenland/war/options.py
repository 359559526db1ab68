"""The war game's options and their validation (spec §3.1; docs/rules/elfenland-war.md "Options").

`validate_war_options` is what the ruleset's `validate_options` calls for `mode: "war"`. It
accepts the keys of the war (`mode`, `map_data`, `colours`, `war-victory`, `war-max-rounds`,
`war-conditions`), drops race keys that hold their race default (§3.1 "Default-valued keys of
the other mode are dropped") and refuses a race key with any other value. Its output is stable:
validating it again gives it back unchanged (contract v2 point 12).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engines.contract import JSON, IllegalMove, OptionSpec
from engines.elfenland.board import BOARDS
from engines.elfenland.board import DEFAULT as DEFAULT_MAP
from engines.elfenland.war.conditions import CONDITION_SETS, condition_set

MIN_SEATS, MAX_SEATS = 2, 6
MAX_ROUNDS = (5, 200)

#: the war's own options (the ruleset also has `mode`, `map_data` and `colours`)
WAR_OPTIONS: dict[str, OptionSpec] = {
    "war-victory": OptionSpec(
        "capitals", ("capitals", "conditions"),
        "War: win by capturing capitals, or by a secret condition card (§8.2)."),
    "war-max-rounds": OptionSpec(
        30, None, "War: the game ends after this round (5-200; house rule, §8.2)."),
    "war-conditions": OptionSpec(
        CONDITION_SETS.default, None,
        "War: the data set of the nine condition cards (`war-victory: conditions`)."),
}

#: the race options and their defaults (§3.1): dropped from a war game when at the default
RACE_DEFAULTS: dict[str, JSON] = {
    "rounds": 4, "destination": False, "thief": False, "trunk-first-three-rounds": False,
    "trunk-round-limit": False, "non-stop": False, "travel-monopoly": False,
    "indiana-jones": False, "hellish-road": False, "ferryman": False, "station-street": False,
    "construction-works": False, "substitution": False, "objection": False,
    "no-caravan": False, "tickets-on-demand": False, "eight-new-tickets": False,
    "quality-of-choice": False, "lost-tickets": False, "junk-exchange": False, "centre": False,
    "circular-rotation": False,
}

SHARED = ("mode", "map_data", "colours")


def _bad(message: str) -> IllegalMove:
    return IllegalMove("invalid_options", message)


def _same(a: Any, b: Any) -> bool:
    return a == b and type(a) is type(b)


def validate_war_options(options: Mapping[str, JSON], seats: int) -> dict[str, JSON]:
    """The war options with defaults filled in; `invalid_options` on anything else (§3.1)."""
    if not isinstance(options, Mapping):
        raise _bad("Options must be an object.")
    if type(seats) is not int or not MIN_SEATS <= seats <= MAX_SEATS:
        raise _bad("The war game is played by 2 to 6 seats.")
    mode = options.get("mode", "war")
    if mode != "war":
        raise _bad("validate_war_options needs mode 'war'.")
    for key, value in options.items():
        if key in SHARED or key in WAR_OPTIONS:
            continue
        if key in RACE_DEFAULTS:
            if not _same(value, RACE_DEFAULTS[key]):
                raise _bad(f"Race option {key!r} cannot be set in a war game.")
            continue
        raise _bad(f"Unknown option {key!r}.")
    map_name = options.get("map_data", DEFAULT_MAP)
    if not isinstance(map_name, str) or map_name not in BOARDS.names:
        raise _bad(f"Option 'map_data' must be one of {list(BOARDS.names)}.")
    b = BOARDS.load(map_name)
    colours = options.get("colours")
    if colours is not None:
        if not isinstance(colours, list) or len(colours) != seats or \
                len(set(map(str, colours))) != seats or \
                any(not isinstance(c, str) or c not in b.colours for c in colours):
            raise _bad(f"Option 'colours' must be null or {seats} distinct colours of "
                       f"{list(b.colours)}.")
        colours = list(colours)
    victory = options.get("war-victory", "capitals")
    if victory not in ("capitals", "conditions"):
        raise _bad("Option 'war-victory' must be 'capitals' or 'conditions'.")
    rounds = options.get("war-max-rounds", 30)
    if type(rounds) is not int or not MAX_ROUNDS[0] <= rounds <= MAX_ROUNDS[1]:
        raise _bad("Option 'war-max-rounds' must be an integer from 5 to 200.")
    cond = options.get("war-conditions", CONDITION_SETS.default)
    if not isinstance(cond, str) or cond not in CONDITION_SETS.names:
        raise _bad(f"Option 'war-conditions' must be one of {list(CONDITION_SETS.names)}.")
    cards = condition_set(cond)
    towns = set(b.towns)
    for card in cards.cards:
        for c in card.conditions:
            for p in c.all:
                named = [p.get("control")] + list(p.get("control_all", ())) + \
                    list(p.get("of", ())) + list(p.get("except", ()))
                if any(t is not None and t not in towns for t in named):
                    raise _bad(f"Condition card {card.id!r} names a town not on the map.")
    return {"mode": "war", "map_data": map_name, "colours": colours,
            "war-victory": victory, "war-max-rounds": rounds, "war-conditions": cond}
