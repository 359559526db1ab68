"""Reading replies as mail clients write them: the player's words above the quote, in plain
text or HTML only, and what must never be answered; and reading what a hostile sender writes
in bounded time, its From as a mail server checking DMARC reads it."""

from __future__ import annotations

import base64
import email
import email.policy
import time
from email.message import EmailMessage

import pytest

from service.notify import inbound
from service.notify.inbound import ignore_reason, reply_text

#: what reading one reply may take, however crafted (a 200 KB one took 12.8 s)
BOUNDED = 0.5


def _mail(text: str | None = None, html: str | None = None, **headers: str) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = headers.pop("From", "Ann <ann@example.org>")
    for name, value in headers.items():
        msg[name.replace("_", "-")] = value
    if text is not None:
        msg.set_content(text)
        if html is not None:
            msg.add_alternative(html, subtype="html")
    elif html is not None:
        msg.set_content(html, subtype="html")
    return msg


def test_the_words_above_the_quote_are_the_reply() -> None:
    cases = {
        "3\n\nOn Thu, 26 Nov 2026 at 10:00, Parley <parley@x> wrote:\n> It is your turn\n": "3",
        "e4-e5\r\n-- \r\nAnn, sent from the garden\r\n": "e4-e5",
        "  resign  \n\n-----Original Message-----\nFrom: Parley\n": "resign",
        "setup a1=F b1=B\nc1=2 d1=3\n\n> quoted\n": "setup a1=F b1=B\nc1=2 d1=3",
        "> only a quote\n": "",
        "12\nSent from my phone\n": "12",
    }
    for body, words in cases.items():
        assert reply_text(_mail(body)) == words, body


def test_an_html_only_reply_is_read_as_text() -> None:
    html = ("<div dir=\"ltr\">a10&#8209;a9<br></div><div>thanks</div>"
            "<blockquote class=\"gmail_quote\"><p>It is your turn</p></blockquote>")
    assert reply_text(_mail(html=html)).split() == ["a10\u2011a9", "thanks"]
    html = "<p>e4-e5</p><blockquote>Your legal moves: 0 a1-a2</blockquote>"
    assert reply_text(_mail("e4-e5\n", html)) == "e4-e5"  # the plain part is preferred


def test_what_is_never_answered() -> None:
    own = "parley@games.example.org"
    assert ignore_reason(_mail("3"), "ann@example.org", own) is None
    assert ignore_reason(_mail("3", Auto_Submitted="no"), "ann@example.org", own) is None
    assert ignore_reason(_mail("3"), "", own) == "bounce"
    assert ignore_reason(_mail("x", From="MAILER-DAEMON@example.org"), "x@y", own) == "bounce"
    assert ignore_reason(_mail("x", From=f"Parley <{own}>"), "x@y", own) == "loop"
    assert ignore_reason(_mail("x", X_Parley_Answer="no_move"), "x@y", own) == "loop"
    looped = _mail("x")
    for hop in range(30):
        looped["Received"] = f"from hop{hop}"
    assert ignore_reason(looped, "x@y", own) == "loop"
    for headers in ({"Auto_Submitted": "auto-generated"}, {"X_Autorespond": "1"},
                    {"Precedence": "junk"}, {"Subject": "Automatic reply: away"}):
        assert ignore_reason(_mail("x", **headers), "x@y", own) == "auto-reply", headers
    report = EmailMessage()
    report["From"] = "ann@example.org"
    report.set_type("multipart/report")
    assert ignore_reason(report, "x@y", own) == "bounce"


def test_an_outlook_html_reply_is_read_without_its_head() -> None:
    html = ("<html><head><meta charset=utf-8><!--[if gte mso 9]><xml><o:OfficeDocumentSettings>"
            "<o:PixelsPerInch>96</o:PixelsPerInch></o:OfficeDocumentSettings></xml><![endif]-->"
            "<style><!-- p.MsoNormal {margin:0cm;} --></style></head><body lang=EN-GB>"
            "<div class=WordSection1><p class=MsoNormal>e4-e5<o:p></o:p></p>"
            "<p class=MsoNormal><o:p>&nbsp;</o:p></p><div><p><b>From:</b> Parley</p></div>"
            "</div></body></html>")
    assert reply_text(_mail(html=html)) == "e4-e5"  # not "96", the pixels per inch


def _raw(content_type: str, body: bytes) -> EmailMessage:
    """A mail as the receiver parses it, one line of `body` base64-encoded."""
    raw = (f"From: ann@example.org\r\nContent-Type: {content_type}\r\n"
           "Content-Transfer-Encoding: base64\r\n\r\n").encode() + base64.encodebytes(body)
    return email.message_from_bytes(raw, policy=email.policy.default)  # type: ignore[return-value]


@pytest.mark.parametrize(("content_type", "unit"), [
    ("text/html", b"<"), ("text/html", b"<a "), ("text/html", b"<!--"), ("text/html", b"<![a"),
    ("text/html", b"Am x schrieb "), ("text/plain", b"Am x schrieb "), ("text/plain", b"On x "),
])
def test_a_crafted_reply_is_read_in_bounded_time(content_type: str, unit: bytes) -> None:
    msg = _raw(content_type, unit * (200_000 // len(unit)))
    started = time.monotonic()
    words = reply_text(msg)
    assert time.monotonic() - started < BOUNDED
    assert len(words) <= inbound.MAX_TEXT


def test_only_the_top_of_a_mail_is_parsed_and_its_parts_nest_shallow() -> None:
    big = b"From: ann@example.org\r\n\r\n3\r\n" + (b"x" * 998 + b"\r\n") * 1000
    msg = inbound.parse(big)
    assert len(msg.get_payload()) <= inbound.MAX_READ and reply_text(msg).startswith("3\n")
    parts = b"".join(b"--b\r\nContent-Type: text/plain\r\n\r\nx\r\n"
                     for _ in range(inbound.MAX_PARTS))
    many = b"Content-Type: multipart/mixed; boundary=b\r\n\r\n" + parts + b"--b--\r\n"
    with pytest.raises(inbound.Unreadable, match="too many MIME parts"):
        inbound.parse(many)
    with pytest.raises(inbound.Unreadable, match="A header of the message is too long"):
        inbound.parse(b"Subject: " + b"a " * inbound.MAX_HEADER + b"\r\n\r\nx\r\n")["Subject"]


def test_the_sender_is_the_one_address_of_the_one_from() -> None:
    def sender(value: str) -> str | None:
        return inbound.sender_of(inbound.parse(f"From: {value}\r\n\r\nx\r\n".encode()))

    assert sender("Ann <Ann@Example.org>") == "ann@example.org"
    assert sender('"Smith, Ann" <ann@example.org>') == "ann@example.org"
    assert sender("Ann B. Smith <ann@example.org>") == "ann@example.org"  # obsolete, but clear
    for bad in ("ann@example.org <mallory@evil.test>", "ann@example.org, mallory@evil.test",
                "Friends: ann@example.org, mallory@evil.test;", "<ann@example.org", "ann@",
                "undisclosed-recipients:;", "(" * 900 + "ann@example.org", "a," * 600):
        assert sender(bad) is None, bad
    twice = b"From: ann@example.org\r\nFrom: mallory@evil.test\r\n\r\nx\r\n"
    assert inbound.sender_of(inbound.parse(twice)) is None


def test_what_a_mail_says_is_logged_on_one_line() -> None:
    assert inbound.clean("x\r\nBcc: victim@example.org\x1b[2J\u2028") == \
        "x\ufffd\ufffdBcc: victim@example.org\ufffd[2J\ufffd"
    crafted = b"Message-ID: =?utf-8?q?x=0D=0ABcc:_victim@example.org?=\r\n\r\nx\r\n"
    assert inbound.message_id(inbound.parse(crafted)) is None
    assert inbound.message_id(inbound.parse(b"Message-ID: <a@b>\r\n\r\nx\r\n")) == "<a@b>"
