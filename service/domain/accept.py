"""Accepting a signed move in the web process: every check in DESIGN.md's order, then the append.

Checks, each with its own code: the body is JSON without duplicate keys and matches the envelope
schema (422 `invalid_envelope` / `malformed_move`), the key is known (401 `unknown_key`), the
signature verifies (401 `bad_signature`), the signer holds the seat (403 `not_seated`), the seat
is asked to act (409 `not_your_turn`, or the engine's own out-of-turn code such as
`setup_already_submitted`), `step` is current (409 `stale_step`), the nonce is unused (409
`duplicate_nonce`), and a dry run of the engine accepts the move (422 with the engine's code).
Posting the same envelope again returns the same move (idempotent).
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import rfc8785

from engines.contract import IllegalMove
from service.domain.game import Game, load_game
from service.protocol import signing
from service.storage.resolve_queue import wake
from service.storage.store import Command, Store, game_key, iso
from service.web.api.move_schemas import EnvelopeSchema
from service.web.errors import (
    BadSignature,
    Conflict,
    Forbidden,
    IllegalMoveProblem,
    InvalidJson,
    InvalidRequest,
    NotFound,
    Problem,
)

if TYPE_CHECKING:
    from rq import Queue

log = logging.getLogger(__name__)

_envelope_schema = EnvelopeSchema()


@dataclass
class Accepted:
    seq: int
    created: bool
    receipt: dict[str, Any]
    #: this append set the game's `scheduled` flag (and did not hand the game to a live
    #: drainer itself, `service.storage.resolve_queue.InlineWake`): the caller must wake the game
    schedule: bool = False


def queued_body(queue: Queue, gid: str, accepted: Accepted, location: str,
                woken: bool = False) -> dict[str, Any]:
    """The answer to a newly stored envelope, after waking its game when no wake of it was
    outstanding (the accepting script set its `scheduled` flag), unless the caller has
    `woken` it already (a batch wakes its games together)."""
    if accepted.schedule and not woken:
        wake(queue, gid)
    return {"id": accepted.seq, "status": "queued", "location": location,
            "receipt": accepted.receipt}


def parse_envelope(body: bytes) -> dict[str, Any]:
    """The envelope from the raw body: strict JSON, then the schema."""
    return check_envelope(parse_body(body))


def parse_body(body: bytes) -> Any:
    """A move body as strict JSON: a duplicate key is refused, since a signature must cover
    one meaning only."""
    try:
        return signing.parse_json_strict(body)
    except signing.DuplicateKey as err:
        raise InvalidRequest(f"Duplicate JSON key {str(err)!r}.", code="malformed_move") from err
    except (ValueError, RecursionError) as err:
        raise InvalidJson("The body is not valid JSON.") from err


def check_envelope(data: Any) -> dict[str, Any]:
    """`data` (parsed strictly) if it matches the envelope schema; else a 422."""
    errors = _envelope_schema.validate(data) if isinstance(data, dict) else {"_schema": ["object"]}
    if errors:
        raise InvalidRequest("The envelope does not match its schema.", code="invalid_envelope",
                             errors=errors)
    return data  # as sent: the signature covers these exact values


@dataclass
class _Append:
    """An envelope that passed every check, to be appended after the chain head `prev`."""

    gid: str
    step: int
    nonce: str
    canonical_env: str
    prev: str | None


class Rider(Protocol):
    """Another concern's commands that ride in a move's own round trips, so that they cost
    none of their own: the rate limits' counters (service.web.limits.MoveCharges)."""

    def with_context(self) -> list[Command]:
        """Commands to run ahead of the context reads."""

    def check(self, replies: list[Any]) -> None:
        """Their replies; raise to refuse the move before anything is appended."""

    def with_append(self) -> list[Command]:
        """Commands to run after the accepting script (its first attempt only)."""


def submit_move(store: Store, gid: str, body: bytes, server_key: Any,
                rider: Rider | None = None) -> Accepted:
    """Check an envelope and append it to the game's move stream; raise a Problem if refused.
    A `rider`'s commands share the two round trips (context, append)."""
    envelope = parse_envelope(body)
    if envelope["payload"]["game"] != gid:
        raise InvalidRequest("The envelope names another game.", code="wrong_game")
    canonical_env = _canonical(envelope)
    key, [(meta, state_json, seen)], ahead = store.accept_contexts(
        envelope["key_id"], [(gid, envelope["payload"]["nonce"])],
        first=rider.with_context() if rider else ())
    if rider is not None:
        rider.check(ahead)
    checked = _check(store, server_key, envelope, canonical_env, key, meta, state_json, seen)
    if isinstance(checked, Accepted):
        return checked
    return _append(store, server_key, checked, then=rider.with_append() if rider else ())


def submit_moves(store: Store, envelopes: list[Any], server_key: Any
                 ) -> list[Accepted | Problem]:
    """`submit_move` for several envelopes signed with one key (each names its game): every
    check per envelope, with two round trips for the whole batch (the contexts, then the
    appends). An envelope's refusal is its result; the others go on."""
    results: list[Accepted | Problem | None] = [None] * len(envelopes)
    todo: list[tuple[int, dict[str, Any], str]] = []
    for i, data in enumerate(envelopes):
        try:
            envelope = check_envelope(data)
            todo.append((i, envelope, _canonical(envelope)))
        except Problem as problem:
            results[i] = problem
    key_ids = {envelope["key_id"] for _, envelope, _ in todo}
    if len(key_ids) > 1:
        raise InvalidRequest("The envelopes of a batch are signed with one key.",
                             code="invalid_batch")
    appends: list[tuple[int, _Append]] = []
    if todo:
        key, contexts, _ = store.accept_contexts(
            key_ids.pop(), [(env["payload"]["game"], env["payload"]["nonce"])
                            for _, env, _ in todo])
        for (i, envelope, canonical_env), (meta, state_json, seen) in zip(todo, contexts,
                                                                           strict=True):
            try:
                checked = _check(store, server_key, envelope, canonical_env, key, meta,
                                 state_json, seen)
            except Problem as problem:
                results[i] = problem
                continue
            if isinstance(checked, Accepted):
                results[i] = checked
            else:
                appends.append((i, checked))
    if appends:
        now = int(time.time())
        rows = [_row(append, now) for _, append in appends]
        replies = store.accept_many(rows)
        for (i, append), row, reply in zip(appends, rows, replies, strict=True):
            try:
                results[i] = (_outcome(store, server_key, append, reply, row[5], now)
                              or _append(store, server_key, append))
            except Problem as problem:
                results[i] = problem
    return results  # type: ignore[return-value]  # every slot is filled above


def _canonical(envelope: dict[str, Any]) -> str:
    try:
        return signing.canonical(envelope).decode("utf-8")
    except (rfc8785.CanonicalizationError, ValueError) as err:
        raise InvalidRequest(f"The envelope cannot be canonicalised: {err}",
                             code="invalid_envelope") from err


def _check(store: Store, server_key: Any, envelope: dict[str, Any], canonical_env: str,
           key: dict[str, str] | None, meta: dict[str, str], state_json: str | None,
           seen: int | None) -> Accepted | _Append:
    """Every check of a schema-valid envelope against what the store holds, in DESIGN.md's
    order: the same move again (its `Accepted`), the append to make, or a Problem."""
    payload = envelope["payload"]
    gid = payload["game"]
    if key is None:
        raise BadSignature("No such key.", code="unknown_key")
    if not signing.verify_payload(signing.b64url_decode(key["public_key"]), payload,
                                  envelope["signature"]):
        raise BadSignature("The signature does not verify with this key.")
    if not meta:
        raise NotFound("No such game.", code="game_not_found")
    game = Game.from_meta(gid, meta)
    if seen is not None:
        existing = store.entries(gid, seen, seen)
        if existing and existing[0][1]["env"] == canonical_env:
            return Accepted(seen, False, receipt(server_key, gid, seen, existing[0][1]))
    if game.status in ("open", "full"):
        raise Conflict("The game has not started.", code="game_not_started")
    seat = payload["seat"]
    if seat >= game.seats or game.players[seat] != key["player"]:
        raise Forbidden("The signer does not hold this seat.", code="not_seated")
    if game.finished:
        raise Conflict("The game has ended.", code="game_over")
    engine = game.engine
    state = signing.load_json(state_json)
    decision = engine.decision(state)
    dry_run_done = False
    if seat not in decision["to_act"]:
        _dry_run(engine, state, seat, payload["move"], status=409)
        dry_run_done = True
    if payload["step"] != decision["step"]:
        raise Conflict(f"The move names step {payload['step']}; the game is at step "
                       f"{decision['step']}.", code="stale_step", current_step=decision["step"])
    if seen is not None:
        raise Conflict("This nonce was used by another envelope.", code="duplicate_nonce")
    if not dry_run_done:
        _dry_run(engine, state, seat, payload["move"], status=422)
    return _Append(gid, decision["step"], payload["nonce"], canonical_env,
                   meta.get("last_hash", ""))


def _dry_run(engine: Any, state: dict, seat: int, move: Any, status: int) -> None:
    """The engine's `check` (contract v2): exactly `apply`'s verdict, with nothing changed and
    nothing drawn, so the dry run costs no copy of the state and no random source."""
    if not isinstance(move, dict):
        raise IllegalMoveProblem("A move is a JSON object.", code="malformed_move")
    try:
        engine.check(state, seat, move)
    except IllegalMove as err:
        cls = Conflict if status == 409 else IllegalMoveProblem
        raise cls(err.message, code=err.code) from err


def _row(append: _Append, now: int) -> tuple[str, int, str, str, str, str, int]:
    """The accepting script's arguments for `append` after its chain head `prev`."""
    prev = append.prev or ""
    digest = signing.sha256_hex(append.canonical_env.encode("utf-8"))
    return (append.gid, append.step, append.nonce, append.canonical_env, prev,
            signing.chain_hash(prev, digest), now)


def _append(store: Store, server_key: Any, append: _Append,
            then: Sequence[Command] = ()) -> Accepted:
    """Append through the accepting script, reading the chain head again on every retry; the
    commands `then` ride with the first attempt only."""
    for attempt in range(50):  # the head moves only when another move is accepted meanwhile
        if attempt or append.prev is None:
            append.prev = store.r.hget(game_key(append.gid, "meta"), "last_hash") or ""
        now = int(time.time())
        row = _row(append, now)
        reply = store.accept(*row, then=() if attempt else then)
        accepted = _outcome(store, server_key, append, reply, row[5], now)
        if accepted is not None:
            return accepted
    raise Conflict("Too many concurrent moves; try again.", code="busy")


def _outcome(store: Store, server_key: Any, append: _Append, res: list[str], entry_hash: str,
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
                        schedule=res[2] == "1")
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
    payload = {"game": gid, "seat": seat, "step": step, "move": move, "nonce": nonce,
               "issued_at": "timeout"}
    return {"payload": payload, "key_id": signing.SERVER_KEY_ID,
            "signature": signing.sign_payload(server_key, payload)}


def append_server_move(store: Store, server_key: Any, gid: str, seat: int, step: int,
                       move: dict[str, Any]) -> Accepted:
    """Append a server-signed timeout action to the move stream (refused if the step moved)."""
    envelope = server_envelope(server_key, gid, seat, step, move)
    canonical_env = signing.canonical(envelope).decode("utf-8")
    return _append(store, server_key, _Append(gid, step, envelope["payload"]["nonce"],
                                              canonical_env, None))


def receipt(server_key: Any, gid: str, seq: int, fields: dict[str, str]) -> dict[str, Any]:
    """The server-signed receipt of an accepted entry (deterministic, so re-derivable)."""
    body = {"game": gid, "seq": seq, "entry_hash": fields["h"], "accepted_at": fields["t"]}
    return {**body, "signature": signing.sign_receipt(server_key, body)}


def move_status(store: Store, game: Game, seq: int) -> dict[str, Any]:
    if seq < 1 or seq > game.head:
        raise NotFound("No such move.", code="move_not_found")
    if seq > game.applied:
        return {"id": seq, "status": "queued"}
    rejection = store.rejection(game.id, seq)
    if rejection:
        return {"id": seq, "status": "rejected", **rejection}
    return {"id": seq, "status": "applied"}


def get_game_or_404(store: Store, gid: str) -> Game:
    game = load_game(store, gid)
    if game is None:
        raise NotFound("No such game.", code="game_not_found")
    return game
