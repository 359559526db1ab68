"""Deadline jobs called directly: a past step is left alone; a timeout acts once, and is
recorded, told and verified as a timeout, not as a resignation."""

from __future__ import annotations

import copy

from parley_protocol.verify import verify_bundle

from tests.notify.conftest import register, start_game
from workers import notify

DUEL = {"army": "duel", "seat_order": "joined"}
SLOW = {"seconds_per_move": 3600, "reminder_fraction": 0.25, "on_timeout": "forfeit"}


def _text(msg) -> str:
    return msg.get_body(preferencelist=("plain",)).get_content().replace("\r\n", "\n")


def _events(client, gid) -> list[dict]:
    return [e["event"] for e in client.get(f"/v1/games/{gid}/events").get_json()["events"]]


def _setup(client, gid, player, seat):
    view = client.get(f"/v1/games/{gid}/view", headers=player.auth).get_json()
    resp = client.post(f"/v1/games/{gid}/moves",
                       json=player.envelope(gid, seat, view["step"], view["legal_moves"][0]))
    assert resp.status_code == 202


def test_deadlines_are_scheduled_and_shown_in_the_summary(nclient, napp, work) -> None:
    ann, bob = register(nclient, "ann"), register(nclient, "bob")
    gid = start_game(nclient, [ann, bob], options=DUEL, time_control=SLOW)
    work()
    summary = nclient.get(f"/v1/games/{gid}").get_json()
    assert summary["deadline"].endswith("Z")
    assert summary["deadlines"] == [{"seat": s, "step": 0, "due": summary["deadline"]}
                                    for s in (0, 1)]
    due = int(napp.extensions["parley_store"].r.hget(f"{{g:{gid}}}:meta", "deadline"))
    scheduled = napp.extensions["parley_queue"].scheduled_job_registry.get_job_ids()
    # the reminder when a quarter of the hour is left, the timeout at the end
    assert sorted(scheduled) == [f"deadline-{gid}-0-reminder-{due - 900}",
                                 f"deadline-{gid}-0-timeout-{due}"]


def test_a_deadline_job_for_a_past_step_does_nothing(nclient, napp, work, smtp) -> None:
    ann = register(nclient, "ann", "ann@example.org")
    bob = register(nclient, "bob", "bob@example.org")
    gid = start_game(nclient, [ann, bob], options=DUEL, time_control=SLOW)
    work()
    _setup(nclient, gid, ann, 0)
    _setup(nclient, gid, bob, 1)
    work()
    before = nclient.get(f"/v1/games/{gid}").get_json()
    mails = len(smtp.messages)
    assert before["step"] == 1
    assert notify.deadline_job(gid, 0, "reminder") == "past"
    assert notify.deadline_job(gid, 0, "timeout") == "past"
    work()
    assert nclient.get(f"/v1/games/{gid}").get_json() == before
    assert len(smtp.messages) == mails


def test_a_timeout_acts_once_however_often_its_job_runs(nclient, napp, work, smtp,
                                                        travel) -> None:
    ann = register(nclient, "ann", "ann@example.org")
    bob = register(nclient, "bob", "bob@example.org")
    gid = start_game(nclient, [ann, bob], options=DUEL, time_control=SLOW)
    work()
    _setup(nclient, gid, ann, 0)
    _setup(nclient, gid, bob, 1)
    work()
    _setup(nclient, gid, ann, 0)  # Red's first move
    work()
    step = nclient.get(f"/v1/games/{gid}").get_json()["step"]
    assert notify.deadline_job(gid, step, "reminder") == "early"  # an hour is left
    travel(2800)
    assert notify.deadline_job(gid, step, "reminder") == "reminded"
    assert notify.deadline_job(gid, step, "reminder") == "reminded"
    work()
    reminders = [m for m in smtp.messages if m["X-Parley-Event"] == "deadline.reminder"]
    assert [m["To"] for m in reminders] == ["bob@example.org"]  # only Blue is to move
    assert notify.deadline_job(gid, step, "timeout") == "early"
    travel(801)
    assert notify.deadline_job(gid, step, "timeout") == "timed_out"
    assert notify.deadline_job(gid, step, "timeout") == "timed_out"  # the same envelope again
    work()
    summary = nclient.get(f"/v1/games/{gid}").get_json()
    assert summary["status"] == "finished"
    assert summary["result"] == {"winners": [0], "scores": {"0": 0, "1": 0}, "reason": "timeout"}
    audit = nclient.get(f"/v1/games/{gid}/audit").get_json()
    assert [e["envelope"]["key_id"] for e in audit["entries"]] == [
        ann.key_id, bob.key_id, ann.key_id, "server"]
    assert sum(m["X-Parley-Event"] == "deadline.timeout" for m in smtp.messages) == 1
    # the record says what happened: Bob ran out of time; the rules' own events follow
    # unchanged (to the rules a forfeit is a resignation), then the platform's result
    assert _events(nclient, gid)[-4:] == [
        {"type": "timeout", "seat": 1, "forfeit": True}, {"type": "resigned", "seat": 1},
        {"type": "game_over", "result": {**summary["result"], "reason": "resigned"}},
        {"type": "game_finished", "result": summary["result"]}]
    timed_out = next(m for m in smtp.to("bob@example.org")
                     if m["X-Parley-Event"] == "deadline.timeout")
    assert "You ran out of time in Stratego with ann. By the game's time control you " \
           "forfeit the game." in _text(timed_out)
    ann_end, bob_end = (_text(next(m for m in smtp.to(a) if m["X-Parley-Event"] ==
                                   "game.finished")) for a in ("ann@example.org",
                                                               "bob@example.org"))
    assert "\nYou won: bob ran out of time.\n" in ann_end
    assert "\nAnn won: you ran out of time.\n" in bob_end  # a sentence starts with a capital
    assert "\n- Bob ran out of time and forfeited.\n" in ann_end
    assert "\n- You ran out of time and forfeited.\n" in bob_end
    assert "resigned" not in ann_end and "resigned" not in bob_end
    # the verifier re-creates the reason and the event from the server-signed entry alone
    record = nclient.get(f"/v1/games/{gid}/record").get_json()
    report = verify_bundle(record)
    assert report.ok, report.failure
    claimed = copy.deepcopy(record)
    claimed["audit"]["result"]["reason"] = "resigned"
    assert "result: the bundle says" in verify_bundle(claimed).failure
    untold = copy.deepcopy(record)
    untold["events"] = [e for e in untold["events"] if e["event"]["type"] != "timeout"]
    assert verify_bundle(untold).failure.startswith("events: event")


def test_skip_without_an_engine_default_forfeits(nclient, napp, work, travel) -> None:
    ann, bob = register(nclient, "ann"), register(nclient, "bob")
    gid = start_game(nclient, [ann, bob], options=DUEL,
                     time_control={**SLOW, "on_timeout": "skip"})
    work()
    _setup(nclient, gid, ann, 0)
    _setup(nclient, gid, bob, 1)
    work()
    step = nclient.get(f"/v1/games/{gid}").get_json()["step"]
    travel(3601)
    assert notify.deadline_job(gid, step, "timeout") == "timed_out"
    work()
    audit = nclient.get(f"/v1/games/{gid}/audit").get_json()
    moves = [(e["envelope"]["payload"]["seat"], e["envelope"]["payload"]["move"], e["status"])
             for e in audit["entries"]][2:]
    # Stratego has no default move: Red forfeits
    assert moves == [(0, {"type": "resign"}, "applied")]
    assert audit["result"]["winners"] == [1] and audit["result"]["reason"] == "timeout"
    report = verify_bundle(audit)
    assert report.ok, report.failure


def test_a_game_nobody_began_is_aborted_not_lost(nclient, napp, work, travel) -> None:
    ann, bob = register(nclient, "ann"), register(nclient, "bob")
    gid = start_game(nclient, [ann, bob], options=DUEL, time_control=SLOW)
    work()
    _setup(nclient, gid, ann, 0)
    work()
    travel(3601)
    assert notify.deadline_job(gid, 0, "timeout") == "timed_out"
    work()
    summary = nclient.get(f"/v1/games/{gid}").get_json()
    # Blue never set up: no winner, no loser
    assert summary["status"] == "aborted"
    assert summary["result"] == {"winners": [], "scores": {"0": 0, "1": 0},
                                 "reason": "aborted"}
    events = [e for e in _events(nclient, gid) if e["type"] in ("timeout", "game_finished")]
    assert events == [{"type": "timeout", "seat": 1, "forfeit": False, "aborted": True},
                      {"type": "game_finished", "result": summary["result"]}]


def test_a_late_totohu_seat_drops_out_and_the_others_play_on(nclient, napp, work,
                                                             travel) -> None:
    players = [register(nclient, n) for n in ("ann", "bob", "cy")]
    gid = start_game(nclient, players, ruleset="totohu", options={"seat_order": "joined"},
                     time_control=SLOW)
    work()
    moved: set[int] = set()
    while True:  # play on until Cy, who has made a decision already, is to act again
        summary = nclient.get(f"/v1/games/{gid}").get_json()
        cy_again = 2 in summary["to_act"] and 2 in moved
        for seat in [s for s in summary["to_act"] if not (cy_again and s == 2)]:
            view = nclient.get(f"/v1/games/{gid}/view", headers=players[seat].auth).get_json()
            env = players[seat].envelope(gid, seat, view["step"], view["legal_moves"][0])
            assert nclient.post(f"/v1/games/{gid}/moves", json=env).status_code == 202
            moved.add(seat)
        work()
        if cy_again:
            break
    step = nclient.get(f"/v1/games/{gid}").get_json()["step"]
    travel(3601)
    assert notify.deadline_job(gid, step, "timeout") == "timed_out"
    work()
    summary = nclient.get(f"/v1/games/{gid}").get_json()
    assert summary["status"] == "active" and summary["step"] > step
    assert 2 not in summary["to_act"]
    # the game goes on, and everyone may read who ran out of time
    seen = nclient.get(f"/v1/games/{gid}/events", headers=players[0].auth).get_json()
    timeouts = [e for e in seen["events"] if e["event"]["type"] == "timeout"]
    assert [(e["step"], e["event"]) for e in timeouts] == [
        (step, {"type": "timeout", "seat": 2, "forfeit": True})]
