"""What a game is to the service: its meta hash decoded (`Game`), the platform's own events,
what a seat to act is offered, and a resolve computed but not yet written (`Resolution`).

Beneath service.domain.game (the lifecycle), service.domain.game_reads and
service.domain.live_feed, which all read these: the one place each is defined.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import orjson
from parley_protocol import signing
from parley_protocol.timeouts import TIMEOUT

from engines.contract import Engine, key_order_free
from engines.registry import get_engine
from service.storage.store import Commit

SEAT_ORDERS = ("random", "joined")
#: events the platform itself records (a late seat's `timeout`: `parley_protocol.timeouts`);
#: engines never see or redact them
PLATFORM_EVENTS = frozenset({"game_started", "game_finished", TIMEOUT})


@dataclass
class Game:
    """A game's meta hash, decoded."""

    id: str
    ruleset: str
    options: dict[str, Any]
    platform: dict[str, Any]
    seats: int
    status: str
    step: int
    to_act: list[int]
    step_kind: str | None
    head: int
    applied: int
    players: list[str | None]
    result: dict[str, Any] | None
    commitment: str
    created_at: str
    creator: str
    raw: dict[str, str]

    @property
    def engine(self) -> Engine:
        return get_engine(self.ruleset)

    @classmethod
    def from_meta(cls, gid: str, meta: dict[str, str]) -> Game:
        # orjson: read on every request that names a game, several times faster than json on
        # these short values
        seats = int(meta["seats"])
        if meta.get("players"):
            players = orjson.loads(meta["players"])
        else:
            players = [meta.get(f"join:{i}") for i in range(seats)]
        return cls(
            id=gid, ruleset=meta["ruleset"], options=orjson.loads(meta["options"]),
            platform=orjson.loads(meta["platform"]), seats=seats, status=meta["status"],
            step=int(meta.get("step", 0)), to_act=orjson.loads(meta.get("to_act", "[]")),
            step_kind=meta.get("step_kind") or None, head=int(meta.get("head", 0)),
            applied=int(meta.get("applied", 0)), players=players,
            result=orjson.loads(meta["result"]) if meta.get("result") else None,
            commitment=meta["commitment"], created_at=meta["created_at"],
            creator=meta["creator"], raw=meta,
        )

    def seat_of(self, player: str | None) -> int | None:
        """The seat this player holds once the game has started (None: not seated)."""
        if player is None or self.status in ("open", "full"):
            return None
        return self.players.index(player) if player in self.players else None

    @property
    def finished(self) -> bool:
        return self.status == "finished"


def seat_moves(engine: Engine, state: dict[str, Any], seat: int) -> dict[str, Any]:
    """What a seat to act is offered, alike in its view and in its live `turn`: every legal
    move, and whether that list is complete."""
    return {"legal_moves": list(engine.legal_moves(state, seat)),
            "legal_moves_complete": engine.decision(state).get("legal_moves_complete", True)}


@dataclass
class Resolution:
    """A resolve computed but not yet written: its commit and what it resolves."""

    game: Game
    commit: Commit
    last: int
    count: int
    #: the last item of the game's `hashes` once written, where known (`kept_states`)
    item: str | None = None
    _stored: dict[str, Any] | None = dataclasses.field(default=None, repr=False)
    #: the state the engine's `apply` left (its dicts' keys in any order), where a move applied
    applied_state: dict[str, Any] | None = dataclasses.field(default=None, repr=False)

    def stored_state(self) -> dict[str, Any]:
        """The state it leaves, parsed as a reader parses it from the store. Not the state
        the engine's `apply` returned: that holds the same values, but with its keys in
        another order, and an engine's legal moves follow the order of its state's keys, so
        a live feed's turn would list them otherwise than the seat's view does."""
        if self._stored is None:
            self._stored = signing.load_json(self.commit.state)
        return self._stored

    def listing_state(self) -> dict[str, Any]:
        """The state it leaves, to list legal moves from and to foresee the next move with:
        the one `apply` left where the engine is key-order free (engines/contract.py
        `key_order_free`), which spares parsing the stored JSON back; else `stored_state`."""
        if self.applied_state is not None and key_order_free(self.game.engine):
            return self.applied_state
        return self.stored_state()
