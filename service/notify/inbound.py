"""Reading a mail that arrives: who sent it, whether it must never be answered, and the words
of the reply above the quoted text.

Never answered (RFC 3834 and what mail systems really send): bounces (an empty envelope sender,
a delivery report, MAILER-DAEMON or postmaster), automatic replies (`Auto-Submitted` other than
`no`, `X-Autoreply`, `X-Autorespond`, `Precedence: bulk|junk|list|auto_reply`, "Out of office"
and "Automatic reply" subjects), list mail (`List-Id`), and mail loops (our own mail coming
back: the `X-Parley-Event` or `X-Parley-Answer` header, our own From address, or more Received
headers than any real path has).
"""

from __future__ import annotations

import html
import re
from email.message import EmailMessage
from email.utils import getaddresses, parseaddr

#: a real path has a handful of Received headers; a loop piles them up
MAX_RECEIVED = 25
_BOUNCE_SENDERS = ("mailer-daemon", "postmaster")
_AUTO_SUBJECT = re.compile(r"^\s*(out of (the )?office|automatic reply|auto[- ]?reply|autosvar|"
                           r"abwesenheitsnotiz|vacation)\b", re.IGNORECASE)
#: where the quoted original begins in a reply
_QUOTE_START = re.compile(
    r"^(>|On .+ wrote:$|Le .+ a écrit\s?:$|Am .+ schrieb .+:$|-----\s*Original Message\s*-----"
    r"|From: |-- $|--$|Sent from my )", re.IGNORECASE)


def address_of(header: str | None) -> str:
    """The bare address of a From-style header, lower-cased ('' if none)."""
    return parseaddr(header or "")[1].lower()


def ignore_reason(msg: EmailMessage, mail_from: str, own_address: str) -> str | None:
    """Why this mail must not be acted on nor answered, or None if it is a person's reply."""
    sender = address_of(msg.get("From"))
    if not mail_from.strip("<> ") or msg.get_content_type() == "multipart/report" or \
            sender.split("@")[0] in _BOUNCE_SENDERS:
        return "bounce"
    if msg.get("X-Parley-Event") or msg.get("X-Parley-Answer") or sender == own_address.lower() or \
            len(msg.get_all("Received") or []) > MAX_RECEIVED:
        return "loop"
    auto = (msg.get("Auto-Submitted") or "no").strip().lower()
    precedence = (msg.get("Precedence") or "").strip().lower()
    if auto != "no" or msg.get("X-Autoreply") or msg.get("X-Autorespond") or \
            precedence in ("bulk", "junk", "list", "auto_reply") or \
            _AUTO_SUBJECT.match(str(msg.get("Subject") or "")):
        return "auto-reply"
    if msg.get("List-Id"):
        return "list"
    return None


def recipients(msg: EmailMessage) -> list[str]:
    """The To and Cc addresses (when the envelope recipient is not known)."""
    return [a for _, a in getaddresses(msg.get_all("To", []) + msg.get_all("Cc", [])) if a]


def reply_text(msg: EmailMessage) -> str:
    """The reply's own words: the plain-text part (or the HTML part's text), up to where the
    quoted original or a signature begins."""
    part = msg.get_body(preferencelist=("plain", "html"))
    if part is None:
        return ""
    try:
        text = part.get_content()
    except (LookupError, UnicodeError):
        return ""
    if part.get_content_type() == "text/html":
        text = re.sub(r"<(br|/p|/div)[^>]*>", "\n", text, flags=re.IGNORECASE)
        text = re.sub(r"<blockquote.*", "", text, flags=re.IGNORECASE | re.DOTALL)
        text = html.unescape(re.sub(r"<[^>]+>", "", text))
    own = []
    for line in text.replace("\r\n", "\n").split("\n"):
        if _QUOTE_START.match(line):
            break
        own.append(line)
    return "\n".join(own).strip()
