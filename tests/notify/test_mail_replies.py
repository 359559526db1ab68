"""Moves by mail reply, with real SMTP both ways: the game's mails go out to an aiosmtpd server
on loopback, and the players' replies come in through `parley mail-in`'s own receiver (SMTP and
LMTP) on loopback. A Stratego Duel is played to its end by replies alone; every kind of bad
reply is answered in the thread; bounces, automatic replies and loops are never answered; the
audit shows which moves were authorised by mail, and verifies."""

from __future__ import annotations

import re
import smtplib
from collections.abc import Iterator
from email.message import EmailMessage
from email.utils import make_msgid

import pytest
from parley_protocol.verify import verify_bundle

from service.config import Config
from service.notify import mail_in
from service.ops.ports import free_port
from tests.notify.conftest import Mailbox, register, start_game

DUEL = {"army": "duel", "seat_order": "joined"}


class Inbox:
    """`parley mail-in`'s receiver, started in this process on the app's store and queue."""

    def __init__(self, napp, lmtp: bool) -> None:
        self.port = free_port()
        self.lmtp = lmtp
        config = Config()
        config.MAIL_IN_PORT = self.port
        self.handler = mail_in.ReplyHandler(config, napp.extensions["parley_store"],
                                            napp.extensions["parley_queue"],
                                            napp.extensions["parley_server_key"])
        self.controller = mail_in.start(config, lmtp, self.handler)

    def send(self, msg: EmailMessage, to: str, mail_from: str | None = None) -> None:
        """Deliver as a mail server does: the envelope recipient is the reply address."""
        cls = smtplib.LMTP if self.lmtp else smtplib.SMTP
        with cls("127.0.0.1", self.port) as client:
            client.send_message(msg, from_addr=msg["From"] if mail_from is None else mail_from,
                                to_addrs=[to])

    def outcome(self) -> tuple[str, str]:
        last = self.handler.outcomes[-1]
        return last.kind, last.detail


@pytest.fixture
def inbox(napp) -> Iterator[Inbox]:
    box = Inbox(napp, lmtp=False)
    yield box
    box.controller.stop()


def _text(msg: EmailMessage) -> str:
    return msg.get_body(preferencelist=("plain",)).get_content().replace("\r\n", "\n")


def reply(to_mail: EmailMessage, sender: str, words: str, **headers: str) -> EmailMessage:
    """A person's reply: their words above the quoted mail, as mail clients write it."""
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = to_mail["Reply-To"] or to_mail["From"]
    msg["Subject"] = f"Re: {to_mail['Subject']}"
    msg["Message-ID"] = make_msgid(domain="example.org")
    msg["In-Reply-To"] = to_mail["Message-ID"]
    for name, value in headers.items():
        msg[name.replace("_", "-")] = value
    quoted = "\n".join(f"> {line}" for line in _text(to_mail).splitlines())
    msg.set_content(f"{words}\n\nOn Thu, 26 Nov 2026, Parley wrote:\n{quoted}\n")
    return msg


def _turn_mail(smtp: Mailbox, address: str) -> EmailMessage:
    mail = [m for m in smtp.to(address) if m["X-Parley-Event"] in ("turn.started",
                                                                    "turn.reminder")][-1]
    assert re.fullmatch(r"move-[a-z2-7]{26}@localhost", mail["Reply-To"])
    return mail


def _answers(smtp: Mailbox, address: str) -> list[EmailMessage]:
    return [m for m in smtp.to(address) if m["X-Parley-Answer"]]


def _setup_line(mail: EmailMessage) -> str:
    return re.search(r"For example: '(setup [^']+)'", _text(mail).replace("\n", " "))[1]


def test_a_duel_is_played_to_its_end_by_mail_replies_alone(nclient, work, smtp, inbox) -> None:
    ann = register(nclient, "Ann", "ann@example.org")
    bob = register(nclient, "Bob", "bob@example.org")
    gid = start_game(nclient, [ann, bob], options=DUEL)
    work()
    # the setups: the mail shows an example arrangement; each player replies with it
    for person in ("ann", "bob"):
        address = f"{person}@example.org"
        turn = _turn_mail(smtp, address)
        assert "To play, reply to this mail with your move" in _text(turn)
        inbox.send(reply(turn, address, _setup_line(turn)), turn["Reply-To"])
        assert inbox.outcome()[0] == "played"
    work()
    plies = 0
    while plies < 16:  # then Bob resigns by reply: the game ends by mail
        summary = nclient.get(f"/v1/games/{gid}").get_json()
        (seat,) = summary["to_act"]
        address = ("ann", "bob")[seat] + "@example.org"
        turn = _turn_mail(smtp, address)
        text = _text(turn)
        numbers = re.findall(r"^\s+(\d+)  ", text, re.MULTILINE)
        assert numbers and "the number of your move" in text
        # the thread: the turn mail answers the thread's root
        assert turn["References"] == f"<game-{gid}-{(ann, bob)[seat].id}@parley>"
        inbox.send(reply(turn, address, numbers[plies % len(numbers)]), turn["Reply-To"])
        assert inbox.outcome()[0] == "played", inbox.outcome()
        work()
        after = nclient.get(f"/v1/games/{gid}").get_json()
        assert after["step"] > summary["step"]
        if after["status"] == "finished":
            break
        plies += 1
    if nclient.get(f"/v1/games/{gid}").get_json()["status"] != "finished":
        (seat,) = nclient.get(f"/v1/games/{gid}").get_json()["to_act"]
        address = ("ann", "bob")[seat] + "@example.org"
        turn = _turn_mail(smtp, address)
        inbox.send(reply(turn, address, "resign"), turn["Reply-To"])
        assert inbox.outcome()[0] == "played"
        work()
    final = nclient.get(f"/v1/games/{gid}").get_json()
    assert final["status"] == "finished"
    ended = [m for m in smtp.to("ann@example.org") if m["X-Parley-Event"] == "game.finished"]
    assert len(ended) == 1 and "has ended" in _text(ended[0])
    assert not _answers(smtp, "ann@example.org") and not _answers(smtp, "bob@example.org")

    audit = nclient.get(f"/v1/games/{gid}/audit").get_json()
    by_mail = [e for e in audit["entries"] if e["envelope"]["key_id"] == "mail"]
    assert len(by_mail) == len(audit["entries"]) >= 4  # every move of this game came by mail
    report = verify_bundle(audit)
    assert report.ok, report.failure
    assert report.mail_authorised == [e["seq"] for e in by_mail]
    assert "mail-authorised: " in report.render()


def _started(nclient, work, smtp) -> tuple:
    ann = register(nclient, "Ann", "ann@example.org")
    bob = register(nclient, "Bob", "bob@example.org")
    gid = start_game(nclient, [ann, bob], options=DUEL)
    work()
    return ann, bob, gid


def test_every_kind_of_bad_reply_is_answered_in_the_thread(nclient, work, smtp, inbox) -> None:
    ann, bob, gid = _started(nclient, work, smtp)
    turn = _turn_mail(smtp, "ann@example.org")
    step = nclient.get(f"/v1/games/{gid}").get_json()["step"]
    cases = [("", "no_move"), ("> only the quote", "no_move"),
             ("e2-e4 please", "bad_notation"), ("7", "no_move")]
    for words, code in cases:
        inbox.send(reply(turn, "ann@example.org", words), turn["Reply-To"])
        assert inbox.outcome() == ("answered", code), words
        answer = _answers(smtp, "ann@example.org")[-1]
        assert answer["X-Parley-Answer"] == code
        assert answer["Subject"] == "Re: Parley: Stratego with Bob"
        assert answer["Auto-Submitted"] == "auto-replied"
        assert answer["References"].split()[0] == f"<game-{gid}-{ann.id}@parley>"
        assert "could not be played" in _text(answer) and "For example: 'setup" in _text(answer)
        assert answer["Reply-To"] == turn["Reply-To"]  # still this turn: the same token
    # an illegal setup (a piece twice on one square is not readable; a short army is illegal)
    inbox.send(reply(turn, "ann@example.org", "setup a1=F"), turn["Reply-To"])
    kind, code = inbox.outcome()
    assert kind == "answered" and code not in ("no_move", "bad_notation")
    assert nclient.get(f"/v1/games/{gid}").get_json()["step"] == step  # nothing changed

    # an unknown token, from a registered player: answered, without a game
    fake = "move-" + "a" * 26 + "@localhost"
    inbox.send(reply(turn, "ann@example.org", "1"), fake)
    assert inbox.outcome() == ("answered", "unknown_token")
    said = " ".join(_text(_answers(smtp, "ann@example.org")[-1]).split())
    assert "not one this server gave out" in said and "games?turn=mine" in said

    # the move made, the same address again: spent
    good = reply(turn, "ann@example.org", _setup_line(turn))
    inbox.send(good, turn["Reply-To"])
    assert inbox.outcome()[0] == "played"
    inbox.send(reply(turn, "ann@example.org", _setup_line(turn)), turn["Reply-To"])
    assert inbox.outcome() == ("answered", "token_spent")

    # Bob plays by the API, then replies to his (now stale) turn mail
    bob_turn = _turn_mail(smtp, "bob@example.org")
    view = nclient.get(f"/v1/games/{gid}/view", headers=bob.auth).get_json()
    resp = nclient.post(f"/v1/games/{gid}/moves", json=bob.envelope(
        gid, view["seat"], view["step"], view["legal_moves"][0]))
    assert resp.status_code == 202
    work()
    inbox.send(reply(bob_turn, "bob@example.org", _setup_line(bob_turn)), bob_turn["Reply-To"])
    assert inbox.outcome() == ("answered", "stale_step")
    answer = _answers(smtp, "bob@example.org")[-1]
    assert "That turn is over" in _text(answer) and answer["Reply-To"] is None  # Ann's turn

    # moves by mail turned off: the reply is refused and says how to turn them on
    turn = _turn_mail(smtp, "ann@example.org")
    resp = nclient.patch(f"/v1/players/{ann.id}", json={"mail_moves": False}, headers=ann.auth)
    assert resp.get_json()["mail_moves"] is False
    inbox.send(reply(turn, "ann@example.org", "0"), turn["Reply-To"])
    assert inbox.outcome() == ("answered", "mail_moves_off")
    assert "mail_moves true" in _text(_answers(smtp, "ann@example.org")[-1])


def test_bounces_auto_replies_loops_and_strangers_are_never_answered(nclient, work, smtp,
                                                                     inbox) -> None:
    ann, bob, gid = _started(nclient, work, smtp)
    turn = _turn_mail(smtp, "ann@example.org")
    sent = len(smtp.messages)
    auto = [({"Auto_Submitted": "auto-replied"}, "auto-reply"),
            ({"X_Autoreply": "yes"}, "auto-reply"),
            ({"Precedence": "bulk"}, "auto-reply"),
            ({"Subject": "Out of Office: back Monday"}, "auto-reply"),
            ({"X_Parley_Event": "turn.started"}, "loop"),
            ({"List_Id": "<games.example.org>"}, "list")]
    for headers, reason in auto:
        msg = reply(turn, "ann@example.org", _setup_line(turn))
        if "Subject" in headers:
            del msg["Subject"]
        inbox.send(reply(turn, "ann@example.org", _setup_line(turn), **headers)
                   if "Subject" not in headers else _with(msg, headers), turn["Reply-To"])
        assert inbox.outcome() == ("ignored", reason), headers
    # a bounce: the null envelope sender
    inbox.send(reply(turn, "mailer-daemon@example.org", "Undeliverable"), turn["Reply-To"],
               mail_from="")
    assert inbox.outcome() == ("ignored", "bounce")
    # someone else than the player, with the player's token: refused, nobody answered
    inbox.send(reply(turn, "eve@example.org", _setup_line(turn)), turn["Reply-To"])
    assert inbox.outcome() == ("refused", "wrong_sender")
    # an unknown token from an unknown address: refused, nobody answered
    inbox.send(reply(turn, "eve@example.org", "1"), "move-" + "b" * 26 + "@localhost")
    assert inbox.outcome() == ("refused", "unknown_token")
    assert len(smtp.messages) == sent  # not one answer went out
    assert nclient.get(f"/v1/games/{gid}").get_json()["to_act"] == [0, 1]  # no setup made
    # an address that is not a reply address is refused at RCPT (no backscatter)
    with pytest.raises(smtplib.SMTPRecipientsRefused):
        inbox.send(reply(turn, "ann@example.org", "1"), "postmaster@localhost")


def _with(msg: EmailMessage, headers: dict[str, str]) -> EmailMessage:
    for name, value in headers.items():
        msg[name] = value
    return msg


def test_lmtp_takes_a_reply_too(nclient, work, smtp, napp) -> None:
    box = Inbox(napp, lmtp=True)
    try:
        ann, bob, gid = _started(nclient, work, smtp)
        turn = _turn_mail(smtp, "ann@example.org")
        box.send(reply(turn, "ann@example.org", _setup_line(turn)), turn["Reply-To"])
        assert box.outcome()[0] == "played"
        work()
        assert nclient.get(f"/v1/games/{gid}").get_json()["to_act"] == [1]
    finally:
        box.controller.stop()
