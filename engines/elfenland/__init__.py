"""Elfenland (Alan R. Moon, AMIGO 1998): the race game with the seed's variants, and the war game.

docs/rules/elfenland.md. Exports `ENGINE`. One ruleset, two modes chosen by the `mode` option
(spec §3.1): every contract method dispatches on the state's `"mode"`, the race to
`engines.elfenland.race`, the war to `engines.elfenland.war` (its `WAR` object, imported lazily
so that the race works on its own). Importing does nothing else: the map is read on first use.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping, Sequence
from functools import cache
from types import MappingProxyType
from typing import Any

from engines.contract import (
    BAD_NOTATION,
    JSON,
    Decision,
    Event,
    IllegalMove,
    Move,
    Namer,
    OptionSpec,
    Result,
    Rng,
    State,
    Variant,
)
from engines.elfenland import options as opts
from engines.elfenland import race
from engines.elfenland.errors import RACE_CODES
from engines.elfenland.race import event_text as race_text
from engines.elfenland.race import notation as race_notation
from engines.elfenland.race.schema import RACE_MOVE_SCHEMA


@cache
def war_module() -> Any:
    """The war game's `WAR` object, or None while `engines.elfenland.war` does not exist."""
    try:
        module = importlib.import_module("engines.elfenland.war")
    except ModuleNotFoundError as err:
        if err.name and err.name.startswith("engines.elfenland.war"):
            return None
        raise
    return getattr(module, "WAR", None)


def _war() -> Any:
    war = war_module()
    if war is None:
        raise IllegalMove("invalid_options", "The war game (mode 'war') is not available yet.")
    return war


#: named presets (contract v2 point 12: exact option sets). Every variant of §9 is also a
#: boolean option of its own; these presets bundle them the way tables usually play.
RACE_VARIANTS: tuple[Variant, ...] = (
    Variant("base", "Base game (1998, 4 rounds)"),
    Variant("three-rounds", "Three rounds (English edition E.1)", {"rounds": 3}),
    Variant("destination", "Destination cards (1998 standard setup)", {"destination": True}),
    Variant("travel-variants", "Every travel variant of the seed at once",
            {v: True for v, _ in opts.TRAVEL_VARIANTS}),
    Variant("distribution-variants", "Tickets on demand with every compatible distribution "
            "variant", {"tickets-on-demand": True, "lost-tickets": True, "junk-exchange": True,
                        "centre": True, "circular-rotation": True}),
    Variant("quality-of-choice", "Quality of choice (draft cards and counters)",
            {"quality-of-choice": True}),
)
WAR_VARIANT = Variant("battle-for-elfland", "Battle for Elfland (the war game)", {"mode": "war"})


def _variants() -> tuple[Variant, ...]:
    return RACE_VARIANTS + ((WAR_VARIANT,) if war_module() is not None else ())


def _is_war(state: State) -> bool:
    return state.get("mode") == "war"


class Elfenland:
    """The Elfenland engine: fixed facts here; the race in `race`, the war in `war`."""

    id = "elfenland"
    title = "Elfenland"
    min_players = opts.MIN_PLAYERS
    max_players = opts.MAX_PLAYERS
    platform_aliases: Mapping[str, str] = {}
    data_option: str | None = "map_data"

    @property
    def options(self) -> Mapping[str, OptionSpec]:  # type: ignore[override]
        """Every option of both modes (§3.1), the war package's own ones included."""
        return _options()

    @property
    def variants(self) -> tuple[Variant, ...]:  # type: ignore[override]
        """The race presets of §9, and the war game once its package exists."""
        return _variants()

    @property
    def move_schema(self) -> Mapping[str, JSON]:
        """JSON Schema of one move: any race move, or any war move (§5)."""
        return _move_schema()

    @property
    def error_codes(self) -> Mapping[str, str]:
        """Every code the engine raises, with one line each (§5.6)."""
        war = war_module()
        return {**RACE_CODES, **(getattr(war, "ERROR_CODES", {}) if war else {})}

    @property
    def notation(self) -> str:
        """The text notation of moves."""
        war = war_module()
        extra = getattr(war, "NOTATION", "") if war else ""
        return race_notation.NOTATION + (f" War: {extra}" if extra else "")

    def validate_options(self, options: Mapping[str, JSON], seats: int) -> dict[str, JSON]:
        """Defaults of the chosen mode filled in; `invalid_options` per §3.1. A war game's
        options are the war package's to check once the race's rules about them pass."""
        war = war_module()
        specs = getattr(war, "WAR_OPTIONS", None) if war is not None else None
        out = opts.validate_options(options, seats, specs)
        if out["mode"] == opts.WAR:
            return _war().validate_options(options, seats)
        return out

    def setup(self, options: Mapping[str, JSON], seats: int, rng: Rng) -> State:
        """The game up to its first decision (§3.2, §3.3)."""
        if options.get("mode") == opts.WAR:
            return _war().setup(options, seats, rng)
        return race.setup(options, seats, rng)

    def decision(self, state: State) -> Decision:
        """Who acts now (§4.2, §4.3)."""
        return _war().decision(state) if _is_war(state) else race.decision(state)

    def legal_moves(self, state: State, seat: int) -> Iterator[Move]:
        """Every legal move of `seat`, as a generator (§4.4)."""
        if _is_war(state):
            return _war().legal_moves(state, seat)
        return race.legal_moves(state, seat)

    def check(self, state: State, seat: int, move: Move) -> None:
        """Raise `IllegalMove` exactly when `apply` would; change nothing (§5.6)."""
        if _is_war(state):
            _war().check(state, seat, move)
        else:
            race.check(state, seat, move)

    def apply(self, state: State, seat: int, move: Move, rng: Rng) -> tuple[State, list[Event]]:
        """Validate, then change `state` in place and return it with the events."""
        if _is_war(state):
            return _war().apply(state, seat, move, rng)
        return race.apply(state, seat, move, rng)

    def view(self, state: State, seat: int | None) -> dict[str, JSON]:
        """The redacted view of one seat or a spectator (§7)."""
        return _war().view(state, seat) if _is_war(state) else race.view(state, seat)

    def view_event(self, event: Event, seat: int | None) -> Event | None:
        """The event as one audience may see it (§7)."""
        if event.get("mode") != "race" and war_module() is not None:
            return _war().view_event(event, seat)
        return race.view_event(event, seat)

    def describe_event(self, event: Mapping[str, JSON], name: Namer) -> str | None:
        """One sentence for an event as the reader sees it: the race's or the war's, routed
        as `view_event` routes it."""
        if event.get("mode") != "race" and war_module() is not None:
            return _war().describe_event(event, name)
        return race_text.describe(event, name)

    def describe_result(self, result: Mapping[str, JSON], name: Namer) -> str | None:
        """The result in words from the reader's side: the race's, else the war's (their
        reasons differ, and a result names no mode)."""
        told = race_text.describe_result(result, name)
        war = war_module()
        if told is None and war is not None:
            return war.describe_result(result, name)
        return told

    def result(self, state: State) -> Result | None:
        """None while running, else winners, scores and reason (§8)."""
        return _war().result(state) if _is_war(state) else race.result(state)

    def render_text(self, view: Mapping[str, JSON], names: Sequence[str] | None = None) -> str:
        """Plain text of a view, the players named (`names`, by seat)."""
        if view.get("mode") == "war":
            return _war().render_text(view, names)
        return race.render_text(view, names)

    def render_svg(self, view: Mapping[str, JSON], names: Sequence[str] | None = None) -> str:
        """An SVG picture of a view (the map and what the view shows), the players named."""
        if view.get("mode") == "war":
            return _war().render_svg(view, names)
        from engines.elfenland.race.svg import render_svg
        return render_svg(view, names)

    def default_move(self, state: State, seat: int) -> Move | None:
        """The timeout move of the seat's decision kind, or None (forfeit)."""
        if _is_war(state):
            return _war().default_move(state, seat)
        return race.default_move(state, seat)

    def is_secret(self, move: Move) -> bool:
        """Decided from the move alone: race answers and picks, or the war's secret moves."""
        if race.is_secret(move):
            return True
        war = war_module()
        return bool(war is not None and war.is_secret(move))

    def format_move(self, move: Move) -> str:
        """The move in the text notation."""
        text = race_notation.format_move(move)
        if text is None:
            war = war_module()
            if war is not None:
                return war.format_move(move)
            raise IllegalMove(BAD_NOTATION, f"No notation for {move!r}.")
        return text

    def parse_move(self, text: str) -> Move:
        """The move a text names; `bad_notation` if none."""
        move = race_notation.parse_move(text)
        if move is not None:
            return move
        war = war_module()
        if war is not None:
            return war.parse_move(text)
        raise IllegalMove(BAD_NOTATION, f"Cannot read {text!r} as an Elfenland move.")


@cache
def _options() -> Mapping[str, OptionSpec]:
    war = war_module()
    extra = dict(getattr(war, "WAR_OPTIONS", {}) or {}) if war is not None else {}
    return MappingProxyType({**opts.OPTIONS, **extra})


@cache
def _move_schema() -> Mapping[str, JSON]:
    """One flat object schema (fast to check): the move types as an enum, every field typed;
    which fields each type takes is `race.fields.MOVE_FIELDS` (docs/rules/elfenland.md)."""
    schema = dict(RACE_MOVE_SCHEMA)
    war = war_module()
    if war is not None and getattr(war, "MOVE_SCHEMA", None):
        return {"$schema": schema.pop("$schema"), "title": "Elfenland move",
                "anyOf": [schema, dict(war.MOVE_SCHEMA)]}
    return schema


ENGINE = Elfenland()

__all__ = ["ENGINE", "Elfenland"]
