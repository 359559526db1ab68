"""Mail through a real SMTP server (aiosmtpd on loopback), and the Maildir outbox."""

from __future__ import annotations

import mailbox
from urllib.parse import parse_qs, urlsplit

from engines.registry import get_engine
from service.domain.game import resolve_pending
from service.notify import dispatch
from service.storage.keys import NOTIFY_KEY
from tests.notify.conftest import register, start_game

DUEL = {"army": "duel", "seat_order": "joined"}
STRATEGO = get_engine("stratego")


def _view(client, gid, player):
    resp = client.get(f"/v1/games/{gid}/view", headers=player.auth)
    assert resp.status_code == 200
    return resp.get_json()


def _move(client, gid, player, move=None):
    v = _view(client, gid, player)
    env = player.envelope(gid, v["seat"], v["step"], move or v["legal_moves"][0])
    resp = client.post(f"/v1/games/{gid}/moves", json=env)
    assert resp.status_code == 202, resp.get_json()


def _board(view, names=("ann", "bob")) -> str:
    """The board a mail shows this view as: the engine's text with the players' names."""
    return STRATEGO.render_text(view["state"], list(names)).rstrip()


def _body(msg) -> str:
    return msg.get_body(preferencelist=("plain",)).get_content().replace("\r\n", "\n")


def _kinds(box, address):
    return [m["X-Parley-Event"] for m in box.to(address)]


def test_turn_mails_carry_the_seats_own_view_and_links(nclient, work, smtp) -> None:
    ann = register(nclient, "ann", "ann@example.org")
    bob = register(nclient, "bob", "bob@example.org")
    gid = start_game(nclient, [ann, bob], options=DUEL)
    work()
    for address, other in (("ann@example.org", "bob"), ("bob@example.org", "ann")):
        assert _kinds(smtp, address) == ["turn.started"]  # its first line tells the start
        assert {m["Subject"] for m in smtp.to(address)} == {f"Parley: Stratego with {other}"}
    turn = next(m for m in smtp.to("bob@example.org") if m["X-Parley-Event"] == "turn.started")
    body = _body(turn)
    board = _board(_view(nclient, gid, bob))
    assert board in body and "ann (Red)" in board and "seat " not in body.split("\n-- \n")[0]
    assert f"http://127.0.0.1:8000/v1/games/{gid}/view" in body
    assert turn["Auto-Submitted"] == "auto-generated"
    assert turn["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert turn["List-Unsubscribe"].startswith("<http://127.0.0.1:8000/v1/mail/unsubscribe?")

    _move(nclient, gid, ann)  # Red's setup: the same decision, nobody new to tell
    work()
    assert len(smtp.messages) == 2
    _move(nclient, gid, bob)  # Blue's setup closes the decision: Red's turn to move
    work()
    red_turn = [m for m in smtp.to("ann@example.org") if m["X-Parley-Event"] == "turn.started"
                and f"{gid} (stratego), step 1," in _body(m)]
    assert len(red_turn) == 1 and len(smtp.messages) == 3
    red_text, blue_text = _board(_view(nclient, gid, ann)), _board(_view(nclient, gid, bob))
    assert red_text != blue_text
    assert red_text in _body(red_turn[0])
    assert blue_text not in _body(red_turn[0])  # Blue's pieces stay hidden


def test_a_notice_is_mailed_at_most_once_when_jobs_run_again(nclient, napp, work,
                                                             smtp) -> None:
    ann = register(nclient, "ann", "ann@example.org")
    bob = register(nclient, "bob", "bob@example.org")
    gid = start_game(nclient, [ann, bob], options=DUEL)
    work()
    assert len(smtp.messages) == 2  # each seat's start and first turn in one mail
    store, queue = napp.extensions["parley_store"], napp.extensions["parley_queue"]
    ids = [k.split(":")[1] for k in store.r.keys("delivery:msg_*") if k.count(":") == 1]
    assert len(ids) == 2
    for did in ids:  # RQ delivering every job again
        dispatch.enqueue_delivery(queue, did, 1)
    store.r.rpush(f"{{g:{gid}}}:outbox", *[  # and the same notices flushed again
        dispatch.notices.notice(dispatch.notices.TURN_STARTED, s, 0) for s in (0, 1)])
    dispatch.flush(store, queue, napp.config["PARLEY"], gid)
    work()
    assert len(smtp.messages) == 2
    assert {store.r.hget(f"delivery:{d}", "status") for d in ids} == {"delivered"}


def test_a_crash_between_commit_and_dispatch_still_notifies(nclient, napp, work,
                                                            smtp) -> None:
    ann = register(nclient, "ann", "ann@example.org")
    bob = register(nclient, "bob", "bob@example.org")
    gid = start_game(nclient, [ann, bob], options=DUEL)
    work()
    _move(nclient, gid, ann)
    _move(nclient, gid, bob)
    store, queue = napp.extensions["parley_store"], napp.extensions["parley_queue"]
    queue.empty()  # the resolve job is lost; a worker commits and dies before dispatching
    assert resolve_pending(store, gid) == 2
    assert gid in store.r.smembers(NOTIFY_KEY) and store.r.llen(f"{{g:{gid}}}:outbox") == 1
    work()
    assert len(smtp.messages) == 2  # nothing told yet
    from workers import notify

    assert notify.sweep(store, queue) == 1  # the worker's sweep finds the recorded notice
    work()
    assert [m["X-Parley-Event"] for m in smtp.messages[2:]] == ["turn.started"]
    assert f"{gid} (stratego), step 1," in _body(smtp.messages[2])
    assert smtp.messages[2]["To"] == "ann@example.org"
    assert store.r.llen(f"{{g:{gid}}}:outbox") == 0 and not store.r.smembers(NOTIFY_KEY)


def test_mail_can_be_turned_off_per_game_per_kind_and_by_the_link(nclient, napp, work,
                                                                  smtp) -> None:
    ann = register(nclient, "ann", "ann@example.org")
    bob = register(nclient, "bob", "bob@example.org")
    gid = start_game(nclient, [ann, bob], options=DUEL)
    resp = nclient.put(f"/v1/games/{gid}/mail", json={"types": {"turn.started": False}},
                       headers=ann.auth)
    assert resp.status_code == 200 and resp.get_json()["types"]["turn.started"] is False
    assert nclient.put(f"/v1/games/{gid}/mail", json={"types": {"nope": False}},
                       headers=ann.auth).status_code == 422
    carl = register(nclient, "carl")
    assert nclient.get(f"/v1/games/{gid}/mail", headers=carl.auth).get_json()["code"] == \
        "not_seated"
    resp = nclient.put(f"/v1/players/{bob.id}/mail", json={"enabled": False},
                       headers=bob.auth)
    assert resp.status_code == 200 and resp.get_json()["enabled"] is False
    assert nclient.put(f"/v1/players/{bob.id}/mail", json={"enabled": True},
                       headers=ann.auth).status_code == 403
    work()
    assert _kinds(smtp, "ann@example.org") == ["game.started"]
    assert smtp.to("bob@example.org") == []
    r = napp.extensions["parley_store"].r
    statuses = {r.hget(k, "status") for k in r.keys("delivery:msg_*") if k.count(":") == 1}
    assert statuses == {"delivered", "suppressed"}

    link = smtp.to("ann@example.org")[0]["List-Unsubscribe"].strip("<>")
    query = {k: v[0] for k, v in parse_qs(urlsplit(link).query).items()}
    forged = {**query, "token": "0" * 32}
    assert nclient.post("/v1/mail/unsubscribe", query_string=forged).get_json()["code"] == \
        "bad_unsubscribe_link"
    resp = nclient.post(urlsplit(link).path, query_string=query)
    assert resp.status_code == 200 and resp.get_json()["mail"]["enabled"] is False
    assert nclient.get(f"/v1/games/{gid}/mail", headers=ann.auth).get_json()["enabled"] is False
    resp = nclient.post(f"/v1/games/{gid}/moves", json=ann.envelope(
        gid, 0, 0, {"type": "resign"}))
    assert resp.status_code == 202
    work()
    assert len(smtp.to("ann@example.org")) == 1  # no "has ended" mail after unsubscribing


def test_without_smtp_mail_goes_to_the_maildir_outbox(client, run_jobs, config) -> None:
    ann = register(client, "ann", "ann@example.org")
    bob = register(client, "bob")  # no address: no mail
    start_game(client, [ann, bob], options=DUEL)
    run_jobs()
    run_jobs()
    box = mailbox.Maildir(config.DATA_DIR / "outbox", create=False)
    assert [m["X-Parley-Event"] for m in box] == ["turn.started"]  # the start told in it
    assert {m["Subject"] for m in box} == {"Parley: Stratego with bob"}
    assert all(m["To"] == "ann@example.org" for m in box)
