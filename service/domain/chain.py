"""The signed move stream's chain: appending an entry after the chain head, and receipts.

Shared by the web (a player's checked envelope, `service.domain.accept`) and the workers (the
server-signed timeout action, `service.notify.dispatch`), so it needs neither the web framework
nor the envelope schema. Every entry's hash chains the previous one (docs/audit.md); the
accepting script (`ACCEPT_MOVE`) refuses an append whose chain head moved, and the append is
tried again on the new head.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from parley_protocol import signing

from service.domain.problems import Conflict
from service.ops import clock
from service.storage import metrics_records
from service.storage.store import Command, Store, iso


@dataclass
class Accepted:
    seq: int
    created: bool
    receipt: dict[str, Any]
    #: this append set the game's `scheduled` flag (and did not hand the game to a live
    #: drainer itself, `service.storage.resolve_queue.InlineWake`): the caller must wake the game
    schedule: bool = False
    #: the new entry's hash (hex), the chain's head after it (a new entry only)
    entry_hash: str = ""
    #: applied in the round trip that appended it (`service.domain.settle`)
    applied: bool = False


@dataclass
class Append:
    """An envelope that passed every check, to be appended after the chain head `prev`."""

    gid: str
    step: int
    nonce: str
    canonical_env: str
    prev: str | None
    #: for `Foresight.foresee`: the game, the state the move was checked against, and the
    #: seq the move gets if no entry waits before it (None: entries were waiting)
    basis: tuple[Any, dict[str, Any], int] | None = None


def entry_row(append: Append, now: int) -> tuple[str, int, str, str, str, str, int]:
    """The accepting script's arguments for `append` after its chain head `prev`."""
    prev = append.prev or ""
    digest = signing.sha256_hex(append.canonical_env.encode("utf-8"))
    return (append.gid, append.step, append.nonce, append.canonical_env, prev,
            signing.chain_hash(prev, digest), now)


def append_entry(store: Store, server_key: Any, append: Append,
            then: Sequence[Command] = ()) -> Accepted:
    """Append through the accepting script, reading the chain head again on every retry; the
    commands `then` ride with the first attempt only."""
    for attempt in range(50):  # the head moves only when another move is accepted meanwhile
        if attempt or append.prev is None:
            append.prev = store.chain_head(append.gid)
        now = int(clock.now())
        row = entry_row(append, now)
        reply = store.accept(*row, then=() if attempt else then)
        accepted = append_outcome(store, server_key, append, reply, row[5], now)
        if accepted is not None:
            return accepted
    raise Conflict("Too many concurrent moves; try again.", code="busy")


def append_outcome(store: Store, server_key: Any, append: Append, res: list[str], entry_hash: str,
             now: int) -> Accepted | None:
    """The accepting script's reply as an `Accepted`, None for a moved chain head (retry), or
    a Problem."""
    kind = res[0]
    if kind == "retry":
        return None
    if kind == "err":
        code = res[1]
        if code == "stale_step":
            raise Conflict("The game moved on meanwhile.", code="stale_step")
        if code == "duplicate_nonce":
            raise Conflict("This nonce was used by another envelope.", code="duplicate_nonce")
        raise Conflict("The game is not active.", code=code)
    seq = int(res[1])
    if kind == "ok":
        return Accepted(seq, True, receipt(server_key, append.gid, seq,
                                           {"h": entry_hash, "t": iso(now)}),
                        schedule=res[2] == "1", entry_hash=entry_hash)
    # an idempotent re-post that raced its first post: the stored entry's receipt
    return Accepted(seq, False, receipt(server_key, append.gid, seq,
                                        store.entries(append.gid, seq, seq)[0][1]))


def server_envelope(server_key: Any, gid: str, seat: int, step: int,
                    move: dict[str, Any]) -> dict[str, Any]:
    """The envelope of a timeout action, signed with the server key (docs/audit.md §14).

    Deterministic (Ed25519 signatures are, and the nonce derives from game, step and seat), so
    a deadline job that runs twice posts the same envelope and the second is an idempotent
    re-post, never a second move.
    """
    nonce = signing.b64url_encode(
        hashlib.sha256(f"timeout|{gid}|{step}|{seat}".encode()).digest()[:18])
    return _signed(server_key, signing.SERVER_KEY_ID, {
        "game": gid, "seat": seat, "step": step, "move": move, "nonce": nonce,
        "issued_at": "timeout"})


def mail_envelope(server_key: Any, gid: str, seat: int, step: int, move: dict[str, Any],
                  token_digest: str, received_at: str) -> dict[str, Any]:
    """The envelope of a move made by mail reply, signed with the server key on the player's
    behalf (docs/audit.md §15): the nonce derives from the reply token (its digest for a
    reply's first line, then one per line: `service.domain.mail_moves`), so one token makes
    one reply's moves and no more (a second reply repeats a nonce)."""
    return _signed(server_key, signing.MAIL_KEY_ID, {
        "game": gid, "seat": seat, "step": step, "move": move, "nonce": token_digest,
        "issued_at": received_at})


def _signed(server_key: Any, key_id: str, payload: dict[str, Any]) -> dict[str, Any]:
    return {"payload": payload, "key_id": key_id,
            "signature": signing.sign_payload(server_key, payload)}


def append_server_move(store: Store, server_key: Any, envelope: dict[str, Any]) -> Accepted:
    """Append an envelope the server signed (a timeout action, a mail-authorised move) to the
    move stream; refused if its step has passed."""
    canonical_env = signing.canonical(envelope).decode("utf-8")
    payload = envelope["payload"]
    return append_counted(store, server_key, Append(payload["game"], payload["step"],
                                                    payload["nonce"], canonical_env, None),
                          "server")


def append_counted(store: Store, server_key: Any, append: Append, source: str,
                   then: Sequence[Command] = ()) -> Accepted:
    """`append_entry`, counted for /metrics as accepted from `source` (api, server): the count
    and the move's submit time ride in the append's own round trip, and are taken back (one
    more round trip, rare) when the accepting script refuses the move or finds it stored."""
    moves = [(append.gid, append.nonce)]
    try:
        accepted = append_entry(store, server_key, append,
                                then=[*then, *metrics_records.accept_commands(source, moves)])
    except Conflict:
        metrics_records.settle(store, unappended=moves, source=source)
        raise
    if not accepted.created:  # a re-post that raced its first post
        metrics_records.settle(store, repeated=1, source=source)
    return accepted


def receipt(server_key: Any, gid: str, seq: int, fields: dict[str, str]) -> dict[str, Any]:
    """The server-signed receipt of an accepted entry (deterministic, so re-derivable)."""
    body = {"game": gid, "seq": seq, "entry_hash": fields["h"], "accepted_at": fields["t"]}
    return {**body, "signature": signing.sign_receipt(server_key, body)}
