"""The states a worker committed last, kept in the process for the game's next resolve.

A resolve reads the game's state (about 3 KB packed), unpacks and parses it (about 60 µs for a
Stratego state) before it applies the new entries: the very state this worker committed a
moment before, when the game's moves keep coming to it. The worker keeps that state as a
reader parses it from the store (`Resolution.stored_state`: keys in the stored order, so the
feed's legal moves and everything else come out as from a fresh read), or, for an engine
whose outcomes do not depend on that order, as `apply` left it (`Resolution.listing_state`),
with the last item of the game's `hashes` its commit wrote ("<seq> <digest of the state>").
The opening script compares that item with the stored one (`Store.open_for_resolve`, `kept`)
and, where they are equal, answers `KEPT_STATE` instead of the state: the digest proves the
kept state is the stored one. A kept state is used once (applying moves changes it) and kept
again only after a commit that was written. Bounded per process by PARLEY_FORESEE_GAMES, like
the web's foresight (`service/domain/foresight.py`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass
class Kept:
    """A state a worker committed, in its `service.domain.recent.Recent` of them by game."""

    #: the last item of the game's `hashes` once the state was committed
    item: str
    #: the state's canonical JSON, as stored (unpacked)
    state_json: str
    state: dict[str, Any]

