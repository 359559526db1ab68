"""Confirming a player's address as the player does: the confirmation mail is taken from where
the server sent it (the real SMTP server's box, or the Maildir outbox) and its link followed,
the page first, then its button. Taking the mail keeps the mail counts of tests about turn
mails what they were before addresses needed confirming."""

from __future__ import annotations

import email
import email.policy
import mailbox
import re
from email.message import EmailMessage
from pathlib import Path
from typing import Any

#: the `X-Parley-Event` of a confirmation mail
CONFIRMATION = "address.confirmation"
LINK = re.compile(r"https?://[^\s<>\"']+/v1/email/confirm\?token=[A-Za-z0-9_-]+")


def is_confirmation(msg: Any, address: str) -> bool:
    return msg["X-Parley-Event"] == CONFIRMATION and msg["To"] == address


def link_of(msg: EmailMessage) -> str:
    match = LINK.search(msg.get_body(preferencelist=("plain",)).get_content())
    assert match, "the confirmation mail holds no link"
    return match[0]


def read_message(raw: Any) -> EmailMessage:
    return email.message_from_binary_file(raw, policy=email.policy.default)  # type: ignore


def take_from_maildir(outbox: Path, address: str) -> EmailMessage | None:
    """The latest confirmation mail to `address` in a Maildir outbox, removed from it."""
    box = mailbox.Maildir(outbox, factory=read_message, create=True)
    found = [(key, msg) for key, msg in box.items() if is_confirmation(msg, address)]
    if not found:
        return None
    key, msg = found[-1]
    box.remove(key)
    return msg


def _text(resp: Any) -> str:
    return resp.get_data(as_text=True) if hasattr(resp, "get_data") else resp.text


def _json(resp: Any) -> Any:
    return resp.get_json() if hasattr(resp, "get_json") else resp.json()


def follow(http: Any, link: str) -> dict[str, Any]:
    """Open the link (a page with a button, which changes nothing), then press the button.
    `http`: a Flask test client or a requests session. -> the confirmation's JSON answer."""
    page = http.get(link)
    assert page.status_code == 200, _text(page)
    assert '<form method="post"' in _text(page)
    done = http.post(link, headers={"Accept": "application/json"})
    assert done.status_code == 200, _text(done)
    return _json(done)
