"""`parley watch`: follow every game of the player live, from the server's SSE feed.

Reconnects by itself when the connection drops, resuming with Last-Event-ID (the server keeps
what happened meanwhile for ten minutes; after a longer gap it says `resync`, and the command
says to look at the games afresh).
"""

from __future__ import annotations

import argparse
import json
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

from service.client.commands import ApiError, Session, _compact, _out, _problem

#: longer than the server's keep-alive comments (15 s): a silent connection is a dead one
READ_TIMEOUT = 45


def frames(lines: Iterator[bytes]) -> Iterator[tuple[str | None, str, Any]]:
    """(id, event, data) of each Server-Sent Event in a stream of lines."""
    eid, kind, data = None, "message", []
    for raw in lines:
        line = raw.decode("utf-8").rstrip("\r\n")
        if line == "":
            if data:
                yield eid, kind, json.loads("\n".join(data))
            eid, kind, data = None, "message", []
        elif line.startswith("id:"):
            eid = line[3:].strip()
        elif line.startswith("event:"):
            kind = line[6:].strip()
        elif line.startswith("data:"):
            data.append(line[5:].lstrip())


def render(kind: str, data: dict[str, Any]) -> str:
    """One frame as a line a person reads."""
    game = data.get("game", "")
    if kind == "turn":
        who = "your turn" if data["your_turn"] else f"waiting for seat(s) {data['to_act']}"
        return f"{game}: {who} (step {data['step']})"
    if kind == "finished":
        result = data["result"]
        return f"{game}: finished, winners {result.get('winners')} ({result.get('reason')})"
    if kind == "event":
        return f"{game} #{data['seq']}: {_compact(data['event'])}"
    if kind == "resync":
        return "(some updates were missed: look at your games afresh with `parley games`)"
    return f"{kind}: {_compact(data)}"


def cmd_watch(args: argparse.Namespace) -> int:
    session = Session(args)
    session.require_player()
    last: str | None = None
    shown = 0
    delay = 1.0
    while True:
        headers = {"Accept": "text/event-stream",
                   "Authorization": f"Bearer {session.http.token}"}
        if last:
            headers["Last-Event-ID"] = last
        request = urllib.request.Request(session.http.url("/v1/players/me/stream"),
                                         headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=READ_TIMEOUT) as resp:
                delay = 1.0
                for eid, kind, data in frames(resp):
                    last = eid or last
                    if kind == "ready" or (args.game and data.get("game") != args.game):
                        continue
                    _out(_compact({"id": eid, "event": kind, "data": data}) if args.json
                         else render(kind, data))
                    shown += 1
                    if args.count and shown >= args.count:
                        return 0
        except urllib.error.HTTPError as err:
            raise _problem(err) from None
        except (urllib.error.URLError, OSError) as err:
            if isinstance(err, ApiError):
                raise
            _out(f"(connection lost: {getattr(err, 'reason', err)}; reconnecting)")
        time.sleep(delay)
        delay = min(delay * 2, 30)


def add_watch(add: Any) -> None:
    p = add("watch", cmd_watch, "follow your games live (turns, moves, results)")
    p.add_argument("--game", help="only this game")
    p.add_argument("--json", action="store_true", help="one JSON object per update")
    p.add_argument("--count", type=int, default=0, help="exit after this many updates")


