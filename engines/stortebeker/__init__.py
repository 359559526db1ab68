"""Störtebeker (Löpmann & Wetter, Hans im Glück 2000): the dice game of merchant ships and
pirates, basic and extended rules (docs/rules/stortebeker.md).

Exports `ENGINE`. The rules live in `rules` (moves and checks), `play` (the card play's
steps), `turn` (cannon, boarding, counter-attacks, capture, sail-in, draw, end) and `state`;
views and text in `view`; the data set in `data`. Importing reads nothing: the card data is
loaded on first use.
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
)
from engines.stortebeker import event_text, rules, state, view
from engines.stortebeker import notation as _notation
from engines.stortebeker import svg as _svg
from engines.stortebeker.play import start_play
from engines.stortebeker.texts import MESSAGES


class Stortebeker:
    """The Störtebeker engine: fixed facts here, the game in a plain-JSON state."""

    id = "stortebeker"
    title = "Störtebeker"
    min_players = 2
    max_players = 4
    variants: tuple[Variant, ...] = (
        Variant("basic", "The basic rules"),
        Variant("extended", "Every extended rule (three ships at sea only for 2 players)",
                {"extended": True}),
    )
    options: Mapping[str, OptionSpec] = MappingProxyType(state.OPTIONS)
    platform_aliases: Mapping[str, str] = MappingProxyType({})
    data_option: str | None = "card_data"
    move_schema: Mapping[str, JSON] = MappingProxyType(_notation.MOVE_SCHEMA)
    error_codes: Mapping[str, str] = MappingProxyType(MESSAGES)
    notation = _notation.NOTATION

    def validate_options(self, options: Mapping[str, JSON], seats: int) -> dict[str, JSON]:
        """Defaults filled in; `extended` switches the rules on; §9's refusals."""
        return state.validate_options(options, seats)

    def setup(self, options: Mapping[str, JSON], seats: int, rng: Rng) -> State:
        """§3: the shuffled ships and cards; seat 0 starts its card play."""
        st = state.setup(options, seats, rng)
        start_play(st)
        return st

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


ENGINE = Stortebeker()

__all__ = ["ENGINE", "Stortebeker"]
