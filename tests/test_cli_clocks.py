"""Clocks in the `parley` client: `new --clock SPEC`, `away`, `back`, `give`, and the clocks that
`games` and `view` show; the reading of specs, durations and moments, then the commands run as
a player would against real web and worker processes."""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
import redis

from service.client.clock_command import (
    away_report,
    day_of,
    describe_control,
    games_suffix,
    parse_clock,
    parse_duration,
    parse_moment,
    seat_notes,
    short_left,
    time_control_of,
    words,
)
from service.client.session import UsageError
from tests.e2e.conftest import Server, running_server
from tests.e2e.test_cli import Cli

DAY, HOUR = 86_400, 3600
PRAGUE = ZoneInfo("Europe/Prague")


# ---- reading ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "seconds"), [
    ("14d", 14 * DAY), ("36h", 36 * HOUR), ("1d12h", DAY + 12 * HOUR), ("90m", 5400),
    ("45s", 45), ("1d2h3m4s", DAY + 2 * HOUR + 184), ("2D", 2 * DAY), (" 3h ", 3 * HOUR),
    ("0s", 0)])
def test_durations_are_read(text: str, seconds: int) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["", "3", "d", "1h1d", "1d1d", "1.5d", "-1d", "1w", "1d 2h",
                                  "3days"])
def test_bad_durations_are_refused(text: str) -> None:
    with pytest.raises(ValueError, match="is not a duration: an amount with units d, h, m, s"):
        parse_duration(text)


@pytest.mark.parametrize(("spec", "control"), [
    ("fischer:3d+1d/7d", {"system": "fischer", "initial": 3 * DAY, "increment": DAY,
                          "maximum": 7 * DAY}),
    ("fischer:1d12h+2h", {"system": "fischer", "initial": DAY + 12 * HOUR,
                          "increment": 2 * HOUR}),
    ("fischer:3d+0s", {"system": "fischer", "initial": 3 * DAY, "increment": 0}),
    ("per-move:2d", {"system": "per_move", "seconds_per_move": 2 * DAY}),
    ("per_move:2d", {"system": "per_move", "seconds_per_move": 2 * DAY}),
    ("Per-Move:12h", {"system": "per_move", "seconds_per_move": 12 * HOUR}),
    ("total:30d", {"system": "total", "initial": 30 * DAY})])
def test_clock_specs_are_read(spec: str, control: dict) -> None:
    assert parse_clock(spec) == control


@pytest.mark.parametrize(("spec", "why"), [
    ("fischer", "no system"), ("fischer:3d", "needs an increment"),
    ("fischer:3d+1d/2d", "the maximum is less than the initial time"),
    ("fischer:0s+1d", "no time at all"), ("fischer:3x+1d", "not a duration"),
    ("blitz:3d", "unknown system 'blitz'"), ("per-move:", "not a duration"),
    ("per-move:2", "not a duration"), ("total:0d", "no time at all"), ("3d+1d", "no system")])
def test_bad_clock_specs_name_the_forms(spec: str, why: str) -> None:
    with pytest.raises(ValueError) as refused:
        parse_clock(spec)
    assert why in str(refused.value)
    assert "fischer:INITIAL+INCREMENT[/MAXIMUM]" in str(refused.value)
    assert "per-move:TIME" in str(refused.value) and "total:TIME" in str(refused.value)


def _new_args(**given: object) -> argparse.Namespace:
    return argparse.Namespace(**{"clock": None, "weekends_off": False, "on_timeout": None,
                                 **given})


def test_the_clock_options_make_the_time_control() -> None:
    assert time_control_of(_new_args()) is None
    assert time_control_of(_new_args(clock=parse_clock("total:30d"), weekends_off=True,
                                     on_timeout="skip")) == {
        "system": "total", "initial": 30 * DAY, "weekends_off": True, "on_timeout": "skip"}
    with pytest.raises(UsageError, match="go with --clock"):
        time_control_of(_new_args(weekends_off=True))


def test_moments_are_read_in_the_local_zone_unless_they_name_one() -> None:
    now = datetime(2026, 12, 1, 9, 30, tzinfo=PRAGUE)
    assert parse_moment("2026-12-24", now, PRAGUE) == datetime(2026, 12, 24, tzinfo=PRAGUE)
    assert parse_moment("2026-12-24T18:00", now, PRAGUE) == \
        datetime(2026, 12, 24, 17, tzinfo=UTC)
    assert parse_moment("2026-12-24 18:00", now, PRAGUE) == \
        datetime(2026, 12, 24, 17, tzinfo=UTC)
    assert parse_moment("2026-07-01T12:00", now, PRAGUE) == \
        datetime(2026, 7, 1, 10, tzinfo=UTC)  # summer time
    assert parse_moment("2026-12-24T18:00Z", now, PRAGUE) == \
        datetime(2026, 12, 24, 18, tzinfo=UTC)
    assert parse_moment("2026-12-24T18:00-05:00", now, PRAGUE) == \
        datetime(2026, 12, 24, 23, tzinfo=UTC)
    assert parse_moment("14d", now, PRAGUE) == now + timedelta(days=14)
    assert parse_moment("1d12h", now, PRAGUE, base=now + timedelta(days=2)) == \
        now + timedelta(days=3, hours=12)
    assert parse_moment("now", now, PRAGUE) == now


def test_a_moment_without_a_zone_is_this_machines_local_time() -> None:
    now = datetime.now().astimezone()
    moment = parse_moment("2026-12-24T18:00", now)
    assert moment.tzinfo is not None
    assert moment.astimezone().replace(tzinfo=None) == datetime(2026, 12, 24, 18)


@pytest.mark.parametrize("text", ["tomorrow", "24.12.2026", "2026-13-01", "2026-12-24T25:00",
                                  "", "12"])
def test_bad_moments_are_refused(text: str) -> None:
    with pytest.raises(ValueError, match="is not a moment: a date"):
        parse_moment(text, datetime.now(UTC), PRAGUE)


# ---- writing ---------------------------------------------------------------------------------


def test_amounts_are_written_short_and_in_words() -> None:
    assert [short_left(s) for s in (2 * DAY + 5 * HOUR + 59 * 60, 3 * DAY, 5 * HOUR + 1200,
                                    HOUR, 720, 40, 0, -5)] == \
        ["2d 5h", "3d", "5h 20m", "1h", "12m", "40s", "0s", "0s"]
    assert [words(s) for s in (16 * DAY + 2, DAY + 12 * HOUR, 3 * HOUR + 1200, 60, 45)] == \
        ["16 days", "1 day 12 hours", "3 hours 20 minutes", "1 minute", "45 seconds"]
    now = datetime(2026, 12, 1, tzinfo=UTC)
    assert day_of(datetime(2026, 12, 23, 23, tzinfo=UTC), now, PRAGUE) == "24 Dec"
    assert day_of(datetime(2026, 12, 24, 17, tzinfo=UTC), now, PRAGUE) == "24 Dec 18:00"
    assert day_of(datetime(2027, 1, 6, 23, tzinfo=UTC), now, PRAGUE) == "7 Jan 2027"
    assert describe_control({"system": "fischer", "initial": 3 * DAY, "increment": DAY,
                             "maximum": 7 * DAY, "weekends_off": True,
                             "on_timeout": "forfeit"}) == \
        "Fischer: 3 days, +1 day a move, at most 7 days, weekends off, out of time loses"
    assert describe_control({"system": "per_move", "seconds_per_move": 2 * DAY,
                             "on_timeout": "skip"}) == \
        "2 days a move, a turn out of time is skipped"
    assert describe_control({"system": "total", "initial": 30 * DAY}) == \
        "30 days for the whole game"


def test_the_clocks_of_a_summary_by_name() -> None:
    now = datetime(2026, 12, 20, 12, tzinfo=UTC)
    summary = {"status": "active", "clocks": [
        {"seat": 0, "left": 2 * DAY + 5 * HOUR + 10, "running": True,
         "due": "2026-12-22T17:00:10Z", "away_from": None, "away_until": None},
        {"seat": 1, "left": 3 * DAY, "running": False, "due": None,
         "away_from": "2026-12-19T23:00:00Z", "away_until": "2026-12-23T23:00:00Z"}]}
    name = {0: "you", 1: "Ann"}.get
    assert games_suffix(summary, name, now, PRAGUE) == \
        "  [you: 2d 5h left; Ann: 3d left, on vacation until 24 Dec]"
    assert games_suffix(summary, name, now, UTC) == \
        "  [you: 2d 5h left; Ann: 3d left, on vacation until 23 Dec 23:00]"
    assert seat_notes(summary, name, now, PRAGUE, full=True) == [
        "you: 2d 5h left, runs out 22 Dec 18:00", "Ann: 3d left, on vacation until 24 Dec"]
    summary["clocks"][1]["away_from"] = "2026-12-21T23:00:00Z"
    assert seat_notes(summary, name, now, PRAGUE)[1] == \
        "Ann: 3d left, away from 22 Dec until 24 Dec"
    summary["clocks"][0]["running"] = False
    assert seat_notes(summary, name, now, PRAGUE, full=True)[0] == "you: 2d 5h left, stopped now"
    weekends = {**summary, "options": {"time_control": {"system": "total", "initial": DAY,
                                                        "weekends_off": True}}}
    assert seat_notes(weekends, name, now, PRAGUE, full=True)[0] == \
        "you: 2d 5h left, stopped for the weekend"
    assert games_suffix({**summary, "status": "finished"}, name, now) == ""
    assert games_suffix({"status": "active", "clocks": None}, name, now) == ""


def test_the_answer_to_away_in_a_sentence() -> None:
    answer = {"seconds_left": 16 * DAY + 3, "days_left": 16.0, "days_a_year": 30,
              "away": False, "away_from": "2026-12-24T17:00:00Z",
              "away_until": "2027-01-06T23:00:00Z", "games": ["g_1", "g_2", "g_3"]}
    assert away_report(answer, PRAGUE) == (
        "Away from 24 Dec 2026 18:00 CET until 7 Jan 2027 00:00 CET (your clocks stop in "
        "3 games). 16 days of vacation left (30 days a year).")
    answer.update(away=True, games=[])
    assert away_report(answer, PRAGUE) == (
        "Away now until 7 Jan 2027 00:00 CET (none of your games has a clock now). 16 days "
        "of vacation left (30 days a year).")


# ---- against a real server -------------------------------------------------------------------


@pytest.fixture
def site(redis_url: str, tmp_path: Path) -> Iterator[Server]:
    """`parley web` and a worker (tests/e2e's), on a flushed Redis."""
    redis.Redis.from_url(redis_url).flushall()
    with running_server(redis_url, tmp_path / "server") as srv:
        yield srv


def _players(site: Server, home: Path) -> tuple[Cli, Cli]:
    ann, bob = Cli(home, "ann"), Cli(home, "bob")
    for cli, name in ((ann, "Ann"), (bob, "Bob")):
        cli.env["TZ"] = "Europe/Prague"  # moments are read and shown in the local zone
        cli.out("keygen")
        cli.out("register", name, "--server", site.url)
    return ann, bob


def _row(listing: str, game: str) -> str:
    return next(line for line in listing.splitlines() if line.startswith(game))


@pytest.mark.slow
def test_clocks_from_the_command_line(site: Server, tmp_path: Path) -> None:
    ann, bob = _players(site, tmp_path)
    bad = ann.run("new", "stratego", "--clock", "fischer:3d", ok=False)
    assert bad.returncode == 2 and "fischer:INITIAL+INCREMENT[/MAXIMUM]" in bad.stderr
    alone = ann.run("new", "stratego", "--weekends-off", ok=False)
    assert alone.returncode == 2 and "go with --clock" in alone.stderr

    created = ann.out("new", "stratego", "--option", "army=duel", "--option",
                      "seat_order=joined", "--clock", "fischer:3d+1d/7d", "--on-timeout",
                      "skip")
    game = re.search(r"created (g_\w+)", created).group(1)
    assert "clock: Fischer: 3 days, +1 day a move, at most 7 days, a turn out of time is " \
        "skipped\n" in created
    assert "time_control" not in created  # shown in words, not as the option's JSON
    control = site.get(f"/v1/games/{game}").json()["options"]["time_control"]
    assert {k: control[k] for k in ("system", "initial", "increment", "maximum",
                                    "on_timeout")} == {
        "system": "fischer", "initial": 3 * DAY, "increment": DAY, "maximum": 7 * DAY,
        "on_timeout": "skip"}
    ann.out("join", game)
    bob.out("join", game)
    summary = site.get(f"/v1/games/{game}").json()
    assert summary["status"] == "active" and [c["seat"] for c in summary["clocks"]] == [0, 1]
    assert all(3 * DAY - 120 <= c["left"] <= 3 * DAY for c in summary["clocks"])
    assert summary["deadline"] is not None
    row = _row(ann.out("games"), game)
    assert re.search(r"  \[you: (3d|2d 23h) left; Bob: (3d|2d 23h) left\]$", row), row
    assert re.search(r"\nclocks: you: (3d|2d 23h) left, runs out \d+ \w{3} \d\d:\d\d; Bob: ",
                     ann.out("view", game))

    away = bob.out("away", "14d")
    assert re.fullmatch(r"Away now until \d+ \w{3} \d{4} \d\d:\d\d CES?T \(your clocks stop in "
                        r"1 game\)\. 16 days of vacation left \(30 days a year\)\.\n", away), away
    status = bob.out("away", "--status")
    assert status.startswith("Away now until ") and "16 days of vacation left" in status
    until = datetime.fromisoformat(site.get(f"/v1/games/{game}").json()["clocks"][1][
        "away_until"].replace("Z", "+00:00"))
    assert abs(until - datetime.now(UTC) - timedelta(days=14)) < timedelta(minutes=2)
    shown = day_of(until, datetime.now(UTC), ZoneInfo("Europe/Prague"))
    assert f"Bob: 3d left, on vacation until {shown}]" in _row(ann.out("games"), game) or \
        f"Bob: 2d 23h left, on vacation until {shown}]" in _row(ann.out("games"), game)

    gave = bob.out("give", game, "Ann", "1d")
    assert re.fullmatch(rf"gave Ann 1 day in {game}: (4d|3d 23h) left now\n", gave), gave
    assert site.get(f"/v1/games/{game}").json()["clocks"][0]["left"] > 4 * DAY - 120
    refused = bob.run("give", game, "1", "1d", ok=False)  # Bob's own seat
    assert refused.returncode == 1 and "Give time to another seat" in refused.stderr
    assert bob.run("give", game, "0", "7x", ok=False).returncode == 2

    back = bob.out("back")
    assert re.fullmatch(r"Back now \(your clocks run again in 1 game\)\. 29 days 23 hours "
                        r"of vacation left \(30 days a year\)\.\n", back) or \
        back.startswith("Back now (your clocks run again in 1 game). 30 days"), back
    assert bob.out("away", "--status").startswith("No vacation planned. ")
    assert site.get(f"/v1/games/{game}").json()["clocks"][1]["away_until"] is None


@pytest.mark.slow
def test_a_vacation_to_come_in_local_dates(site: Server, tmp_path: Path) -> None:
    ann, _ = _players(site, tmp_path)
    start = date.today() + timedelta(days=3)
    end = start + timedelta(days=5)
    planned = ann.out("away", end.isoformat(), "--from", start.isoformat())
    prague = ZoneInfo("Europe/Prague")
    begins, ends = (datetime.combine(d, datetime.min.time(), prague).astimezone(UTC)
                    for d in (start, end))
    left = words(30 * DAY - int((ends - begins).total_seconds()))  # 25 days but near a DST change
    assert planned == (f"Away from {start.day} {start:%b %Y} 00:00 {_zone(start)} until "
                       f"{end.day} {end:%b %Y} 00:00 {_zone(end)} "
                       f"(none of your games has a clock now). {left} of vacation left "
                       "(30 days a year).\n")
    config = json.loads(ann.config.read_text())
    vacation = site.get(f"/v1/players/{config['player']}/vacation",
                        headers={"Authorization": f"Bearer {config['token']}"}).json()
    assert vacation["away"] is False
    assert vacation["away_from"] == begins.strftime("%Y-%m-%dT%H:%M:%SZ")
    too_long = ann.run("away", "40d", ok=False)
    assert too_long.returncode == 1 and "vacation left; this one would take" in too_long.stderr
    assert ann.run("away", "next week", ok=False).returncode == 2
    assert ann.run("away", "3d", "--status", ok=False).returncode == 2
    cancelled = ann.out("back")
    assert cancelled.startswith(f"Cancelled your vacation from {start.day} {start:%b %Y} ")
    assert cancelled.endswith(" 30 days of vacation left (30 days a year).\n")
    assert ann.out("back").startswith("You are not away and have no vacation planned. ")


def _zone(day: date) -> str:
    """Prague's zone at that day's midnight: CET, or CEST in summer."""
    return datetime.combine(day, datetime.min.time(), ZoneInfo("Europe/Prague")).tzname() or ""


