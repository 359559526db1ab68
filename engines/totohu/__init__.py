"""Totohu ("Rock, scissors, pirates"): simultaneous secret ship choices (rules/totohu.md).

Exports `ENGINE`, the engine-contract object. Importing does nothing else: the fleet data file is
read on first use (`fleet.load_fleet`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from engines.contract import JSON, Decision, Event, Move, OptionSpec, Result, Rng, State, Variant
from engines.totohu import rules, text
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

    def render_text(self, view: Mapping[str, JSON]) -> str:
        """Plain text of a view."""
        return text.render_text(view)

    def default_move(self, state: State, seat: int) -> Move | None:
        """None: the spec defines no timeout default."""
        return None

    def is_secret(self, move: Move) -> bool:
        """A `play` carries the secret ship choice (§7)."""
        return isinstance(move, dict) and move.get("type") == "play"


ENGINE = Totohu()

__all__ = ["ENGINE", "Totohu"]
