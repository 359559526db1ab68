"""The receipt of a reply whose moves were all played: one short mail in the game's thread
saying what the reply played and what happens next; none when the player turned them off."""

from __future__ import annotations

from email.message import EmailMessage

from tests.notify.conftest import Mailbox
from tests.notify.test_mail_replies import _text, _turn_mail, reply
from tests.notify.test_mail_whole_turns import (  # noqa: F401  # inbox: the fixture
    ANN,
    _cartagena,
    _three_plays,
    deliver,
    inbox,
    numbered,
)


def _receipts(smtp: Mailbox, address: str) -> list[EmailMessage]:
    return [m for m in smtp.to(address) if m["X-Parley-Event"] == "reply.receipt"]


def test_a_whole_turn_by_reply_gets_a_receipt_in_the_thread(nclient, work, smtp,
                                                            inbox) -> None:  # noqa: F811
    ann, _, gid = _cartagena(nclient, work)
    turn = _turn_mail(smtp, ANN)
    (one, _), (two, _), (three, _) = _three_plays(numbered(turn))
    deliver(inbox, work, reply(turn, ANN, f"{one}\n{two}\n{three}"), turn["Reply-To"])
    assert inbox.outcome()[0] == "played"
    (receipt,) = _receipts(smtp, ANN)
    text = " ".join(_text(receipt).split())
    assert "Your reply made 3 moves: line 1 ('" in text and "') as 'play " in text
    assert "Now it is the turn of Bob; you get a mail when it is yours." in text
    # in the game's thread, answering the player's reply
    root, answered = receipt["References"].split()
    assert root == f"<game-{gid}-{ann.id}@parley>" and answered == receipt["In-Reply-To"]
    assert receipt["Auto-Submitted"] == "auto-replied"
    assert receipt["Reply-To"] is None  # a receipt takes no move


def test_receipts_can_be_turned_off(nclient, work, smtp, inbox) -> None:  # noqa: F811
    ann, _, _ = _cartagena(nclient, work)
    changed = nclient.patch(f"/v1/players/{ann.id}", json={"reply_receipts": False},
                            headers=ann.auth)
    assert changed.status_code == 200 and changed.get_json()["reply_receipts"] is False
    turn = _turn_mail(smtp, ANN)
    (one, _), (two, _), (three, _) = _three_plays(numbered(turn))
    deliver(inbox, work, reply(turn, ANN, f"{one}\n{two}\n{three}"), turn["Reply-To"])
    assert inbox.outcome()[0] == "played"
    assert _receipts(smtp, ANN) == []  # the turn is over: nothing to answer
    again = nclient.patch(f"/v1/players/{ann.id}", json={"reply_receipts": True},
                          headers=ann.auth)
    assert again.get_json()["reply_receipts"] is True


def test_a_reply_that_leaves_the_turn_open_is_answered_by_one_mail(nclient, work, smtp,
                                                                   inbox) -> None:  # noqa: F811
    """Two of Cartagena's three actions: one mail comes back, the receipt with the position
    and the numbered moves now and an address for the rest; the turn mails the two moves
    caused are held back for it, and a reply to it finishes the turn."""
    ann, _, gid = _cartagena(nclient, work)
    turn = _turn_mail(smtp, ANN)
    before = len(smtp.to(ANN))
    (one, _), (two, _), _ = _three_plays(numbered(turn))
    deliver(inbox, work, reply(turn, ANN, f"{one}\n{two}"), turn["Reply-To"])
    assert inbox.outcome()[0] == "played"
    work()
    came = smtp.to(ANN)[before:]
    assert [m["X-Parley-Event"] for m in came] == ["reply.receipt"], [
        (m["X-Parley-Event"], m["Subject"]) for m in came]
    (receipt,) = came
    text = " ".join(_text(receipt).split())
    assert "Your reply made 2 moves" in text and "It is still your turn." in text
    assert receipt["Reply-To"] and receipt["Reply-To"] != turn["Reply-To"]
    third = min(numbered(receipt))  # any move the receipt lists: the turn's third action
    deliver(inbox, work, reply(receipt, ANN, str(third)), receipt["Reply-To"])
    assert inbox.outcome()[0] == "played"
    assert nclient.get(f"/v1/games/{gid}").get_json()["to_act"] == [1]
    assert ann.id in receipt["References"]
