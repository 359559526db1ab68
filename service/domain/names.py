"""Players' names by seat, for the texts the API and the mails write (docs/games.md "Texts a
person reads"), kept in each process.

A name never changes once registered (no route renames a player, and no player record is
removed), so a name read once is good for the process's life. A seat view is read on every
move, through the fast path, in one round trip: with the names kept here it stays one round
trip once the process has seen the game's players, and costs one more (every missing name in
it) the first time.
"""

from __future__ import annotations

from collections.abc import Sequence

from service.storage.store import Store

#: player id -> name; cleared when full (ids are random, a process meets each one again soon)
_NAMES: dict[str, str] = {}
NAMES_MAX = 100_000
#: what a seat is called without a name: a seat nobody holds, a player without a record
NOBODY, SOMEONE = "nobody", "someone"


def seat_names(store: Store, players: Sequence[str | None]) -> list[str]:
    """Each seat's player name, as pictures, mails, views and events name them ("someone"
    for a player without a name, "nobody" for a seat nobody holds)."""
    missing = [pid for pid in dict.fromkeys(players) if pid and pid not in _NAMES]
    if missing:
        if len(_NAMES) + len(missing) > NAMES_MAX:
            _NAMES.clear()
        for pid, name in zip(missing, store.player_names(missing), strict=True):
            if name:
                _NAMES[pid] = name
    return [(_NAMES.get(pid) or SOMEONE) if pid else NOBODY for pid in players]
