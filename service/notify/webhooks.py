"""Webhooks: a player's subscriptions, the URL safety check, and one signed HTTP delivery.

Deliveries are signed per the Standard Webhooks spec with the `standardwebhooks` library:
headers `webhook-id` (the delivery id: the same on every retry and redelivery, so receivers can
drop duplicates), `webhook-timestamp` and `webhook-signature` (`v1,<HMAC-SHA256>`); the body is
`{"type", "timestamp", "data"}`.

URLs must be http(s) and must not resolve to loopback, private, link-local, multicast, reserved
or unspecified addresses (checked at registration and again before every attempt, so a DNS
change cannot turn a webhook against the server's own network), unless
`PARLEY_WEBHOOK_ALLOW_PRIVATE=1`. Redirects are not followed.
"""

from __future__ import annotations

import base64
import ipaddress
import json
import secrets
import socket
import time
import urllib.error
import urllib.request
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


def check_url(url: str, allow_private: bool) -> None:
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
    if allow_private:
        return
    for info in infos:
        addr = ipaddress.ip_address(info[4][0].split("%")[0])
        if (addr.is_private or addr.is_loopback or addr.is_link_local or addr.is_multicast
                or addr.is_reserved or addr.is_unspecified):
            raise UnsafeUrl(f"The host {parts.hostname!r} resolves to {addr}, a loopback, "
                            "private, link-local or multicast address.")


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

class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


_opener = urllib.request.build_opener(_NoRedirect)


def body_of(kind: str, data: dict[str, Any]) -> str:
    return json.dumps({"type": kind, "timestamp": now_iso(), "data": data},
                      separators=(",", ":"), sort_keys=True)


def post(url: str, secret: str, msg_id: str, body: str, timeout: float) -> dict[str, Any]:
    """One signed POST; returns {"status", "latency_ms", "error"} (status None: no answer)."""
    now = datetime.now(tz=UTC)
    headers = {
        "content-type": "application/json", "user-agent": USER_AGENT,
        "webhook-id": msg_id, "webhook-timestamp": str(int(now.timestamp())),
        "webhook-signature": Webhook(secret).sign(msg_id, now, body),
    }
    request = urllib.request.Request(url, data=body.encode("utf-8"), headers=headers,
                                     method="POST")
    started = time.monotonic()
    status: int | None = None
    error: str | None = None
    try:
        with _opener.open(request, timeout=timeout) as response:
            status = response.status
            response.read(65536)
    except urllib.error.HTTPError as err:
        status = err.code
        error = f"HTTP {err.code}"
    except (urllib.error.URLError, OSError, TimeoutError) as err:
        reason = getattr(err, "reason", err)
        error = f"{type(reason).__name__}: {reason}"
    latency = round((time.monotonic() - started) * 1000, 1)
    return {"status": status, "latency_ms": latency, "error": error}


def retryable(outcome: dict[str, Any]) -> bool:
    """Retry on no answer (refused, timeout), 5xx, 408 and 429; not on other 4xx or 3xx."""
    status = outcome["status"]
    return status is None or status >= 500 or status in (408, 429)
