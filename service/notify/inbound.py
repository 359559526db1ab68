"""Reading a mail that arrives: who sent it, whether it must never be answered, and the words
of the reply above the quoted text.

Never answered (RFC 3834 and what mail systems really send): bounces (an empty envelope sender,
a delivery report, MAILER-DAEMON or postmaster), automatic replies (`Auto-Submitted` other than
`no`, `X-Autoreply`, `X-Autorespond`, `Precedence: bulk|junk|list|auto_reply`, "Out of office"
and "Automatic reply" subjects), list mail (`List-Id`), and mail loops (our own mail coming
back: the `X-Parley-Event` or `X-Parley-Answer` header, our own From address, or more Received
headers than any real path has).

Anyone holding a reply address can send anything, so every step here takes bounded time: only
the first MAX_READ bytes of a mail are parsed, a header longer than MAX_HEADER is never parsed
(the standard library's header parser is quadratic, and recursive, on crafted values), at most
MAX_PARTS MIME parts nested at most MAX_DEPTH deep are read, and the reply's words are looked
for in the first MAX_TEXT characters of its text, with patterns that take linear time.
"""

from __future__ import annotations

import email
import html
import re
from email.errors import NonASCIILocalPartDefect, ObsoleteHeaderDefect
from email.message import EmailMessage, Message
from email.policy import EmailPolicy
from email.utils import getaddresses, parseaddr
from typing import Any

#: a real path has a handful of Received headers; a loop piles them up
MAX_RECEIVED = 25
#: the headers and the reply's words are at the top; attachments further down are not read
MAX_READ = 128 * 1024
#: characters of one header's value; real ones are far shorter
MAX_HEADER = 1000
#: multipart in multipart: real mail nests three or four deep
MAX_DEPTH = 8
#: parts (Content-Type headers) in those bytes: a real reply has a handful
MAX_PARTS = 32
#: characters of the reply's text searched for its words (a move is one line or paragraph)
MAX_TEXT = 4096
TOO_DEEP = "The message has too many MIME parts, or they are nested too deeply"
_BOUNCE_SENDERS = ("mailer-daemon", "postmaster")
_AUTO_SUBJECT = re.compile(r"^\s*(out of (the )?office|automatic reply|auto[- ]?reply|autosvar|"
                           r"abwesenheitsnotiz|vacation)\b", re.IGNORECASE)
#: where the quoted original begins in a reply (each alternative has one unbounded part, or a
#: lookahead, so that a long line is matched in linear time)
_QUOTE_START = re.compile(
    r"^(>|On .+ wrote:$|Le .+ a écrit\s?:$|Am (?=.+ schrieb ).+:$|-----\s*Original Message\s*-----"
    r"|From: |-- $|--$|Sent from my )", re.IGNORECASE)
#: the markup of an HTML reply: a comment's start or end, a declaration, or a tag. `[^<>]` ends
#: every try at the next bracket, so finding them all takes linear time (html.parser has taken
#: quadratic time on malformed markup: CVE-2025-6069, CVE-2026-15308)
_MARKUP = re.compile(r"<!--|-->|<[!?][^<>]*+>|<(/?)([a-z][a-z0-9]*+)[^<>]*+>", re.IGNORECASE)
#: elements whose content is not the reply's text
_HIDDEN = frozenset({"head", "style", "script", "title"})
#: elements that begin or end a line
_BREAKS = frozenset({"br", "p", "div", "li", "tr", "table", "h1", "h2", "h3", "h4", "h5", "h6"})
#: defects of a From header that leave its address as certain (`J. Smith <j@x>`, UTF-8)
_HARMLESS = (ObsoleteHeaderDefect, NonASCIILocalPartDefect)


class Unreadable(Exception):
    """A mail that can never be read (nested too deeply, a header too long or malformed):
    refused for good, so that the sending server does not try again."""


class _BoundedPolicy(EmailPolicy):
    """The default policy, for one mail: a header is parsed only if it is short, and each of
    its values once (the parser fetches a multipart's Content-Type again for each of its
    parts); a header the parser fails on makes the mail Unreadable."""

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        object.__setattr__(self, "_parsed", {})  # a policy is read-only once made

    def header_fetch_parse(self, name: str, value: Any) -> Any:
        if hasattr(value, "name"):
            return value  # parsed already (set by our own code)
        if len(value) > MAX_HEADER:
            raise Unreadable("A header of the message is too long")
        key = (name.lower(), value)
        if key not in self._parsed:
            try:
                self._parsed[key] = super().header_fetch_parse(name, value)
            except Exception as err:  # IndexError, RecursionError (comments in comments)...
                raise Unreadable("A header of the message could not be read") from err
        return self._parsed[key]


def parse(raw: bytes) -> EmailMessage:
    """The mail's first MAX_READ bytes, parsed; Unreadable if more than MAX_PARTS parts are
    declared in them (counted before parsing: the parser recurses once a level) or its parts
    nest more than MAX_DEPTH deep."""
    if len(raw) > MAX_READ:
        raw = raw[:raw.rfind(b"\n", 0, MAX_READ) + 1 or MAX_READ]
    if raw.lower().count(b"content-type:") > MAX_PARTS:
        raise Unreadable(TOO_DEEP)
    msg: EmailMessage = email.message_from_bytes(raw, policy=_BoundedPolicy())  # type: ignore[assignment]
    if _too_deep(msg):
        raise Unreadable(TOO_DEEP)
    return msg


def _too_deep(msg: Message) -> bool:
    """Whether parts nest more than MAX_DEPTH deep (level by level: no recursion)."""
    level = [msg]
    for _ in range(MAX_DEPTH + 1):
        level = [sub for part in level if part.is_multipart() for sub in part.get_payload()]
        if not level:
            return False
    return True


def clean(value: object, limit: int = 200) -> str:
    """`value` as a log line may show it: at most `limit` characters, anything not printable
    (a line break would start a forged log line) replaced."""
    return "".join(c if c.isprintable() else "\ufffd" for c in str(value or "")[:limit])


def address_of(header: str | None) -> str:
    """The bare address of a From-style header we wrote ourselves, lower-cased ('' if none)."""
    return parseaddr(header or "")[1].lower()


def sender_of(msg: Message) -> str | None:
    """The address of the mail's one From header, lower-cased, as the standard library's
    address parser reads it (so as a mail server checking DMARC reads it); None unless there
    is exactly one From header naming exactly one well-formed address."""
    if sum(1 for name in msg if name.lower() == "from") != 1:
        return None
    try:
        header = msg["From"]
    except Unreadable:
        return None
    addresses = header.addresses
    if len(addresses) != 1 or any(not isinstance(d, _HARMLESS) for d in header.defects):
        return None
    address = addresses[0]
    spec = address.addr_spec
    if not address.username or not address.domain or not spec.isprintable():
        return None
    return spec.lower()


def message_id(msg: Message) -> str | None:
    """The mail's Message-ID if an answer may quote it (In-Reply-To) and a log line show it:
    well-formed, printable ASCII; None otherwise."""
    try:
        value = msg["Message-ID"]
    except Unreadable:
        return None
    if value is None or value.defects:
        return None
    text = str(value)
    return text if text.isascii() and text.isprintable() else None


def ignore_reason(msg: EmailMessage, mail_from: str, own_address: str) -> str | None:
    """Why this mail must not be acted on nor answered, or None if it is a person's reply."""
    sender = sender_of(msg) or ""
    received = sum(1 for name in msg if name.lower() == "received")
    if not mail_from.strip("<> ") or msg.get_content_type() == "multipart/report" or \
            sender.split("@")[0] in _BOUNCE_SENDERS:
        return "bounce"
    if msg.get("X-Parley-Event") or msg.get("X-Parley-Answer") or sender == own_address.lower() or \
            received > MAX_RECEIVED:
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
    text = _html_text(text) if part.get_content_type() == "text/html" else text[:MAX_TEXT]
    own = []
    for line in text.replace("\r\n", "\n").split("\n"):
        if _QUOTE_START.match(line):
            break
        own.append(line)
    return "\n".join(own).strip()


def _html_text(markup: str) -> str:
    """The text of an HTML reply up to its first blockquote (where mail clients put the quoted
    mail), at most about MAX_TEXT characters: block elements end lines, what is in comments,
    the head, styles and scripts is left out."""
    out: list[str] = []
    size = 0
    hidden = ""  # "--" in a comment, or the element whose content is left out
    start = 0
    for token in _MARKUP.finditer(markup):
        if not hidden:
            out.append(markup[start:token.start()])
            size += token.start() - start
        start = token.end()
        closing, name = token[1], (token[2] or token[0]).lower()
        if hidden == "--":
            hidden = "" if name == "-->" else hidden
        elif hidden:
            hidden = "" if closing and name == hidden else hidden
        elif name == "<!--":
            hidden = "--"
        elif name in _HIDDEN and not closing:
            hidden = name
        elif (name == "blockquote" and not closing) or size > MAX_TEXT:
            return html.unescape("".join(out))[:MAX_TEXT]
        elif name in _BREAKS:
            out.append("\n")
    if not hidden:
        out.append(markup[start:])
    return html.unescape("".join(out))[:MAX_TEXT]
