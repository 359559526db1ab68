"""The race game (Elfenland 1998 with the seed's variants): the contract functions for
`mode: "race"` states (docs/rules/elfenland.md; spec §3.2, §4.1-§4.2, §5.1-§5.2, §8.1, §9)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from engines.contract import Decision, Move, Rng, State
from engines.elfenland.race import flow, listing, moves
from engines.elfenland.race import state as race_state
from engines.elfenland.race.fields import SECRET_MOVES
from engines.elfenland.race.scoring import result
from engines.elfenland.race.text import render_text
from engines.elfenland.race.view import view, view_event

__all__ = ["setup", "decision", "legal_moves", "check", "apply", "view", "view_event",
           "result", "render_text", "default_move", "is_secret"]


def setup(options: Mapping[str, Any], seats: int, rng: Rng) -> State:
    """Setup (§3.2) and the automatic steps up to the first draft decision."""
    st = race_state.setup(options, seats, rng)
    flow.advance(st, rng, [])
    return st


def decision(st: State) -> Decision:
    """Who acts now (§4.2)."""
    dec = st["dec"]
    return {"step": st["step"], "step_kind": dec["kind"], "to_act": list(dec["to_act"]),
            "legal_moves_complete": True}


def legal_moves(st: State, seat: int) -> Iterator[Move]:
    """Every legal move of `seat` (§4.4)."""
    return listing.legal_moves(st, seat)


def check(st: State, seat: int, move: Move) -> None:
    """Raise exactly when `apply` would; change nothing."""
    moves.validate(st, seat, move)


def apply(st: State, seat: int, move: Move, rng: Rng) -> tuple[State, list[dict]]:
    """Validate, then change the state in place; every event is tagged `mode: "race"` so the
    engine routes it to the race's redaction."""
    st, events = moves.apply(st, seat, move, rng)
    for event in events:
        event["mode"] = "race"
    return st, events


default_move = listing.default_move


def is_secret(move: Move) -> bool:
    """Simultaneous answers and card picks are secret until the game ends (§7)."""
    return isinstance(move, dict) and move.get("type") in SECRET_MOVES
