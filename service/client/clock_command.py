"""Game clocks in the client: `parley new --clock SPEC`, `parley away`, `parley back`,
`parley give`, and the clocks `parley games` and `parley view` show (docs/cli.md "Clocks").

The server counts in seconds and UTC (`time_control` of `POST /v1/games`, `clocks` of a game's
summary, `/v1/players/{id}/vacation`, `POST /v1/games/{id}/time-gifts`); here amounts are read
and written as `3d`, `1d12h`, `2d 5h left`, and moments in the machine's local time zone.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, date, datetime, timedelta, tzinfo
from typing import Any

from engines.contract import Namer
from engines.sentences import join
from service.client.roster import Roster, seat_of
from service.client.session import ApiError, ClientError, Session, UsageError, out

Adder = Callable[[str, Callable[[argparse.Namespace], int], str], argparse.ArgumentParser]

MINUTE, HOUR, DAY = 60, 3600, 86_400
_UNITS = {"d": DAY, "h": HOUR, "m": MINUTE, "s": 1}
_DURATION = re.compile(r"(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?", re.IGNORECASE)

#: the forms of `--clock`, as a usage error names them
CLOCK_FORMS = ("fischer:INITIAL+INCREMENT[/MAXIMUM] (e.g. fischer:3d+1d/7d), "
               "per-move:TIME (e.g. per-move:2d), total:TIME (e.g. total:30d); "
               "amounts in d, h, m, s, such as 1d12h")
DURATION_FORMS = "an amount with units d, h, m, s, such as 14d, 36h or 1d12h"
MOMENT_FORMS = ("a date (2026-12-24), a moment (2026-12-24T18:00, in this machine's time zone "
                "unless one is given: 2026-12-24T18:00+01:00), or a duration from now (14d)")


# ---- reading amounts, clocks and moments ---------------------------------------------------


def parse_duration(text: str) -> int:
    """`1d12h` -> 129600 seconds: days, hours, minutes and seconds in that order, each at most
    once, at least one; a bare number is refused (a unit is always said)."""
    match = _DURATION.fullmatch(text.strip())
    if not text.strip() or match is None or not any(match.groups()):
        raise ValueError(f"{text!r} is not a duration: {DURATION_FORMS}")
    return sum(int(n) * unit for n, unit in zip(match.groups(), _UNITS.values(), strict=True)
               if n)


def duration_arg(text: str) -> int:
    """A duration as argparse checks an argument (a bad one: usage error, exit 2)."""
    try:
        return parse_duration(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def parse_clock(spec: str) -> dict[str, Any]:
    """`fischer:3d+1d/7d`, `per-move:2d` (or `per_move:2d`), `total:30d` -> the
    `time_control` of `POST /v1/games`, amounts in seconds (the common members left out)."""
    system, sep, amounts = spec.strip().partition(":")
    system = system.strip().lower().replace("-", "_")
    try:
        if not sep:
            raise ValueError("no system")
        if system == "per_move":
            return {"system": "per_move", "seconds_per_move": _positive(amounts)}
        if system == "total":
            return {"system": "total", "initial": _positive(amounts)}
        if system == "fischer":
            return _fischer(amounts)
        raise ValueError(f"unknown system {system!r}")
    except ValueError as err:
        raise ValueError(f"{spec!r}: {err}; the forms are {CLOCK_FORMS}") from None


def _fischer(amounts: str) -> dict[str, Any]:
    bank, plus, rest = amounts.partition("+")
    if not plus:
        raise ValueError("fischer needs an increment after '+'")
    increment, slash, cap = rest.partition("/")
    tc = {"system": "fischer", "initial": _positive(bank), "increment": parse_duration(increment)}
    if slash:
        tc["maximum"] = _positive(cap)
        if tc["maximum"] < tc["initial"]:
            raise ValueError("the maximum is less than the initial time")
    return tc


def _positive(text: str) -> int:
    seconds = parse_duration(text)
    if seconds <= 0:
        raise ValueError(f"{text!r} is no time at all")
    return seconds


def clock_arg(spec: str) -> dict[str, Any]:
    """`--clock` as argparse checks it (a bad one: usage error, exit 2, before any request)."""
    try:
        return parse_clock(spec)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def time_control_of(args: argparse.Namespace) -> dict[str, Any] | None:
    """`--clock`, `--weekends-off` and `--on-timeout` as the `time_control` of a new game."""
    if args.clock is None:
        if args.weekends_off or args.on_timeout:
            raise UsageError("--weekends-off and --on-timeout go with --clock SPEC "
                             f"({CLOCK_FORMS})")
        return None
    tc = dict(args.clock)
    if args.weekends_off:
        tc["weekends_off"] = True
    if args.on_timeout:
        tc["on_timeout"] = args.on_timeout
    return tc


def parse_moment(text: str, now: datetime, zone: tzinfo | None = None,
                 base: datetime | None = None) -> datetime:
    """A moment the user names: a date (its 00:00), a date and time (`T` or a space between),
    either in `zone` (None: this machine's local zone) unless it names its own, `now`, or a
    duration after `base` (default `now`). `now` and `base` carry a zone; so does the answer."""
    raw = text.strip()
    if raw.lower() == "now":
        return now
    try:
        return (base or now) + timedelta(seconds=parse_duration(raw))
    except ValueError:
        pass
    try:
        moment = datetime.fromisoformat(raw) if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", raw) \
            else datetime.combine(date.fromisoformat(raw), datetime.min.time())
    except ValueError:
        raise ValueError(f"{text!r} is not a moment: {MOMENT_FORMS}") from None
    if moment.tzinfo is not None:
        return moment
    return moment.replace(tzinfo=zone) if zone is not None else moment.astimezone()


def utc_text(moment: datetime) -> str:
    """RFC 3339 in UTC, as the server takes moments."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def from_server(text: str | None) -> datetime | None:
    """A moment the server sent (RFC 3339, UTC)."""
    return None if not text else datetime.fromisoformat(text.replace("Z", "+00:00"))


# ---- writing amounts and moments -----------------------------------------------------------


def short_left(seconds: int) -> str:
    """Time left, never more than there is: `2d 5h`, `5h 20m`, `12m`, `40s`."""
    seconds = max(0, int(seconds))
    days, rest = divmod(seconds, DAY)
    hours, rest = divmod(rest, HOUR)
    minutes, secs = divmod(rest, MINUTE)
    if days:
        return f"{days}d {hours}h" if hours else f"{days}d"
    if hours:
        return f"{hours}h {minutes}m" if minutes else f"{hours}h"
    return f"{minutes}m" if minutes else f"{secs}s"


def words(seconds: int) -> str:
    """An amount in words, to the hour for days and the minute for hours: `16 days`,
    `1 day 12 hours`, `3 hours 20 minutes`, `45 seconds`."""
    seconds = max(0, int(seconds))
    days, rest = divmod(seconds, DAY)
    hours, rest = divmod(rest, HOUR)
    minutes, secs = divmod(rest, MINUTE)
    parts = [(days, "day"), (hours, "hour")] if days else \
        [(hours, "hour"), (minutes, "minute")] if hours else \
        [(minutes, "minute")] if minutes else [(secs, "second")]
    shown = [f"{n} {unit}{'' if n == 1 else 's'}" for n, unit in parts if n]
    return " ".join(shown) or "0 seconds"


def when(moment: datetime, zone: tzinfo | None = None) -> str:
    """A moment in the local zone (or `zone`): `24 Dec 2026 18:00 CET`."""
    local = moment.astimezone(zone)
    name = local.tzname() or ""
    return f"{local.day} {local:%b %Y %H:%M}" + (f" {name}" if name else "")


def day_of(moment: datetime, now: datetime, zone: tzinfo | None = None) -> str:
    """A moment compactly: `24 Dec`, `24 Dec 18:00`, with the year when not this year's."""
    local, today = moment.astimezone(zone), now.astimezone(zone)
    text = f"{local.day} {local:%b}"
    if local.year != today.year:
        text += f" {local.year}"
    if (local.hour, local.minute) != (0, 0):
        text += f" {local:%H:%M}"
    return text


# ---- the clocks of a game summary ----------------------------------------------------------


def seat_notes(summary: Mapping[str, Any], name: Namer, now: datetime,
               zone: tzinfo | None = None, full: bool = False) -> list[str]:
    """Each seat's clock in words, from the summary's `clocks` ([] without one): "you: 2d 5h
    left", "Ann: 3d left, on vacation until 24 Dec"; `full` adds when a running clock runs
    out."""
    notes = []
    for c in summary.get("clocks") or ():
        text = f"{name(c['seat'])}: {short_left(c['left'])} left"
        start, end = from_server(c.get("away_from")), from_server(c.get("away_until"))
        due = from_server(c.get("due"))
        if start is not None and end is not None:
            text += f", on vacation until {day_of(end, now, zone)}" if start <= now else \
                f", away from {day_of(start, now, zone)} until {day_of(end, now, zone)}"
        elif full and due is not None:
            weekends = ((summary.get("options") or {}).get("time_control") or {}).get(
                "weekends_off")
            text += f", runs out {day_of(due, now, zone)}" if c.get("running") else \
                ", stopped for the weekend" if weekends else ", stopped now"
        notes.append(text)
    return notes


def games_suffix(summary: Mapping[str, Any], name: Namer, now: datetime,
                 zone: tzinfo | None = None) -> str:
    """What `parley games` adds to an active game's row with clocks: `  [you: 2d 5h left;
    Ann: 3d left]` ("" otherwise)."""
    if summary.get("status") != "active":
        return ""
    notes = seat_notes(summary, name, now, zone)
    return f"  [{'; '.join(notes)}]" if notes else ""


def describe_control(tc: Mapping[str, Any]) -> str:
    """A time control in words: "Fischer: 3 days, +1 day a move, at most 7 days"."""
    system = tc.get("system", "per_move")
    if system == "fischer":
        text = f"Fischer: {words(tc['initial'])}, +{words(tc['increment'])} a move"
        if tc.get("maximum"):
            text += f", at most {words(tc['maximum'])}"
    elif system == "total":
        text = f"{words(tc['initial'])} for the whole game"
    else:
        text = f"{words(tc['seconds_per_move'])} a move"
    if tc.get("weekends_off"):
        text += ", weekends off"
    if tc.get("on_timeout") == "skip":
        text += ", a turn out of time is skipped"
    elif tc.get("on_timeout") == "forfeit":
        text += ", out of time loses"
    return text


# ---- away, back, give ----------------------------------------------------------------------


def _now() -> datetime:
    return datetime.now().astimezone()


def _in_games(count: int) -> str:
    return f"{count} game" + ("" if count == 1 else "s")


def vacation_sentence(answer: Mapping[str, Any], zone: tzinfo | None = None) -> str:
    """The vacation the server answered, in a sentence: "Away from 24 Dec 2026 18:00 CET until
    7 Jan 2027 00:00 CET." / "Away now until …" / "No vacation planned." """
    start, end = from_server(answer.get("away_from")), from_server(answer.get("away_until"))
    if start is None or end is None:
        return "No vacation planned."
    if answer.get("away"):
        return f"Away now until {when(end, zone)} (since {when(start, zone)})."
    return f"Away from {when(start, zone)} until {when(end, zone)}."


def allowance_sentence(answer: Mapping[str, Any]) -> str:
    return (f"{words(answer['seconds_left'])} of vacation left "
            f"({answer['days_a_year']} days a year).")


def away_report(answer: Mapping[str, Any], zone: tzinfo | None = None) -> str:
    """What `parley away UNTIL` prints: "Away from … until … (your clocks stop in 3 games).
    16 days of vacation left (30 days a year)." """
    games = len(answer.get("games") or ())
    stops = f"your clocks stop in {_in_games(games)}" if games else \
        "none of your games has a clock now"
    start, end = from_server(answer.get("away_from")), from_server(answer.get("away_until"))
    if start is None or end is None:  # not expected: the answer holds the vacation just set
        return f"{vacation_sentence(answer, zone)} {allowance_sentence(answer)}"
    span = f"Away now until {when(end, zone)}" if answer.get("away") else \
        f"Away from {when(start, zone)} until {when(end, zone)}"
    return f"{span} ({stops}). {allowance_sentence(answer)}"


def cmd_away(args: argparse.Namespace) -> int:
    """Set a vacation (`UNTIL`, `--from`), or show it and the allowance (`--status`)."""
    if args.status == (args.until is not None) or (args.status and args.start is not None):
        raise UsageError("give UNTIL (and perhaps --from WHEN), or --status alone")
    session = Session(args)
    pid = session.require_player()
    path = f"/v1/players/{pid}/vacation"
    if args.status:
        answer = session.http.get(path)
        out(f"{vacation_sentence(answer)} {allowance_sentence(answer)}")
        return 0
    now = _now()
    try:  # a moment that does not read is a usage error, before any request
        start = None if args.start is None else parse_moment(args.start, now)
        end = parse_moment(args.until, now, base=start)
    except ValueError as err:
        raise UsageError(str(err)) from None
    body = {"until": utc_text(end)}
    if start is not None:
        body["from"] = utc_text(start)
    try:
        answer = session.http.call("PUT", path, body, True)
    except ApiError as err:
        if err.code in ("vacation_too_long", "bad_vacation"):
            raise ClientError(err.detail) from None
        raise
    out(away_report(answer))
    return 0


def cmd_back(args: argparse.Namespace) -> int:
    """End the vacation under way now, or cancel the one to come."""
    session = Session(args)
    pid = session.require_player()
    path = f"/v1/players/{pid}/vacation"
    before = session.http.get(path)
    if not before.get("away_until"):
        out(f"You are not away and have no vacation planned. {allowance_sentence(before)}")
        return 0
    answer = session.http.call("DELETE", path, None, True)
    games = len(answer.get("games") or ())
    if before.get("away"):
        runs = f" (your clocks run again in {_in_games(games)})" if games else ""
        out(f"Back now{runs}. {allowance_sentence(answer)}")
    else:
        start, end = from_server(before["away_from"]), from_server(before["away_until"])
        assert start is not None and end is not None
        out(f"Cancelled your vacation from {when(start)} until {when(end)}. "
            f"{allowance_sentence(answer)}")
    return 0


def seat_named(summary: Mapping[str, Any], text: str, names: Sequence[str]) -> int:
    """A seat given as its number (as `--seat` takes it), its player's id or name."""
    if text.isdigit():
        return int(text)
    for p in summary.get("players") or ():
        seat = p["seat"]
        if p.get("player") == text or (0 <= seat < len(names) and names[seat]
                                       and names[seat].lower() == text.lower()):
            return int(seat)
    known = join(n for n in names if n) or "none yet"
    raise ClientError(f"no player {text!r} in {summary['id']} (players: {known})")


def cmd_give(args: argparse.Namespace) -> int:
    """Give an opponent time on their running clock."""
    session = Session(args)
    me = session.require_player()
    roster = Roster(session.http)
    summary = roster.game(args.game)
    seat = seat_named(summary, args.seat, roster.names(summary))
    try:
        after = session.http.post(f"/v1/games/{args.game}/time-gifts",
                                  {"seat": seat, "seconds": args.duration})
    except ApiError as err:
        if err.code in ("clock_not_running", "bad_seat", "bad_gift", "no_clocks",
                        "not_seated"):
            raise ClientError(err.detail) from None
        raise
    name = roster.namer(after, seat_of(after, me))
    clock = next((c for c in after.get("clocks") or () if c["seat"] == seat), None)
    left = f": {short_left(clock['left'])} left now" if clock else ""
    out(f"gave {name(seat)} {words(args.duration)} in {args.game}{left}")
    return 0


# ---- argparse ------------------------------------------------------------------------------


def add_clock_options(parser: argparse.ArgumentParser) -> None:
    """`parley new`'s clock options."""
    parser.add_argument("--clock", type=clock_arg, metavar="SPEC",
                        help="a game clock: fischer:3d+1d/7d (initial+increment/maximum, "
                             "maximum optional), per-move:2d, total:30d")
    parser.add_argument("--weekends-off", action="store_true",
                        help="clocks stop from Saturday to Monday in each player's zone")
    parser.add_argument("--on-timeout", choices=("forfeit", "skip"),
                        help="out of time: lose the game (forfeit, the default) or the turn")


def add_clock_commands(add: Adder) -> None:
    """Register `parley away`, `parley back` and `parley give` (service.client.commands)."""
    p = add("away", cmd_away, "go on vacation (your clocks stop), or see your allowance")
    p.add_argument("until", nargs="?", metavar="UNTIL",
                   help="when you are back: 2026-12-24, 2026-12-24T18:00 (local time "
                        "unless a zone is given) or a duration such as 14d")
    p.add_argument("--from", dest="start", metavar="WHEN",
                   help="when the vacation starts (default now), in the same forms")
    p.add_argument("--status", action="store_true",
                   help="show your vacation and the allowance left")
    add("back", cmd_back, "end your vacation now (or cancel the one to come)")
    p = add("give", cmd_give, "give an opponent time on their running clock")
    p.add_argument("game")
    p.add_argument("seat", metavar="SEAT", help="the seat number (as --seat takes it), or "
                                                "the player's name or id")
    p.add_argument("duration", type=duration_arg, metavar="DURATION",
                   help="1m to 7d, e.g. 1d or 12h")
