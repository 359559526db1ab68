"""The engine contract: what every game package exports, and the one error engines raise.

DESIGN.md "Engine contract". An engine is an object with fixed facts (id, seats, options) and pure
functions over a plain-JSON state. The platform (`service/`, `workers/`) knows nothing of any game
beyond this protocol, so a game never needs a special case there.

Decisions and steps
-------------------
`decision(state)` says who must act now. Its `step` counts decision points and is kept by the
engine in the state (use `close_decision`): it advances when a decision closes. A simultaneous
decision (several seats in `to_act`) closes only when every seat in it has acted, so all its moves
name the same step, and one seat's submission changes nothing another seat can see but "has
acted". The platform rejects an envelope whose `step` is not the current one (`stale_step`).

Events
------
`apply` returns events: plain dicts with a `type`. The platform stores them in full and shows
each audience `view_event(event, seat)` (None: the audience may not see it) while the game runs;
once the game has ended every event is public.

Secret moves
------------
`is_secret(move)` names moves whose content is hidden from the other seats until the game ends
(a Stratego setup, a Totohu ship): their envelopes are shown to others only as digests. It decides
from the move alone: a move type secret only in some contexts is split into two types.

Contract v2 (DESIGN.md "Contract v2"; docs/architecture.md "Engine contract v2")
-------------------------------------------------------------------------------
- **Several moves by one seat at one step.** A seat may act again at the same step while it stays
  in `to_act` (discarding cards one at a time in answer to one decision); each such move names
  the same step, and the step advances only when the engine closes the decision. Others see only
  that the seat is still acting.
- **`check(state, seat, move)`** raises `IllegalMove` exactly when `apply` would and changes
  nothing; the web process's dry run calls it. Engines validate first and mutate after, so `apply`
  is `check` followed by the changes.
- **Secret draws** (`secret=True`) show neither parameters nor result in the audit, events or views
  until the game ends. Draw indices (shuffle `list(range(n))`, draw an index) rather than shuffling
  lists of hidden things.
- **`decision()`** tells the platform `step`, `step_kind`, `to_act` (and `legal_moves_complete`);
  anything else a client needs to decide goes into `view()`.
- **Timeouts.** Under the `skip` policy a late seat gets `default_move(state, seat)`, signed by the
  server; `None` means it forfeits (resigns). A default move depends only on the decision kind and
  must take the seat out of `to_act` at this step (a `discard_random` discards everything still
  owed), so one timeout action settles one late seat.
- **Seat counts** outside `min_players..max_players` are refused by the platform before the engine
  runs; **error order**: the platform answers `game_over`, `not_seated`, `not_your_turn`,
  `stale_step` first, the engine's own checks follow.
- **House data is pinned**: an engine that loads data files names the set by an option
  (`data_option`), default the shipped set; a shipped file never changes (its digest is pinned by
  a test), a new set is a new file.
- **Every move type a platform could send is a player's move too** (`resign`, `discard_random`).
- **Options are stable**: `validate_options(validate_options(o)) == validate_options(o)`; named
  variants are exact presets.
- **Engines describe themselves**: `move_schema` (JSON Schema of one move object),
  `error_codes` (every code `check`, `apply` and `parse_move` raise, with one line each), and a
  text notation: `format_move(move)` and `parse_move(text)` round-trip every move `legal_moves`
  yields; `notation` describes the format in a sentence or two.

Event sentences (optional)
--------------------------
`describe_event(event, name)` tells one event in a short English sentence from a reader's seat
(mail: "Bob played a rum card and moved a pirate from square 7 to square 12."). `event` is what
`view_event` showed that reader, so a sentence cannot leak what the view hides; `name(seat)` is
a player's name, or "you" for the reader, and the sentence agrees with it ("You were", "Bob
was"). It returns "" for an event not worth a line and None for a type it does not know, where
the platform writes a generic sentence from the event's fields. The point is optional: callers
use `event_sentence`, which gives None for an engine without the method.

Results in words (optional)
---------------------------
`describe_result(result, name)` states a finished game's result from the reader's side, the way
a player would ("You captured Bob's flag.", "Ann got all six pirates to safety first."), with
scores only where the game's scores mean something to a player. It returns None for a reason it
does not know, among them the platform's own `timeout` (a seat that ran out of time and
forfeited, `parley_protocol.timeouts`), where the platform writes a generic sentence. Callers
use `result_text`, which gives None for an engine without the method.

Names in texts
--------------
Nothing a person reads names a seat by its number. `render_text(view, names)` gets the players'
names by seat where the caller knows them; without them (an engine's own tests, a caller
written before the argument existed) it says "Player 1", "Player 2", ... (and "you" for the
view's own seat), never "seat 0".

Board pictures (optional)
-------------------------
`render_svg(view, names)` draws a view as an SVG: from the view alone (so it cannot show what
the seat may not see), deterministic (the same view gives the same bytes: the API's ETag and
the mail's picture rely on it), self-contained (no fonts, images or scripts from elsewhere), at
most `engines.svg.MAX_BYTES`, with `<title>`/`<desc>` and labels that read without colour, and
players by name. Every shipped engine draws with `engines.svg`; callers use
`engines.svg.board_picture`, which draws the text board as a picture for an engine without it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypedDict

JSON = Any
State = dict[str, Any]
Move = dict[str, Any]
Event = dict[str, Any]
#: seat -> the player's name as a reader reads it ("you" for the reader's own seat)
Namer = Callable[[int], str]


class IllegalMove(Exception):
    """A move the rules reject: `code` is the spec's snake_case error code.

    Raised by `apply` (and `validate_options`, with code `invalid_options`) before anything
    has changed: a rejected move leaves the state exactly as it was.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class Decision(TypedDict, total=False):
    """Who must act now. `step`, `step_kind` and `to_act` are always present.

    The platform shows clients only these (and `legal_moves_complete`, False where
    `legal_moves` offers only examples of a free arrangement such as a Stratego setup); context
    a seat needs to decide (Störtebeker's `k`, `u`) belongs in `view()`. Where it is True, cards
    the rules cannot tell apart may be listed once: `check` accepts the move with any of them.
    """

    step: int
    step_kind: str
    to_act: list[int]
    legal_moves_complete: bool


class Result(TypedDict):
    winners: list[int]
    scores: dict[str, int]
    reason: str


@dataclass(frozen=True)
class OptionSpec:
    """One engine option: its default and, where the values are a closed set, the choices."""

    default: JSON
    choices: tuple[JSON, ...] | None = None
    description: str = ""


@dataclass(frozen=True)
class Variant:
    """A named preset of options, as listed by the spec's "Variants" section."""

    id: str
    title: str
    options: Mapping[str, JSON] = field(default_factory=dict)


class Rng(Protocol):
    """The audited random source as the engine sees it (see `engines.rng`)."""

    def randint(self, purpose: str, lo: int, hi: int, *, secret: bool = False) -> int: ...

    def roll(self, purpose: str, sides: int = 6, *, secret: bool = False) -> int: ...

    def shuffle(self, purpose: str, items: list[Any], *, secret: bool = False) -> list[Any]: ...


class Engine(Protocol):
    """What `engines/<game>/` exports as `ENGINE`; see the module docstring for the rules."""

    id: str
    title: str
    min_players: int
    max_players: int
    variants: tuple[Variant, ...]
    options: Mapping[str, OptionSpec]
    #: engine option names that are this game's name for a platform option
    #: (Stratego: {"red_player": "seat_order"}); the platform takes them out before `setup`.
    platform_aliases: Mapping[str, str]
    #: the option that names the engine's data set (a file under `engines/<id>/data/`), or None
    data_option: str | None
    #: JSON Schema (2020-12) of one move object, served by `GET /v1/rulesets/{id}`
    move_schema: Mapping[str, JSON]
    #: every code `check`, `apply` and `parse_move` may raise -> one line saying when
    error_codes: Mapping[str, str]
    #: the text notation of moves in a sentence or two, with an example (mail, CLI, docs)
    notation: str
    #: optional (`key_order_free`): True when nothing the engine returns depends on the
    #: insertion order of the state's dicts
    key_order_free: bool

    def validate_options(self, options: Mapping[str, JSON], seats: int) -> dict[str, JSON]:
        """Defaults filled in; raises IllegalMove("invalid_options", ...) on a bad value."""
        ...

    def setup(self, options: Mapping[str, JSON], seats: int, rng: Rng) -> State: ...

    def decision(self, state: State) -> Decision: ...

    def legal_moves(self, state: State, seat: int) -> Iterator[Move]: ...

    def check(self, state: State, seat: int, move: Move) -> None:
        """Raise `IllegalMove` exactly when `apply` would; never change `state`, never draw."""
        ...

    def apply(self, state: State, seat: int, move: Move, rng: Rng) -> tuple[State, list[Event]]:
        """Validate completely, then change `state` in place and return it with the events."""
        ...

    def view(self, state: State, seat: int | None) -> dict[str, JSON]: ...

    def view_event(self, event: Event, seat: int | None) -> Event | None: ...

    def result(self, state: State) -> Result | None: ...

    def render_text(self, view: Mapping[str, JSON], names: Sequence[str] | None = None) -> str:
        """A plain-text picture of a view; `names`: the players' names by seat, where known
        (see "Names in texts")."""
        ...

    def render_svg(self, view: Mapping[str, JSON], names: Sequence[str] | None = None) -> str:
        """Optional: the view as an SVG picture (see "Board pictures")."""
        ...

    def default_move(self, state: State, seat: int) -> Move | None: ...

    def is_secret(self, move: Move) -> bool: ...

    def format_move(self, move: Move) -> str:
        """The move in the game's text notation (`a4-a5`)."""
        ...

    def parse_move(self, text: str) -> Move:
        """The move a text in the notation names; raises IllegalMove("bad_notation", ...)."""
        ...

    def describe_event(self, event: Mapping[str, JSON], name: Namer) -> str | None:
        """Optional: one sentence for an event as `view_event` showed it to a reader ("" not
        worth a line, None: no sentence of the engine's own); see "Event sentences"."""
        return None

    def describe_result(self, result: Mapping[str, JSON], name: Namer) -> str | None:
        """Optional: the result in a sentence or two from a reader's side (None: no sentence
        of the engine's own); see "Results in words"."""
        return None


def key_order_free(engine: object) -> bool:
    """Whether the engine says that nothing it returns (`legal_moves` and their order, `apply`'s
    canonical state and events, the values of views) depends on the insertion order of the
    state's dicts.
    The state `apply` returns and the same state parsed back from its stored JSON (sorted
    keys) are then interchangeable, and the platform skips the parse where it would be made
    only to list the legal moves in the stored state's order (a settled move's live feed,
    its foreseen state). False for an engine that does not say."""
    return getattr(engine, "key_order_free", False) is True


def event_sentence(engine: object, event: Mapping[str, JSON], name: Namer) -> str | None:
    """The engine's sentence for an event, or None where it has none or no `describe_event`
    at all (an engine written before the method existed)."""
    describe = getattr(engine, "describe_event", None)
    return None if describe is None else describe(event, name)


def result_text(engine: object, result: Mapping[str, JSON], name: Namer) -> str | None:
    """The engine's sentence for a result, or None where it has none or no `describe_result`
    at all."""
    describe = getattr(engine, "describe_result", None)
    return None if describe is None else describe(result, name)


def close_decision(state: State) -> None:
    """Advance the state's decision counter: call once whenever a decision point closes."""
    state["step"] = state.get("step", 0) + 1


def fill_options(
    specs: Mapping[str, OptionSpec], options: Mapping[str, JSON]
) -> dict[str, JSON]:
    """Defaults filled in, unknown names and values outside `choices` rejected.

    The common part of `validate_options`; engines add their own cross-field checks.
    """
    unknown = sorted(set(options) - set(specs))
    if unknown:
        raise IllegalMove("invalid_options", f"Unknown option {unknown[0]!r}.")
    filled: dict[str, JSON] = {}
    for name, spec in specs.items():
        value = options.get(name, spec.default)
        if spec.choices is not None and not any(
            value == c and type(value) is type(c) for c in spec.choices
        ):
            raise IllegalMove(
                "invalid_options", f"Option {name!r} must be one of {list(spec.choices)!r}."
            )
        filled[name] = value
    return filled


#: codes every engine shares; an engine's `error_codes` lists those it raises
BAD_NOTATION = "bad_notation"
COMMON_CODES: Mapping[str, str] = {
    "invalid_options": "An option has an unknown name, a value outside its choices, or a "
                       "combination the rules refuse (game creation only).",
    BAD_NOTATION: "A text move that the game's notation cannot read.",
}


def first(moves: Iterable[Move]) -> Move | None:
    """The first of some moves, or None: "is any move left?" without listing them all."""
    return next(iter(moves), None)
