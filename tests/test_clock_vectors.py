"""docs/clock-vectors.json: the clock arithmetic of docs/audit.md §17 on worked cases, produced
by the real code (`parley_protocol.clocks`) and reproduced by the verifier's clock replay and by
a second implementation written from docs/audit.md §17 alone (datetime and zoneinfo, no Parley
code).

Regenerate the file after a deliberate change with `python -m tests.test_clock_vectors`.
"""

from __future__ import annotations

import json
import sys
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from parley_protocol.clock_check import ClockReplay, read_record
from parley_protocol.clocks import Clocks, Gift, Pauses, TimeControl, iso, moment

VECTORS = Path(__file__).resolve().parents[1] / "docs" / "clock-vectors.json"

HOUR, DAY = 3600, 86_400
MONDAY = "2026-11-23T09:00:00Z"  # a Monday


def _at(base: str, seconds: int) -> str:
    return iso(moment(base) + seconds)


def _entries(*items: tuple[str, int, list[int], bool]) -> list[dict[str, Any]]:
    """(accepted_at, seat, to_act after, whether a timeout action) -> vector entries."""
    return [{"seq": i + 1, "accepted_at": at, "seat": seat, "timeout": timeout, "to_act": to_act}
            for i, (at, seat, to_act, timeout) in enumerate(items)]


def _case(name: str, description: str, time_control: dict[str, Any], seats: int,
          started_at: str, to_act: list[int], entries: list[dict[str, Any]],
          zones: list[str | None] | None = None, away: list[dict[str, Any]] | None = None,
          gifts: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {"name": name, "description": description,
            "time_control": {**time_control, "reminder_fraction": 0.5, "on_timeout": "forfeit"},
            "seats": seats,
            "clocks": {"started_at": started_at, "zones": zones or ["UTC"] * seats,
                       "away": away or [], "gifts": gifts or []},
            "to_act": to_act, "entries": entries}


def _cases() -> list[dict[str, Any]]:
    per_move = {"system": "per_move", "seconds_per_move": 2 * DAY, "weekends_off": False}
    fischer = {"system": "fischer", "initial": 3 * DAY, "increment": DAY, "maximum": 5 * DAY,
               "weekends_off": False}
    total = {"system": "total", "initial": 10 * DAY, "weekends_off": False}
    return [
        _case("per_move", "Each stretch has the same time, whatever the last one left; the "
              "forfeit of seat 0 comes at its due moment and ends the game (to_act []).",
              per_move, 2, MONDAY, [0], _entries(
                  (_at(MONDAY, DAY + 5), 0, [1], False),
                  (_at(MONDAY, 3 * DAY), 1, [0], False),
                  (_at(MONDAY, 5 * DAY), 0, [], True))),
        _case("fischer", "A bank with an increment after each stretch, never raised above the "
              "maximum by it; a move accepted after the due moment (before any timeout action) "
              "counts: the bank is then empty, not negative, and gets the increment.",
              fischer, 2, MONDAY, [0], _entries(
                  (_at(MONDAY, HOUR), 0, [1], False),
                  (_at(MONDAY, 2 * HOUR), 1, [0], False),
                  (_at(MONDAY, 2 * HOUR), 0, [1], False),
                  (_at(MONDAY, 2 * HOUR), 1, [0], False),
                  (_at(MONDAY, 2 * HOUR), 0, [1], False),
                  (_at(MONDAY, 2 * HOUR + 6 * DAY), 1, [0], False))),
        _case("total", "One bank for the whole game.", total, 2, MONDAY, [0], _entries(
            (_at(MONDAY, 4 * DAY), 0, [1], False),
            (_at(MONDAY, 5 * DAY), 1, [0], False),
            (_at(MONDAY, 5 * DAY + HOUR), 0, [1], False))),
        _case("vacation", "Seat 0's player is away for 14 days from an hour after the start: "
              "its clock stops meanwhile. An empty vacation (from = to) and seat 1's vacation "
              "outside its stretches change nothing.",
              {"system": "per_move", "seconds_per_move": 3 * DAY, "weekends_off": False}, 2,
              MONDAY, [0], _entries(
                  (_at(MONDAY, 16 * DAY), 0, [1], False),
                  (_at(MONDAY, 17 * DAY), 1, [0], False)),
              away=[{"seat": 0, "from": _at(MONDAY, HOUR), "to": _at(MONDAY, HOUR + 14 * DAY)},
                    {"seat": 0, "from": _at(MONDAY, 20 * DAY), "to": _at(MONDAY, 20 * DAY)},
                    {"seat": 1, "from": _at(MONDAY, 2 * DAY), "to": _at(MONDAY, 4 * DAY)}]),
        _case("weekends_dst", "Weekends off, each seat in its own zone: Prague's weekend of "
              "24-25 October 2026 and New York's of 31 October-1 November 2026 each last 49 "
              "hours (summer time ends on their Sundays). Seat 1's last stretch begins on a "
              "Friday evening and runs over that weekend.",
              {"system": "total", "initial": 4 * DAY, "weekends_off": True}, 2,
              "2026-10-23T12:00:00Z", [0], _entries(
                  ("2026-10-26T12:00:00Z", 0, [1], False),
                  ("2026-10-29T12:00:00Z", 1, [0], False),
                  ("2026-10-30T20:00:00Z", 0, [1], False)),
              zones=["Europe/Prague", "America/New_York"]),
        _case("gifts", "Time given: counted in the due moment at once, added to the bank when "
              "the first entry after it is applied; time given may lie above the maximum, and "
              "the increment then adds nothing.",
              {"system": "fischer", "initial": DAY, "increment": HOUR, "maximum": DAY,
               "weekends_off": False}, 2, MONDAY, [0], _entries(
                  (_at(MONDAY, 2 * HOUR), 0, [1], False),
                  (_at(MONDAY, 26 * HOUR), 1, [0], False),
                  (_at(MONDAY, 27 * HOUR), 0, [1], False)),
              gifts=[{"seat": 0, "by": 1, "seconds": 3 * HOUR, "at": _at(MONDAY, HOUR),
                      "after_seq": 0},
                     {"seat": 1, "by": 0, "seconds": 1800, "at": _at(MONDAY, 3 * HOUR),
                      "after_seq": 1}]),
        _case("simultaneous", "A simultaneous first decision (two secret setups): each clock "
              "runs until the seat's own entry. Seat 0 is asked again at once (it moves first), "
              "so its setup and its first move are one stretch.",
              {"system": "fischer", "initial": DAY, "increment": HOUR, "weekends_off": False},
              2, MONDAY, [0, 1], _entries(
                  (_at(MONDAY, HOUR), 1, [0], False),
                  (_at(MONDAY, 5 * HOUR), 0, [0], False),
                  (_at(MONDAY, 6 * HOUR), 0, [1], False))),
        _case("turns", "Turns of several entries (three actions of seat 0, one stretch), then "
              "seat 1's forfeit at its due moment: it drops out and the game goes on.",
              {"system": "per_move", "seconds_per_move": DAY, "weekends_off": False}, 3,
              MONDAY, [0], _entries(
                  (_at(MONDAY, 2 * HOUR), 0, [0], False),
                  (_at(MONDAY, 3 * HOUR), 0, [0], False),
                  (_at(MONDAY, 5 * HOUR), 0, [1], False),
                  (_at(MONDAY, 10 * HOUR), 1, [2], False),
                  (_at(MONDAY, DAY), 2, [0], False),
                  (_at(MONDAY, DAY + HOUR), 0, [1], False),
                  (_at(MONDAY, 2 * DAY + HOUR), 1, [2], True))),
    ]


# ---- the generator: the real code ----------------------------------------------------------


def _pauses(case: dict[str, Any], control: TimeControl) -> list[Pauses]:
    clocks = case["clocks"]
    return [Pauses(tuple((moment(a["from"]), moment(a["to"])) for a in clocks["away"]
                         if a["seat"] == seat),
                   (clocks["zones"][seat] or "UTC") if control.weekends_off else None)
            for seat in range(case["seats"])]


def _gifts(case: dict[str, Any]) -> list[Gift]:
    return [Gift(g["seat"], g["by"], g["seconds"], moment(g["at"]), g["after_seq"])
            for g in case["clocks"]["gifts"]]


def _state(clocks: Clocks, gifts: list[Gift], after: int) -> dict[str, Any]:
    """The clocks after entry `after` (0: the start), and each running seat's due moment as
    the next entry is judged (the gifts given after entry `after` counted)."""
    given = [g for g in gifts if g.after_seq <= after]
    return {"left": list(clocks.left),
            "since": [None if s is None else iso(s) for s in clocks.since],
            "moved": list(clocks.moved),
            "due": [None if (d := clocks.due(seat, given)) is None else iso(d)
                    for seat in range(len(clocks.left))]}


def expected(case: dict[str, Any]) -> list[dict[str, Any]]:
    control = TimeControl.of(case["time_control"])
    gifts = _gifts(case)
    clocks = Clocks.start(control, case["seats"], moment(case["clocks"]["started_at"]),
                          case["to_act"], _pauses(case, control))
    out = [_state(clocks, gifts, 0)]
    for e in case["entries"]:
        clocks.fold(gifts, e["seq"])
        clocks.applied(moment(e["accepted_at"]), e["seat"], not e["timeout"], e["to_act"])
        out.append(_state(clocks, gifts, e["seq"]))
    return out


def build_vectors() -> dict[str, Any]:
    return {
        "description": "Test vectors of docs/audit.md §17 (game clocks), produced by the real "
                       "code. Each case gives a game's platform.time_control, its number of "
                       "seats, its bundle's clocks record, the seats of its first decision "
                       "(to_act) and its applied entries (accepted_at, seat, whether it is a "
                       "timeout action, the seats asked after it: [] once the game ended). "
                       "`expected` has the clocks after the start, then after each entry: each "
                       "seat's bank in seconds (`left`: the bank at the start of its running "
                       "stretch, or after its last one), the start of its running stretch "
                       "(`since`, null when not running), `moved`, and when each running clock "
                       "runs out (`due`), counting the time given up to that entry (a gift "
                       "with after_seq n counts in the due moments after entry n).",
        "cases": [{**case, "expected": expected(case)} for case in _cases()],
    }


def write_vectors() -> None:
    VECTORS.write_text(json.dumps(build_vectors(), indent=2, ensure_ascii=False) + "\n",
                       encoding="utf-8")


@pytest.fixture(scope="module")
def vectors() -> dict[str, Any]:
    return json.loads(VECTORS.read_text(encoding="utf-8"))


def test_the_file_is_what_the_code_produces(vectors) -> None:
    assert vectors == build_vectors(), "run `python -m tests.test_clock_vectors` and review"


def test_the_cases_cover_each_system_and_rule(vectors) -> None:
    cases = {c["name"]: c for c in vectors["cases"]}
    assert {c["time_control"]["system"] for c in cases.values()} == {"per_move", "fischer",
                                                                       "total"}
    weekends = cases["weekends_dst"]
    assert weekends["time_control"]["weekends_off"] and len(set(weekends["clocks"]["zones"])) == 2
    assert cases["vacation"]["clocks"]["away"] and cases["gifts"]["clocks"]["gifts"]
    assert len(cases["simultaneous"]["to_act"]) == 2
    # a fischer bank reached its maximum, and time given was kept above it
    fischer = cases["fischer"]["expected"]
    assert fischer[-2]["left"][0] == 5 * DAY and fischer[-1]["left"][1] == DAY
    assert cases["gifts"]["expected"][1]["left"][0] > cases["gifts"]["time_control"]["maximum"]


# ---- the verifier's clock replay -------------------------------------------------------------


def test_the_verifiers_clock_replay_reproduces_every_case(vectors) -> None:
    for case in vectors["cases"]:
        audit = {"platform": {"seat_order": "joined", "time_control": case["time_control"]},
                 "seats": case["seats"], "status": "finished", "clocks": case["clocks"]}
        record = read_record(audit)
        assert record is not None
        replay = ClockReplay(record, case["seats"])
        replay.start(case["to_act"])
        states = [_state(replay.clocks, record.gifts, 0)]
        for e in case["entries"]:
            replay.applied(e["seq"], e["accepted_at"], e["seat"], e["timeout"], False,
                           e["to_act"])
            states.append(_state(replay.clocks, record.gifts, e["seq"]))
        assert states == case["expected"], case["name"]
        assert len(replay.checked) == sum(e["timeout"] for e in case["entries"])


# ---- a second implementation, from docs/audit.md §17 alone ---------------------------------


def _spec_moment(text: str) -> int:
    return int(datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC).timestamp())


def _spec_iso(t: int) -> str:
    return datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _local_midnight(day: date, zone: ZoneInfo) -> int:
    """The first moment at which the local date in `zone` is `day`, found by scanning."""
    def local(t: int) -> date:
        return datetime.fromtimestamp(t, zone).date()
    t = int(datetime(day.year, day.month, day.day, tzinfo=UTC).timestamp()) - 15 * HOUR
    while local(t) < day:
        t += 900
    lo, hi = t - 900, t
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if local(mid) >= day else (mid, hi)
    return hi


class _SpecSeat:
    def __init__(self, vacations: list[tuple[int, int]], zone: str | None) -> None:
        self.vacations = [(a, b) for a, b in vacations if b > a]
        self.zone = ZoneInfo(zone) if zone else None

    def pauses(self, since: int, until: int) -> list[tuple[int, int]]:
        """Every pause overlapping [since, until), merged, in order."""
        spans = [(a, b) for a, b in self.vacations if b > since and a < until]
        if self.zone is not None:
            day = datetime.fromtimestamp(since, self.zone).date() - timedelta(days=7)
            while True:
                if day.weekday() == 5:
                    a = _local_midnight(day, self.zone)
                    if a >= until:
                        break
                    b = _local_midnight(day + timedelta(days=2), self.zone)
                    if b > since:
                        spans.append((a, b))
                day += timedelta(days=1)
        merged: list[tuple[int, int]] = []
        for a, b in sorted(spans):
            if merged and a <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(merged[-1][1], b))
            else:
                merged.append((a, b))
        return merged

    def running(self, since: int, end: int) -> int:
        if end <= since:
            return 0
        paused = sum(min(b, end) - max(a, since) for a, b in self.pauses(since, end))
        return end - since - paused

    def due(self, since: int, left: int) -> int:
        horizon = since + 3 * left + sum(b - a for a, b in self.vacations) + 14 * DAY
        t, r = since, left
        for a, b in self.pauses(since, horizon):
            if a - t >= r:
                break
            if a > t:
                r -= a - t
            t = max(t, b)
        return t + r


def _spec_expected(case: dict[str, Any]) -> list[dict[str, Any]]:
    tc = case["time_control"]
    system = tc.get("system", "per_move")
    initial = tc["seconds_per_move"] if system == "per_move" else tc["initial"]
    n = case["seats"]
    rec = case["clocks"]
    seats = [_SpecSeat([(_spec_moment(a["from"]), _spec_moment(a["to"]))
                        for a in rec["away"] if a["seat"] == s],
                       (rec["zones"][s] or "UTC") if tc.get("weekends_off") else None)
             for s in range(n)]
    gifts = rec["gifts"]
    left, since, moved, folded = [initial] * n, [None] * n, [False] * n, 0

    def ask(t: int, to_act: list[int]) -> None:
        for s in range(n):
            if since[s] is not None and s not in to_act:
                end = max(since[s], t)
                bank = max(0, left[s] - seats[s].running(since[s], end))
                if system == "fischer":
                    raised = bank + tc["increment"]
                    if tc.get("maximum") is not None:
                        raised = max(bank, min(raised, tc["maximum"]))
                    bank = raised
                left[s], since[s] = bank, None
            elif since[s] is None and s in to_act:
                since[s] = t
                if system == "per_move":
                    left[s] = initial

    def state(after: int) -> dict[str, Any]:
        due = []
        for s in range(n):
            pending = sum(g["seconds"] for g in gifts[folded:]
                          if g["seat"] == s and g["after_seq"] <= after)
            due.append(None if since[s] is None else
                       _spec_iso(seats[s].due(since[s], left[s] + pending)))
        return {"left": list(left), "since": [None if x is None else _spec_iso(x) for x in since],
                "moved": list(moved), "due": due}

    ask(_spec_moment(rec["started_at"]), case["to_act"])
    out = [state(0)]
    for e in case["entries"]:
        while folded < len(gifts) and gifts[folded]["after_seq"] < e["seq"]:
            left[gifts[folded]["seat"]] += gifts[folded]["seconds"]
            folded += 1
        if not e["timeout"]:
            moved[e["seat"]] = True
        ask(_spec_moment(e["accepted_at"]), e["to_act"])
        out.append(state(e["seq"]))
    return out


def test_the_spec_reproduces_every_case(vectors) -> None:
    for case in vectors["cases"]:
        assert _spec_expected(case) == case["expected"], case["name"]


def test_the_spec_finds_the_daylight_saving_weekends(vectors) -> None:
    prague, new_york = _SpecSeat([], "Europe/Prague"), _SpecSeat([], "America/New_York")
    autumn = _spec_moment("2026-10-23T12:00:00Z")
    assert prague.pauses(autumn, autumn + DAY)[0] == (_spec_moment("2026-10-23T22:00:00Z"),
                                                      _spec_moment("2026-10-25T23:00:00Z"))
    assert new_york.pauses(autumn + 7 * DAY, autumn + 8 * DAY)[0] == (
        _spec_moment("2026-10-31T04:00:00Z"), _spec_moment("2026-11-02T05:00:00Z"))
    spring = _spec_moment("2026-03-27T12:00:00Z")  # Prague's weekend of 47 hours
    a, b = prague.pauses(spring, spring + DAY)[0]
    assert b - a == 47 * HOUR
    case = next(c for c in vectors["cases"] if c["name"] == "weekends_dst")
    assert case["expected"][3]["due"][1] == "2026-11-02T21:00:00Z"


if __name__ == "__main__":
    write_vectors()
    sys.stdout.write(f"wrote {VECTORS}\n")
