"""Clocks that fit people's lives, end to end with a real Redis, worker and SMTP server: a player
goes on holiday for two weeks and loses nothing; coming back early gives the time back and
brings the deadline forward; an opponent gives time; the record verifies with its timing."""

from __future__ import annotations

import time
from typing import Any

from parley_protocol.verify import verify_bundle

from service.ops import clock
from tests.notify.conftest import register, start_game
from workers import notify

DAY, HOUR = 86_400, 3600
DUEL = {"army": "duel", "seat_order": "joined"}
FISCHER = {"system": "fischer", "initial": 3 * DAY, "increment": DAY, "maximum": 7 * DAY,
           "reminder_fraction": 0.25, "on_timeout": "forfeit"}


def _move(client: Any, gid: str, player: Any, seat: int, work: Any) -> None:
    view = client.get(f"/v1/games/{gid}/view", headers=player.auth).get_json()
    resp = client.post(f"/v1/games/{gid}/moves",
                       json=player.envelope(gid, seat, view["step"], view["legal_moves"][0]))
    assert resp.status_code == 202, resp.get_json()
    work()


def _blue_to_move(client: Any, work: Any, smtp: Any = None) -> tuple[str, Any, Any]:
    """A Stratego duel on a Fischer clock where both have set up and Red has moved."""
    ann = register(client, "ann", "ann@example.org" if smtp else None)
    bob = register(client, "bob", "bob@example.org" if smtp else None)
    gid = start_game(client, [ann, bob], options=DUEL, time_control=FISCHER)
    work()
    _move(client, gid, ann, 0, work)
    _move(client, gid, bob, 1, work)
    _move(client, gid, ann, 0, work)
    assert client.get(f"/v1/games/{gid}").get_json()["to_act"] == [1]
    return gid, ann, bob


def _summary(client: Any, gid: str) -> dict:
    return client.get(f"/v1/games/{gid}").get_json()


def _iso_in(seconds: float) -> str:
    """A moment `seconds` from now on the server's clock."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(clock.now() + seconds))


def test_two_weeks_away_lose_no_game(nclient, napp, work, smtp, travel) -> None:
    gid, ann, bob = _blue_to_move(nclient, work, smtp)
    step = _summary(nclient, gid)["step"]
    before = _summary(nclient, gid)["clocks"][1]
    # three days to start with, and a day more for each turn (Bob's setup was one)
    assert before["running"] and 4 * DAY - 60 <= before["left"] <= 4 * DAY

    resp = nclient.put(f"/v1/players/{bob.id}/vacation", json={"until": _iso_in(14 * DAY)},
                       headers=bob.auth)
    assert resp.status_code == 200, resp.get_json()
    away = resp.get_json()
    assert away["away"] and away["games"] == [gid]
    assert away["seconds_left"] == 30 * DAY - 14 * DAY
    # Ann sees that Bob is away and until when; Bob's clock stands still meanwhile
    seen = nclient.get(f"/v1/games/{gid}", headers=ann.auth).get_json()["clocks"][1]
    assert seen["away_until"] == away["away_until"] and not seen["running"]
    view = nclient.get(f"/v1/games/{gid}/view", headers=ann.auth).get_json()
    assert view["clocks"][1] == seen  # the view shows the same clocks

    travel(4 * DAY + HOUR)  # without the vacation Bob's clock would have run out by now
    assert notify.deadline_job(gid, step, "timeout") == "early"
    work()
    assert _summary(nclient, gid)["status"] == "active"
    assert _summary(nclient, gid)["clocks"][1]["left"] >= 4 * DAY - 120

    travel(10 * DAY)  # back after two weeks, and an hour of thinking
    assert notify.deadline_job(gid, step, "timeout") == "early"
    assert nclient.get(f"/v1/players/{bob.id}/vacation", headers=bob.auth).get_json()[
        "away"] is False
    _move(nclient, gid, bob, 1, work)
    after = _summary(nclient, gid)
    assert after["status"] == "active" and after["to_act"] == [0]
    # Bob's bank: four days less the hour he used, plus the day's increment
    assert 5 * DAY - HOUR - 120 <= after["clocks"][1]["left"] <= 5 * DAY - HOUR + 60
    assert not any(m["X-Parley-Event"] == "deadline.timeout" for m in smtp.messages)

    # the game ends later; its record recomputes every clock, the vacation included
    _move(nclient, gid, ann, 0, work)
    resign = bob.envelope(gid, 1, _summary(nclient, gid)["step"], {"type": "resign"})
    assert nclient.post(f"/v1/games/{gid}/moves", json=resign).status_code == 202
    work()
    record = nclient.get(f"/v1/games/{gid}/record").get_json()
    assert record["audit"]["clocks"]["away"] == [
        {"seat": 1, "from": record["audit"]["clocks"]["away"][0]["from"],
         "to": away["away_until"]}]
    report = verify_bundle(record)
    assert report.ok, report.failure
    assert report.timing_checked  # every clock recomputed, the vacation included


def test_coming_back_early_gives_time_back_and_the_deadline_comes_forward(
        nclient, napp, work, travel) -> None:
    gid, _, bob = _blue_to_move(nclient, work)
    store = napp.extensions["parley_store"]
    away = nclient.put(f"/v1/players/{bob.id}/vacation", json={"until": _iso_in(14 * DAY)},
                       headers=bob.auth).get_json()
    far = store.r.zscore("parley:deadlines", f"{gid}|{_summary(nclient, gid)['step']}|timeout")
    travel(2 * DAY)
    back = nclient.delete(f"/v1/players/{bob.id}/vacation", headers=bob.auth).get_json()
    assert not back["away"] and back["away_until"] is None
    # the twelve days not used come back (and a month's accrual, if a month began meanwhile)
    assert back["seconds_left"] >= min(30 * DAY, away["seconds_left"] + 12 * DAY - 2)
    step = _summary(nclient, gid)["step"]
    near = store.r.zscore("parley:deadlines", f"{gid}|{step}|timeout")
    assert far - near in range(12 * DAY - 2, 12 * DAY + 1)  # the timeout comes forward
    travel(4 * DAY + 60)
    assert notify.deadline_job(gid, step, "timeout") == "timed_out"
    work()
    assert _summary(nclient, gid)["result"]["reason"] == "timeout"


def test_a_vacation_beyond_the_allowance_is_refused(nclient, napp) -> None:
    bob = register(nclient, "bob")
    resp = nclient.put(f"/v1/players/{bob.id}/vacation", json={"until": _iso_in(31 * DAY)},
                       headers=bob.auth)
    assert resp.status_code == 422 and resp.get_json()["code"] == "vacation_too_long"
    assert "30 days" in resp.get_json()["detail"]
    past = nclient.put(f"/v1/players/{bob.id}/vacation",
                       json={"from": _iso_in(-DAY), "until": _iso_in(DAY)}, headers=bob.auth)
    assert past.status_code == 422 and past.get_json()["code"] == "bad_vacation"
    other = register(nclient, "ann")
    assert nclient.put(f"/v1/players/{bob.id}/vacation", json={"until": _iso_in(DAY)},
                       headers=other.auth).status_code == 403
    state = nclient.get(f"/v1/players/{bob.id}/vacation", headers=bob.auth).get_json()
    assert state["seconds_left"] == 30 * DAY and state["away_from"] is None  # nothing kept


def test_an_opponent_gives_time(nclient, napp, work, travel) -> None:
    gid, ann, bob = _blue_to_move(nclient, work)
    left = _summary(nclient, gid)["clocks"][1]["left"]
    resp = nclient.post(f"/v1/games/{gid}/time-gifts", json={"seat": 1, "seconds": DAY},
                        headers=ann.auth)
    assert resp.status_code == 200, resp.get_json()
    assert resp.get_json()["clocks"][1]["left"] - left in range(DAY - 5, DAY + 1)
    own = nclient.post(f"/v1/games/{gid}/time-gifts", json={"seat": 1, "seconds": DAY},
                       headers=bob.auth)
    assert own.status_code == 422 and own.get_json()["code"] == "bad_seat"
    idle = nclient.post(f"/v1/games/{gid}/time-gifts", json={"seat": 0, "seconds": DAY},
                        headers=bob.auth)
    assert idle.status_code == 409 and idle.get_json()["code"] == "clock_not_running"
    travel(4 * DAY + HOUR)  # past the four days Bob had, not past the fifth Ann gave
    step = _summary(nclient, gid)["step"]
    assert notify.deadline_job(gid, step, "timeout") == "early"
    _move(nclient, gid, bob, 1, work)
    assert _summary(nclient, gid)["status"] == "active"
    # the gift went into Bob's bank with his move: 4 days less 3 days 1 hour, plus 1 day
    assert _summary(nclient, gid)["clocks"][1]["left"] in range(2 * DAY - HOUR - 60,
                                                                 2 * DAY - HOUR + 1)


def test_the_allowance_grows_by_a_twelfth_each_month_up_to_a_year(nclient, travel) -> None:
    bob = register(nclient, "bob")
    away = nclient.put(f"/v1/players/{bob.id}/vacation", json={"until": _iso_in(20 * DAY)},
                       headers=bob.auth).get_json()
    assert away["seconds_left"] == 10 * DAY
    travel(32 * DAY)  # at least one first of the month, at most two
    later = nclient.get(f"/v1/players/{bob.id}/vacation", headers=bob.auth).get_json()
    assert later["seconds_left"] in (10 * DAY + 30 * DAY // 12, 10 * DAY + 2 * (30 * DAY // 12))
    travel(400 * DAY)
    assert nclient.get(f"/v1/players/{bob.id}/vacation", headers=bob.auth).get_json()[
        "seconds_left"] == 30 * DAY


def test_my_turns_come_most_urgent_first(nclient, work) -> None:
    ann, bob = register(nclient, "ann"), register(nclient, "bob")
    slow = start_game(nclient, [ann, bob], options=DUEL,
                      time_control={"seconds_per_move": 5 * DAY})
    none = start_game(nclient, [ann, bob], options=DUEL)
    fast = start_game(nclient, [ann, bob], options=DUEL,
                      time_control={"system": "total", "initial": DAY})
    work()
    for gid in (slow, none, fast):
        _move(nclient, gid, ann, 0, work)  # Ann has set up: Bob is to act in all three
    listed = nclient.get("/v1/games?turn=mine&limit=1", headers=bob.auth).get_json()
    assert [g["id"] for g in listed["games"]] == [fast, slow, none]
    assert listed["next"] is None
    assert nclient.get("/v1/games?turn=mine", headers=ann.auth).get_json()["games"] == []


def test_the_mail_says_who_is_away_until_when(nclient, napp, work, smtp, travel) -> None:
    gid, ann, bob = _blue_to_move(nclient, work, smtp)
    _move(nclient, gid, bob, 1, work)  # Ann to move, Bob free to leave
    until = _iso_in(10 * DAY)
    assert nclient.put(f"/v1/players/{bob.id}/vacation", json={"until": until},
                       headers=bob.auth).status_code == 200
    step = _summary(nclient, gid)["step"]
    travel(4 * DAY)  # Ann's bank is five days: the reminder falls at a quarter left
    assert notify.deadline_job(gid, step, "reminder") == "reminded"
    work()
    reminder = smtp.to("ann@example.org")[-1]
    assert reminder["X-Parley-Event"] == "deadline.reminder"
    text = reminder.get_body(preferencelist=("plain",)).get_content().replace("\r\n", "\n")
    day = time.gmtime(clock.now() - 4 * DAY + 10 * DAY)
    assert f"Bob is on vacation until {time.strftime('%a', day)} {day.tm_mday} " in \
        " ".join(text.split())
