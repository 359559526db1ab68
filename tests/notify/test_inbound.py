"""Reading replies as mail clients write them: the player's words above the quote, in plain
text or HTML only, and what must never be answered."""

from __future__ import annotations

from email.message import EmailMessage

from service.notify.inbound import ignore_reason, reply_text


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
