"""Battle for Elfland: the war game on the Elfenland map (`mode: "war"` of `elfenland`).

docs/rules/elfenland-war.md. Exports `WAR`, the object the `elfenland` ruleset's engine hands
every war state to (it dispatches on the state's `"mode"`), the war's option specs and
`validate_war_options`. The map, the cost chart and the card functions come from
`engines.elfenland.board` and `engines.elfenland.cards`, shared with the race game.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

from engines.contract import JSON, Decision, Event, Move, Namer, Result, Rng, State
from engines.elfenland.war import event_text, legal, notation, rules, setup, text
from engines.elfenland.war import view as views
from engines.elfenland.war.errors import ERROR_CODES
from engines.elfenland.war.notation import MOVE_SCHEMA, NOTATION
from engines.elfenland.war.options import WAR_OPTIONS, validate_war_options

#: moves whose content stays hidden from the other seats until the game ends (§7)
SECRET_MOVES = frozenset({"war_place_initial", "war_place_rest", "trade_in"})


class War:
    """The war game's half of the `elfenland` engine (the `Engine` protocol's functions)."""

    move_schema: Mapping[str, JSON] = MOVE_SCHEMA
    error_codes: Mapping[str, str] = ERROR_CODES
    notation: str = NOTATION
    # the same, under the module's names, for callers that read them off the object
    MOVE_SCHEMA = MOVE_SCHEMA
    ERROR_CODES = ERROR_CODES
    NOTATION = NOTATION
    WAR_OPTIONS = WAR_OPTIONS

    def validate_options(self, options: Mapping[str, JSON], seats: int) -> dict[str, JSON]:
        """The war options, defaults filled in (§3.1); see `validate_war_options`."""
        return validate_war_options(options, seats)

    def validate_war_options(self, options: Mapping[str, JSON], seats: int) -> dict[str, JSON]:
        return validate_war_options(options, seats)

    def setup(self, options: Mapping[str, JSON], seats: int, rng: Rng) -> State:
        """The automatic deals of §3.3; then the simultaneous initial placement."""
        return setup.setup(options, seats, rng)

    def decision(self, state: State) -> Decision:
        return rules.decision(state)

    def legal_moves(self, state: State, seat: int) -> Iterator[Move]:
        return legal.legal_moves(state, seat)

    def check(self, state: State, seat: int, move: Move) -> None:
        rules.check(state, seat, move)

    def apply(self, state: State, seat: int, move: Move, rng: Rng) -> tuple[State, list[Event]]:
        return rules.apply(state, seat, move, rng)

    def view(self, state: State, seat: int | None) -> dict[str, JSON]:
        return views.view(state, seat)

    def view_event(self, event: Event, seat: int | None) -> Event | None:
        return views.view_event(event, seat)

    def result(self, state: State) -> Result | None:
        return rules.result(state)

    def render_text(self, view: Mapping[str, JSON], names: Sequence[str] | None = None) -> str:
        return text.render_text(view, names)

    def render_svg(self, view: Mapping[str, JSON], names: Sequence[str] | None = None) -> str:
        from engines.elfenland.war.svg import render_svg
        return render_svg(view, names)

    def default_move(self, state: State, seat: int) -> Move | None:
        return legal.default_move(state, seat)

    def is_secret(self, move: Move) -> bool:
        """Both unit placements and the victory-card trades (§7, issue "Known places")."""
        return isinstance(move, dict) and move.get("type") in SECRET_MOVES

    def format_move(self, move: Move) -> str:
        return notation.format_move(move)

    def parse_move(self, text: str) -> Move:
        return notation.parse_move(text)

    def describe_event(self, event: Mapping[str, JSON], name: Namer) -> str | None:
        return event_text.describe(event, name)

    def describe_result(self, result: Mapping[str, JSON], name: Namer) -> str | None:
        return event_text.describe_result(result, name)


WAR = War()

__all__ = ["ERROR_CODES", "MOVE_SCHEMA", "NOTATION", "WAR", "WAR_OPTIONS", "War",
           "validate_war_options"]
