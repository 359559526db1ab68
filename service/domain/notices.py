"""What a commit must tell whom: the notices recorded in the game's outbox with the commit.

DESIGN.md "Notifications" and issue 3's "nothing lost": the commit that changes a game also
records, in the same Lua script, one notice per seat that must be told something. A dispatcher
(`service.notify.dispatch`) later turns each notice into deliveries (mail, webhooks). Notices carry
only
ids and public facts; views and texts are rendered at delivery time from the current state.

Notice types are the webhook event types; mail is sent for `MAIL_TYPES` only.
"""

from __future__ import annotations

import time
from typing import Any

import orjson

TURN_STARTED = "turn.started"
GAME_STARTED = "game.started"
GAME_FINISHED = "game.finished"
MOVE_REJECTED = "move.rejected"
DEADLINE_REMINDER = "deadline.reminder"
TIMED_OUT = "deadline.timeout"

#: every event type a webhook can subscribe to
EVENT_TYPES = (TURN_STARTED, GAME_STARTED, GAME_FINISHED, MOVE_REJECTED, DEADLINE_REMINDER,
               TIMED_OUT)
#: the kinds a player gets by mail (each can be turned off per game and for all games)
MAIL_TYPES = (TURN_STARTED, GAME_STARTED, GAME_FINISHED, DEADLINE_REMINDER, TIMED_OUT)
#: notices that are out of date once the game has left their step (not delivered then)
STEP_BOUND = frozenset({TURN_STARTED, DEADLINE_REMINDER})


def notice(kind: str, seat: int, step: int, **data: Any) -> str:
    return orjson.dumps({"type": kind, "seat": seat, "step": step, "at": int(time.time()),
                         **data}, option=orjson.OPT_SORT_KEYS).decode()


def transition_notices(seats: int, old_step: int | None, step: int, to_act: list[int],
                       finished_result: dict[str, Any] | None, deadline: str | None,
                       started: bool = False) -> list[str]:
    """Notices for a change of decision: the game started, a new turn, or the game ended."""
    out: list[str] = []
    if started:
        out += [notice(GAME_STARTED, s, step) for s in range(seats)]
    if finished_result is not None:
        out += [notice(GAME_FINISHED, s, step, result=finished_result) for s in range(seats)]
    elif old_step != step:
        due = float(deadline) if deadline else None
        out += [notice(TURN_STARTED, s, step, deadline=due) for s in to_act]
    return out


def schedules_deadline(notice: dict[str, Any]) -> bool:
    """Whether dispatching the notice schedules a deadline (a turn that has one)."""
    return notice["type"] == TURN_STARTED and bool(notice.get("deadline"))


def reach(notice: dict[str, Any]) -> str:
    """Whom a notice can lead to a delivery for, as `service.notify.dispatch._dispatch`
    decides: "always" (it schedules a deadline, whoever the player), "mail" (a player with an
    email address, or with webhooks), "hook" (a player with webhooks). A web process that
    settles a move records only the notices that can (`service.domain.settle`)."""
    if schedules_deadline(notice):
        return "always"
    return "mail" if notice["type"] in MAIL_TYPES else "hook"


def rejection_notice(seat: int, step: int, seq: int, code: str, detail: str) -> str:
    return notice(MOVE_REJECTED, seat, step, seq=seq, code=code, detail=detail)
