"""Vacations: while a player is away, their clocks stop in every game (docs/games.md "Clocks").

A player has an allowance of vacation time: PARLEY_VACATION_DAYS a year (30 by default), of
which a twelfth is added on the first of every month (UTC), never above the yearly amount; a new
player starts with the full amount, so a first holiday needs no saving up. Time away is counted
to the second. A player has at most one vacation that has not ended: setting another replaces it
(what it had not used is given back), coming back ends it now.

Vacations change only the future: one starts now or later and ends now or later, so a clock
computed a moment ago stays right (`service.domain.game_clocks`). Each active game with clocks
keeps a copy of its players' vacations (`away`), written here for all of the player's games;
the caller then reschedules those games' deadlines.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

import orjson

from service.domain.game import load_game
from service.domain.problems import InvalidRequest
from service.ops import clock
from service.storage import clock_records
from service.storage.store import Store

DAY = 86_400
#: how long a finished vacation stays on the player's record (for the games that count it)
KEPT_SECONDS = 400 * DAY


@dataclass(frozen=True)
class Vacation:
    """A player's time away and what is left of their allowance."""

    spans: list[tuple[int, int]]
    #: seconds of allowance left now
    left: int
    yearly: int

    def current(self, now: int) -> tuple[int, int] | None:
        """The vacation under way or still to come, if any."""
        open_spans = [s for s in self.spans if s[1] > now]
        return min(open_spans) if open_spans else None


def _month(moment: int) -> int:
    at = datetime.fromtimestamp(moment, UTC)
    return at.year * 12 + at.month - 1


def of_player(store: Store, pid: str, days_a_year: int, now: int | None = None) -> Vacation:
    """The player's vacations and allowance as of now (the months since the last change
    accrued)."""
    now = int(clock.now()) if now is None else now
    fields = clock_records.vacation_fields(store, pid)
    yearly = days_a_year * DAY
    spans = [(int(a), int(b)) for a, b in orjson.loads(fields.get("vacations") or "[]")]
    left = int(fields.get("vacation_left", yearly))
    since = int(fields.get("vacation_month", _month(now)))
    left = min(yearly, left + max(0, _month(now) - since) * (yearly // 12))
    return Vacation(spans, left, yearly)


def go_away(store: Store, pid: str, days_a_year: int, start: int | None, end: int
            ) -> tuple[Vacation, list[str]]:
    """Set the player's vacation from `start` (None: now) to `end`, replacing one not yet
    ended; the new state and the games whose clocks it changes. 422 `bad_vacation` for a
    span that does not lie ahead, `vacation_too_long` beyond the allowance."""
    now = int(clock.now())
    start = now if start is None else start
    if start < now - 60:
        raise InvalidRequest("A vacation cannot start in the past.", code="bad_vacation")
    start = max(start, now)
    if end <= start:
        raise InvalidRequest("A vacation ends after it starts.", code="bad_vacation")
    vacation = of_player(store, pid, days_a_year, now)
    spans, left = _ended_now(vacation, now)
    cost = end - start
    if cost > left:
        raise InvalidRequest(f"You have {_days(left)} of vacation left; this one would take "
                             f"{_days(cost)}.", code="vacation_too_long")
    if spans and spans[-1][1] == start:  # going on from a vacation that ends now
        spans[-1] = (spans[-1][0], end)
    else:
        spans.append((start, end))
    return _save(store, pid, Vacation(spans, left - cost, vacation.yearly), now)


def come_back(store: Store, pid: str, days_a_year: int) -> tuple[Vacation, list[str]]:
    """End the player's vacation now (or cancel one still to come); unused time is given
    back."""
    now = int(clock.now())
    vacation = of_player(store, pid, days_a_year, now)
    spans, left = _ended_now(vacation, now)
    return _save(store, pid, Vacation(spans, left, vacation.yearly), now)


def _ended_now(vacation: Vacation, now: int) -> tuple[list[tuple[int, int]], int]:
    """The spans with the open one ended now (one to come dropped), and the allowance with
    what they had not used given back."""
    spans, left = [], vacation.left
    for a, b in vacation.spans:
        if b <= now:
            spans.append((a, b))
        elif a < now:
            spans.append((a, now))
            left += b - now
        else:
            left += b - a
    return spans, min(left, vacation.yearly)


def _save(store: Store, pid: str, vacation: Vacation, now: int
          ) -> tuple[Vacation, list[str]]:
    spans = [s for s in vacation.spans if s[1] > now - KEPT_SECONDS]
    clock_records.save_vacation_fields(store, pid, {
        "vacations": orjson.dumps(spans).decode(), "vacation_left": str(vacation.left),
        "vacation_month": str(_month(now))})
    return Vacation(spans, vacation.left, vacation.yearly), _copy_to_games(store, pid, spans)


def _copy_to_games(store: Store, pid: str, spans: list[tuple[int, int]]) -> list[str]:
    """Write the player's vacations into each of their active games with clocks."""
    changed = []
    for gid in store.player_games(pid):
        game = load_game(store, gid)
        if game is None or game.status != "active" or not game.platform.get("time_control"):
            continue
        seats = [s for s, p in enumerate(game.players) if p == pid]
        clock_records.set_away(store, gid, {s: spans for s in seats})
        changed.append(gid)
    return changed


def _days(seconds: int) -> str:
    days, rest = divmod(seconds, DAY)
    hours = rest // 3600
    return f"{days} days {hours} hours" if hours else f"{days} days"
