"""The lobby: games with a free seat, whoever created them (`GET /v1/games?status=open`).

Every game enters the lobby index at its creation; a game that has started (or is gone) leaves
it when a listing meets it, so the index costs nothing per move and a page costs a read per
game looked at, as `count_open_games` prunes a player's open games. Only the live store is
read: a game with a free seat has not started, so it is never in the archive.
"""

from __future__ import annotations

from service.domain.game_model import Game
from service.storage.game_records import is_archived
from service.storage.store import Store

BATCH = 100


def lobby_page(store: Store, after: str | None, limit: int) -> tuple[list[Game], str | None]:
    """Up to `limit` open games after the id `after`, in id order, and the cursor of the next
    page (the last id looked at; None after the last)."""
    games: list[Game] = []
    last = after
    while True:
        ids = store.lobby_ids(last, BATCH)
        for gid in ids:
            if len(games) == limit:
                return games, last
            last = gid
            meta = store.meta(gid)  # an open game is live: the archive holds finished ones
            if not meta or is_archived(meta) or meta.get("status") != "open":
                store.leave_lobby(gid)
            else:
                games.append(Game.from_meta(gid, meta))
        if len(ids) < BATCH:
            return games, None
