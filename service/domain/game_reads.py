"""Where a game's data is read from: the one place that decides between Redis and the archive.

A game that has not finished is read from Redis, part by part, as always (the store). A
finished game is read as one consistent record (`GameRecord`): from Redis in one atomic read
while it is still there, from the archive once it has moved (its meta hash in Redis is then
the pointer {status: finished, archived: 1}). A record answers the store's game reads with the
same results, so every read of a finished game (summary, views, events, audit bundle, record,
move status) gives the same bytes before and after the move, and a read that straddles the
move cannot mix the two (tests/archive/test_same_answers.py).
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator
from itertools import groupby
from typing import Any, Protocol

from service.domain.game_model import Game
from service.storage.archive import archive_of, archived_record
from service.storage.game_records import GameRecord, is_archived, read_snapshot
from service.storage.store import Store

#: archived games read from the archive per query while listing a player's games
LIST_PAGE = 100


class GameReads(Protocol):
    """The game reads a `Store` and a `GameRecord` both answer."""

    def state_json(self, gid: str) -> str | None: ...
    def state(self, gid: str) -> Any: ...
    def entries(self, gid: str, first: int, last: int) -> list[tuple[int, dict[str, str]]]: ...
    def rejection(self, gid: str, seq: int) -> dict[str, str] | None: ...
    def rejections(self, gid: str) -> dict[int, dict[str, str]]: ...
    def events(self, gid: str, after: int, count: int) -> list[tuple[int, dict[str, Any]]]: ...
    def draws(self, gid: str) -> list[dict[str, Any]]: ...
    def hashes(self, gid: str) -> list[tuple[int, str]]: ...
    def secret(self, gid: str) -> dict[str, str]: ...


def reads_of(store: Store, game: Game) -> GameReads:
    """Where to read `game`'s parts: the store while it runs, its record once finished."""
    if not game.finished:
        return store
    return finished_record(store, game.id) or store


def finished_record(store: Store, gid: str) -> GameRecord | None:
    """A whole game in one consistent read: from Redis, or from the archive once it has
    moved (None: no such game)."""
    snapshot = read_snapshot(store, gid)
    if snapshot.archived:
        return archived_record(store, gid)
    return snapshot.record


def view_inputs(store: Store, gid: str, meta: dict[str, str], state_json: str | None
                ) -> tuple[dict[str, str], str | None]:
    """(meta, state) for a seat view: as read from Redis, or the archived game's."""
    if not is_archived(meta):
        return meta, state_json
    record = archived_record(store, gid)
    return record.meta(gid), record.state_json(gid)


def accept_inputs(store: Store, gid: str, nonce: str, meta: dict[str, str],
                  state_json: str | None, seen: int | None
                  ) -> tuple[dict[str, str], str | None, int | None]:
    """(meta, state, seq of the nonce) for checking a move: as read from Redis, or the
    archived game's (a late post is answered as it was before the game moved)."""
    if not is_archived(meta):
        return meta, state_json, seen
    record = archived_record(store, gid)
    seq = record.nonces(gid).get(nonce)
    return record.meta(gid), record.state_json(gid), int(seq) if seq else None


def player_games(store: Store, pid: str, after: str | None, archived: bool
                 ) -> Iterator[tuple[str, dict[str, str] | None]]:
    """The player's games after the id `after`, in id order: (id, None) for a game in Redis,
    (id, its meta) for an archived one (`archived`: include those). A game in both (a crash
    between the move and the index's update) comes once, as archived."""
    live = ((gid, None) for gid in store.player_games(pid) if not after or gid > after)
    found = _archived_games(store, pid, after) if archived else iter(())
    merged = heapq.merge(live, found, key=lambda item: item[0])
    for gid, same in groupby(merged, key=lambda item: item[0]):
        yield gid, next((meta for _, meta in same if meta is not None), None)


def _archived_games(store: Store, pid: str, after: str | None
                    ) -> Iterator[tuple[str, dict[str, str]]]:
    archive = archive_of(store)
    while True:
        page = archive.player_games(pid, after, LIST_PAGE)
        yield from page
        if len(page) < LIST_PAGE:
            return
        after = page[-1][0]
