"""In-process helpers: players with keys, a game in a real store, long random games.

Used by the in-process benchmarks (flat cost, acceptance, memory), which call the service's
own functions (`service.domain.accept.submit_move`, `service.domain.game.resolve_pending`) on a
real Redis.
"""

from __future__ import annotations

import json
import random
import secrets
from dataclasses import dataclass, field
from typing import Any

import redis
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from parley_protocol import signing

from engines.registry import get_engine
from engines.rng import SeededRng
from service.config import Config
from service.domain.accept import submit_move
from service.domain.game import create_game, resolve_pending, start_game
from service.notify import dispatch
from service.storage.keys import game_key
from service.storage.store import Store, new_id, now_iso


@dataclass
class Player:
    """A registered player (straight into the store) that signs envelopes."""

    name: str
    key: Ed25519PrivateKey = field(default_factory=Ed25519PrivateKey.generate)
    id: str = ""
    key_id: str = ""

    def register(self, store: Store) -> Player:
        self.id, self.key_id = new_id("p"), new_id("k")
        store.create_player(self.id, {"name": self.name, "created_at": now_iso()}, self.key_id,
                            {"player": self.id, "public_key": signing.public_key_b64(self.key),
                             "created_at": now_iso()}, secrets.token_hex(16))
        return self

    def signed_join(self, game: str, seed: str) -> str:
        """The player's signed join of `game` with client seed `seed`, as the store keeps it
        (docs/audit.md §18)."""
        statement = signing.join_statement(game, self.id, seed, signing.issued_now())
        return json.dumps({"statement": statement, "key_id": self.key_id,
                           "signature": signing.sign_join(self.key, statement)},
                          sort_keys=True, separators=(",", ":"))

    def envelope(self, game: str, seat: int, step: int, move: dict[str, Any],
                 derived: bool = True) -> bytes:
        """A signed move: its derived nonce (docs/audit.md §6), or with `derived` false a
        random one, for a game made without derived nonces (`without_derived_nonces`)."""
        payload = {"game": game, "seat": seat, "step": step, "move": move, "nonce": "",
                   "issued_at": signing.issued_now()}
        payload["nonce"] = (signing.derive_nonce(self.key, payload) if derived
                            else signing.b64url_encode(secrets.token_bytes(16)))
        env = {"payload": payload, "key_id": self.key_id,
               "signature": signing.sign_payload(self.key, payload)}
        return json.dumps(env).encode()


def without_derived_nonces(store: Store, gid: str) -> None:
    """Make `gid` a game as made before derived nonces (no `platform.nonces`): it accepts
    many envelopes of one move at one step, each with its own random nonce, as the figures
    of many copies of one move post them (a game with derived nonces takes each move once)."""
    platform = json.loads(store.meta(gid)["platform"])
    platform.pop("nonces", None)
    store.r.hset(game_key(gid, "meta"), "platform", json.dumps(platform))


def stratego_game(store: Store, army: str = "original", players: list[Player] | None = None
                  ) -> tuple[str, list[Player]]:
    """An active Stratego game in the store, seats in joining order, setups not yet made
    (between `players` if given: a pair can play many games)."""
    players = players or [Player(n).register(store) for n in ("red", "blue")]
    game = create_game(store, "stratego", {"army": army, "red_player": "joined"}, 2,
                       players[0].id)
    for seat, p in enumerate(players):
        store.join(game.id, seat, p.id, f"seed-{seat}", 2, p.signed_join(game.id, f"seed-{seat}"))
    start_game(store, game.id)
    return game.id, players


def stratego_in_play(store: Store, server_key: Any, army: str = "original",
                     players: list[Player] | None = None) -> tuple[str, list[Player]]:
    """A Stratego game after both setups (each the first listed placement), resolved in this
    process. No resolve job was enqueued for the setups, so the game's `scheduled` flag the
    accepting script set is cleared: the next accepted move asks for a job, as in service."""
    engine = get_engine("stratego")
    gid, players = stratego_game(store, army, players)
    for seat in (0, 1):
        state = store.state(gid)
        move = next(engine.legal_moves(state, seat))
        submit_move(store, gid, players[seat].envelope(gid, seat, state["step"], move),
                    server_key)
    resolve_pending(store, gid)
    store.r.delete(game_key(gid, "scheduled"))
    return gid, players


def long_stratego_moves(army: str, at_least: int, seed: int = 0) -> list[tuple[int, dict]]:
    """The (seat, move) list of a random Stratego game of at least `at_least` moves."""
    engine = get_engine("stratego")
    while True:
        chooser = random.Random(seed)
        rng = SeededRng(seed)
        state = engine.setup(engine.validate_options({"army": army}, 2), 2, rng)
        moves: list[tuple[int, dict]] = []
        while engine.result(state) is None:
            seat = chooser.choice(engine.decision(state)["to_act"])
            move = chooser.choice(list(engine.legal_moves(state, seat)))
            state, _ = engine.apply(state, seat, move, rng)
            moves.append((seat, move))
        if len(moves) >= at_least:
            return moves
        seed += 1


def play_through_store(store: Store, gid: str, players: list[Player],
                       moves: list[tuple[int, dict]], server_key: Any) -> None:
    """Accept and resolve each move in turn, as the web process and a worker would (the
    worker's notice flush included: it empties the outbox; these players have no mail or
    webhooks, so it enqueues nothing and needs no queue)."""
    engine = get_engine("stratego")
    config = Config()
    for seat, move in moves:
        step = engine.decision(store.state(gid))["step"]
        submit_move(store, gid, players[seat].envelope(gid, seat, step, move), server_key)
        resolve_pending(store, gid)
        dispatch.flush(store, None, config, gid)  # type: ignore[arg-type]


def game_keys(store: Store, gid: str) -> list[str]:
    """Every existing key of one game (its hash tag)."""
    return list(store.r.scan_iter(match=f"{{g:{gid}}}:*", count=1000))


def raw_client(store: Store) -> redis.Redis:
    """A bytes (not decoding) client on the store's server, for DUMP and RESTORE."""
    return store.raw


def snapshot(store: Store, gid: str) -> dict[str, bytes]:
    """DUMP of every key of one game."""
    raw = raw_client(store)
    return {k: raw.dump(k) for k in game_keys(store, gid)}


def restore(store: Store, gid: str, dumps: dict[str, bytes]) -> None:
    """Put one game's keys back as they were at the snapshot."""
    pipe = raw_client(store).pipeline(transaction=True)
    for k in game_keys(store, gid):
        pipe.delete(k)
    for k, v in dumps.items():
        pipe.restore(k, 0, v, replace=True)
    pipe.execute()
