"""What a timeout action adds to the record: the server's resolve loop and the offline replay
both apply it (docs/audit.md §11, §14).

A server-signed entry (`key_id` "server") is the timeout action of a seat that let its deadline
pass: a forfeit (`resign`) or, under the `skip` policy, the engine's default move. To the rules
it is an ordinary move, so an engine would report a forfeit as a resignation; the platform
knows better and records what happened: a `timeout` event before the move's own events, and a
forfeit that ends the game ends it with the reason `timeout`. Both are derived from the signed
entry alone, so a verifier re-creates them exactly.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from parley_protocol.signing import SERVER_KEY_ID

#: the platform's event type, and its result reason, for a seat that ran out of time
TIMEOUT = "timeout"
#: the move a forfeit is
FORFEIT: Mapping[str, Any] = {"type": "resign"}


def is_timeout(envelope: Mapping[str, Any]) -> bool:
    """Whether an entry's envelope is a timeout action (the only moves the server signs with
    its own key id; a mail-authorised move has `key_id` "mail")."""
    return envelope.get("key_id") == SERVER_KEY_ID


def is_forfeit(payload: Mapping[str, Any]) -> bool:
    return payload.get("move") == FORFEIT


def timeout_event(payload: Mapping[str, Any]) -> dict[str, Any]:
    """The event recorded before the timeout action's own: which seat ran out of time, and
    whether it forfeited (else the server played the game's default move for it). Every
    audience may see it."""
    return {"type": TIMEOUT, "seat": payload["seat"], "forfeit": is_forfeit(payload)}


def timeout_result(result: dict[str, Any], payload: Mapping[str, Any]) -> dict[str, Any]:
    """The result of a game that a timeout action ended: a forfeit's is the reason `timeout`
    (whatever the rules call a resignation), a default move's is the rules' own."""
    return {**result, "reason": TIMEOUT} if is_forfeit(payload) else result


#: the move of the timeout action that aborts a game: the seat never made a decision of its
#: own (`parley_protocol.clocks.Clocks.moved`); the platform applies it, not the engine
ABORT: Mapping[str, Any] = {"type": "abort"}
#: the result reason of an aborted game
ABORTED = "aborted"


def is_abort(envelope: Mapping[str, Any]) -> bool:
    return is_timeout(envelope) and envelope["payload"].get("move") == ABORT


def abort_events(payload: Mapping[str, Any]) -> list[dict[str, Any]]:
    """What an abort records: the seat that never acted in time; the game then ends without a
    winner (`aborted_result`)."""
    return [{"type": TIMEOUT, "seat": payload["seat"], "forfeit": False, "aborted": True}]


def aborted_result(seats: int) -> dict[str, Any]:
    """The result of an aborted game: nobody won, nobody scored."""
    return {"winners": [], "scores": {str(s): 0 for s in range(seats)}, "reason": ABORTED}
