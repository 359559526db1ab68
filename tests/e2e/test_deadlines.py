"""Deadlines with real parts: `parley web`, `parley worker` processes (RQ scheduler), an SMTP
server and a webhook receiver on loopback. A seat that lets its time run out is reminded, then
forfeits, even when the worker holding the scheduled jobs is killed meanwhile; the game ends on
time, and says so in the result, the mail and the verified record."""

from __future__ import annotations

import pytest
from parley_protocol.verify import verify_bundle
from standardwebhooks import Webhook

from tests import confirming
from tests.notify.conftest import Mailbox, notify_env, receiver, smtp  # noqa: F401  (fixtures)
from tests.players import TestPlayer
from tests.waiting import wait_until

pytestmark = pytest.mark.slow


def _register(server, box: Mailbox, name: str, address: str) -> TestPlayer:
    """Registered, and the address confirmed by the link of the mail the worker sent."""
    player = TestPlayer(name)
    body = server.post("/v1/players", json=player.registration(email=address)).json()
    player.id, player.key_id, player.token = body["id"], body["key_id"], body["token"]
    mail = wait_until(lambda: box.take_confirmation(address), 10, "the confirmation mail")
    assert confirming.follow(server.http, confirming.link_of(mail))["email_confirmed"]
    return player


def test_reminder_then_forfeit_survive_a_killed_worker(smtp, notify_env, receiver,  # noqa: F811
                                                       server) -> None:
    ann = _register(server, smtp, "ann", "ann@example.org")
    bob = _register(server, smtp, "bob", "bob@example.org")
    hook = server.post(f"/v1/players/{bob.id}/webhooks", headers=bob.auth, json={
        "url": receiver.url,
        "types": ["deadline.reminder", "deadline.timeout", "game.finished"]}).json()
    gid = server.post("/v1/games", headers=ann.auth, json={
        "ruleset": "stratego", "players": 2, "options": {"army": "duel", "seat_order": "joined"},
        "time_control": {"seconds_per_move": 12, "reminder_fraction": 0.5,
                         "on_timeout": "forfeit"}}).json()["id"]
    for p in (ann, bob):
        assert server.post(f"/v1/games/{gid}/join", json=p.join_body(gid),
                           headers=p.auth).status_code == 200
    summary = wait_until(lambda: (s := server.get(f"/v1/games/{gid}").json())["status"] == "active"
                         and s, 10, "the game starts")
    assert summary["deadline"] and [d["seat"] for d in summary["deadlines"]] == [0, 1]
    # both set up and Red moves: Blue, who has made a decision, is late (a seat that never
    # made one would abort the game instead)
    for seat, player, to_act in ((0, ann, [1]), (1, bob, [0]), (0, ann, [1])):
        view = server.get(f"/v1/games/{gid}/view", headers=player.auth).json()
        resp = server.post(f"/v1/games/{gid}/moves", json=player.envelope(
            gid, seat, view["step"], view["legal_moves"][0]))
        assert resp.status_code == 202
        wait_until(lambda to_act=to_act: server.get(f"/v1/games/{gid}").json()["to_act"]
                   == to_act, 10, f"seat {seat}'s move")
    # Killed before the reminder (6 s) and the timeout (12 s): the new worker's sweep runs both.
    # (Bob's fourth mail would be the reminder: a kill after it could land mid-delivery of the
    # reminder's webhook, an attempt docs/notifications.md says is then lost.)
    wait_until(lambda: any(m["X-Parley-Event"] == "turn.started"
                           for m in smtp.to("bob@example.org")), 10,
               "the start mails and Bob's turn mail")
    for proc in server.procs[1:]:  # the worker, its work horse and its scheduler: kill -9
        server.kill(proc)
    server.start_worker()

    final = wait_until(lambda: (s := server.get(f"/v1/games/{gid}").json())["status"] == "finished"
                       and s, 30, "the forfeit")
    assert final["result"]["winners"] == [0] and final["deadline"] is None
    assert final["result"]["reason"] == "timeout"
    wait_until(lambda: any(m["X-Parley-Event"] == "game.finished"
                           for m in smtp.to("bob@example.org")), 10,
               "the end mail")
    bob_kinds = [m["X-Parley-Event"] for m in smtp.to("bob@example.org")]
    ann_kinds = [m["X-Parley-Event"] for m in smtp.to("ann@example.org")]
    assert bob_kinds.count("deadline.reminder") == 1
    assert bob_kinds.count("deadline.timeout") == 1
    assert "deadline.reminder" not in ann_kinds and "deadline.timeout" not in ann_kinds
    assert ann_kinds.count("game.finished") == 1
    bob_end = next(m for m in smtp.to("bob@example.org") if m["X-Parley-Event"] ==
                   "game.finished").get_body(preferencelist=("plain",)).get_content()
    assert "Ann won: you ran out of time." in bob_end and "resign" not in bob_end

    wait_until(lambda: len(receiver.requests) >= 3, 10, "three webhook deliveries")
    verifier = Webhook(hook["secret"])
    bodies = {(b := verifier.verify(r["body"], r["headers"]))["type"]: b
              for r in receiver.requests}
    assert sorted(bodies) == ["deadline.reminder", "deadline.timeout", "game.finished"]
    # the reminder tells Bob's clock: running, due within the twelve seconds, none away
    (bob_clock,) = [c for c in bodies["deadline.reminder"]["data"]["clocks"] if c["seat"] == 1]
    assert bob_clock["running"] and 0 <= bob_clock["left"] <= 12
    assert bob_clock["due"] and bob_clock["away_until"] is None

    bundle = server.get(f"/v1/games/{gid}/audit").json()
    report = verify_bundle(bundle)
    assert report.ok, report.render()
    record = server.get(f"/v1/games/{gid}/record").json()
    assert {"type": "timeout", "seat": 1, "forfeit": True} in [e["event"] for e in
                                                               record["events"]]
    assert verify_bundle(record).ok
    forfeits = [e for e in bundle["entries"] if e["envelope"]["key_id"] == "server"]
    assert len(forfeits) == 1 and forfeits[0]["status"] == "applied"
    assert forfeits[0]["envelope"]["payload"]["seat"] == 1
    assert forfeits[0]["envelope"]["payload"]["move"] == {"type": "resign"}
