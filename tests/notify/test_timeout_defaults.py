"""Timeouts under `skip` (contract v2 point 6): the engine's default move, checked by the verifier.

Totohu has defaults for its order and raid decisions; a three-seat game reaches the order
decision after one round of ship choices. The verifier must accept the default the server
played, and refuse a finished game whose server-signed timeout action is any other move.
"""

from __future__ import annotations

from typing import Any

from parley_protocol.verify import verify_bundle

from engines.registry import get_engine
from service.domain.chain import append_server_move, server_envelope
from service.notify.prose import Story, seat_namer
from service.storage.resolve_queue import wake
from tests.notify.conftest import register, start_game
from workers import notify

SKIP = {"seconds_per_move": 3600, "reminder_fraction": 0.25, "on_timeout": "skip"}


def _to_order_decision(client: Any, work: Any) -> tuple[str, list, dict]:
    players = [register(client, n) for n in ("ann", "bob", "cy")]
    gid = start_game(client, players, ruleset="totohu", options={"seat_order": "joined"},
                     time_control=SKIP)
    work()
    for _ in range(30):
        summary = client.get(f"/v1/games/{gid}").get_json()
        if summary["step_kind"] == "order":
            return gid, players, summary
        for seat in summary["to_act"]:
            view = client.get(f"/v1/games/{gid}/view", headers=players[seat].auth).get_json()
            env = players[seat].envelope(gid, seat, view["step"], view["legal_moves"][0])
            assert client.post(f"/v1/games/{gid}/moves", json=env).status_code == 202
        work()
    raise AssertionError("no order decision reached")


def _finish(client: Any, work: Any, gid: str, players: list) -> dict:
    """Every seat resigns in turn until the game is over (a seat out already is refused)."""
    for seat in range(3):
        summary = client.get(f"/v1/games/{gid}").get_json()
        if summary["status"] == "finished":
            break
        env = players[seat].envelope(gid, seat, summary["step"], {"type": "resign"})
        client.post(f"/v1/games/{gid}/moves", json=env)
        work()
    audit = client.get(f"/v1/games/{gid}/audit").get_json()
    assert audit["status"] == "finished"
    return audit


def test_a_late_order_is_played_by_default_and_verifies(nclient, napp, work, travel) -> None:
    gid, players, summary = _to_order_decision(nclient, work)
    (late,) = summary["to_act"]
    travel(3601)
    assert notify.deadline_job(gid, summary["step"], "timeout") == "timed_out"
    work()
    after = nclient.get(f"/v1/games/{gid}").get_json()
    assert after["status"] == "active" and after["step"] > summary["step"]
    # recorded as a timeout, then the default move the server played, told as such
    events = nclient.get(f"/v1/games/{gid}/events").get_json()["events"]
    at = [e for e in events if e["step"] == summary["step"]]
    assert at[0]["event"] == {"type": "timeout", "seat": late, "forfeit": False}
    story = Story(seat_namer(["Ann", "Bob", "Cy"], 0), get_engine("totohu"))
    told = [story.sentence(e["seq"], e["event"]) for e in at[:2]]
    who = ["You", "Bob", "Cy"][late]
    assert told[0] == (f"{who} ran out of time; the server played the game's default move "
                       f"for {who.lower() if late == 0 else who}.")
    assert told[1].startswith(f"{who} ordered the encounters: ")
    audit = _finish(nclient, work, gid, players)
    server = [e for e in audit["entries"] if e["envelope"]["key_id"] == "server"]
    assert [(e["envelope"]["payload"]["seat"], e["envelope"]["payload"]["move"], e["status"])
            for e in server] == [(late, {"type": "order", "pairs": [[0, 1], [0, 2], [1, 2]]},
                                  "applied")]
    report = verify_bundle(audit)
    assert report.ok, report.failure
    record = nclient.get(f"/v1/games/{gid}/record").get_json()
    assert audit["result"]["reason"] == "resigned"  # ended by the players, not by the clock
    assert verify_bundle(record).ok  # its events, the timeout among them, are the replay's


def test_a_server_move_that_is_not_the_default_fails_verification(nclient, napp, work,
                                                                  travel) -> None:
    gid, players, summary = _to_order_decision(nclient, work)
    (late,) = summary["to_act"]
    travel(3601)  # the seat is late: only the move the server played is wrong
    store, key = napp.extensions["parley_store"], napp.extensions["parley_server_key"]
    other = {"type": "order", "pairs": [[1, 2], [0, 2], [0, 1]]}  # legal, not the default
    envelope = server_envelope(key, gid, late, summary["step"], other)
    if append_server_move(store, key, envelope).schedule:
        wake(napp.extensions["parley_queue"], gid)  # as the deadline job does
    work()
    audit = _finish(nclient, work, gid, players)
    report = verify_bundle(audit)
    assert not report.ok
    assert "is not the engine's default move" in report.failure
