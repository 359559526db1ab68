"""The verifier recomputes every seat's clock (docs/audit.md §17): real timed games, played
through the server and its deadline jobs with the server's clock moved ahead (`travel`),
verify with the timing of their timeout actions checked; a server that acts too early, times
out a seat that is not asked to act, aborts a game whose late seat had moved or forfeits one
that never moved is caught; time given and vacations count; the clocks record's shape is
checked."""

# ruff: noqa: F811  # the fixtures of tests/notify, imported below, are the tests' arguments

from __future__ import annotations

import copy
from typing import Any

import orjson
import pytest
from parley_protocol import signing
from parley_protocol.clocks import Clocks, iso
from parley_protocol.timeouts import aborted_result
from parley_protocol.verify import verify_bundle

from service.domain import game_clocks
from service.domain.game import load_game
from service.notify import dispatch
from service.ops import clock, fsck
from tests.notify.conftest import (  # noqa: F401  # the fixtures
    napp,
    nclient,
    notify_env,
    register,
    smtp,
    start_game,
    work,
)
from workers import notify

DUEL = {"army": "duel", "seat_order": "joined"}
HOUR = 3600
#: an hour each, ten minutes more after each turn, never above an hour and a half
FISCHER = {"system": "fischer", "initial": HOUR, "increment": 600, "maximum": 5400,
           "on_timeout": "forfeit"}


def _post(client: Any, gid: str, player: Any, seat: int) -> None:
    view = client.get(f"/v1/games/{gid}/view", headers=player.auth).get_json()
    resp = client.post(f"/v1/games/{gid}/moves",
                       json=player.envelope(gid, seat, view["step"], view["legal_moves"][0]))
    assert resp.status_code == 202, resp.get_json()


def _blue_to_move(client: Any, work: Any, time_control: dict) -> tuple[str, list]:
    """A Duel in which both players set up and Red made the first move: Blue's clock runs."""
    ann, bob = register(client, "ann"), register(client, "bob")
    gid = start_game(client, [ann, bob], options=DUEL, time_control=time_control)
    work()
    _post(client, gid, ann, 0)
    _post(client, gid, bob, 1)
    work()
    _post(client, gid, ann, 0)
    work()
    summary = client.get(f"/v1/games/{gid}").get_json()
    assert summary["to_act"] == [1] and summary["step"] == 2
    return gid, [ann, bob]


def _meta(napp: Any, gid: str) -> dict[str, str]:
    return napp.extensions["parley_store"].r.hgetall(f"{{g:{gid}}}:meta")


def _due(napp: Any, gid: str, seat: int) -> int:
    """When the server says the seat's clock runs out (gifts given so far included)."""
    clocks, gifts = game_clocks.game_clocks(load_game(napp.extensions["parley_store"], gid))
    due = clocks.due(seat, gifts)
    assert due is not None
    return due


def _time_out_now(napp: Any, gid: str, seats: list[int], moved: bool | None = None
                  ) -> None:
    """The dispatcher's timeout action for `seats`, taken at once whatever the clocks say: a
    server that acts too early (with `moved`, one that also believes every seat has or has
    not made a decision of its own)."""
    store = napp.extensions["parley_store"]
    game = load_game(store, gid)
    clocks = game_clocks.game_clocks(game)[0]
    if moved is not None:
        clocks.moved = [moved] * len(clocks.moved)
    dispatch._time_out(store, napp.extensions["parley_queue"],
                       napp.extensions["parley_server_key"], game, seats, clocks)


def _audit(client: Any, gid: str) -> dict[str, Any]:
    audit = client.get(f"/v1/games/{gid}/audit").get_json()
    assert audit["status"] in ("finished", "aborted"), audit["status"]
    return audit


def _signed_again(bundle: dict[str, Any], napp: Any) -> dict[str, Any]:
    """The bundle signed again with the server's key: what a dishonest server could publish."""
    unsigned = {k: v for k, v in bundle.items() if k != "signature"}
    key = napp.extensions["parley_server_key"]
    return {**unsigned, "signature": signing.b64url_encode(
        key.sign(signing.BUNDLE_PREFIX + signing.canonical(unsigned)))}


def _timed_out_game(nclient: Any, napp: Any, work: Any, travel: Any
                    ) -> tuple[str, dict[str, Any], int]:
    """Blue lets its Fischer clock run out: (game, bundle, Blue's due moment)."""
    gid, _ = _blue_to_move(nclient, work, FISCHER)
    due = _due(napp, gid, 1)
    travel(due - clock.now() - 60)
    assert notify.deadline_job(gid, 2, "timeout") == "early"  # a minute is left
    travel(61)
    assert notify.deadline_job(gid, 2, "timeout") == "timed_out"
    work()
    return gid, _audit(nclient, gid), due


def test_a_timed_out_fischer_game_verifies_with_its_timing_checked(
        nclient, napp, work, travel) -> None:
    gid, audit, due = _timed_out_game(nclient, napp, work, travel)
    assert audit["result"]["reason"] == "timeout" and audit["result"]["winners"] == [0]
    timeout = audit["entries"][-1]
    assert timeout["envelope"]["key_id"] == "server"
    assert set(audit["clocks"]) == {"started_at", "zones", "away", "gifts"}
    report = verify_bundle(audit)
    assert report.ok, report.failure
    assert report.timing_checked is True and report.timeouts == [4]
    assert report.timeouts_timed == 1 and not report.aborted
    text = report.render()
    assert "clocks: fischer, 3600 s + 600 s a turn up to 5400 s; started " in text
    assert "timing: every seat's clock recomputed; 1 timeout action (entry 4), taken once " \
           "its seat's clock had run out" in text
    assert text.endswith("\nVERIFIED")
    record = nclient.get(f"/v1/games/{gid}/record").get_json()
    assert verify_bundle(record).ok

    # the same timeout stamped a second before Blue's clock ran out: the server's word
    # (accepted_at) contradicts its own clocks
    early = copy.deepcopy(audit)
    early["entries"][-1]["accepted_at"] = iso(due - 1)
    report = verify_bundle(_signed_again(early, napp))
    assert report.failure == (
        f"entry 4: a timeout action for seat 1 accepted at {iso(due - 1)}, before the seat's "
        f"clock ran out at {iso(due)} (1 s left)")


def test_a_bundle_without_clocks_verifies_without_the_timing(nclient, napp, work,
                                                            travel) -> None:
    _, audit, _ = _timed_out_game(nclient, napp, work, travel)
    del audit["clocks"]  # as a bundle made before clocks existed
    report = verify_bundle(_signed_again(audit, napp))
    assert report.ok, report.failure
    assert report.timing_checked is False and report.timeouts == [4]
    assert report.timeouts_timed == 0
    text = report.render()
    assert "timing: the bundle has no clocks record: the timing of 1 timeout action " \
           "(entry 4) was not checked" in text
    assert text.endswith("\nVERIFIED, except when its timeout actions were taken: the bundle "
                         "has no clocks record")


def test_a_game_whose_seat_never_set_up_is_aborted_and_verifies(
        nclient, napp, work, travel) -> None:
    ann, bob = register(nclient, "ann"), register(nclient, "bob")
    gid = start_game(nclient, [ann, bob], options=DUEL, time_control=FISCHER)
    work()
    _post(nclient, gid, ann, 0)  # Red sets up, Blue never does
    work()
    due = _due(napp, gid, 1)
    travel(due - clock.now() + 1)
    assert notify.deadline_job(gid, 0, "timeout") == "timed_out"
    work()
    audit = _audit(nclient, gid)
    assert audit["result"] == aborted_result(2)
    abort = audit["entries"][-1]
    assert abort["envelope"]["key_id"] == "server" and abort["status"] == "applied"
    assert abort["envelope"]["payload"]["move"] == {"type": "abort"}
    assert [h["seq"] for h in audit["state_hashes"]] == [0, 1, 2]  # the abort has its hash
    assert audit["state_hashes"][-1]["hash"] == audit["state_hashes"][-2]["hash"]
    report = verify_bundle(audit)
    assert report.ok, report.failure
    assert report.aborted and report.timeouts == [2] and report.timeouts_timed == 1
    assert '(aborted: a seat never made a decision in time)' in report.render()

    # the abort taken before Blue's clock ran out, or with another result, fails
    early = copy.deepcopy(audit)
    early["entries"][-1]["accepted_at"] = iso(due - 30)
    failure = verify_bundle(_signed_again(early, napp)).failure
    assert failure.startswith(f"entry 2: an abort for seat 1 accepted at {iso(due - 30)}, "
                              f"before the seat's clock ran out at {iso(due)}")
    won = copy.deepcopy(audit)
    won["result"] = {"winners": [0], "scores": {"0": 1, "1": 0}, "reason": "timeout"}
    assert verify_bundle(_signed_again(won, napp)).failure.startswith("result: the bundle says")


def _work_without_the_recheck(monkeypatch, work) -> None:
    """Resolve as a dishonest server would: without refusing stale timeout actions
    (`Clocks.refusal`, which the server's resolve and the verifier share)."""
    with monkeypatch.context() as m:
        m.setattr(Clocks, "refusal", lambda *_args: None)
        work()



def test_an_abort_of_a_seat_that_had_moved_fails(nclient, napp, work, travel, monkeypatch) -> None:
    gid, _ = _blue_to_move(nclient, work, FISCHER)
    travel(_due(napp, gid, 1) - clock.now() + 1)
    # a server that believes Blue never made a decision of its own (it set up, entry 2)
    _time_out_now(napp, gid, [1], moved=False)
    _work_without_the_recheck(monkeypatch, work)
    audit = _audit(nclient, gid)
    assert audit["result"] == aborted_result(2)
    assert verify_bundle(audit).failure == (
        "entry 4: an abort for seat 1, which had made a decision of its own (entry 2): the "
        "game's timeout policy applies")


def test_a_forfeit_of_a_seat_that_never_moved_fails(nclient, napp, work,
                                                    travel) -> None:
    ann, bob = register(nclient, "ann"), register(nclient, "bob")
    gid = start_game(nclient, [ann, bob], options=DUEL, time_control=FISCHER)
    work()
    _post(nclient, gid, ann, 0)
    work()
    travel(HOUR + 5)
    _time_out_now(napp, gid, [1], moved=True)  # a server that believes Blue had set up
    work()
    audit = _audit(nclient, gid)
    assert audit["result"]["reason"] == "timeout"
    assert verify_bundle(audit).failure == (
        "entry 2: a timeout action other than an abort for seat 1, which had made no decision "
        "of its own: the game should have been aborted")


def test_a_server_that_times_out_too_early_is_caught(nclient, napp, work, travel,
                                                     monkeypatch) -> None:
    gid, _ = _blue_to_move(nclient, work, FISCHER)
    due = _due(napp, gid, 1)
    travel(due - clock.now() - 600)  # ten minutes before Blue's clock runs out
    assert notify.deadline_job(gid, 2, "timeout") == "early"
    _time_out_now(napp, gid, [1])
    _work_without_the_recheck(monkeypatch, work)
    audit = _audit(nclient, gid)
    assert audit["result"]["winners"] == [0]  # the server went ahead
    accepted = audit["entries"][-1]["accepted_at"]
    failure = verify_bundle(audit).failure
    assert failure.startswith(f"entry 4: a timeout action for seat 1 accepted at {accepted}, "
                              f"before the seat's clock ran out at {iso(due)} (")


def test_a_timeout_of_a_seat_not_asked_to_act_is_caught(nclient, napp, work,
                                                        travel, monkeypatch) -> None:
    gid, _ = _blue_to_move(nclient, work, FISCHER)
    travel(2 * HOUR)
    _time_out_now(napp, gid, [0])  # Red, who has moved and waits for Blue
    _work_without_the_recheck(monkeypatch, work)
    audit = _audit(nclient, gid)
    assert audit["result"]["winners"] == [1]
    assert verify_bundle(audit).failure == (
        "entry 4: a timeout action for seat 0, whose clock was not running (the seat was not "
        "asked to act, or had already made its move)")


def test_time_given_and_a_vacation_are_honoured(nclient, napp, work, travel) -> None:
    gid, _ = _blue_to_move(nclient, work, FISCHER)
    before = _due(napp, gid, 1)
    now = int(clock.now())
    store = napp.extensions["parley_store"]
    # until the requests for them land, written as they will write them
    # (service/domain/game_clocks.py): Red gives Blue half an hour after entry 3, and Blue's
    # player goes away for two hours from now
    store.r.hset(f"{{g:{gid}}}:meta", mapping={
        "gifts": orjson.dumps([{"seat": 1, "by": 0, "seconds": 1800, "at": now,
                                "after_seq": 3}]).decode(),
        "away": orjson.dumps({"1": [[now, now + 2 * HOUR]]}).decode()})
    due = _due(napp, gid, 1)
    assert due == before + 1800 + 2 * HOUR
    travel(due - clock.now() - 60)
    assert notify.deadline_job(gid, 2, "timeout") == "early"
    travel(61)
    assert notify.deadline_job(gid, 2, "timeout") == "timed_out"
    work()
    audit = _audit(nclient, gid)
    assert audit["clocks"]["gifts"] == [{"seat": 1, "by": 0, "seconds": 1800, "at": iso(now),
                                         "after_seq": 3}]
    assert audit["clocks"]["away"] == [{"seat": 1, "from": iso(now),
                                        "to": iso(now + 2 * HOUR)}]
    report = verify_bundle(audit)
    assert report.ok, report.failure
    assert report.timeouts_timed == 1
    assert "1 vacation, 1 gift of time" in report.render()

    # a timeout when Blue's clock would have run out without the time given and the
    # vacation: too early with them, in time without them
    early = copy.deepcopy(audit)
    early["entries"][-1]["accepted_at"] = iso(before)
    assert verify_bundle(_signed_again(early, napp)).failure == (
        f"entry 4: a timeout action for seat 1 accepted at {iso(before)}, before the seat's "
        f"clock ran out at {iso(due)} ({due - before} s left)")
    early["clocks"]["gifts"] = []
    assert verify_bundle(_signed_again(early, napp)).failure == (
        f"entry 4: a timeout action for seat 1 accepted at {iso(before)}, before the seat's "
        f"clock ran out at {iso(before + 2 * HOUR)} ({2 * HOUR} s left)")
    early["clocks"]["away"] = []
    report = verify_bundle(_signed_again(early, napp))
    assert report.ok, report.failure


@pytest.mark.parametrize(("label", "change", "expected"), [
    ("an extra member", lambda c: c.update(note="x"),
     "clocks: the record must have exactly"),
    ("a missing member", lambda c: c.pop("gifts"), "clocks: the record must have exactly"),
    ("a start with a fraction", lambda c: c.update(started_at="2026-11-23T09:00:00.5Z"),
     "clocks.started_at: '2026-11-23T09:00:00.5Z' is not a moment"),
    ("a zone too few", lambda c: c["zones"].pop(), "clocks.zones: expected a list of 2 zones"),
    ("a vacation of no seat", lambda c: c["away"].append(
        {"seat": 2, "from": "2026-11-23T09:00:00Z", "to": "2026-11-24T09:00:00Z"}),
     "clocks.away[0]: no seat 2"),
    ("a vacation ending before it begins", lambda c: c["away"].append(
        {"seat": 1, "from": "2026-11-24T09:00:00Z", "to": "2026-11-23T09:00:00Z"}),
     "clocks.away[0]: it ends before it begins"),
    ("a gift with an extra member", lambda c: c["gifts"].append(
        {"seat": 1, "by": 0, "seconds": 60, "at": "2026-11-23T09:00:00Z", "after_seq": 1,
         "why": "x"}), "clocks.gifts[0]: a gift must have exactly"),
    ("gifts out of order", lambda c: c["gifts"].extend(
        [{"seat": 1, "by": 0, "seconds": 60, "at": "2026-11-23T09:00:00Z", "after_seq": 2},
         {"seat": 1, "by": 0, "seconds": 60, "at": "2026-11-23T09:00:00Z", "after_seq": 1}]),
     "clocks.gifts[1]: given after entry 1, yet listed after a gift given after entry 2"),
    ("a gift of no time", lambda c: c["gifts"].append(
        {"seat": 1, "by": 0, "seconds": 0, "at": "2026-11-23T09:00:00Z", "after_seq": 1}),
     "clocks.gifts[0]: 'seconds' must be a positive whole number"),
])
def test_a_clocks_record_of_the_wrong_shape_fails(nclient, napp, work, travel, label: str,
                                                  change: Any, expected: str) -> None:
    _, audit, _ = _timed_out_game(nclient, napp, work, travel)
    change(audit["clocks"])
    failure = verify_bundle(_signed_again(audit, napp)).failure
    assert failure is not None and failure.startswith(expected), (label, failure)


def test_an_honest_server_refuses_a_stale_timeout(nclient, napp, work, travel) -> None:
    gid, _ = _blue_to_move(nclient, work, FISCHER)
    due = _due(napp, gid, 1)
    travel(due - clock.now() - 600)  # the job acts on what it read; Blue's time is not up
    _time_out_now(napp, gid, [1])
    work()
    audit = nclient.get(f"/v1/games/{gid}/audit").get_json()
    assert audit["status"] == "active" and audit["result"] is None
    last = audit["entries"][-1]
    assert (last["status"], last["code"]) == ("rejected", "not_late")
    report = verify_bundle(audit, partial=True)
    assert report.ok, report.failure


def test_a_timeout_after_the_seats_own_move_is_refused(nclient, napp, work, travel) -> None:
    ann, bob = register(nclient, "ann"), register(nclient, "bob")
    gid = start_game(nclient, [ann, bob], options=DUEL, time_control=FISCHER)
    work()
    travel(HOUR + 5)  # both setups are late
    _post(nclient, gid, ann, 0)  # Red's setup comes in, not yet resolved...
    _time_out_now(napp, gid, [0, 1])  # ...as the job, which read the clocks before, acts
    work()
    audit = nclient.get(f"/v1/games/{gid}/audit").get_json()
    assert [(e["status"], e.get("code")) for e in audit["entries"]] == [
        ("applied", None), ("rejected", "not_late")]  # Red's setup stands, its abort does not
    assert audit["status"] == "active"
    report = verify_bundle(audit, partial=True)
    assert report.ok, report.failure
    # and the server's own check of its store agrees
    assert fsck.check_game(napp.extensions["parley_store"], gid,
                           napp.extensions["parley_server_key"]).problems == []
