"""Invitations by mail and mail-only players, with real SMTP both ways: an invited address
takes its seat by a reply `join` or by the link's button, a new address becomes a player
without a key who plays by replies alone, and the audit marks that seat and verifies."""

from __future__ import annotations

import re
from email.message import EmailMessage
from typing import Any

import pytest
from parley_protocol.verify import verify_bundle

from service.config import Config
from tests.notify.conftest import Mailbox, register
from tests.notify.test_mail_replies import Inbox, _setup_line, _text, _turn_mail, reply
from tests.notify.test_mail_whole_turns import inbox  # noqa: F401  # the fixture
from tests.players import TestPlayer

DUEL = {"army": "duel", "seat_order": "joined"}
ANN, CID = "ann@example.org", "cid@example.org"


def _open_game(client: Any, host: TestPlayer, seats: int = 2) -> str:
    """A Stratego Duel (three seats: Cartagena) with `host` in its first seat."""
    ruleset, options = ("stratego", DUEL) if seats == 2 else ("cartagena",
                                                              {"seat_order": "joined"})
    resp = client.post("/v1/games", json={"ruleset": ruleset, "options": options,
                                          "players": seats}, headers=host.auth)
    assert resp.status_code == 201, resp.get_json()
    gid = resp.get_json()["id"]
    joined = client.post(f"/v1/games/{gid}/join", json=host.join_body(gid, "ann"),
                         headers=host.auth)
    assert joined.status_code == 200, joined.get_json()
    return gid


def _invite(client: Any, host: TestPlayer, gid: str, address: str) -> Any:
    return client.post(f"/v1/games/{gid}/invitations", json={"email": address},
                       headers=host.auth)


def _invitation(smtp: Mailbox, address: str) -> EmailMessage:
    (msg,) = [m for m in smtp.to(address) if m["X-Parley-Event"] == "game.invitation"]
    return msg


def _token(msg: EmailMessage) -> str:
    found = re.fullmatch(r"join-([a-z2-7]{26})@localhost", msg["Reply-To"])
    assert found, msg["Reply-To"]
    return found[1]


def _answer(smtp: Mailbox, address: str) -> EmailMessage:
    return [m for m in smtp.to(address) if m["X-Parley-Answer"]][-1]


def test_a_mail_only_invitee_joins_by_reply_and_plays_by_mail(nclient, work, smtp,
                                                               inbox: Inbox) -> None:  # noqa: F811
    ann = register(nclient, "Ann", ANN)
    gid = _open_game(nclient, ann)
    sent = _invite(nclient, ann, gid, CID)
    assert sent.status_code == 202, sent.get_json()
    assert sent.get_json() == {"game": gid, "email": CID, "expires_in": 14 * 86400}
    work()
    invitation = _invitation(smtp, CID)
    text = _text(invitation)
    assert '"Ann" invites you to a game of Stratego' in text and "\n  join\n" in text
    assert f"/v1/invitations/{_token(invitation)}" in text

    inbox.send(reply(invitation, CID, "Join"), invitation["Reply-To"])
    assert inbox.outcome() == ("joined", "1")
    assert "You hold seat 1 of game" in _text(_answer(smtp, CID))
    work()
    summary = nclient.get(f"/v1/games/{gid}").get_json()
    assert summary["status"] == "active"
    cid = summary["players"][1]["player"]
    store = nclient.application.extensions["parley_store"]
    record = store.player(cid)
    assert record["mail_only"] == "1" and record["email"] == CID
    assert store.player_keys(cid) == []

    # the mail-only player's setup and then a resignation, by replies alone
    turn = _turn_mail(smtp, CID)
    inbox.send(reply(turn, CID, _setup_line(turn)), turn["Reply-To"])
    assert inbox.outcome()[0] == "played", inbox.outcome()
    _first_move(nclient, ann, gid)  # Ann's setup
    work()
    if nclient.get(f"/v1/games/{gid}").get_json()["to_act"] != [1]:
        _first_move(nclient, ann, gid)
        work()
    turn = _turn_mail(smtp, CID)
    inbox.send(reply(turn, CID, "resign"), turn["Reply-To"])
    assert inbox.outcome()[0] == "played", inbox.outcome()
    work()
    assert nclient.get(f"/v1/games/{gid}").get_json()["status"] == "finished"

    audit = nclient.get(f"/v1/games/{gid}/audit").get_json()
    assert audit["players"][1]["mail_only"] is True and audit["players"][1]["keys"] == {}
    assert "mail_only" not in audit["players"][0]
    report = verify_bundle(audit)
    assert report.ok, report.failure
    assert report.mail_only == [1]
    mail_seqs = [e["seq"] for e in audit["entries"] if e["envelope"]["key_id"] == "mail"]
    assert report.mail_authorised == mail_seqs and len(mail_seqs) == 2
    assert "mail-only: seat 1 joined without a key" in report.render()


def _first_move(client: Any, ann: TestPlayer, gid: str) -> None:
    """Ann's first legal move, whatever the step asks, signed with her key."""
    view = client.get(f"/v1/games/{gid}/view", headers=ann.auth).get_json()
    move = view["legal_moves"][0]
    resp = client.post(f"/v1/games/{gid}/moves",
                       json=ann.envelope(gid, view["seat"], view["step"], move))
    assert resp.status_code == 202, resp.get_json()


def test_the_link_shows_a_page_and_only_its_button_takes_the_seat(nclient, work, smtp) -> None:
    ann = register(nclient, "Ann", ANN)
    gid = _open_game(nclient, ann)
    assert _invite(nclient, ann, gid, CID).status_code == 202
    work()
    token = _token(_invitation(smtp, CID))
    page = nclient.get(f"/v1/invitations/{token}")
    assert page.status_code == 200 and page.mimetype == "text/html"
    assert b'<form method="post">' in page.data and CID.encode() in page.data
    assert "default-src 'none'" in page.headers["Content-Security-Policy"]
    assert nclient.get(f"/v1/games/{gid}").get_json()["status"] == "open"  # a scanner's GET

    taken = nclient.post(f"/v1/invitations/{token}", headers={"Accept": "application/json"})
    assert taken.status_code == 200, taken.get_json()
    body = taken.get_json()
    assert body["mail_only"] is True and body["status"] == "active" and body["seat"] == 1
    again = nclient.post(f"/v1/invitations/{token}", headers={"Accept": "application/json"})
    assert again.status_code == 404 and again.get_json()["code"] == "bad_invitation"
    assert nclient.get(f"/v1/invitations/{'a' * 26}").get_json()["code"] == "bad_invitation"
    assert nclient.get("/v1/invitations/not-a-token").status_code == 404
    assert nclient.post(f"/v1/invitations/{'ä' * 26}").get_json()["code"] == "bad_invitation"


def test_a_player_with_a_key_takes_the_seat_with_a_signed_join(nclient, work, smtp,
                                                                inbox: Inbox) -> None:  # noqa: F811
    """The invitation of an address a player with a key confirmed seats nobody by its link
    or a reply: that player chooses the client seed and signs the join (docs/audit.md §18)."""
    ann = register(nclient, "Ann", ANN)
    bob = register(nclient, "Bob", "bob@example.org")
    gid = _open_game(nclient, ann)
    assert _invite(nclient, ann, gid, "Bob@Example.org").status_code == 202
    work()
    invitation = _invitation(smtp, "Bob@Example.org")
    token = _token(invitation)
    taken = nclient.post(f"/v1/invitations/{token}", headers={"Accept": "application/json"})
    assert (taken.status_code, taken.get_json()["code"]) == (409, "join_with_key")
    assert f"parley join {gid}" in taken.get_json()["detail"]
    inbox.send(reply(invitation, "bob@example.org", "join"), invitation["Reply-To"])
    assert inbox.outcome() == ("answered", "join_with_key")
    assert nclient.get(f"/v1/games/{gid}").get_json()["status"] == "open"
    assert nclient.get(f"/v1/invitations/{token}").status_code == 200  # it stands

    joined = nclient.post(f"/v1/games/{gid}/join", json=bob.join_body(gid, "bob's own"),
                          headers=bob.auth)
    assert joined.get_json()["status"] == "active", joined.get_json()
    audit = nclient.get(f"/v1/games/{gid}/audit").get_json()
    assert audit["joined"] == [ann.id, bob.id] and audit["client_seeds"][1] == "bob's own"
    assert audit["joins"][1]["statement"]["client_seed"] == "bob's own"
    assert "mail_only" not in audit["players"][1]


def test_invitations_are_refused_with_a_reason_and_change_nothing(nclient, work, smtp) -> None:
    ann = register(nclient, "Ann", ANN)
    eve = register(nclient, "Eve", "eve@example.org")
    quiet = register(nclient, "Quiet", "quiet@example.org", confirmed=False)
    gid = _open_game(nclient, ann, seats=3)
    cases = [(eve, gid, CID, 403, "not_seated"),
             (ann, gid, "parley@localhost", 422, "invalid_request"),
             (ann, gid, "not an address", 422, "invalid_request"),
             (ann, "g_nosuchgame", CID, 404, "game_not_found")]
    for who, game, address, status, code in cases:
        resp = _invite(nclient, who, game, address)
        assert (resp.status_code, resp.get_json()["code"]) == (status, code), resp.get_json()
    joined = nclient.post(f"/v1/games/{gid}/join", json=quiet.join_body(gid, "q"),
                          headers=quiet.auth)
    assert joined.status_code == 200
    resp = _invite(nclient, quiet, gid, CID)
    assert (resp.status_code, resp.get_json()["code"]) == (409, "email_unconfirmed")
    work()
    assert not smtp.to(CID)

    for _ in range(Config().INVITES_PER_ADDRESS):
        assert _invite(nclient, ann, gid, CID).status_code == 202
    limited = _invite(nclient, ann, gid, CID)
    assert limited.status_code == 429 and limited.get_json()["code"] == "rate_limited"
    assert int(limited.headers["Retry-After"]) > 0
    work()
    assert len([m for m in smtp.to(CID) if m["X-Parley-Event"] == "game.invitation"]) == 3

    eve_joins = nclient.post(f"/v1/games/{gid}/join", json=eve.join_body(gid, "e"),
                             headers=eve.auth)
    assert eve_joins.get_json()["status"] == "active"
    started = _invite(nclient, ann, gid, "dan@example.org")
    assert (started.status_code, started.get_json()["code"]) == (409, "game_not_open")


def test_replies_to_an_invitation(nclient, work, smtp, inbox: Inbox) -> None:  # noqa: F811
    ann = register(nclient, "Ann", ANN)
    gid = _open_game(nclient, ann)
    assert _invite(nclient, ann, gid, CID).status_code == 202
    work()
    invitation = _invitation(smtp, CID)
    to = invitation["Reply-To"]

    inbox.send(reply(invitation, "mallory@example.org", "join"), to)
    assert inbox.outcome() == ("refused", "wrong_sender")
    assert not smtp.to("mallory@example.org")

    inbox.send(reply(invitation, CID, "yes please"), to)
    assert inbox.outcome() == ("answered", "no_join")
    assert "with the word 'join'" in _text(_answer(smtp, CID))

    # the seat went to someone else meanwhile: the answer says so, and the invitation stands
    bob = register(nclient, "Bob", "bob@example.org")
    assert nclient.post(f"/v1/games/{gid}/join", json=bob.join_body(gid, "b"),
                        headers=bob.auth).status_code == 200
    inbox.send(reply(invitation, CID, "join"), to)
    assert inbox.outcome() == ("answered", "game_not_open")
    assert "The invitation stands" in _text(_answer(smtp, CID))
    assert nclient.get(f"/v1/invitations/{_token(invitation)}").status_code == 200


@pytest.mark.parametrize("words", ["join", "JOIN!", "Join\nthanks"])
def test_join_is_read_without_regard_to_case(nclient, work, smtp, inbox: Inbox,  # noqa: F811
                                             words: str) -> None:
    ann = register(nclient, "Ann", ANN)
    gid = _open_game(nclient, ann)
    assert _invite(nclient, ann, gid, CID).status_code == 202
    work()
    invitation = _invitation(smtp, CID)
    inbox.send(reply(invitation, CID, words), invitation["Reply-To"])
    assert inbox.outcome() == ("joined", "1")


def _claim_code(smtp: Mailbox, address: str) -> str:
    (msg,) = [m for m in smtp.to(address) if m["X-Parley-Event"] == "player.key_claim"]
    return re.search(r"parley claim (\S+) --server", _text(msg))[1]


def test_a_mail_only_player_adds_a_key_later_and_signs_moves_with_it(nclient, work,
                                                                     smtp) -> None:
    ann = register(nclient, "Ann", ANN)
    gid = _open_game(nclient, ann)
    assert _invite(nclient, ann, gid, CID).status_code == 202
    work()
    taken = nclient.post(f"/v1/invitations/{_token(_invitation(smtp, CID))}",
                         headers={"Accept": "application/json"}).get_json()
    cid_id = taken["player"]

    # an address of no mail-only player gets nothing, and the answer is the same
    for address in ("nobody@example.org", ANN, CID):
        asked = nclient.post("/v1/key-claims", json={"email": address})
        assert asked.status_code == 202 and asked.get_json() == {"email": address}
    work()
    assert not [m for m in smtp.to(ANN) if m["X-Parley-Event"] == "player.key_claim"]
    code = _claim_code(smtp, CID)
    assert nclient.get(f"/v1/key-claims/{code}").get_json() == {"player": cid_id}

    cid = TestPlayer("cid")
    wrong = {**cid.key_for(cid_id), "proof": cid.key_for("p_someoneelse")["proof"]}
    refused = nclient.post(f"/v1/key-claims/{code}", json=wrong)
    assert (refused.status_code, refused.get_json()["code"]) == (422, "bad_key_proof")
    added = nclient.post(f"/v1/key-claims/{code}", json=cid.key_for(cid_id))  # still works
    assert added.status_code == 201, added.get_json()
    body = added.get_json()
    cid.id, cid.key_id, cid.token = cid_id, body["key_id"], body["token"]
    assert body["id"] == cid_id and body["email"] == CID
    again = nclient.post(f"/v1/key-claims/{code}", json=TestPlayer("x").key_for(cid_id))
    assert (again.status_code, again.get_json()["code"]) == (404, "bad_claim_code")
    store = nclient.application.extensions["parley_store"]
    assert "mail_only" not in store.player(cid_id)
    assert nclient.get(f"/v1/players/{cid_id}", headers=cid.auth).get_json()["email"] == CID

    # the seat taken by mail stays marked so; the new key signs the player's moves there
    _first_move(nclient, ann, gid)
    _first_move(nclient, cid, gid)
    work()
    resign = nclient.get(f"/v1/games/{gid}/view", headers=cid.auth).get_json()
    while 1 not in resign["to_act"]:
        _first_move(nclient, ann, gid)
        work()
        resign = nclient.get(f"/v1/games/{gid}/view", headers=cid.auth).get_json()
    resp = nclient.post(f"/v1/games/{gid}/moves", json=cid.envelope(
        gid, 1, resign["step"], {"type": "resign"}))
    assert resp.status_code == 202
    work()
    audit = nclient.get(f"/v1/games/{gid}/audit").get_json()
    assert audit["status"] == "finished"
    assert audit["players"][1]["mail_only"] is True
    assert list(audit["players"][1]["keys"]) == [cid.key_id]
    report = verify_bundle(audit)
    assert report.ok, report.failure
    assert report.mail_only == [1] and report.mail_authorised == []
