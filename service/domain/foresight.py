"""What a web process foresees of the games it serves: the state its last accepted move leads to.

A move's POST reads the game's context (key, meta, state, nonce) in one round trip only so that
the engine can dry-run the move, then appends it in a second. A client that plays a game over
one connection sends every move of that game to the same web process, which has just checked
the move before against the state every earlier entry led to. When that move draws nothing,
the process applies it itself (`Foresight.foresee`) and keeps the state it leads to, parsed
back from its canonical JSON as the stored state is read (the same key order). The next
move of that game is then checked against the foreseen state, and the ACCEPT_FORESEEN script
appends it in the move's only round trip if the store proves the foresight right: every entry
applied, the last one the foreseen move, and the stored state's digest (the last item of the
game's `hashes`) the foreseen state's. Anything else (the move was rejected or not yet applied,
another process accepted a move meanwhile, a draw, a timeout) misses. The script then answers
the context the first round trip would have read, and the move goes on as before: a miss
costs no round trip more.

A foreseen state is used once. Player keys are kept too: a key's record never changes once
written (adding or rotating a key writes a new record, and old keys stay to verify old moves,
docs/audit.md), so a key read once stays right; a feature that alters or removes a key must
drop it here too. The cache is per process and bounded (PARLEY_FORESEE_GAMES states, about
40 KB each for a Stratego game).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from parley_protocol import signing

from engines.contract import key_order_free
from service.domain.game_model import Game
from service.domain.recent import Recent
from service.storage.history_segments import hashes_item

log = logging.getLogger(__name__)

#: player keys kept per process (a record is a few hundred bytes)
KEYS_KEPT = 16384


class WouldDraw(Exception):
    """The move draws from the game's random source: its outcome is the worker's to find."""


class _NoDraws:
    """A random source that refuses every draw (`engines.contract.Rng`); it drew nothing."""

    draws: tuple[dict[str, Any], ...] = ()

    def randint(self, purpose: str, lo: int, hi: int, *, secret: bool = False) -> int:
        raise WouldDraw

    def roll(self, purpose: str, sides: int = 6, *, secret: bool = False) -> int:
        raise WouldDraw

    def shuffle(self, purpose: str, items: list[Any], *, secret: bool = False) -> list[Any]:
        raise WouldDraw


NO_DRAWS = _NoDraws()


@dataclass
class Foreseen:
    """A game as a web process expects to find it at its next move."""

    game: Game
    state: dict[str, Any]
    #: the seq of the last entry, applied
    seq: int
    #: the last item of the game's `hashes` once that entry is applied: "<seq> <digest>"
    item: str
    #: the chain head: the last entry's hash (hex)
    chain_head: str
    #: `state` as stored (canonical JSON)
    state_json: str


class Foresight:
    """One web process's foreseen games and known keys, bounded, shared by its threads."""

    def __init__(self, games: int, settles: bool = True) -> None:
        self._games: Recent[Foreseen] = Recent(games)
        self._keys: Recent[dict[str, str]] = Recent(KEYS_KEPT)
        #: whether a foreseen move may be applied at once (`service.domain.settle`)
        self.settles = settles

    def key(self, key_id: str) -> dict[str, str] | None:
        return self._keys.get(key_id)

    def keep_key(self, key_id: str, key: dict[str, str]) -> None:
        self._keys.put(key_id, key)

    def take(self, gid: str) -> Foreseen | None:
        """The game's foreseen state, if any; it is used once."""
        return self._games.take(gid)

    def keep(self, foreseen: Foreseen) -> None:
        """Keep a foreseen state computed elsewhere (a settled move's, `settle`)."""
        self._games.put(foreseen.game.id, foreseen)

    def foresee(self, game: Game, state: dict[str, Any], seat: int, move: dict[str, Any],
                seq: int, chain_head: str) -> None:
        """Keep what the entry `seq` (this seat's move, the game's last entry, accepted after
        every earlier one was applied to `state`) leads to, unless it draws or ends the game.
        `state` is the caller's to give away: applying the move changes it."""
        if self._games.size <= 0:
            return
        engine = game.engine
        try:
            state, _ = engine.apply(state, seat, move, NO_DRAWS)
        except WouldDraw:
            return
        except Exception:  # the worker meets it too, and rejects the move: nothing foreseen
            log.debug("game %s: move %d not foreseen", game.id, seq, exc_info=True)
            return
        if engine.result(state) is not None:
            return
        dumped = signing.dump_state(state)
        # kept as parsed from its canonical JSON, as the stored state is read: the next move
        # is checked against exactly what the usual path would check it against, key order
        # included (applying a move leaves keys it added in another order), unless the
        # engine's outcomes do not depend on that order
        self._games.put(game.id, Foreseen(
            game, state if key_order_free(engine) else signing.load_json(dumped), seq,
            hashes_item(seq, signing.sha256_hex(dumped.encode("utf-8"))), chain_head, dumped))
