"""The clock arithmetic (`parley_protocol.clocks`): each system, pauses, weekends by zone, gifts."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from hypothesis import given
from hypothesis import strategies as st
from parley_protocol.clocks import DAY, Clocks, Gift, Pauses, TimeControl, due, running, weekends

HOUR = 3600


def at(text: str, zone: str = "UTC") -> int:
    return int(datetime.fromisoformat(text).replace(tzinfo=ZoneInfo(zone)).timestamp())


MONDAY = at("2026-11-23T09:00:00")  # a Monday


def test_per_move_gives_each_stretch_the_same_time() -> None:
    c = Clocks.start(TimeControl.of({"seconds_per_move": 2 * DAY}), 2, MONDAY, [0])
    assert c.due(0) == MONDAY + 2 * DAY and c.due(1) is None
    c.applied(MONDAY + DAY + 5, 0, True, [1])  # seat 0 used a day and 5 s
    assert c.due(1) == MONDAY + 3 * DAY + 5
    c.applied(MONDAY + 3 * DAY, 1, True, [0])
    assert c.due(0) == MONDAY + 5 * DAY  # a fresh 2 days, not what was left


def test_fischer_adds_the_increment_up_to_the_maximum() -> None:
    tc = TimeControl.of({"system": "fischer", "initial": 3 * DAY, "increment": DAY,
                         "maximum": 7 * DAY})
    c = Clocks.start(tc, 2, MONDAY, [0])
    c.applied(MONDAY + HOUR, 0, True, [1])
    assert c.left[0] == 3 * DAY - HOUR + DAY
    for _ in range(5):  # instant moves: the bank grows by a day each, to the cap
        c.applied(MONDAY + HOUR, 1, True, [0])
        c.applied(MONDAY + HOUR, 0, True, [1])
    assert c.left[0] == 7 * DAY


def test_fischer_keeps_given_time_above_the_maximum() -> None:
    tc = TimeControl.of({"system": "fischer", "initial": 7 * DAY, "increment": DAY,
                         "maximum": 7 * DAY})
    c = Clocks.start(tc, 2, MONDAY, [0])
    gifts = [Gift(seat=0, by=1, seconds=2 * DAY, at=MONDAY, after_seq=0)]
    assert c.due(0, gifts) == MONDAY + 9 * DAY
    c.fold(gifts, 1)
    c.applied(MONDAY, 0, True, [1])
    assert c.left[0] == 9 * DAY


def test_total_is_one_bank_for_the_game() -> None:
    c = Clocks.start(TimeControl.of({"system": "total", "initial": 10 * DAY}), 2, MONDAY, [0])
    c.applied(MONDAY + 4 * DAY, 0, True, [1])
    c.applied(MONDAY + 5 * DAY, 1, True, [0])
    assert c.due(0) == MONDAY + 5 * DAY + 6 * DAY


def test_a_turn_of_several_entries_is_one_stretch() -> None:
    c = Clocks.start(TimeControl.of({"seconds_per_move": DAY}), 2, MONDAY, [0])
    c.applied(MONDAY + 10 * HOUR, 0, True, [0])  # the same seat acts again
    assert c.due(0) == MONDAY + DAY


def test_a_simultaneous_decision_runs_each_clock_until_its_own_entry() -> None:
    tc = TimeControl.of({"system": "fischer", "initial": DAY, "increment": 0})
    c = Clocks.start(tc, 2, MONDAY, [0, 1])
    c.applied(MONDAY + HOUR, 1, True, [0])
    assert c.due(1) is None and c.left[1] == DAY - HOUR and c.due(0) == MONDAY + DAY
    assert c.moved == [False, True]


def test_a_vacation_stops_the_clock() -> None:
    away = Pauses(vacations=((MONDAY + HOUR, MONDAY + HOUR + 14 * DAY),))
    c = Clocks.start(TimeControl.of({"seconds_per_move": 3 * DAY}), 2, MONDAY, [0],
                     [away, Pauses()])
    assert c.due(0) == MONDAY + 17 * DAY


def test_weekends_off_in_the_players_zone() -> None:
    # Friday 20:00 in Tokyo is Friday 11:00 UTC; a day on the clock then ends Monday 20:00 Tokyo
    friday = at("2026-11-27T20:00:00", "Asia/Tokyo")
    p = Pauses(zone="Asia/Tokyo")
    assert due(friday, DAY, p) == at("2026-11-30T20:00:00", "Asia/Tokyo")
    # the same moment in New York is Friday 06:00: the day ends Saturday 00:00 + ... Monday 06:00
    assert due(friday, DAY, Pauses(zone="America/New_York")) == at("2026-11-30T06:00:00",
                                                                   "America/New_York")


def test_a_vacation_over_a_weekend_is_not_counted_twice() -> None:
    friday = at("2026-11-27T12:00:00")
    p = Pauses(vacations=((friday, friday + 5 * DAY),), zone="UTC")  # to Wednesday noon
    assert running(friday, friday + 5 * DAY, p) == 0
    assert due(friday, DAY, p) == friday + 6 * DAY


def test_weekends_start_from_the_weekend_holding_the_start() -> None:
    sunday = at("2026-11-29T10:00:00")
    first = next(weekends("UTC", sunday))
    assert first == (at("2026-11-28T00:00:00"), at("2026-11-30T00:00:00"))
    assert due(sunday, HOUR, Pauses(zone="UTC")) == at("2026-11-30T01:00:00")


def test_a_weekend_across_a_daylight_saving_change() -> None:
    # Europe/Prague leaves summer time on Sunday 2026-10-25: that weekend lasts 49 hours
    saturday = next(weekends("Europe/Prague", at("2026-10-23T12:00:00")))
    assert saturday[1] - saturday[0] == 49 * HOUR


def test_clocks_round_trip_through_json() -> None:
    tc = TimeControl.of({"seconds_per_move": DAY})
    c = Clocks.start(tc, 3, MONDAY, [1])
    again = Clocks.from_json(tc, c.to_json(), [Pauses()] * 3)
    assert again == c


pause_lists = st.lists(st.tuples(st.integers(0, 40 * DAY), st.integers(1, 10 * DAY)),
                       max_size=4)


@given(start=st.integers(0, 20 * DAY), left=st.integers(0, 20 * DAY), pauses=pause_lists,
       weekends_off=st.booleans())
def test_due_is_the_moment_the_clock_has_run_its_time(start: int, left: int,
                                                      pauses: list[tuple[int, int]],
                                                      weekends_off: bool) -> None:
    p = Pauses(tuple((MONDAY + a, MONDAY + a + n) for a, n in pauses),
               "Europe/Prague" if weekends_off else None)
    begin = MONDAY + start
    end = due(begin, left, p)
    assert running(begin, end, p) == left
    if left and end > begin:
        assert running(begin, end - 1, p) == left - 1
