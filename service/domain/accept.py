"""Accepting a signed move in the web process: every check in DESIGN.md's order, then the append.

Checks, each with its own code: the body is JSON without duplicate keys and matches the envelope
schema (422 `invalid_envelope` / `malformed_move`), the key is known (401 `unknown_key`), the
signature verifies (401 `bad_signature`), in a game that requires derived nonces the nonce is
the payload's derived nonce (422 `nonce_not_derived`, docs/audit.md §6), the signer holds the
seat (403 `not_seated`), the seat is asked to act (409 `not_your_turn`, or the engine's own
out-of-turn code such as `setup_already_submitted`), `step` is current (409 `stale_step`), the
nonce is unused (409 `duplicate_nonce`), a dry run of the engine accepts the move (422 with the
engine's code), and a repeat of the very same move at one step follows its previous repeat
(409 `early_repeat`). Posting the same envelope again returns the same move (idempotent).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Protocol

import rfc8785
from parley_protocol import signing

from engines.contract import IllegalMove
from service.domain.chain import (
    Accepted,
    Append,
    append_counted,
    append_entry,
    append_outcome,
    entry_row,
    iso,
    receipt,
)
from service.domain.envelope import EnvelopeSchema, conforms
from service.domain.foresight import Foreseen, Foresight
from service.domain.game import load_game
from service.domain.game_model import Game
from service.domain.game_reads import accept_inputs, reads_of
from service.domain.problems import (
    BadSignature,
    Conflict,
    Forbidden,
    IllegalMoveProblem,
    InvalidJson,
    InvalidRequest,
    NotFound,
    Problem,
)
from service.domain.settle import plan_settlement
from service.ops import clock
from service.storage import metrics_records
from service.storage.resolve_queue import wake
from service.storage.store import Command, Store

if TYPE_CHECKING:
    from rq import Queue

log = logging.getLogger(__name__)

_envelope_schema = EnvelopeSchema()


def queued_body(queue: Queue, gid: str, accepted: Accepted, location: str,
                woken: bool = False) -> dict[str, Any]:
    """The answer to a newly stored envelope (`queued`, or `applied` where the web process
    applied it at once, `service.domain.settle`), after waking its game when no wake of it was
    outstanding (the accepting script set its `scheduled` flag), unless the caller has
    `woken` it already (a batch wakes its games together)."""
    if accepted.schedule and not woken:
        wake(queue, gid)
    return {"id": accepted.seq, "status": "applied" if accepted.applied else "queued",
            "location": location, "receipt": accepted.receipt}


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
    if conforms(data):
        return data
    errors = _envelope_schema.validate(data) if isinstance(data, dict) else {"_schema": ["object"]}
    if errors:
        raise InvalidRequest("The envelope does not match its schema.", code="invalid_envelope",
                             errors=errors)
    return data  # as sent: the signature covers these exact values


#: a rate limit's counter: its key, its limit and its window in seconds
Counter = tuple[str, int, int]


class Rider(Protocol):
    """Another concern's commands that ride in a move's own round trips, so that they cost
    none of their own: the rate limits' counters (service.web.fastpath.quota.MoveCharges)."""

    def with_context(self) -> list[Command]:
        """Commands to run ahead of the context reads."""

    def check(self, replies: list[Any]) -> None:
        """Their replies; raise to refuse the move before anything is appended."""

    def with_append(self) -> list[Command]:
        """Commands to run after the accepting script (its first attempt only)."""

    def foreseen_counters(self) -> tuple[list[Counter], list[Counter]]:
        """The counters ACCEPT_FORESEEN charges instead (`Store.accept_foreseen`): the
        address's and the signer's."""

    def foreseen(self, outcome: str, detail: Any) -> None:
        """ACCEPT_FORESEEN's outcome ("ok", "miss", "limit" and which): note what it charged,
        and raise for a limit."""


def submit_move(store: Store, gid: str, body: bytes, server_key: Any,
                rider: Rider | None = None, foresight: Foresight | None = None) -> Accepted:
    """Check an envelope and append it to the game's move stream; raise a Problem if refused.
    A `rider`'s commands share the two round trips (context, append). With `foresight` (the
    web process's), a move to a game whose state the process foresaw is checked against that
    state and appended in one round trip when the store proves it right; else it goes on
    with the context the attempt read, as if from the first round trip."""
    envelope = parse_envelope(body)
    if envelope["payload"]["game"] != gid:
        raise InvalidRequest("The envelope names another game.", code="wrong_game")
    canonical_env = _canonical(envelope)
    key_id = envelope["key_id"]
    key = foreseen = None
    if foresight is not None and store.foresees:
        key = foresight.key(key_id)
        foreseen = foresight.take(gid) if key is not None else None
    context = None  # a miss answers it, once the signature verified with the kept key
    if foreseen is not None:
        outcome = _append_foreseen(store, server_key, envelope, canonical_env, key, foreseen,
                                   foresight, rider)
        if isinstance(outcome, tuple) and isinstance(outcome[0], Accepted):
            _foresee(foresight, envelope, *outcome)
            return outcome[0]
        context = outcome
    verified = context is not None
    if context is None:
        key, [context], ahead = store.accept_contexts(
            key_id, [(gid, envelope["payload"]["nonce"])],
            first=rider.with_context() if rider else ())
        if rider is not None:
            rider.check(ahead)
    checked = _check(store, server_key, envelope, canonical_env, key, *context,
                     verified=verified)
    if isinstance(checked, Accepted):
        return checked
    accepted = append_counted(store, server_key, checked, "api",
                              then=rider.with_append() if rider else ())
    if foresight is not None and key is not None:
        foresight.keep_key(key_id, key)
        _foresee(foresight, envelope, accepted, checked)
    return accepted


def _append_foreseen(store: Store, server_key: Any, envelope: dict[str, Any],
                     canonical_env: str, key: dict[str, str], foreseen: Foreseen,
                     foresight: Foresight, rider: Rider | None
                     ) -> tuple[Accepted, Append] | Context | None:
    """The move checked against the foreseen state and appended if the store agrees (its
    Accepted and the Append made), applied at once where it can be (`settle`), or the
    context the attempt read (a miss), or None where the foreseen state refuses the move:
    the usual path decides."""
    payload = envelope["payload"]
    if _repeat_of(foreseen.game, envelope):
        return None  # its previous repeat is looked for in the log: the usual path's read
    try:
        _verify(key, envelope)
        _check_nonce(foreseen.game, key, envelope)
        append, state = _judge(foreseen.game, foreseen.state, payload, canonical_env, None,
                               foreseen.chain_head, key["player"])
    except Problem:
        return None
    now = int(clock.now())
    row = entry_row(append, now)
    address, signer = rider.foreseen_counters() if rider is not None else ((), ())
    settling = foresight.settles and store.settles
    settlement = plan_settlement(foreseen, payload, canonical_env) if settling else None
    if settlement is not None:
        reply = store.settle_foreseen(
            row, foreseen.item, foreseen.seq, metrics_records.ONE_TRIP[metrics_records.SETTLED],
            settlement.resolution.commit, settlement.players, settlement.feeds,
            settlement.notices, address, signer)
    else:
        if not settling:
            append.basis = (foreseen.game, state, foreseen.seq + 1)
        # else the move draws or ends the game, so foreseeing would fail as settling did, and
        # settling changed `state`: nothing is foreseen after it
        reply = store.accept_foreseen(row, foreseen.item, foreseen.seq,
                                      metrics_records.ONE_TRIP[metrics_records.FORESEEN],
                                      address, signer)
    if rider is not None:
        rider.foreseen(reply[0], reply[1])
    if reply[0] == "miss":
        return reply[1], reply[2], reply[3]
    if reply[0] == "settled":
        assert settlement is not None
        accepted = Accepted(int(reply[1]), True,
                            receipt(server_key, append.gid, int(reply[1]),
                                    {"h": row[5], "t": iso(now)}),
                            schedule=reply[2] == "1", entry_hash=row[5], applied=True)
        foresight.keep(settlement.foreseen(row[5]))
        return accepted, append
    accepted = append_outcome(store, server_key, append, reply, row[5], now)
    return (accepted, append) if accepted is not None else None


def _foresee(foresight: Foresight | None, envelope: dict[str, Any], accepted: Accepted,
             append: Append) -> None:
    """Foresee the state a newly appended move leads to, when it was checked against the
    state every earlier entry led to."""
    if foresight is None or append.basis is None or not accepted.created:
        return
    game, state, seq = append.basis
    if accepted.seq == seq:
        payload = envelope["payload"]
        foresight.foresee(game, state, payload["seat"], payload["move"], seq,
                          accepted.entry_hash)


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
    appends: list[tuple[int, Append]] = []
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
    unappended: list[tuple[str, str]] = []
    repeated = 0
    if appends:
        now = int(clock.now())
        rows = [entry_row(append, now) for _, append in appends]
        moves = [(append.gid, append.nonce) for _, append in appends]
        replies = store.accept_many(rows, then=metrics_records.accept_commands("api", moves))
        for (i, append), row, reply, move in zip(appends, rows, replies, moves, strict=True):
            try:
                accepted = (append_outcome(store, server_key, append, reply, row[5], now)
                            or append_entry(store, server_key, append))
            except Problem as problem:
                results[i] = problem
                unappended.append(move)
                continue
            results[i] = accepted
            repeated += not accepted.created
    # a batch is never answered by the fast path, so its refusals are counted here, once
    metrics_records.settle(store, [r.code for r in results if isinstance(r, Problem)],
                           unappended, repeated)
    return results  # type: ignore[return-value]  # every slot is filled above


def _canonical(envelope: dict[str, Any]) -> str:
    try:
        return signing.canonical(envelope).decode("utf-8")
    except (rfc8785.CanonicalizationError, ValueError) as err:
        raise InvalidRequest(f"The envelope cannot be canonicalised: {err}",
                             code="invalid_envelope") from err


#: what a move is checked against: the game's meta, its stored state, the seq of the nonce
Context = tuple[dict[str, str], str | None, int | None]


def _check(store: Store, server_key: Any, envelope: dict[str, Any], canonical_env: str,
           key: dict[str, str] | None, meta: dict[str, str], state_json: str | None,
           seen: int | None, verified: bool = False) -> Accepted | Append:
    """Every check of a schema-valid envelope against what the store holds, in DESIGN.md's
    order: the same move again (its `Accepted`), the append to make, or a Problem.
    `verified`: the signature was verified with this very key already."""
    payload = envelope["payload"]
    gid = payload["game"]
    if key is None:
        raise BadSignature("No such key.", code="unknown_key")
    if not verified:
        _verify(key, envelope)
    if not meta:
        raise NotFound("No such game.", code="game_not_found")
    meta, state_json, seen = accept_inputs(store, gid, payload["nonce"], meta, state_json, seen)
    game = Game.from_meta(gid, meta)
    _check_nonce(game, key, envelope)
    if seen is not None:
        existing = reads_of(store, game).entries(gid, seen, seen)
        if existing and existing[0][1]["env"] == canonical_env:
            return Accepted(seen, False, receipt(server_key, gid, seen, existing[0][1]))
    append, state = _judge(game, state_json, payload, canonical_env, seen,
                           meta.get("last_hash", ""), key["player"])
    if _repeat_of(game, envelope):
        _check_repeat(store, game, payload)
    if game.applied == game.head:  # no entry waits: the state is the one the move meets
        append.basis = (game, state, game.head + 1)
    return append


def _verify(key: dict[str, str], envelope: dict[str, Any]) -> None:
    if not signing.verify_payload(signing.b64url_decode(key["public_key"]),
                                  envelope["payload"], envelope["signature"]):
        raise BadSignature("The signature does not verify with this key.")


def _check_nonce(game: Game, key: dict[str, str], envelope: dict[str, Any]) -> None:
    """In a game that requires derived nonces, a player's nonce is the derived nonce of the
    payload with the key that signed it (docs/audit.md §6): the signing key's signature of
    the game, seat, step and move, so that signing the move again cannot change its roll."""
    if not signing.derives_nonces(game.platform) or not signing.player_signed(envelope):
        return
    if not signing.is_derived_nonce(signing.b64url_decode(key["public_key"]),
                                    envelope["payload"]):
        raise InvalidRequest("This game requires derived nonces: the nonce must be the signing "
                             "key's Ed25519 signature of \"parley-nonce-v1\\n\" + JCS of the "
                             "payload's game, seat, step and move, in base64url "
                             "(docs/audit.md §6).", code="nonce_not_derived")


def _repeat_of(game: Game, envelope: dict[str, Any]) -> bool:
    """Whether a player's derived nonce names a repeat (>= 1) of the same move at a step."""
    return (signing.derives_nonces(game.platform) and signing.player_signed(envelope)
            and bool(signing.nonce_repeat(envelope["payload"]["nonce"])))


#: entries read at a time looking back through the log for a move's previous repeat
REPEAT_SCAN = 64


def _check_repeat(store: Store, game: Game, payload: dict[str, Any]) -> None:
    """A repeat r of a move (the very same move by the same seat at the same step) follows
    its repeat r - 1 in the log (docs/audit.md §6). Looked for from the last entry back to
    the first that names an earlier step: a move naming a step is accepted only while the
    game is at that step, so the log's steps never go down."""
    want = (signing.nonce_repeat(payload["nonce"]) or 0) - 1
    move = signing.canonical(payload["move"])
    reads = reads_of(store, game)
    last = game.head
    while last >= 1:
        first = max(1, last - REPEAT_SCAN + 1)
        for _, fields in reversed(reads.entries(game.id, first, last)):
            earlier = signing.load_json(fields["env"])["payload"]
            if earlier["step"] < payload["step"]:
                last = 0
                break
            if (earlier["seat"] == payload["seat"] and earlier["step"] == payload["step"]
                    and signing.nonce_repeat(earlier["nonce"]) == want
                    and signing.canonical(earlier["move"]) == move):
                return
        else:
            last = first - 1
    raise Conflict(f"The nonce names repeat {want + 1} of this move at step {payload['step']}, "
                   f"but the log holds no repeat {want} of it.", code="early_repeat")


def _judge(game: Game, state: dict[str, Any] | str | None, payload: dict[str, Any],
           canonical_env: str, seen: int | None, prev: str, player: str
           ) -> tuple[Append, dict[str, Any]]:
    """The checks after the signature's, against the game and its state (stored JSON, or
    a state already parsed), in DESIGN.md's order: the append to make and the state it was
    checked against (parsed), or a Problem."""
    _check_issued_at(payload["issued_at"])
    if game.status in ("open", "full"):
        raise Conflict("The game has not started.", code="game_not_started")
    seat = payload["seat"]
    if seat >= game.seats or game.players[seat] != player:
        raise Forbidden("The signer does not hold this seat.", code="not_seated")
    if game.finished:
        raise Conflict("The game has ended.", code="game_over")
    engine = game.engine
    if not isinstance(state, dict):
        state = signing.load_json(state)  # type: ignore[arg-type]  # a started game has one
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
    return Append(game.id, decision["step"], payload["nonce"], canonical_env, prev), state


#: how long before its arrival a move may have been signed: correspondence players sign
#: offline and post later (a week covers a long weekend without a connection)
ISSUED_MAX_AGE = 7 * 86400
#: how far in the future `issued_at` may lie: clocks disagree a little
ISSUED_MAX_AHEAD = 300


def _check_issued_at(issued_at: Any) -> None:
    """`issued_at` is an RFC 3339 moment within the window (docs/operations.md "Security")."""
    when = signing.parse_issued_at(issued_at)
    if when is None:
        raise InvalidRequest("issued_at is an RFC 3339 date and time with a zone, e.g. "
                             "2026-11-26T18:30:00Z.", code="bad_issued_at")
    now = clock.now()
    if not now - ISSUED_MAX_AGE <= when <= now + ISSUED_MAX_AHEAD:
        raise InvalidRequest(f"issued_at must lie within the last {ISSUED_MAX_AGE // 86400} days "
                             f"and at most {ISSUED_MAX_AHEAD // 60} minutes ahead of the "
                             "server's clock; sign the move again.", code="stale_signature")


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


def move_status(store: Store, game: Game, seq: int) -> dict[str, Any]:
    if seq < 1 or seq > game.head:
        raise NotFound("No such move.", code="move_not_found")
    if seq > game.applied:
        return {"id": seq, "status": "queued"}
    rejection = reads_of(store, game).rejection(game.id, seq)
    if rejection:
        return {"id": seq, "status": "rejected", **rejection}
    return {"id": seq, "status": "applied"}


def get_game_or_404(store: Store, gid: str) -> Game:
    game = load_game(store, gid)
    if game is None:
        raise NotFound("No such game.", code="game_not_found")
    return game
