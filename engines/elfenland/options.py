"""Elfenland options and their validation, for both modes (docs/rules/elfenland.md "Options").

Spec §3.1: one ruleset, two modes. `mode: "race"` is the 1998 race game with the seed's variants
(§9) as boolean options; `mode: "war"` is the seed's war game. A validated option set holds only
the keys of its own mode (plus `colours` and the map), so a default-valued key of the other mode
is dropped and `validate_options` is stable on its own output (contract v2 point 12).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from engines.contract import JSON, IllegalMove, OptionSpec
from engines.elfenland.board import BOARDS, board

RACE, WAR = "race", "war"
MIN_PLAYERS, MAX_PLAYERS = 2, 6

#: §9.2 travel variants, in the spec's order
TRAVEL_VARIANTS: tuple[tuple[str, str], ...] = (
    ("thief", "Thief in Elfland: one step per turn, steal from boots you meet"),
    ("trunk-first-three-rounds", "Trunks a): obstacles only in rounds 1-3"),
    ("trunk-round-limit", "Trunks b): at most 1 obstacle per round (2 with 5-6 seats)"),
    ("non-stop", "Non-stop travel: several roads of one counter type (or rivers) as one step"),
    ("travel-monopoly", "Travel monopoly: visiting the round's 2 monopoly towns changes the deal"),
    ("indiana-jones", "Indiana Jones: an obstacle on an empty road becomes a bridge"),
    ("hellish-road", "Hellish road: counters laid on a random path every round"),
    ("ferryman", "Ferryman: Mare Nebulae costs 1 raft, or any 3 cards"),
    ("station-street", "Station street: an obstacle lies at one end and costs only leaving it"),
    ("construction-works", "Construction works: obstacles return to their owners every round"),
    ("substitution", "Substitution: 2 tokens to replace a counter on a road"),
    ("objection", "Objection: 2 objections to put a placement to the vote (3+ seats)"),
    ("no-caravan", "No caravans"),
)
#: §9.3 distribution variants, in the spec's order
DISTRIBUTION_VARIANTS: tuple[tuple[str, str], ...] = (
    ("tickets-on-demand", "Tickets on demand: deal to 12, discard to 8 after the draft"),
    ("eight-new-tickets", "Eight new tickets: 8 new cards, discard to 8 after the draft"),
    ("quality-of-choice", "Quality of choice: draft cards and counters from small displays"),
    ("lost-tickets", "Lost tickets: discard any cards at the end of a round"),
    ("junk-exchange", "Junk exchange: give one card to each neighbour after planning"),
    ("centre", "Centre: each puts a card in the centre, then takes one"),
    ("circular-rotation", "Circular rotation: pass a face-up counter to the left"),
)
VARIANT_IDS: tuple[str, ...] = tuple(v for v, _ in TRAVEL_VARIANTS + DISTRIBUTION_VARIANTS)
#: the three deals that exclude each other (§3.1)
EXCLUSIVE_DEALS = ("tickets-on-demand", "eight-new-tickets", "quality-of-choice")

_BOOL = (False, True)
_MAP = BOARDS.option("The map data set (towns, roads, chart, counts); the shipped map.")

RACE_OPTIONS: dict[str, OptionSpec] = {
    "mode": OptionSpec(RACE, (RACE, WAR), "race (1998 game and variants) or war (§3.1)."),
    "rounds": OptionSpec(4, (3, 4), "Rounds to play: 4 (1998) or 3 (English edition E.1)."),
    "destination": OptionSpec(False, _BOOL, "Secret destination cards, scored at the end."),
    "colours": OptionSpec(None, None, "null, or one distinct colour per seat, in seat order."),
    **{v: OptionSpec(False, _BOOL, text) for v, text in TRAVEL_VARIANTS + DISTRIBUTION_VARIANTS},
    "map_data": _MAP,
}
WAR_OPTIONS: dict[str, OptionSpec] = {
    "mode": RACE_OPTIONS["mode"],
    "war-victory": OptionSpec("capitals", ("capitals", "conditions"),
                              "War victory: capture capitals, or secret condition cards."),
    "war-max-rounds": OptionSpec(30, None, "War: the game ends after this many rounds (5-200)."),
    "colours": RACE_OPTIONS["colours"],
    "map_data": _MAP,
}
#: every option of either mode, as `GET /v1/rulesets` lists them
OPTIONS: Mapping[str, OptionSpec] = MappingProxyType({**RACE_OPTIONS, **WAR_OPTIONS})


def _bad(message: str) -> IllegalMove:
    return IllegalMove("invalid_options", message)


def _same(value: JSON, other: JSON) -> bool:
    return value == other and type(value) is type(other)


def validate_options(options: Mapping[str, JSON], seats: int,
                     war_specs: Mapping[str, OptionSpec] | None = None) -> dict[str, JSON]:
    """Defaults filled in for the chosen mode; `invalid_options` on any rule of §3.1.

    `war_specs` are further war options the war package declares (a race game drops them at
    their defaults and refuses other values, like every war key)."""
    if not isinstance(options, Mapping):
        raise _bad("Options must be an object.")
    if type(seats) is not int or not MIN_PLAYERS <= seats <= MAX_PLAYERS:
        raise _bad(f"Elfenland needs {MIN_PLAYERS}-{MAX_PLAYERS} seats, not {seats!r}.")
    war_options = {**WAR_OPTIONS, **(war_specs or {})}
    unknown = sorted(set(options) - set(OPTIONS) - set(war_options))
    if unknown:
        raise _bad(f"Unknown option {unknown[0]!r}.")
    mode = options.get("mode", RACE)
    if not isinstance(mode, str) or mode not in (RACE, WAR):
        raise _bad(f"Option 'mode' must be 'race' or 'war', not {mode!r}.")
    own = RACE_OPTIONS if mode == RACE else war_options
    other = war_options if mode == RACE else RACE_OPTIONS
    for name, value in options.items():
        if name in own:
            continue
        if not _same(value, other[name].default):
            raise _bad(f"Option {name!r} belongs to the {'war' if mode == RACE else 'race'} "
                       f"mode; it cannot be set with mode {mode!r}.")
    out: dict[str, JSON] = {}
    for name, spec in own.items():
        value = options.get(name, spec.default)
        if spec.choices is not None and not any(_same(value, c) for c in spec.choices):
            raise _bad(f"Option {name!r} must be one of {list(spec.choices)!r}, not {value!r}.")
        out[name] = value
    the_board = board(out["map_data"])
    colours = out["colours"]
    if colours is not None:
        if (not isinstance(colours, list) or len(colours) != seats
                or any(not isinstance(c, str) or c not in the_board.colours for c in colours)
                or len(set(colours)) != seats):
            raise _bad(f"Option 'colours' must be null or {seats} distinct colours of "
                       f"{list(the_board.colours)}.")
        out["colours"] = list(colours)
    if mode == RACE:
        chosen = [v for v in EXCLUSIVE_DEALS if out[v]]
        if len(chosen) > 1:
            raise _bad(f"Variants {chosen[0]!r} and {chosen[1]!r} both redefine the deal; "
                       f"choose at most one of {list(EXCLUSIVE_DEALS)}.")
    else:
        limit = out["war-max-rounds"]
        if type(limit) is not int or not 5 <= limit <= 200:
            raise _bad(f"Option 'war-max-rounds' must be an integer in 5..200, not {limit!r}.")
    return out


def colours_of(options: Mapping[str, JSON], seats: int) -> list[str]:
    """Seat i's colour: `options.colours[i]`, or the map's i-th colour by default (§2.3)."""
    chosen = options.get("colours")
    if chosen:
        return list(chosen)
    return list(board(options["map_data"]).colours[:seats])
