"""Mail: the players' mail preferences, the notification mails, and their transport.

Transport: `PARLEY_SMTP_URL` = `smtp://[user:pass@]host[:port]` (STARTTLS when the server offers
it, or forced with `?starttls=1`; `?starttls=0` never) or `smtps://...` (TLS from the start);
`?cafile=/path.pem` trusts a private CA besides the system's.
With no URL, every mail is written to a Maildir outbox under the data folder
(`var/outbox/new/`), which any mail reader (or `cat`) can read.

Preferences: a player turns mail off for all games or for one game, wholly or per kind;
a mail is sent only if neither forbids it. Every mail carries a one-click `List-Unsubscribe`
(RFC 8058) link that turns off mail for that game, authenticated by an HMAC, not a login.

Pictures: the HTML part may show pictures carried in the mail (`Inline`): the part becomes
multipart/related, the HTML first, then each PNG with its Content-ID, so a mail client shows them
without loading anything remote. A notification mail stays within MAX_BYTES (`weight`).
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import logging
import mailbox
import smtplib
import ssl
from collections.abc import Sequence
from dataclasses import dataclass
from email import policy
from email.message import EmailMessage
from email.utils import formatdate
from typing import Any
from urllib.parse import parse_qs, unquote, urlencode, urlsplit

from service.config import Config
from service.domain.notices import MAIL_TYPES
from service.ops.server_key import derived_secret
from service.storage import notify_records as records
from service.storage.store import Store

log = logging.getLogger(__name__)

SMTP_TIMEOUT = 15
#: the most a notification mail may weigh as sent (bytes): pictures are left out beyond it
MAX_BYTES = 200_000
#: what `weight` allows for the headers, which are not written yet when a body is weighed
HEADER_ROOM = 4_000


@dataclass(frozen=True)
class Inline:
    """A PNG the HTML part shows as `<img src="cid:{cid}">` (`cid` without brackets)."""

    cid: str
    png: bytes
    filename: str = "board.png"


# ---- preferences ------------------------------------------------------------------------------

def get_prefs(store: Store, pid: str, gid: str | None = None) -> dict[str, Any]:
    """{"enabled": bool, "types": {type: bool}} with every kind present (default: on)."""
    raw = records.mail_prefs(store, pid, gid)
    return {"enabled": raw.get("enabled", "1") == "1",
            "types": {t: raw.get(t, "1") == "1" for t in MAIL_TYPES}}


def set_prefs(store: Store, pid: str, gid: str | None, enabled: bool | None,
              types: dict[str, bool]) -> dict[str, Any]:
    fields = {t: "1" if on else "0" for t, on in types.items()}
    if enabled is not None:
        fields["enabled"] = "1" if enabled else "0"
    if fields:
        records.set_mail_prefs(store, pid, gid, fields)
    return get_prefs(store, pid, gid)


def wants_mail(store: Store, pid: str, gid: str, kind: str) -> bool:
    for scope in (None, gid):
        prefs = get_prefs(store, pid, scope)
        if not prefs["enabled"] or not prefs["types"].get(kind, True):
            return False
    return True


# ---- one-click unsubscribe --------------------------------------------------------------------

def _unsubscribe_secret(server_key: Any) -> bytes:
    return derived_secret(server_key, b"parley-unsubscribe-v1")


def unsubscribe_token(server_key: Any, pid: str, gid: str) -> str:
    return hmac.new(_unsubscribe_secret(server_key), f"{pid}|{gid}".encode(),
                    hashlib.sha256).hexdigest()[:32]


def check_unsubscribe(server_key: Any, pid: str, gid: str, token: str) -> bool:
    return hmac.compare_digest(unsubscribe_token(server_key, pid, gid).encode(),
                               token.encode("utf-8", "surrogatepass"))


def unsubscribe_url(config: Config, server_key: Any, pid: str, gid: str) -> str:
    query = urlencode({"player": pid, "game": gid,
                       "token": unsubscribe_token(server_key, pid, gid)})
    return f"{config.BASE_URL}/v1/mail/unsubscribe?{query}"


# ---- composing --------------------------------------------------------------------------------

def compose(config: Config, *, to: str, subject: str, body: str, message_id: str,
            unsubscribe: str | None, html: str | None = None, thread: str | None = None,
            headers: dict[str, str] | None = None, reply_to: str | None = None,
            answering: str | None = None, images: Sequence[Inline] = ()) -> EmailMessage:
    """A mail: plain text first, then `html` as an alternative part if given, with the
    `images` it shows beside it.

    `thread` names the thread's first mail (ids without brackets and domain): a mail that is
    not that one answers it (`In-Reply-To`, `References`), so clients show one conversation.
    `answering` is the Message-ID of a player's mail this one answers (then it is marked
    `Auto-Submitted: auto-replied`, RFC 3834); `reply_to` where replies go (a move by reply).
    """
    msg = EmailMessage()
    msg["From"] = config.MAIL_FROM
    msg["To"] = to
    msg["Subject"] = subject
    msg["Date"] = formatdate(localtime=False)
    msg["Message-ID"] = f"<{message_id}@parley>"
    references = [f"<{thread}@parley>"] if thread and thread != message_id else []
    if answering:
        references.append(answering)
    if references:
        msg["In-Reply-To"] = references[-1]
        msg["References"] = " ".join(references)
    msg["Auto-Submitted"] = "auto-replied" if answering else "auto-generated"
    if reply_to:
        msg["Reply-To"] = reply_to
    for name, value in (headers or {}).items():
        msg[name] = value
    if unsubscribe:
        msg["List-Unsubscribe"] = f"<{unsubscribe}>"
        msg["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    _fill(msg, body, html, images)
    return msg


def weight(body: str, html: str | None, images: Sequence[Inline] = ()) -> int:
    """The bytes a mail of these parts takes on the wire, HEADER_ROOM for its headers."""
    msg = EmailMessage()
    _fill(msg, body, html, images)
    return len(msg.as_bytes(policy=policy.SMTP)) + HEADER_ROOM


def _fill(msg: EmailMessage, body: str, html: str | None, images: Sequence[Inline]) -> None:
    """multipart/alternative: text/plain, then text/html (multipart/related with `images`)."""
    # plain ASCII stays readable in the Maildir outbox; anything else is quoted-printable
    msg.set_content(body, cte="7bit" if body.isascii() else "quoted-printable")
    if html is None:
        return
    msg.add_alternative(html, subtype="html",
                        cte="7bit" if html.isascii() else "quoted-printable")
    page = msg.get_payload()[1]
    for image in images:  # the first makes the HTML part multipart/related
        page.add_related(image.png, maintype="image", subtype="png", cid=f"<{image.cid}>",
                         disposition="inline", filename=image.filename)


# ---- transport --------------------------------------------------------------------------------

def destination(config: Config) -> str:
    """Where mail goes, for the operator: the SMTP URL without its password (it lands in
    logs and terminals), or the outbox folder."""
    if not config.SMTP_URL:
        return f"Maildir {config.OUTBOX_DIR} (no PARLEY_SMTP_URL)"
    url = urlsplit(config.SMTP_URL)
    if url.password is None:
        return f"SMTP {config.SMTP_URL}"
    netloc = url.netloc.rsplit("@", 1)[1]
    netloc = f"{url.username}:***@{netloc}" if url.username else f"***@{netloc}"
    return f"SMTP {url._replace(netloc=netloc).geturl()}"


@functools.cache
def _tls(cafile: str | None) -> ssl.SSLContext:
    """The TLS settings for the mail server, made once per process: loading the system's
    certificate store took about 25 ms a mail, for every mail, STARTTLS or not."""
    return ssl.create_default_context(cafile=cafile)


def send_or_log(config: Config, msg: EmailMessage, what: str) -> bool:
    """Send a mail whose failure changes nothing else (an answer, a receipt, a confirmation, an
    invitation: what it is about stands, and its reader may ask again): any SMTP or socket
    failure is logged as `<what> not sent` and answers False."""
    try:
        send(config, msg)
    except Exception as err:  # any SMTP or socket failure, whatever the transport raises
        log.warning("%s not sent: %s", what, err)
        return False
    return True


def send(config: Config, msg: EmailMessage) -> str:
    """Send by SMTP, or write to the Maildir outbox; returns where it went."""
    if not config.SMTP_URL:
        box = mailbox.Maildir(config.OUTBOX_DIR, create=True)
        key = box.add(msg)
        return f"maildir:{key}"
    url = urlsplit(config.SMTP_URL)
    query = {k: v[-1] for k, v in parse_qs(url.query).items()}
    host = url.hostname or "localhost"
    tls = _tls(query.get("cafile"))
    if url.scheme == "smtps":
        client: smtplib.SMTP = smtplib.SMTP_SSL(host, url.port or 465, timeout=SMTP_TIMEOUT,
                                                context=tls)
    elif url.scheme == "smtp":
        client = smtplib.SMTP(host, url.port or 25, timeout=SMTP_TIMEOUT)
    else:
        raise ValueError(f"PARLEY_SMTP_URL must be smtp:// or smtps://, not {url.scheme}://")
    with client:
        client.ehlo()
        starttls = query.get("starttls")
        if url.scheme == "smtp" and (starttls == "1" or
                                     (starttls != "0" and client.has_extn("starttls"))):
            client.starttls(context=tls)
            client.ehlo()
        if url.username:
            client.login(unquote(url.username), unquote(url.password or ""))
        client.send_message(msg)
    return f"smtp:{host}"
