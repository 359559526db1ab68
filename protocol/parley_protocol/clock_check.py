"""The clocks of an audit bundle, recomputed to check when its timeout actions were taken
(docs/audit.md §17): the shape of the bundle's `clocks` member, and every seat's clock replayed
with the server's own arithmetic (`parley_protocol.clocks`) beside the verifier's replay.

A timeout action (a server-signed entry) is in time only if, when it was accepted, its seat was
asked to act and that seat's clock had run out; an abort only for a seat that had made no
decision of its own, and, in a game whose `time_control` names its `system`, a forfeit or a
default move only for a seat that had.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from parley_protocol.clocks import (
    NOT_ASKED,
    NOT_DUE,
    SYSTEMS,
    Clocks,
    Gift,
    Pauses,
    TimeControl,
    iso,
)

#: the members of the bundle's `clocks`, of each of its vacations and of each gift
RECORD_FIELDS = frozenset({"started_at", "zones", "away", "gifts"})
AWAY_FIELDS = frozenset({"seat", "from", "to"})
GIFT_FIELDS = frozenset({"seat", "by", "seconds", "at", "after_seq"})
#: the amounts each system needs, and the ones it may have
SYSTEM_AMOUNTS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "per_move": (("seconds_per_move",), ()),
    "fischer": (("initial", "increment"), ("maximum",)),
    "total": (("initial",), ()),
}
#: statuses of a game that has not started (its clocks have no start, its zones none)
NOT_STARTED = ("open", "full")


class ClockFailure(Exception):
    """A `clocks` member of the wrong shape, or a timeout action its clock does not allow."""


def _fail(message: str) -> Any:
    raise ClockFailure(message)


def _int(value: Any) -> bool:
    return type(value) is int


def moment(value: Any, where: str) -> int:
    """A moment as the bundle writes them, `YYYY-MM-DDTHH:MM:SSZ`, in Unix seconds."""
    if isinstance(value, str) and len(value) == 20:
        try:
            return int(datetime.strptime(value, "%Y-%m-%dT%H:%M:%SZ").replace(
                tzinfo=UTC).timestamp())
        except ValueError:
            pass
    return _fail(f"{where}: {value!r} is not a moment written YYYY-MM-DDTHH:MM:SSZ")


def control_of(tc: Any) -> TimeControl:
    """The clock system of `platform.time_control`, every amount it needs checked."""
    where = "platform.time_control"
    system = tc.get("system", "per_move")
    if system not in SYSTEMS:
        _fail(f"{where}: unknown clock system {system!r} (expected one of {list(SYSTEMS)})")
    needed, optional = SYSTEM_AMOUNTS[system]
    for name in needed + optional:
        if name not in needed and tc.get(name) is None:
            continue
        if name not in tc:
            _fail(f"{where}: the {system} system needs {name!r}")
        if not _int(tc[name]) or tc[name] < 0:
            _fail(f"{where}: {name!r} must be a whole number of seconds, found {tc[name]!r}")
    if not isinstance(tc.get("weekends_off", False), bool):
        _fail(f"{where}: 'weekends_off' must be a boolean")
    return TimeControl.of(tc)


@dataclass(frozen=True)
class ClockRecord:
    """What the bundle's `clocks` member says, read and checked."""

    control: TimeControl
    #: whether the time control names its system (a forfeit then needs a seat that moved)
    named_system: bool
    started_at: int | None
    zones: list[str | None]
    pauses: list[Pauses]
    gifts: list[Gift]
    vacations: int


def read_record(audit: Mapping[str, Any]) -> ClockRecord | None:
    """The bundle's `clocks` member (None where it has none), its shape checked."""
    if "clocks" not in audit:
        return None
    tc = (audit.get("platform") or {}).get("time_control")
    if not isinstance(tc, dict):
        _fail("clocks: the bundle has a clocks record but its game no time control")
    control = control_of(tc)
    record = audit["clocks"]
    if not isinstance(record, dict) or set(record) != RECORD_FIELDS:
        _fail(f"clocks: the record must have exactly {sorted(RECORD_FIELDS)}")
    seats = audit["seats"]
    started = audit["status"] not in NOT_STARTED
    if started:
        started_at: int | None = moment(record["started_at"], "clocks.started_at")
    elif record["started_at"] is not None:
        _fail(f"clocks: the game is {audit['status']!r}, yet its clocks have a start")
    else:
        started_at = None
    zones = record["zones"]
    if not isinstance(zones, list) or len(zones) != (seats if started else 0):
        _fail(f"clocks.zones: expected a list of {seats if started else 0} zones")
    for seat, zone in enumerate(zones):
        if zone is not None and not isinstance(zone, str):
            _fail(f"clocks.zones[{seat}]: a zone is a string or null, found {zone!r}")
        if control.weekends_off and zone is not None:
            _zone(zone, f"clocks.zones[{seat}]")
    away = _away(record["away"], seats)
    gifts = _gifts(record["gifts"], seats)
    pauses = [Pauses(tuple(away.get(s, ())), _weekend_zone(control, zones, s))
              for s in range(seats)]
    return ClockRecord(control, "system" in tc, started_at, zones, pauses, gifts,
                       sum(len(v) for v in away.values()))


def _weekend_zone(control: TimeControl, zones: list[Any], seat: int) -> str | None:
    """The zone whose weekends stop the seat's clock (null: UTC), None where weekends count."""
    if not control.weekends_off:
        return None
    return (zones[seat] if seat < len(zones) else None) or "UTC"


def _zone(name: str, where: str) -> None:
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        _fail(f"{where}: {name!r} is not a time zone of the tz database (or not of this "
              f"machine's copy of it)")


def _away(spans: Any, seats: int) -> dict[int, list[tuple[int, int]]]:
    if not isinstance(spans, list):
        _fail("clocks.away: expected a list")
    away: dict[int, list[tuple[int, int]]] = {}
    for i, span in enumerate(spans):
        where = f"clocks.away[{i}]"
        if not isinstance(span, dict) or set(span) != AWAY_FIELDS:
            _fail(f"{where}: a vacation must have exactly {sorted(AWAY_FIELDS)}")
        seat = span["seat"]
        if not _int(seat) or not 0 <= seat < seats:
            _fail(f"{where}: no seat {seat!r}")
        begin, end = moment(span["from"], f"{where}.from"), moment(span["to"], f"{where}.to")
        if end < begin:
            _fail(f"{where}: it ends before it begins")
        away.setdefault(seat, []).append((begin, end))
    return away


def _gifts(items: Any, seats: int) -> list[Gift]:
    if not isinstance(items, list):
        _fail("clocks.gifts: expected a list")
    gifts: list[Gift] = []
    for i, item in enumerate(items):
        where = f"clocks.gifts[{i}]"
        if not isinstance(item, dict) or set(item) != GIFT_FIELDS:
            _fail(f"{where}: a gift must have exactly {sorted(GIFT_FIELDS)}")
        for name in ("seat", "by"):
            if not _int(item[name]) or not 0 <= item[name] < seats:
                _fail(f"{where}: no seat {item[name]!r} ({name})")
        if not _int(item["seconds"]) or item["seconds"] < 1:
            _fail(f"{where}: 'seconds' must be a positive whole number")
        if not _int(item["after_seq"]) or item["after_seq"] < 0:
            _fail(f"{where}: 'after_seq' must be a whole number, at least 0")
        if gifts and item["after_seq"] < gifts[-1].after_seq:
            _fail(f"{where}: given after entry {item['after_seq']}, yet listed after a gift "
                  f"given after entry {gifts[-1].after_seq} (gifts are listed as given)")
        gifts.append(Gift(item["seat"], item["by"], item["seconds"],
                          moment(item["at"], f"{where}.at"), item["after_seq"]))
    return gifts


@dataclass
class ClockReplay:
    """Every seat's clock through the replay: started with the game's first decision, moved
    on after each applied entry, each timeout action checked against it before."""

    record: ClockRecord
    seats: int
    clocks: Clocks | None = None
    #: the timeout actions checked for timing (seqs)
    checked: list[int] = field(default_factory=list)
    #: each seat's first entry of its own that was applied
    first_own: dict[int, int] = field(default_factory=dict)

    def start(self, to_act: Sequence[int]) -> None:
        assert self.record.started_at is not None
        self.clocks = Clocks.start(self.record.control, self.seats, self.record.started_at,
                                   to_act, self.record.pauses)

    def refusal(self, seq: int, accepted_at: Any, seat: int, late: bool, abort: bool
                ) -> str | None:
        """Fold in the time given before entry `seq` (an entry the replay resolves), and, for
        a timeout action, why it is refused with `not_late` (None: it stands)."""
        clocks = self.clocks
        assert clocks is not None
        clocks.fold(self.record.gifts, seq)
        if not late or not isinstance(seat, int) or not 0 <= seat < self.seats:
            return None  # a seat the game lacks: the engine refuses it, compared as usual
        at = moment(accepted_at, f"entry {seq}: accepted_at")
        stale = clocks.refusal(seat, at, abort)
        if stale is None:
            return None
        what = "an abort" if abort else "a timeout action"
        if stale.reason == NOT_ASKED:
            return (f"{what} for seat {seat}, whose clock was not running (the seat was not "
                    f"asked to act, or had already made its move)")
        if stale.reason == NOT_DUE:
            assert stale.due is not None
            return (f"{what} for seat {seat} accepted at {accepted_at}, before the seat's "
                    f"clock ran out at {iso(stale.due)} ({stale.due - at} s left)")
        return (f"an abort for seat {seat}, which had made a decision of its own (entry "
                f"{self.first_own.get(seat)}): the game's timeout policy applies")

    def applied(self, seq: int, accepted_at: Any, seat: int, late: bool, abort: bool,
                to_act: Sequence[int]) -> None:
        """Entry `seq` of `seat` was applied (`late`: a timeout action, `abort` one that
        aborts, already found due by `refusal`); `to_act` are asked next ([] once the game
        has ended)."""
        clocks = self.clocks
        assert clocks is not None
        at = moment(accepted_at, f"entry {seq}: accepted_at")
        clocks.fold(self.record.gifts, seq)
        if late:
            self._check(seq, seat, abort)
        elif seat not in self.first_own:
            self.first_own[seat] = seq
        clocks.applied(at, seat, not late, to_act)

    def _check(self, seq: int, seat: int, abort: bool) -> None:
        clocks = self.clocks
        assert clocks is not None
        where = f"entry {seq}"
        if not abort and not clocks.moved[seat] and self.record.named_system:
            _fail(f"{where}: a timeout action other than an abort for seat {seat}, which had "
                  f"made no decision of its own: the game should have been aborted")
        self.checked.append(seq)
