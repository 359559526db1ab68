"""What each player sees live of their games: entries of the SSE feed (docs/live.md).

With every commit (`game.write_resolutions`) the game's new events, as each listening seat may
see them, and the change of turn or the end are appended to the players' feeds
(`service.storage.live`): by the commit's own script when the feeds share the store's Redis,
so a commit and its entries are one step. A seat's `turn` entry carries its legal moves, as
its view would list them, so that a client on the stream moves without reading the view
first: the move's path is then one POST, and what the client learns comes pushed. Only players
with an open or recently closed stream are written: the script that opens a game for its
resolve reads which of its players listen, so a game nobody watches costs nothing more.

A stream is opened with a short-lived ticket (`ticket`, `check_ticket`): the API authenticates
the bearer token and redirects to the stream process with a ticket naming the player, so the
token never appears in a URL and a browser's EventSource can follow the redirect.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from typing import TYPE_CHECKING, Any

import orjson

from service.domain.game_model import PLATFORM_EVENTS, Resolution, seat_moves
from service.ops.server_key import derived_secret
from service.storage import live

if TYPE_CHECKING:
    from service.storage.store import Store

#: how long a stream ticket is valid after the API issued it
TICKET_SECONDS = 60


def seated(resolutions: list[Resolution]) -> list[str]:
    """The players seated in the resolutions' games, each once."""
    return sorted({p for r in resolutions for p in r.game.players if p})


def publish(store: Store, resolutions: list[Resolution],
            listening: list[str] | None = None) -> None:
    """Append the committed resolutions to the feeds of their listening players (`listening`:
    those of `seated(resolutions)` who listen, when the caller has read them already)."""
    if listening is None:
        players = seated(resolutions)
        if not players:
            return
        listening = live.listening(store, players)
    if listening:
        live.append(store, feed_entries(resolutions, set(listening)))


def feed_entries(resolutions: list[Resolution], listeners: set[str]) -> dict[str, list[str]]:
    """What the resolutions append to the feeds of `listeners`: player -> entries, in order."""
    out: dict[str, list[str]] = {}
    for r in resolutions:
        for seat, pid in enumerate(r.game.players):
            if pid in listeners:
                out.setdefault(pid, []).extend(_entries(r, seat))
    return out


def _entries(r: Resolution, seat: int) -> list[str]:
    gid, meta = r.game.id, r.commit.meta
    finished = "result" in meta or r.game.finished
    engine = r.game.engine
    out = []
    for record in r.commit.events:
        seq, step, event = orjson.loads(record)
        if not finished and event.get("type") not in PLATFORM_EVENTS:
            event = engine.view_event(event, seat)
            if event is None:
                continue
        out.append(_entry("event", gid, seat, seq=seq, step=step, event=event))
    if "result" in meta:
        out.append(_entry("finished", gid, seat, step=int(meta["step"]),
                          result=orjson.loads(meta["result"])))
    elif "step" in meta and int(meta["step"]) != r.game.step:
        to_act = orjson.loads(meta["to_act"])
        moves = seat_moves(engine, r.listing_state(), seat) if seat in to_act else {}
        out.append(_entry("turn", gid, seat, step=int(meta["step"]), to_act=to_act,
                          your_turn=seat in to_act,
                          deadline=float(meta["deadline"]) if meta.get("deadline") else None,
                          **moves))
    return out


def _entry(kind: str, gid: str, seat: int, **data: Any) -> str:
    # orjson: several times faster than json on the legal moves a turn carries; `type` first,
    # so that the stream process names the SSE event without parsing the entry (`frame`)
    return orjson.dumps({"type": kind, "game": gid, "seat": seat, **data}).decode()


# ---- tickets ----------------------------------------------------------------------------------


def _secret(server_key: Any) -> bytes:
    return derived_secret(server_key, b"parley-stream-ticket-v1")


def ticket(server_key: Any, pid: str, now: float | None = None) -> str:
    """`<player>.<expiry>.<nonce>.<mac>`: lets its bearer open one stream or long poll of the
    player until expiry. The nonce makes every ticket unique, so the stream process can take
    each once (two redirects within a second would otherwise hand out the same one)."""
    expires = int((now or time.time()) + TICKET_SECONDS)
    nonce = secrets.token_hex(8)
    mac = hmac.new(_secret(server_key), f"{pid}|{expires}|{nonce}".encode(), hashlib.sha256)
    return f"{pid}.{expires}.{nonce}.{mac.hexdigest()[:32]}"


def check_ticket(server_key: Any, value: str, now: float | None = None) -> str | None:
    """The player a valid, unexpired ticket names; None otherwise."""
    parts = value.split(".")
    if len(parts) != 4 or not parts[1].isdigit():
        return None
    pid, expires, nonce, mac = parts
    want = hmac.new(_secret(server_key), f"{pid}|{expires}|{nonce}".encode(), hashlib.sha256)
    if not hmac.compare_digest(want.hexdigest()[:32].encode(), mac.encode("utf-8", "replace")):
        return None
    return pid if int(expires) >= (now or time.time()) else None
