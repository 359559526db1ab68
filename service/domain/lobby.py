"""The lobby: games with a free seat, whoever created them (`GET /v1/games?status=open`).

Every game enters the lobby index at its creation; a game that has started (or is gone) leaves
it when a listing meets it, so the index costs nothing per move and a page costs a read per
game looked at, as `count_open_games` prunes a player's open games.
"""

from __future__ import annotations

from service.domain.game import Game, load_game
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
            game = load_game(store, gid)
            if game is None or game.status != "open":
                store.leave_lobby(gid)
            else:
                games.append(game)
        if len(ids) < BATCH:
            return games, None
