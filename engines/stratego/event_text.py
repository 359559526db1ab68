"""Stratego's events in words, from one reader's seat (docs/rules/stratego.md).

A setup never shows its placement; a battle names both ranks, which the attack revealed to both
players.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engines.sentences import (
    Namer,
    Teller,
    agree,
    describe_with,
    possessive,
    resigned,
    seat_of,
    skip,
    stated,
    words,
)

Event = Mapping[str, Any]


def _piece(battle: Mapping[str, Any], side: str) -> str:
    """"the miner"; "the attacker" where the record names no piece (a spectator's)."""
    piece = battle.get(f"{side}_piece")
    return f"the {words(piece)}" if piece else f"the {side}"


def _outcome(battle: Mapping[str, Any]) -> str:
    result = battle.get("result")
    if result == "attacker_wins":
        return ("the flag was captured" if battle.get("defender_piece") == "flag"
                else f"{_piece(battle, 'attacker')} won")
    if result == "defender_wins":
        return f"{_piece(battle, 'defender')} won"
    return "both pieces were removed"


def _ply(e: Event, name: Namer) -> str:
    who, battle = seat_of(e, name), e.get("battle")
    if not battle:
        return f"{who} moved {e['from']}-{e['to']}"
    text = f"{who} attacked {e['to']} from {e['from']}"
    if battle.get("attacker_piece") and battle.get("defender_piece"):
        text += (f": {words(battle['attacker_piece'])} against "
                 f"{words(battle['defender_piece'])}")
    return f"{text}; {_outcome(battle)}"


def _setup_submitted(e: Event, name: Namer) -> str:
    return f"{seat_of(e, name)} submitted a setup"


def _play_started(e: Event, name: Namer) -> str:
    who = seat_of(e, name, "active")
    return f"both setups are in; {who} {agree(who, 'move', 'moves')} first"


TELLERS: Mapping[str, Teller] = {
    "setup_submitted": _setup_submitted,
    "play_started": _play_started,
    "ply": _ply,
    "resigned": resigned,
    "game_over": skip,
}


def describe(event: Event, name: Namer) -> str | None:
    """One sentence for a Stratego event as the reader sees it (`Engine.describe_event`)."""
    return describe_with(TELLERS, event, name)


#: the drawn endings (rules §8): why nobody won
_DRAWS = {"both_immobile": "neither side could move a piece",
          "no_battle_limit": "200 plies passed without an attack"}


def describe_result(result: Mapping[str, Any], name: Namer) -> str | None:
    """The result from the reader's side ("You captured Bob's flag."); the scores (pieces
    removed) are information only and go unsaid. None for a reason the rules do not give."""
    reason = result.get("reason")
    if reason in _DRAWS:
        return stated(f"the game is a draw: {_DRAWS[reason]}")
    winners = result.get("winners") or []
    if len(winners) != 1:
        return None
    winner, loser = name(winners[0]), name(1 - winners[0])
    if reason == "flag_captured":
        return stated(f"{winner} captured {possessive(loser)} flag")
    if reason == "no_legal_move":
        return stated(f"{loser} could not move any piece, so {winner} won")
    if reason == "resigned":
        return stated(f"{winner} won: {loser} resigned")
    return None
