"""`parley fsck`: check every stored game for damage, read-only.

For each game (the `parley:games` index, or the ids given) it checks, and reports each failure:

- the meta hash decodes, `applied <= head`, and the move stream holds exactly entries 1..head;
- the move log: every entry's digest, signature and entry hash, chained from the empty string
  (the receipt chain: a receipt a player holds names one of these hashes), and the chain's last
  hash equals `last_hash` in the meta (what the next receipt chains onto);
- the nonces hash maps every entry's nonce to its seq, and holds nothing else;
- the stored state's hash equals the last entry of `hashes`, and `hashes` names seq 0 and then
  only applied seqs, in order;
- a replay of the move log, from the seeds and every entry up to `applied`, reproduces the
  stored state byte for byte, every draw and every event, and (for a finished game) the result.

The log and replay checks are the offline verifier's (`parley_protocol.verify`), run on an
unredacted bundle built from the store with `service.domain.audit_bundle.build_bundle`: there is
one implementation of "what a correct game looks like". fsck writes nothing; a damaged game is
for an operator to restore from a backup (docs/operations.md). A game named that has moved to
the archive is checked as the archive holds it (docs/operations.md "Archive").
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from parley_protocol import signing
from parley_protocol.clock_check import ClockFailure, read_record
from parley_protocol.verify import Replay, VerificationFailed, check_log, compare_events

from service.domain.audit_bundle import all_events, build_bundle
from service.domain.game_model import Game
from service.storage.archive import archived_record
from service.storage.configured import open_store
from service.storage.game_records import GameRecord, is_archived
from service.storage.store import Store


@dataclass
class GameCheck:
    """The outcome for one game: what was checked, and every problem found."""

    game: str
    status: str = "?"
    checked: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def render(self) -> str:
        if self.ok:
            return f"ok       {self.game} ({self.status}: {', '.join(self.checked)})"
        return "\n".join([f"DAMAGED  {self.game} ({self.status})"]
                         + [f"         - {p}" for p in self.problems])


def game_ids(store: Store, page: int = 500) -> Iterator[str]:
    """Every game id in the creation index, a page at a time."""
    offset = 0
    while True:
        ids = store.game_ids(offset, page)
        yield from ids
        if len(ids) < page:
            return
        offset += page


def check_game(store: Store, gid: str, key: Ed25519PrivateKey | None = None) -> GameCheck:
    """Check one game; never raises for damage (a crash while checking is damage too)."""
    check = GameCheck(gid)
    try:
        _check(store, gid, key or Ed25519PrivateKey.generate(), check)
    except VerificationFailed as err:
        check.problems.append(str(err))
    except Exception as err:  # damaged data may break any decoder: report, go on
        check.problems.append(f"cannot be checked: {type(err).__name__}: {err}")
    return check


def _check(store: Store, gid: str, key: Ed25519PrivateKey, check: GameCheck) -> None:
    meta = store.meta(gid)
    if not meta:
        check.problems.append("the index names it, but its meta hash is missing")
        return
    reads: Store | GameRecord = store
    if is_archived(meta):  # checked as the archive holds it
        reads = archived_record(store, gid)
        meta = reads.meta(gid)
        check.checked.append("archived")
    game = Game.from_meta(gid, meta)
    check.status = game.status
    if not 0 <= game.applied <= game.head:
        check.problems.append(f"applied {game.applied} is beyond head {game.head}")
    stream = reads.entries(gid, 1, 2**62)
    seqs = [seq for seq, _ in stream]
    if seqs != list(range(1, game.head + 1)):
        missing = sorted(set(range(1, game.head + 1)) - set(seqs))
        extra = sorted(set(seqs) - set(range(1, game.head + 1)))
        check.problems.append(f"the move stream holds {len(seqs)} entries for head "
                              f"{game.head} (missing {missing[:5]}, extra {extra[:5]})")
        return  # the verifier would only repeat this
    _check_nonces(reads, gid, stream, check)
    if game.status in ("open", "full"):
        if game.head or reads.has_state(gid):
            check.problems.append("a game that has not started has moves or a state")
        check.checked.append("not started")
        return
    bundle = _unredacted_bundle(store, game, key)
    check_log(bundle)
    chain = bundle["entries"][-1]["entry_hash"] if bundle["entries"] else ""
    if (meta.get("last_hash") or "") != chain:
        check.problems.append(f"last_hash in the meta is {meta.get('last_hash')!r}, the "
                              f"chain of the log ends in {chain!r}: the next receipt would "
                              f"not chain onto the log")
    check.checked.append(f"log of {game.head} entries and its chain")
    _check_state(reads, gid, game, bundle, check)


def _check_nonces(store: Store | GameRecord, gid: str, stream: list[tuple[int, dict[str, str]]],
                  check: GameCheck) -> None:
    stored = store.nonces(gid)
    logged: dict[str, str] = {}
    for seq, fields in stream:
        nonce = json.loads(fields["env"])["payload"]["nonce"]
        logged[nonce] = str(seq)
    for nonce, seq in logged.items():
        if stored.get(nonce) != seq:
            check.problems.append(f"entry {seq}'s nonce is recorded for "
                                  f"{stored.get(nonce)!r} in the nonces hash: a re-post "
                                  f"would not be recognised")
    extra = set(stored) - set(logged)
    if extra:
        check.problems.append(f"the nonces hash holds {len(extra)} nonce(s) of no entry")
    check.checked.append(f"{len(logged)} nonces")


def _unredacted_bundle(store: Store, game: Game, key: Ed25519PrivateKey) -> dict[str, Any]:
    """The audit bundle as it will be at the end: every envelope, draw and state hash."""
    bundle = build_bundle(store, dataclasses.replace(game, status="finished"), key)
    bundle["status"] = game.status
    return bundle


def _check_state(store: Store | GameRecord, gid: str, game: Game, bundle: dict[str, Any],
                 check: GameCheck) -> None:
    state_json = store.state_json(gid)
    hashes = store.hashes(gid)
    if state_json is None:
        check.problems.append("the game has started but has no state")
        return
    digest = signing.sha256_hex(state_json.encode("utf-8"))
    if not hashes:
        check.problems.append("the game has started but `hashes` is empty")
    elif hashes[-1][1] != digest:
        check.problems.append(f"the stored state hashes to {digest[:16]}..., the last entry "
                              f"of `hashes` (seq {hashes[-1][0]}) says {hashes[-1][1][:16]}...")
    seqs = [s for s, _ in hashes]
    if seqs and (seqs[0] != 0 or seqs != sorted(set(seqs)) or seqs[-1] > game.applied):
        check.problems.append(f"`hashes` names seqs {seqs[:8]}...: not 0 then increasing "
                              f"up to applied ({game.applied})")
    # the replay: the verifier's, over the entries resolved so far
    try:  # a timed game's clocks decide which timeout actions stand (docs/audit.md §17)
        clocks = read_record(bundle)
    except ClockFailure as err:
        check.problems.append(f"the clocks record: {err}")
        return
    replay = Replay(bundle, game.engine, want_events=True, clocks=clocks)
    replay.start()
    for entry in bundle["entries"]:
        if entry["seq"] > game.applied:
            break
        replay.entry(entry)
    if game.finished:
        replay.finish()
    elif next(replay.draws, None) is not None:
        check.problems.append("the store holds draws the replay never makes")
    if replay.dumped != state_json:
        check.problems.append(f"a replay of the {game.applied} resolved entries gives a state "
                              f"hashing to {signing.sha256_hex(replay.dumped.encode())[:16]}..., "
                              f"the stored state hashes to {digest[:16]}...")
    compare_events(all_events(store, gid), replay.events)
    check.checked.append(f"replay of {game.applied} entries, {len(replay.events)} events")


def fsck(store: Store, ids: Iterable[str] | None = None) -> list[GameCheck]:
    """Check the given games, or every game in the index."""
    key = Ed25519PrivateKey.generate()  # signs the throwaway bundles; nothing is published
    return [check_game(store, gid, key) for gid in (ids if ids is not None else game_ids(store))]


def main(ids: list[str], out: Any) -> int:
    """`parley fsck [GAME ...]`: one line per healthy game, details per damaged one; exit
    status 1 if any game is damaged, 0 otherwise."""
    from service.config import Config

    config = Config()
    store = open_store(config)
    damaged = 0
    total = 0
    for check in fsck(store, ids or None):
        total += 1
        damaged += not check.ok
        print(check.render(), file=out, flush=True)
    print(f"parley fsck: {total} games checked, {damaged} damaged", file=out, flush=True)
    return 1 if damaged else 0
