"""Cartagena (Leo Colovini; studiogiochi 2017): pirates escape through the tunnel, by card and
by stepping back to draw (docs/rules/cartagena.md).

Exports `ENGINE`. The board, options and movement primitives live in `board`, the moves in
`rules`, views and text in `view`, the data set in `data`. Importing reads nothing: the tile
data is loaded on first use.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from types import MappingProxyType

from engines.cartagena import board, event_text, rules, view
from engines.cartagena import notation as _notation
from engines.cartagena import svg as _svg
from engines.cartagena.texts import MESSAGES
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
)


class Cartagena:
    """The Cartagena engine: fixed facts here, the game in a plain-JSON state."""

    id = "cartagena"
    title = "Cartagena"
    min_players = 2
    max_players = 5
    variants: tuple[Variant, ...] = (
        Variant("escape", "The escape (6 tiles, 6 pirates)"),
        Variant("short", "A short game: 4 tiles, 4 pirates each", {"tiles": 4, "pirates": 4}),
        Variant("long", "A long game: 8 tiles, 6 pirates each", {"tiles": 8}),
        Variant("tortuga", "Tortuga: through the jungle from the wreck to the cove",
                {"route": "tortuga"}),
        Variant("complete-escape", "The complete escape: tunnel, ship and jungle",
                {"route": "complete"}),
        Variant("morgan", "Morgan draws in place of moving back",
                {"draw_mode": {"tunnel": "morgan", "jungle": "morgan"}}),
        Variant("rascals", "Rascals with Morgan and moving back both allowed",
                {"rascals": True, "draw_mode": {"tunnel": "both", "jungle": "both"}}),
        Variant("caribbean-witch", "The Caribbean Witch: spells and chest tokens",
                {"witch": True}),
    )
    options: Mapping[str, OptionSpec] = MappingProxyType(board.OPTIONS)
    platform_aliases: Mapping[str, str] = MappingProxyType({})
    data_option: str | None = "tile_data"
    move_schema: Mapping[str, JSON] = MappingProxyType(_notation.MOVE_SCHEMA)
    error_codes: Mapping[str, str] = MappingProxyType(MESSAGES)
    notation = _notation.NOTATION

    def validate_options(self, options: Mapping[str, JSON], seats: int) -> dict[str, JSON]:
        return board.validate_options(options, seats)

    def setup(self, options: Mapping[str, JSON], seats: int, rng: Rng) -> State:
        return board.setup(options, seats, rng)

    def decision(self, st: State) -> Decision:
        return rules.decision(st)

    def legal_moves(self, st: State, seat: int) -> Iterator[Move]:
        return rules.legal_moves(st, seat)

    def check(self, st: State, seat: int, move: Move) -> None:
        rules.check(st, seat, move)

    def apply(self, st: State, seat: int, move: Move, rng: Rng) -> tuple[State, list[Event]]:
        return rules.apply(st, seat, move, rng)

    def view(self, st: State, seat: int | None) -> dict[str, JSON]:
        return view.view(st, seat)

    def view_event(self, event: Event, seat: int | None) -> Event | None:
        return view.view_event(event, seat)

    def result(self, st: State) -> Result | None:
        return rules.result(st)

    def render_text(self, v: Mapping[str, JSON], names: Sequence[str] | None = None) -> str:
        return view.render_text(v, names)

    def render_svg(self, v: Mapping[str, JSON], names: Sequence[str] | None = None) -> str:
        """The board as SVG, drawn from the view alone (`svg`)."""
        return _svg.render_svg(v, names)

    def default_move(self, st: State, seat: int) -> Move | None:
        return rules.default_move(st, seat)

    def is_secret(self, move: Move) -> bool:
        return rules.is_secret(move)

    def format_move(self, move: Move) -> str:
        return _notation.format_move(move)

    def parse_move(self, text: str) -> Move:
        return _notation.parse_move(text)

    def describe_event(self, event: Mapping[str, JSON], name: Namer) -> str | None:
        return event_text.describe(event, name)

    def describe_result(self, result: Mapping[str, JSON], name: Namer) -> str | None:
        return event_text.describe_result(result, name)


ENGINE = Cartagena()

__all__ = ["Cartagena", "ENGINE"]
