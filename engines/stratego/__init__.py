"""Stratego (Original and Duel): the engine object the registry loads (`rules/stratego.md`).

Importing this package only builds the engine; the rules live in `rules`, the redaction in
`view`, the text picture in `text`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from types import MappingProxyType

from engines.contract import (
    JSON,
    Decision,
    Engine,
    Event,
    IllegalMove,
    Move,
    Namer,
    OptionSpec,
    Result,
    Rng,
    State,
    Variant,
    fill_options,
)
from engines.stratego import event_text, rules
from engines.stratego import notation as _notation
from engines.stratego import svg as _svg
from engines.stratego import text as _text
from engines.stratego import view as _view


class Stratego:
    """The Stratego engine: fixed facts here, the game in a plain-JSON state."""

    id = "stratego"
    title = "Stratego"
    min_players = 2
    max_players = 2
    variants: tuple[Variant, ...] = (
        Variant("original", "Original: 40 pieces, all home squares filled", {"army": "original"}),
        Variant("duel", "Duel: 10 pieces on any home squares", {"army": "duel"}),
    )
    options: Mapping[str, OptionSpec] = MappingProxyType({
        "army": OptionSpec("original", ("original", "duel"), "Which army each side fields (§9)."),
        "red_player": OptionSpec(
            "random", ("random", "joined"),
            "Who plays Red (seat 0): the audited seat-order draw, or by joining (§3).",
        ),
    })
    platform_aliases: Mapping[str, str] = MappingProxyType({"red_player": "seat_order"})
    #: the armies are the printed game's, fixed by the rules (§2.2): no data-set option
    data_option: str | None = None
    move_schema: Mapping[str, JSON] = MappingProxyType(_notation.MOVE_SCHEMA)
    error_codes: Mapping[str, str] = MappingProxyType(rules.MESSAGES)
    notation = _notation.NOTATION
    #: the legal moves are listed in the squares' sorted order (`rules._play_moves`)
    key_order_free = True

    def validate_options(self, options: Mapping[str, JSON], seats: int) -> dict[str, JSON]:
        """Defaults filled in (§3 "Options"); raises invalid_options on a bad value."""
        if seats != self.min_players:
            raise IllegalMove("invalid_options", "Stratego is played by exactly 2 seats.")
        return fill_options(self.options, options)

    def setup(self, options: Mapping[str, JSON], seats: int, rng: Rng) -> State:
        """The secret-setup phase (§3); `red_player` may be absent (the platform took it)."""
        return rules.setup(options, seats)

    def decision(self, state: State) -> Decision:
        return rules.decision(state)

    def legal_moves(self, state: State, seat: int) -> Iterator[Move]:
        return rules.legal_moves(state, seat)

    def check(self, state: State, seat: int, move: Move) -> None:
        """§5.7's checks in order, changing nothing."""
        rules.check(state, seat, move)

    def apply(self, state: State, seat: int, move: Move, rng: Rng) -> tuple[State, list[Event]]:
        """§5: validate completely, then change `state` in place; `rng` is never used (§6)."""
        return rules.apply(state, seat, move)

    def view(self, state: State, seat: int | None) -> dict[str, JSON]:
        return _view.view(state, seat)

    def view_event(self, event: Event, seat: int | None) -> Event | None:
        return _view.view_event(event, seat)

    def result(self, state: State) -> Result | None:
        return rules.result(state)

    def render_text(self, view: Mapping[str, JSON], names: Sequence[str] | None = None) -> str:
        return _text.render_text(view, names)

    def render_svg(self, view: Mapping[str, JSON], names: Sequence[str] | None = None) -> str:
        """The board as SVG from the viewer's side, drawn from the view alone (`svg`)."""
        return _svg.render_svg(view, names)

    def default_move(self, state: State, seat: int) -> Move | None:
        """None: Stratego has no default action (§4 "No passing")."""
        return None

    def is_secret(self, move: Move) -> bool:
        """A setup is secret until the game ends (§3 step 2, §7)."""
        return isinstance(move, dict) and move.get("type") == "setup"

    def format_move(self, move: Move) -> str:
        return _notation.format_move(move)

    def parse_move(self, text: str) -> Move:
        return _notation.parse_move(text)

    def describe_event(self, event: Mapping[str, JSON], name: Namer) -> str | None:
        return event_text.describe(event, name)

    def describe_result(self, result: Mapping[str, JSON], name: Namer) -> str | None:
        return event_text.describe_result(result, name)


ENGINE: Engine = Stratego()

__all__ = ["ENGINE", "Stratego"]
