"""Who plays a game, by name, for the client's text output: no line names a seat by its number.

The API names players by id and games by seat; the client looks each player's name up once per
command (`GET /v1/players/{id}`, public) and each game's summary once, and tells seats, turns,
events and results with the same words as the mails (`service.notify.prose`): "you", "Bob",
"Player 3" for a seat nobody holds yet.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from engines.contract import Namer
from service.notify.prose import seat_namer


class Getter(Protocol):
    def get(self, path: str, auth: bool = True) -> Any: ...


class Roster:
    """Names and game summaries, each fetched once."""

    def __init__(self, http: Getter) -> None:
        self.http = http
        self._names: dict[str, str] = {}
        self._games: dict[str, dict[str, Any]] = {}

    def name(self, pid: str) -> str:
        """A player's name (their id where the server does not say)."""
        if pid not in self._names:
            try:
                self._names[pid] = str(self.http.get(f"/v1/players/{pid}", auth=False)["name"])
            except Exception:  # a name is a nicety: the id stands in
                self._names[pid] = pid
        return self._names[pid]

    def game(self, gid: str) -> dict[str, Any]:
        if gid not in self._games:
            self._games[gid] = self.http.get(f"/v1/games/{gid}", auth=False)
        return self._games[gid]

    def names(self, summary: Mapping[str, Any]) -> list[str]:
        """The players' names by seat ("" for a seat nobody holds: "Player N" in texts)."""
        out = [""] * int(summary["seats"])
        for p in summary.get("players") or ():
            if p.get("player") and 0 <= p["seat"] < len(out):
                out[p["seat"]] = self.name(p["player"])
        return out

    def namer(self, summary: Mapping[str, Any], me: int | None) -> Namer:
        """Seat -> name as this client's player reads it ("you" for `me`)."""
        return seat_namer(self.names(summary), me)


def seat_of(summary: Mapping[str, Any], player: str | None) -> int | None:
    """The seat `player` holds in a started game (None: none, or not started yet)."""
    if summary.get("status") in ("open", "full"):
        return None
    return next((p["seat"] for p in summary.get("players") or () if p.get("player") == player),
                None)
