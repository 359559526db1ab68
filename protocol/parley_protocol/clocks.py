"""Game clocks: how much time each seat has left, computed alike by the server (which acts on
it) and by a verifier (which checks that every timeout was due), from the same record
(docs/audit.md §17).

All moments are whole Unix seconds, all amounts whole seconds. A seat's clock runs while the
seat is asked to act, except while its player is away (a vacation) and, in a game with
`weekends_off`, from Saturday 00:00 to Monday 00:00 in the zone the player had when the game
started. A seat's stretch is the time from the moment it is asked to act until the moment it is
no longer asked: the moves of one turn (Cartagena's three actions) are one stretch, and so is a
simultaneous decision (a Stratego setup) for each seat until its own entry. What a stretch
costs depends on the system:

- `per_move`: each stretch has `seconds_per_move`, whatever the last one left;
- `fischer`: a bank (`initial`) that each stretch spends; a finished stretch adds `increment`,
  never above `maximum` (time given by an opponent may lie above it and is kept);
- `total`: one bank (`initial`) for the whole game.

Time an opponent gives is added to the bank when the first entry after it is resolved (or at
once, for the deadline). A clock reaches zero at its due moment, but a seat is late only once
the server acts: a move accepted before the timeout action counts, whatever the clock says, and
its bank is then empty, not negative. A timeout action that turns out stale when it is resolved
(the seat's move, or time given, came in between) is refused (`Clocks.refusal`).
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from datetime import time as clock_time
from typing import Any
from zoneinfo import ZoneInfo

SYSTEMS = ("per_move", "fischer", "total")
DAY = 86_400


@dataclass(frozen=True)
class TimeControl:
    """A game's clock system, read from `platform.time_control`."""

    system: str
    #: per_move: the seconds of each stretch; fischer and total: the starting bank
    initial: int
    increment: int = 0
    maximum: int | None = None
    weekends_off: bool = False

    @classmethod
    def of(cls, tc: dict[str, Any]) -> TimeControl:
        system = tc.get("system", "per_move")
        weekends = bool(tc.get("weekends_off", False))
        if system == "per_move":
            return cls(system, int(tc["seconds_per_move"]), weekends_off=weekends)
        if system == "fischer":
            maximum = tc.get("maximum")
            return cls(system, int(tc["initial"]), int(tc.get("increment", 0)),
                       None if maximum is None else int(maximum), weekends)
        if system == "total":
            return cls(system, int(tc["initial"]), weekends_off=weekends)
        raise ValueError(f"unknown clock system {system!r}")


@dataclass(frozen=True)
class Pauses:
    """When one seat's clock does not run: its player's vacations, and weekends in `zone`."""

    #: (from, to) moments, to exclusive
    vacations: tuple[tuple[int, int], ...] = ()
    #: the player's zone for weekends off, or None where weekends count
    zone: str | None = None

    def stream(self, start: int) -> Iterator[tuple[int, int]]:
        """Every pause that ends after `start`, merged and in order (endless with weekends)."""
        sources: list[Iterator[tuple[int, int]]] = [
            iter(sorted((a, b) for a, b in self.vacations if b > start and b > a))]
        if self.zone is not None:
            sources.append(weekends(self.zone, start))
        current: tuple[int, int] | None = None
        for a, b in heapq.merge(*sources):
            if current is None:
                current = (a, b)
            elif a <= current[1]:
                current = (current[0], max(current[1], b))
            else:
                yield current
                current = (a, b)
        if current is not None:
            yield current


NO_PAUSES = Pauses()


def weekends(zone: str, start: int) -> Iterator[tuple[int, int]]:
    """Saturday 00:00 to Monday 00:00 in `zone`, from the weekend that holds `start` (or the
    next one) on."""
    tz = ZoneInfo(zone)
    day = datetime.fromtimestamp(start, tz).date()
    saturday = day - timedelta(days=(day.weekday() - 5) % 7)
    if (day - saturday).days > 1:
        saturday += timedelta(days=7)
    while True:
        yield _midnight(saturday, tz), _midnight(saturday + timedelta(days=2), tz)
        saturday += timedelta(days=7)


def _midnight(day: date, tz: ZoneInfo) -> int:
    return int(datetime.combine(day, clock_time(0), tzinfo=tz).timestamp())


def running(start: int, end: int, pauses: Pauses = NO_PAUSES) -> int:
    """The seconds a clock that started at `start` ran until `end`."""
    if end <= start:
        return 0
    total = end - start
    for a, b in pauses.stream(start):
        if a >= end:
            break
        total -= min(b, end) - max(a, start)
    return total


def due(start: int, left: int, pauses: Pauses = NO_PAUSES) -> int:
    """The moment a clock that started at `start` with `left` seconds reaches zero."""
    t, remaining = start, max(0, left)
    for a, b in pauses.stream(start):
        if a - t >= remaining:
            break
        if a > t:
            remaining -= a - t
        t = max(t, b)
    return t + remaining


@dataclass(frozen=True)
class Gift:
    """Time given to a seat: added to its bank when the first entry after `after_seq` is
    applied."""

    seat: int
    by: int
    seconds: int
    at: int
    after_seq: int

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "by": self.by, "seconds": self.seconds, "at": self.at,
                "after_seq": self.after_seq}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Gift:
        return cls(int(data["seat"]), int(data["by"]), int(data["seconds"]), int(data["at"]),
                   int(data["after_seq"]))


#: why a timeout action is stale (`Clocks.refusal`): its seat is no longer asked to act, its
#: clock had not run out, or an abort's seat has made a decision of its own
NOT_ASKED, NOT_DUE, MOVED = "not_asked", "not_due", "moved"


@dataclass(frozen=True)
class Stale:
    """A timeout action's refusal: its reason, and for NOT_DUE the seat's due moment."""

    reason: str
    due: int | None = None


@dataclass
class Clocks:
    """Every seat's clock of one game: what the game keeps between entries."""

    control: TimeControl
    #: each seat's bank when its stretch began (or ended)
    left: list[int]
    #: when each seat's current stretch began, None while the seat is not asked to act
    since: list[int | None]
    #: whether each seat has made a decision of its own (a timeout before that aborts the game)
    moved: list[bool]
    #: how many of the game's gifts are in `left`
    folded: int = 0
    pauses: list[Pauses] = field(default_factory=list, compare=False, repr=False)

    @classmethod
    def start(cls, control: TimeControl, seats: int, at: int, to_act: Sequence[int],
              pauses: Sequence[Pauses] = ()) -> Clocks:
        clocks = cls(control, [control.initial] * seats, [None] * seats, [False] * seats, 0,
                     list(pauses) or [NO_PAUSES] * seats)
        clocks.ask(at, to_act)
        return clocks

    def ask(self, at: int, to_act: Sequence[int]) -> None:
        """The seats asked to act from `at` on: a stretch ends for every running seat not among
        them, and begins for each of them not running."""
        acting = set(to_act)
        for seat, since in enumerate(self.since):
            if since is not None and seat not in acting:
                self._stop(seat, max(since, at))
            elif since is None and seat in acting:
                self.since[seat] = at
                if self.control.system == "per_move":
                    self.left[seat] = self.control.initial

    def applied(self, at: int, seat: int, own: bool, to_act: Sequence[int]) -> None:
        """An entry of `seat` accepted at `at` was applied (`own`: signed by its player or made
        from the player's reply, not a timeout action), after which `to_act` are asked."""
        if own:
            self.moved[seat] = True
        self.ask(at, to_act)

    def fold(self, gifts: Sequence[Gift], before_seq: int) -> None:
        """Add to the banks the gifts given before entry `before_seq` was appended."""
        while self.folded < len(gifts) and gifts[self.folded].after_seq < before_seq:
            gift = gifts[self.folded]
            self.left[gift.seat] += gift.seconds
            self.folded += 1

    def _stop(self, seat: int, at: int) -> None:
        since = self.since[seat]
        assert since is not None
        left = max(0, self.left[seat] - running(since, at, self.pauses[seat]))
        if self.control.system == "fischer":
            raised = left + self.control.increment
            if self.control.maximum is not None:
                raised = max(left, min(raised, self.control.maximum))
            left = raised
        self.left[seat] = left
        self.since[seat] = None

    def refusal(self, seat: int, at: int, abort: bool) -> Stale | None:
        """Why a timeout action of `seat` accepted at `at` is refused (`not_late`), or None
        when it stands: the seat is no longer asked to act, its clock (with the time given
        before the entry folded in) had not run out at `at`, or an abort would end the game of
        a seat that has made a decision of its own. The server decides a timeout from what it
        read a moment before it appends it; a move or a gift in between makes it stale."""
        due = self.due(seat)
        if due is None:
            return Stale(NOT_ASKED)
        if at < due:
            return Stale(NOT_DUE, due)
        if abort and self.moved[seat]:
            return Stale(MOVED)
        return None

    def pending(self, seat: int, gifts: Sequence[Gift]) -> int:
        """The seat's gifts not yet in its bank."""
        return sum(g.seconds for g in gifts[self.folded:] if g.seat == seat)

    def due(self, seat: int, gifts: Sequence[Gift] = ()) -> int | None:
        """When the seat's running clock reaches zero (None when it does not run)."""
        since = self.since[seat]
        if since is None:
            return None
        return due(since, self.left[seat] + self.pending(seat, gifts), self.pauses[seat])

    def remaining(self, seat: int, now: int, gifts: Sequence[Gift] = ()) -> int:
        """The seat's time left at `now` (at least 0)."""
        left = self.left[seat] + self.pending(seat, gifts)
        since = self.since[seat]
        if since is not None:
            left -= running(since, max(since, now), self.pauses[seat])
        return max(0, left)

    def to_json(self) -> dict[str, Any]:
        return {"left": self.left, "since": self.since, "moved": self.moved,
                "folded": self.folded}

    @classmethod
    def from_json(cls, control: TimeControl, data: dict[str, Any],
                  pauses: Sequence[Pauses]) -> Clocks:
        return cls(control, list(data["left"]), list(data["since"]), list(data["moved"]),
                   int(data["folded"]), list(pauses))


def iso(moment: int) -> str:
    return datetime.fromtimestamp(moment, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def moment(text: str) -> int:
    """An RFC 3339 moment in whole seconds, as the bundle writes them."""
    return int(datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp())
