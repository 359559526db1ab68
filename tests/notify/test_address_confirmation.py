"""An address gets no mail but its confirmation until its owner confirms it (issue 59): two
accounts registered with someone else's address and playing a game send that address one
confirmation mail and nothing more; a mail forged from it is not answered; the owner's click
on the link (a page, then its button) lets the turn mails flow. Confirmation mails are limited
per address and per player, so that they cannot be used to send mail either. Everything runs
through the real SMTP server, real RQ workers and `parley mail-in`'s real receiver."""

from __future__ import annotations

from email.message import EmailMessage

from service.config import Config
from service.notify import digest
from service.storage import mail_replies
from service.storage.keys import confirm_sent_key
from tests import confirming
from tests.notify.conftest import Mailbox, confirm, register, start_game
from tests.notify.test_mail_replies import Inbox
from tests.players import TestPlayer

DUEL = {"army": "duel", "seat_order": "joined"}
VICTIM = "victim@example.org"


def _own(client, player: TestPlayer) -> dict:
    resp = client.get(f"/v1/players/{player.id}", headers=player.auth)
    assert resp.status_code == 200, resp.get_json()
    return resp.get_json()


def _play(client, work, gid: str, players: list[TestPlayer], turns: int) -> None:
    """`turns` rounds of the first legal move of every seat to act."""
    for _ in range(turns):
        for p in players:
            view = client.get(f"/v1/games/{gid}/view", headers=p.auth).get_json()
            if view["seat"] in view["to_act"]:
                env = p.envelope(gid, view["seat"], view["step"], view["legal_moves"][0])
                assert client.post(f"/v1/games/{gid}/moves", json=env).status_code == 202
        work()


def _events(smtp: Mailbox, address: str) -> list[str]:
    return [m["X-Parley-Event"] for m in smtp.to(address)]


def test_an_address_nobody_confirmed_gets_its_confirmation_and_nothing_else(
        nclient, work, smtp) -> None:
    eve = register(nclient, "eve", VICTIM, confirmed=False)
    mallory = register(nclient, "mallory", VICTIM, confirmed=False)
    gid = start_game(nclient, [eve, mallory], options=DUEL)
    work()
    _play(nclient, work, gid, [eve, mallory], 6)
    assert nclient.get(f"/v1/games/{gid}").get_json()["step"] >= 4
    [only] = smtp.to(VICTIM)  # one confirmation: the second account's waits (per address)
    assert only["X-Parley-Event"] == "address.confirmation"
    assert only["Subject"] == "Parley: confirm your email address"
    text = only.get_body(preferencelist=("plain",)).get_content()
    assert confirming.link_of(only) in text
    assert "eve" not in text.lower() and "mallory" not in text.lower()  # no text a player chose
    for p in (eve, mallory):
        assert _own(nclient, p)["email"] == VICTIM and _own(nclient, p)["email_confirmed"] is False
    store = nclient.application.extensions["parley_store"]
    assert mail_replies.player_for_email(store, VICTIM) is None  # not in the address index
    (seat,) = nclient.get(f"/v1/games/{gid}").get_json()["to_act"]
    waiting = (eve, mallory)[seat]
    assert nclient.patch(f"/v1/players/{waiting.id}", json={"mail_digest": "daily"},
                         headers=waiting.auth).get_json()["mail_moves"] is False
    server_key = nclient.application.extensions["parley_server_key"]
    assert digest.send_digest(store, Config(), server_key, waiting.id,
                              store.player(waiting.id)) is False  # no digest either
    assert len(smtp.to(VICTIM)) == 1


def test_the_owner_confirms_by_the_link_and_then_mails_flow(nclient, work, smtp) -> None:
    ann = register(nclient, "ann", "ann@example.org", confirmed=False)
    bob = register(nclient, "bob", "bob@example.org")
    created = nclient.post("/v1/players", json=TestPlayer("cy").registration(
        email="cy@example.org")).get_json()
    assert created["email"] == "cy@example.org" and created["email_confirmed"] is False
    assert created["confirmation_sent"] is True
    work()
    link = confirming.link_of(smtp.take_confirmation("ann@example.org"))
    assert link.startswith("http://127.0.0.1:8000/v1/email/confirm?token=")
    page = nclient.get(link)
    assert page.status_code == 200 and page.mimetype == "text/html"
    assert "ann@example.org" in page.get_data(as_text=True)
    assert _own(nclient, ann)["email_confirmed"] is False  # a link scanner's GET confirms nothing
    done = nclient.post(link, headers={"Accept": "application/json"})
    assert done.status_code == 200
    assert done.get_json() == {"player": ann.id, "email": "ann@example.org",
                               "email_confirmed": True}
    for method in (nclient.post, nclient.get):  # the link works once
        again = method(link)
        assert again.status_code == 404 and again.get_json()["code"] == "bad_confirmation_link"
    assert _own(nclient, ann)["email"] == "ann@example.org"
    assert _own(nclient, ann)["email_confirmed"] is True
    assert "email" not in nclient.get(f"/v1/players/{ann.id}").get_json()  # others see none
    assert "email" not in nclient.get(f"/v1/players/{ann.id}", headers=bob.auth).get_json()
    store = nclient.application.extensions["parley_store"]
    assert mail_replies.player_for_email(store, "ann@example.org") == ann.id

    start_game(nclient, [ann, bob], options=DUEL)
    work()
    assert _events(smtp, "ann@example.org") == ["turn.started"]  # telling the start too

    browser = nclient.post(confirming.link_of(smtp.take_confirmation("cy@example.org")),
                           headers={"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"})
    assert browser.status_code == 200 and browser.mimetype == "text/html"
    assert "confirmed" in browser.get_data(as_text=True)


def test_a_mail_from_an_unconfirmed_address_is_not_answered(napp, nclient, work,
                                                            smtp) -> None:
    inbox = Inbox(napp, lmtp=False)
    try:
        register(nclient, "eve", VICTIM, confirmed=False)
        work()
        forged = EmailMessage()
        forged["From"], forged["To"] = VICTIM, "move-" + "a" * 26 + "@localhost"
        forged["Subject"], forged["Message-ID"] = "Re: your turn", "<forged@example.org>"
        forged.set_content("1\n")
        inbox.send(forged, forged["To"])
        assert inbox.outcome() == ("refused", "unknown_token")
        assert _events(smtp, VICTIM) == ["address.confirmation"]
    finally:
        inbox.controller.stop()


def test_confirmation_mails_are_limited_per_address_and_per_player(napp, nclient, work,
                                                                   smtp) -> None:
    settings = napp.config["PARLEY"]
    settings.CONFIRMS_PER_ADDRESS, settings.CONFIRMS_PER_PLAYER = 2, 3
    ann = register(nclient, "ann", "ann@example.org", confirmed=False)
    resend = f"/v1/players/{ann.id}/email/confirmation"
    early = nclient.post(resend, headers=ann.auth)
    assert early.status_code == 429 and early.get_json()["code"] == "rate_limited"
    assert 1 <= int(early.headers["Retry-After"]) <= settings.CONFIRM_INTERVAL
    other = nclient.post("/v1/players", json=TestPlayer("eve").registration(
        email="ANN@example.org"))  # another account, the same address: registered, no mail
    assert other.status_code == 201 and other.get_json()["confirmation_sent"] is False
    settings.CONFIRM_INTERVAL = 0  # and the interval passed:
    nclient.application.extensions["parley_store"].r.delete(confirm_sent_key("ann@example.org"))
    again = nclient.post(resend, headers=ann.auth)
    assert again.status_code == 202, again.get_json()
    assert again.get_json() == {"email": "ann@example.org", "email_confirmed": False,
                                "confirmation_sent": True}
    capped = nclient.post(resend, headers=ann.auth)  # two a day to one address
    assert capped.status_code == 429 and int(capped.headers["Retry-After"]) > 3600
    work()
    assert _events(smtp, "ann@example.org") == ["address.confirmation"] * 2
    moved = nclient.put(f"/v1/players/{ann.id}/email", json={"email": "ann@example.net"},
                        headers=ann.auth)
    assert moved.status_code == 200 and moved.get_json()["confirmation_sent"] is True
    work()
    assert _events(smtp, "ann@example.net") == ["address.confirmation"]
    moved = nclient.put(f"/v1/players/{ann.id}/email", json={"email": "ann@example.com"},
                        headers=ann.auth)  # three a day for one player
    assert moved.status_code == 200 and moved.get_json() == {
        "email": "ann@example.com", "email_confirmed": False, "confirmation_sent": False}
    assert nclient.post(resend, headers=ann.auth).status_code == 429
    work()
    assert smtp.to("ann@example.com") == [] and smtp.to("ANN@example.org") == []


def test_a_changed_address_is_confirmed_anew(nclient, work, smtp) -> None:
    store = nclient.application.extensions["parley_store"]
    ann = register(nclient, "ann", "ann@example.org")
    bob = register(nclient, "bob", "bob@example.org")
    own = f"/v1/players/{ann.id}/email"
    assert nclient.get(own, headers=ann.auth).get_json() == {"email": "ann@example.org",
                                                             "email_confirmed": True}
    assert nclient.get(own, headers=bob.auth).status_code == 403
    resp = nclient.put(own, json={"email": "ann@example.net"}, headers=ann.auth)
    assert resp.get_json() == {"email": "ann@example.net", "email_confirmed": False,
                               "confirmation_sent": True}
    assert mail_replies.player_for_email(store, "ann@example.org") is None
    again = nclient.put(own, json={"email": "ann@example.net"}, headers=ann.auth)
    assert again.get_json() == {"email": "ann@example.net", "email_confirmed": False,
                                "confirmation_sent": False}  # the waiting one: mailed just now
    start_game(nclient, [ann, bob], options=DUEL)
    work()
    assert _events(smtp, "ann@example.org") == []  # the old address: nothing any more
    assert _events(smtp, "ann@example.net") == ["address.confirmation"]  # the new: not yet
    confirm(nclient, "ann@example.net")
    assert mail_replies.player_for_email(store, "ann@example.net") == ann.id
    same = nclient.put(own, json={"email": "ann@example.net"}, headers=ann.auth)
    assert same.get_json() == {"email": "ann@example.net", "email_confirmed": True,
                               "confirmation_sent": False}
    nothing = nclient.post(f"{own}/confirmation", headers=ann.auth)
    assert nothing.status_code == 409 and nothing.get_json()["code"] == "nothing_to_confirm"

    # a mail queued for an address the player gave up before it went out is not sent
    nclient.put(own, json={"email": "ann@example.info"}, headers=ann.auth)
    nclient.put(own, json={"email": "ann@example.biz"}, headers=ann.auth)
    work()
    assert smtp.to("ann@example.info") == []
    assert _events(smtp, "ann@example.biz") == ["address.confirmation"]
    # a link to an address the player has given up does nothing
    nclient.put(own, json={"email": "ann@example.com"}, headers=ann.auth)
    work()
    stale = confirming.link_of(smtp.take_confirmation("ann@example.com"))
    nclient.put(own, json={"email": None}, headers=ann.auth)
    assert nclient.post(stale).status_code == 404
    assert nclient.get(own, headers=ann.auth).get_json() == {"email": None,
                                                             "email_confirmed": False}
    assert mail_replies.player_for_email(store, "ann@example.net") is None


def test_addresses_from_before_confirmation_count_as_confirmed(nclient) -> None:
    """A player registered by an earlier version has `email` and an index entry: the address
    was mailed before, so it stays confirmed."""
    store = nclient.application.extensions["parley_store"]
    ann = TestPlayer("ann").register(nclient)
    store.update_player(ann.id, {"email": "ann@example.org"})
    mail_replies.index_email(store, "ann@example.org", ann.id)
    assert _own(nclient, ann)["email"] == "ann@example.org"
    assert _own(nclient, ann)["email_confirmed"] is True
