"""Webhooks: a player's subscriptions, the URL safety check, and one signed HTTP delivery.

Deliveries are signed per the Standard Webhooks spec with the `standardwebhooks` library:
headers `webhook-id` (the delivery id: the same on every retry and redelivery, so receivers can
drop duplicates), `webhook-timestamp` and `webhook-signature` (`v1,<HMAC-SHA256>`); the body is
`{"type", "timestamp", "data"}`.

URLs must be http(s) and resolve only to globally routable addresses: not loopback, private,
shared (carrier-grade NAT), link-local, multicast, reserved or documentation addresses, nor an
IPv6 address wrapping one (mapped, 6to4, Teredo, NAT64), unless
`PARLEY_WEBHOOK_ALLOW_PRIVATE=1`. The check runs at registration and again before every
attempt, and the attempt connects to an address that check vetted (the host name kept for TLS
and the Host header), so a DNS answer that changes in between (rebinding) is never used.
Redirects are not followed.
"""

from __future__ import annotations

import base64
import http.client
import ipaddress
import json
import secrets
import socket
import ssl
import time
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

from standardwebhooks import Webhook

from service.storage import notify_records as records
from service.storage.store import Store, new_id, now_iso

USER_AGENT = "Parley-Webhooks/1"


# ---- the URL check ----------------------------------------------------------------------------

class UnsafeUrl(ValueError):
    """The URL may not be used for a webhook (the message says why)."""


#: NAT64 prefixes (RFC 6052, RFC 8215): the IPv4 address rides in the low 32 bits
_NAT64 = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("64:ff9b:1::/48"))


def _hidden_ipv4(addr: ipaddress.IPv4Address | ipaddress.IPv6Address
                 ) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses an IPv6 address wraps: mapped, 6to4, Teredo (server and client),
    NAT64. A gateway that unwraps them would reach that IPv4 address."""
    if addr.version == 4:
        return []
    assert isinstance(addr, ipaddress.IPv6Address)
    out = [a for a in (addr.ipv4_mapped, addr.sixtofour) if a is not None]
    if addr.teredo:
        out += list(addr.teredo)
    if any(addr in net for net in _NAT64):
        out.append(ipaddress.IPv4Address(int(addr) & 0xFFFFFFFF))
    return out


def routable(addr: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """Globally routable unicast, and so is every IPv4 address it wraps: not loopback,
    private, shared (carrier-grade NAT, 100.64.0.0/10), link-local, reserved, documentation
    or multicast."""
    return (addr.is_global and not addr.is_multicast
            and all(inner.is_global for inner in _hidden_ipv4(addr)))


def check_url(url: str, allow_private: bool) -> list[str]:
    """The addresses `url`'s host resolves to, each checked; raise UnsafeUrl otherwise.

    The delivery connects to one of exactly these addresses (`post`), so a DNS answer that
    changes after the check (rebinding) is never used."""
    if any(ord(c) < 0x21 or 0x7F <= ord(c) <= 0x9F for c in url):
        raise UnsafeUrl("A webhook URL has no spaces or control characters (encode them).")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UnsafeUrl("A webhook URL is an absolute http:// or https:// URL.")
    if parts.username or parts.password:
        raise UnsafeUrl("A webhook URL may not carry credentials.")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
        infos = socket.getaddrinfo(parts.hostname, port, type=socket.SOCK_STREAM)
    except (OSError, ValueError) as err:
        raise UnsafeUrl(f"The host {parts.hostname!r} does not resolve.") from err
    addresses = list(dict.fromkeys(info[4][0].split("%")[0] for info in infos))
    if not allow_private:
        for text in addresses:
            addr = ipaddress.ip_address(text)
            if not routable(addr):
                raise UnsafeUrl(f"The host {parts.hostname!r} resolves to {addr}, which is not "
                                "a globally routable address.")
    return addresses


# ---- subscriptions ----------------------------------------------------------------------------

def new_secret() -> str:
    return "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode("ascii")


def create(store: Store, pid: str, url: str, types: list[str]) -> dict[str, str]:
    wid = new_id("wh")
    record = {"id": wid, "player": pid, "url": url, "types": json.dumps(sorted(set(types))),
              "secret": new_secret(), "enabled": "1", "created_at": now_iso()}
    records.save_webhook(store, pid, wid, record)
    return record


def get(store: Store, wid: str) -> dict[str, str] | None:
    return records.webhook(store, wid)


def of_player(store: Store, pid: str) -> list[dict[str, str]]:
    out = []
    for wid in records.player_webhook_ids(store, pid):
        record = get(store, wid)
        if record:
            out.append(record)
    return out


def update(store: Store, wid: str, fields: dict[str, str]) -> dict[str, str]:
    records.update_webhook(store, wid, fields)
    return get(store, wid) or {}


def delete(store: Store, pid: str, wid: str) -> None:
    records.delete_webhook(store, pid, wid)


def subscribed(record: dict[str, str], kind: str) -> bool:
    return record.get("enabled") == "1" and kind in json.loads(record["types"])


def public(record: dict[str, str], with_secret: bool = False) -> dict[str, Any]:
    """The API's view of a subscription; the secret only when it was just created."""
    out: dict[str, Any] = {
        "id": record["id"], "url": record["url"], "types": json.loads(record["types"]),
        "enabled": record.get("enabled") == "1", "created_at": record["created_at"],
        "disabled_reason": record.get("disabled_reason") or None,
    }
    if with_secret:
        out["secret"] = record["secret"]
    return out


# ---- one attempt ------------------------------------------------------------------------------

class _PinnedHTTP(http.client.HTTPConnection):
    """HTTP to a fixed address, the URL's host kept for the Host header."""

    def __init__(self, host: str, port: int, address: str, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout)
        self.address = address

    def connect(self) -> None:
        self.sock = socket.create_connection((self.address, self.port), self.timeout)


class _PinnedHTTPS(http.client.HTTPSConnection):
    """HTTPS to a fixed address: the URL's host kept for SNI, the certificate and Host."""

    def __init__(self, host: str, port: int, address: str, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout, context=ssl.create_default_context())
        self.address = address

    def connect(self) -> None:
        sock = socket.create_connection((self.address, self.port), self.timeout)
        self.sock = self._context.wrap_socket(sock, server_hostname=self.host)


def body_of(kind: str, data: dict[str, Any]) -> str:
    return json.dumps({"type": kind, "timestamp": now_iso(), "data": data},
                      separators=(",", ":"), sort_keys=True)


def post(url: str, addresses: list[str], secret: str, msg_id: str, body: str,
         timeout: float) -> dict[str, Any]:
    """One signed POST to `url`, connecting to the first of `addresses` (from `check_url`);
    returns {"status", "latency_ms", "error"} (status None: no answer). Redirects are not
    followed."""
    now = datetime.now(tz=UTC)
    headers = {
        "content-type": "application/json", "user-agent": USER_AGENT,
        "webhook-id": msg_id, "webhook-timestamp": str(int(now.timestamp())),
        "webhook-signature": Webhook(secret).sign(msg_id, now, body),
    }
    parts = urlsplit(url)
    https = parts.scheme == "https"
    port = parts.port or (443 if https else 80)
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    connection = (_PinnedHTTPS if https else _PinnedHTTP)(parts.hostname or "", port,
                                                          addresses[0], timeout)
    started = time.monotonic()
    status: int | None = None
    error: str | None = None
    try:
        connection.request("POST", target, body=body.encode("utf-8"), headers=headers)
        response = connection.getresponse()
        status = response.status
        response.read(65536)
        if not 200 <= status < 300:
            error = f"HTTP {status}"
    except (OSError, http.client.HTTPException) as err:
        error = f"{type(err).__name__}: {err}"
    finally:
        connection.close()
    latency = round((time.monotonic() - started) * 1000, 1)
    return {"status": status, "latency_ms": latency, "error": error}


def retryable(outcome: dict[str, Any]) -> bool:
    """Retry on no answer (refused, timeout), 5xx, 408 and 429; not on other 4xx or 3xx."""
    status = outcome["status"]
    return status is None or status >= 500 or status in (408, 429)
