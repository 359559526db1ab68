"""The audited random source: every random draw of a game comes from here and is logged.

DESIGN.md "Audited randomness"; the byte-exact specification is `docs/audit.md`.

- `game_seed`: HMAC-SHA256(server_seed, b"parley-dice-v1" || JCS([game_id, client_seed_0, ...])).
- A draw key per occasion: `start_key` for draws at game start (the platform's `seat-order`, an
  engine's `setup`), `move_key` for draws made while applying a move, keyed by that move's
  roll source (`parley_protocol.signing.roll_source`: its signature, or in a game with derived
  nonces a player's nonce) so nobody can know a roll before the move that causes it is signed.
- The stream under a key: blocks HMAC-SHA256(key, counter as 8-byte big-endian), counter 0, 1, ...,
  read as 4-byte big-endian unsigned words.
- `randint(lo, hi)`: n = hi - lo + 1; words w >= 2**32 - (2**32 mod n) are rejected (no modulo
  bias); the result is lo + w mod n. n = 1 consumes no word.
- `shuffle`: Fisher-Yates from the last index down, j = randint(0, i), swap i and j.

Engines see only the small `Rng` protocol of `engines.contract` (randint, roll, shuffle). Tests
and playouts use `SeededRng` (fast, not audited) or `ScriptedRng` (forced results).
"""

from __future__ import annotations

import hashlib
import hmac
import random
from collections.abc import Sequence
from typing import Any

import rfc8785

DICE_LABEL = b"parley-dice-v1"
START_LABEL = b"parley-start-v1\n"
MOVE_LABEL = b"parley-move-draws-v1\n"
WORD = 2**32


def game_seed(server_seed: bytes, game_id: str, client_seeds: Sequence[str]) -> bytes:
    """The game seed, fixed when the last seat joins."""
    msg = DICE_LABEL + rfc8785.dumps([game_id, *client_seeds])
    return hmac.new(server_seed, msg, hashlib.sha256).digest()


def start_key(seed: bytes) -> bytes:
    """The key of the draws made when the game starts (seat order, engine setup)."""
    return hmac.new(seed, START_LABEL, hashlib.sha256).digest()


def move_key(seed: bytes, source: bytes) -> bytes:
    """The key of the draws made while applying the move with this roll source (raw bytes:
    its signature, or its derived nonce, `parley_protocol.signing.roll_source`)."""
    return hmac.new(seed, MOVE_LABEL + source, hashlib.sha256).digest()


class _Logged:
    """Shared draw logic over an abstract word source; every draw is appended to `draws`."""

    def __init__(self) -> None:
        self.draws: list[dict[str, Any]] = []

    def _word(self) -> int:
        raise NotImplementedError

    def _below(self, n: int) -> int:
        if n < 1 or n > WORD:
            raise ValueError(f"range size {n} out of 1..2**32")
        if n == 1:
            return 0
        limit = WORD - WORD % n
        while True:
            w = self._word()
            if w < limit:
                return w % n

    def randint(self, purpose: str, lo: int, hi: int, *, secret: bool = False) -> int:
        value = lo + self._below(hi - lo + 1)
        self._log(purpose, "randint", {"lo": lo, "hi": hi}, value, secret)
        return value

    def roll(self, purpose: str, sides: int = 6, *, secret: bool = False) -> int:
        return self.randint(purpose, 1, sides, secret=secret)

    def shuffle(self, purpose: str, items: list[Any], *, secret: bool = False) -> list[Any]:
        out = list(items)
        for i in range(len(out) - 1, 0, -1):
            j = self._below(i + 1)
            out[i], out[j] = out[j], out[i]
        self._log(purpose, "shuffle", {"items": list(items)}, list(out), secret)
        return out

    def _log(self, purpose: str, kind: str, params: dict, result: Any, secret: bool) -> None:
        self.draws.append(
            {"purpose": purpose, "kind": kind, "params": params, "result": result,
             "secret": secret}
        )


class AuditedRng(_Logged):
    """The HMAC-SHA256 counter stream under one draw key."""

    def __init__(self, key: bytes) -> None:
        super().__init__()
        self._key = key
        self._counter = 0
        self._buf = b""
        self._pos = 0

    def _word(self) -> int:
        if self._pos + 4 > len(self._buf):
            self._buf = hmac.new(
                self._key, self._counter.to_bytes(8, "big"), hashlib.sha256
            ).digest()
            self._counter += 1
            self._pos = 0
        w = int.from_bytes(self._buf[self._pos : self._pos + 4], "big")
        self._pos += 4
        return w


class SeededRng(_Logged):
    """A fast, reproducible, unaudited source for tests, playouts and benchmarks."""

    def __init__(self, seed: int | str = 0) -> None:
        super().__init__()
        self._random = random.Random(seed)

    def _word(self) -> int:
        return self._random.getrandbits(32)


class ScriptedRng(_Logged):
    """Forced results, in order: each draw pops the next value (a shuffle pops a whole list).

    Tests use it to force rolls; running out or a value outside the range is an error, so a test
    cannot silently draw more than it scripted.
    """

    def __init__(self, results: Sequence[Any] = ()) -> None:
        super().__init__()
        self._results = list(results)

    def _pop(self, purpose: str) -> Any:
        if not self._results:
            raise AssertionError(f"ScriptedRng: no scripted result left for {purpose!r}")
        return self._results.pop(0)

    def randint(self, purpose: str, lo: int, hi: int, *, secret: bool = False) -> int:
        value = self._pop(purpose)
        if not (isinstance(value, int) and lo <= value <= hi):
            raise AssertionError(f"ScriptedRng: {value!r} outside {lo}..{hi} for {purpose!r}")
        self._log(purpose, "randint", {"lo": lo, "hi": hi}, value, secret)
        return value

    def shuffle(self, purpose: str, items: list[Any], *, secret: bool = False) -> list[Any]:
        value = self._pop(purpose)
        if sorted(map(repr, value)) != sorted(map(repr, items)):
            raise AssertionError(f"ScriptedRng: {value!r} is not a permutation of {items!r}")
        self._log(purpose, "shuffle", {"items": list(items)}, list(value), secret)
        return list(value)


class NoDraws(_Logged):
    """A source that refuses every draw: for engines and steps that must draw nothing."""

    def _word(self) -> int:
        raise AssertionError("this step may not draw randomness")
