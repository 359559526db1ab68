"""Totohu ("Rock, scissors, pirates"): simultaneous secret ship choices (rules/totohu.md).

Exports `ENGINE`, the engine-contract object. Importing does nothing else: the fleet data file is
read on first use (`fleet.load_fleet`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from types import MappingProxyType

from engines.contract import (
    JSON,
    Decision,
    Event,
    Move,
    Namer,
    OptionSpec,
    Result,
    Rng,
    State,
    Variant,
    first,
)
from engines.totohu import event_text, rules, text
from engines.totohu import notation as _notation
from engines.totohu import svg as _svg
from engines.totohu import view as views


class Totohu:
    """The Totohu engine: fixed facts here, the rules in `rules`, views in `view` and `text`."""

    id = "totohu"
    title = "Totohu"
    min_players = rules.MIN_PLAYERS
    max_players = rules.MAX_PLAYERS
    variants = (
        Variant("base", "Base game"),
        Variant("hidden-treasure", "Hidden treasure", {"hidden_treasure": True}),
        Variant("blind-play", "Blind play", {"blind": True}),
        Variant(
            "hidden-treasure-blind", "Hidden treasure, blind play",
            {"hidden_treasure": True, "blind": True},
        ),
    )
    options: Mapping[str, OptionSpec] = rules.OPTIONS
    platform_aliases: Mapping[str, str] = {}
    data_option: str | None = "fleet_data"
    move_schema: Mapping[str, JSON] = MappingProxyType(_notation.MOVE_SCHEMA)
    error_codes: Mapping[str, str] = MappingProxyType(rules.MESSAGES)
    notation = _notation.NOTATION

    def validate_options(self, options: Mapping[str, JSON], seats: int) -> dict[str, JSON]:
        """Defaults filled in; `invalid_options` on a bad value or data file (§9)."""
        return rules.validate_options(options, seats)

    def setup(self, options: Mapping[str, JSON], seats: int, rng: Rng) -> State:
        """The start of round 1 (§3); draws nothing."""
        return rules.setup(options, seats, rng)

    def decision(self, state: State) -> Decision:
        """Who acts now (§4)."""
        return rules.decision(state)

    def legal_moves(self, state: State, seat: int) -> Iterator[Move]:
        """Every legal move of `seat` (§5), as a generator."""
        return rules.legal_moves(state, seat)

    def check(self, state: State, seat: int, move: Move) -> None:
        """The checks of `apply` in the spec's order (§5), changing nothing."""
        rules.validate(state, seat, move)

    def apply(self, state: State, seat: int, move: Move, rng: Rng) -> tuple[State, list[Event]]:
        """Validate, then change `state` in place (§4, §5)."""
        return rules.apply(state, seat, move, rng)

    def view(self, state: State, seat: int | None) -> dict[str, JSON]:
        """The redacted view of one seat or a spectator (§7)."""
        return views.view(state, seat)

    def view_event(self, event: Event, seat: int | None) -> Event | None:
        """The event as one audience may see it (§7), or None."""
        return views.view_event(event, seat)

    def result(self, state: State) -> Result | None:
        """None while running, else winners, scores and reason (§8)."""
        return rules.result(state)

    def render_text(self, view: Mapping[str, JSON], names: Sequence[str] | None = None) -> str:
        """Plain text of a view, the players named (`names`, by seat)."""
        return text.render_text(view, names)

    def render_svg(self, view: Mapping[str, JSON], names: Sequence[str] | None = None) -> str:
        """The fleets as SVG ship cards, drawn from the view alone (`svg`)."""
        return _svg.render_svg(view, names)

    def default_move(self, state: State, seat: int) -> Move | None:
        """A late ship choice has no default (the seat drops out: the choice is the game);
        a late order is the encounters in seat order, a late raid answer is `shoot`, the
        one answer always open (docs/rules/totohu.md "Timeouts")."""
        if state["phase"] == rules.ORDER:
            return first(rules.legal_moves(state, seat))
        if state["phase"] == rules.RAID:
            return {"type": "raid", "action": "shoot"}
        return None

    def is_secret(self, move: Move) -> bool:
        """A `play` carries the secret ship choice (§7)."""
        return isinstance(move, dict) and move.get("type") == "play"

    def format_move(self, move: Move) -> str:
        return _notation.format_move(move)

    def parse_move(self, text: str) -> Move:
        return _notation.parse_move(text)

    def describe_event(self, event: Mapping[str, JSON], name: Namer) -> str | None:
        """One sentence for an event as the reader sees it (`event_text`)."""
        return event_text.describe(event, name)

    def describe_result(self, result: Mapping[str, JSON], name: Namer) -> str | None:
        """The result in words from the reader's side (`event_text`)."""
        return event_text.describe_result(result, name)


ENGINE = Totohu()

__all__ = ["ENGINE", "Totohu"]
