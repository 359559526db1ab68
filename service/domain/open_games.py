"""The cap on games a player holds that have not started (PARLEY_MAX_OPEN_GAMES).

Created or joined games are tracked per player and pruned as they start, so the count costs
one read per game still waiting; a player at the cap is refused a new game or seat with 409
`too_many_open_games`.
"""

from __future__ import annotations

from service.domain.problems import Conflict
from service.storage.store import Store

NOT_STARTED = ("open", "full")


def count_open_games(store: Store, pid: str) -> int:
    """How many of the player's created or joined games have not started; prunes the rest.

    Single-key commands only (the set and each game's meta live in different cluster slots).
    """
    count = 0
    for gid in store.open_game_ids(pid):
        if store.game_status(gid) in NOT_STARTED:
            count += 1
        else:
            store.forget_open_game(pid, gid)
    return count


def check_open_games(store: Store, pid: str, cap: int, gid: str | None = None) -> None:
    """Refuse (409 `too_many_open_games`) a player holding `cap` games that have not started.

    `gid`: the game being joined; a game already counted for the player is no new one.
    """
    if gid is not None and store.holds_open_game(pid, gid):
        return
    if count_open_games(store, pid) >= cap:
        raise Conflict(f"You already hold {cap} games that have not started; wait until one "
                       f"starts or finishes (PARLEY_MAX_OPEN_GAMES).",
                       code="too_many_open_games", limit=cap)


def track_open_game(store: Store, pid: str, gid: str) -> None:
    store.track_open_game(pid, gid)
