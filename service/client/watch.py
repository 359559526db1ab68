"""`parley watch`: follow every game of the player live, from the server's SSE feed.

Reconnects by itself when the connection drops, resuming with Last-Event-ID (the server keeps
what happened meanwhile for ten minutes; after a longer gap it says `resync`, and the command
says to look at the games afresh). Each update is a line in words, players by name, as the mails
tell them (`--json` prints the frames themselves), written out as it comes, so that a pipe
(`parley watch | grep Bob`) gets it at once; a reader that leaves ends the command
(service.cli).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

from engines.contract import Engine, Namer
from engines.sentences import join
from service.client.move_input import engine_for
from service.client.roster import Roster
from service.client.session import ApiError, ClientError, Session, compact, out, problem_of
from service.notify.prose import Story, result_sentence, seat_namer

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


class Printer:
    """Frames as lines a person reads: each game's players named once (`Roster`), its events
    told in order (`Story`: a forfeit on time is told once, as what it was)."""

    def __init__(self, roster: Roster | None = None) -> None:
        self.roster = roster
        self.stories: dict[str, Story] = {}

    def line(self, kind: str, data: dict[str, Any]) -> str | None:
        """One frame's line; None for an event not worth one."""
        game = data.get("game", "")
        if kind == "turn":
            name, _, _ = self._game(data)
            waiting = join(name(s) for s in data["to_act"]) or "nobody"
            who = "your turn" if data["your_turn"] else f"waiting for {waiting}"
            return f"{game}: {who} (step {data['step']})"
        if kind == "finished":
            name, engine, seats = self._game(data)
            return f"{game}: finished. {result_sentence(data['result'], name, seats, engine)}"
        if kind == "event":
            sentence = self._story(data).sentence(data["seq"], data["event"])
            return f"{game} #{data['seq']}: {sentence}" if sentence else None
        if kind == "resync":
            return "(some updates were missed: look at your games afresh with `parley games`)"
        return f"{kind}: {compact(data)}"

    def _game(self, data: dict[str, Any]) -> tuple[Namer, Engine | None, int]:
        """The reader's namer, the game's engine (if this client has it) and its seat count;
        "Player N" names where the game cannot be looked up."""
        seat = data.get("seat")
        try:
            if self.roster is None:
                raise ClientError("no server to ask")
            summary = self.roster.game(data["game"])
        except ClientError:
            return seat_namer([], seat), None, 0
        return (self.roster.namer(summary, seat), engine_for(summary["ruleset"]),
                int(summary["seats"]))

    def _story(self, data: dict[str, Any]) -> Story:
        game = data.get("game", "")
        if game not in self.stories:
            name, engine, _ = self._game(data)
            self.stories[game] = Story(name, engine)
        return self.stories[game]


def cmd_watch(args: argparse.Namespace) -> int:
    session = Session(args)
    session.require_player()
    printer = Printer(Roster(session.http))
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
                    line = compact({"id": eid, "event": kind, "data": data}) if args.json \
                        else printer.line(kind, data)
                    if line is None:
                        continue
                    out(line)
                    sys.stdout.flush()  # a line as it happens, into a pipe too (`| grep Bob`)
                    shown += 1
                    if args.count and shown >= args.count:
                        return 0
        except urllib.error.HTTPError as err:
            raise problem_of(err) from None
        except BrokenPipeError:  # our reader left (`| head`), not the server: the end
            raise
        except (urllib.error.URLError, OSError) as err:
            if isinstance(err, ApiError):
                raise
            out(f"(connection lost: {getattr(err, 'reason', err)}; reconnecting)")
        time.sleep(delay)
        delay = min(delay * 2, 30)


def add_watch(add: Any) -> None:
    p = add("watch", cmd_watch, "follow your games live (turns, moves, results)")
    p.add_argument("--game", help="only this game")
    p.add_argument("--json", action="store_true", help="one JSON object per update")
    p.add_argument("--count", type=int, default=0, help="exit after this many updates")


