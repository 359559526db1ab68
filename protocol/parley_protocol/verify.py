"""Offline verification of a game's audit bundle or record: `parley verify` (docs/audit.md).

Nothing here talks to a server or to Redis. Given the bundle of a finished game, the verifier
re-derives everything the server claims from first principles: the commitment from the revealed
seed, every envelope's signature from the players' keys (and, in a game that requires them,
every player's derived nonce), the entry-hash chain from the envelopes, every draw from the
seeds and the moves' roll sources (`signing.roll_source`), every state hash by replaying the
engine from the start, and in a timed game every seat's clock, to check that each timeout
action was due
(`parley_protocol.clock_check`). A record (`GET /v1/games/{id}/record`) is an audit bundle
plus the game's events; the events carry no signature of their own because the replay
re-creates them exactly.

Checks run in a fixed order and stop at the first failure, whose message says what and where.
The bundle signature is checked last on purpose: it only says *who* published the bundle, while
the checks before it say *what* is wrong; checked first, every tampering would read "bad bundle
signature". It still matters: it covers the few fields nothing else re-derives (`accepted_at`).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, NoReturn

from engines.contract import Engine, IllegalMove
from engines.registry import get_engine
from engines.rng import AuditedRng, game_seed, move_key, start_key
from parley_protocol import signing
from parley_protocol.clock_check import ClockFailure, ClockRecord, ClockReplay, read_record
from parley_protocol.timeouts import (
    ABORT,
    FORFEIT,
    TIMEOUT,
    abort_events,
    aborted_result,
    is_abort,
    is_timeout,
    timeout_event,
    timeout_result,
)

AUDIT_FORMAT = "parley-audit-v1"
RECORD_FORMAT = "parley-record-v1"
#: what a record holds besides its audit bundle
RECORD_FIELDS = frozenset({"format", "game", "audit", "events"})
BUNDLE_FIELDS = ("format", "game", "ruleset", "options", "platform", "seats", "status",
                 "players", "commitment", "server_seed", "client_seeds", "joined", "entries",
                 "draws", "state_hashes", "result", "server_key", "signature")
ENVELOPE_FIELDS = frozenset({"payload", "key_id", "signature"})
PAYLOAD_FIELDS = frozenset({"game", "seat", "step", "move", "nonce", "issued_at"})
#: a consent of the bundle's `consents` (docs/audit.md §16), and its signed statement
CONSENT_FIELDS = frozenset({"seat", "statement", "key_id", "signature"})
STATEMENT_FIELDS = frozenset({"player", "scope", "mail_moves", "issued_at"})
#: a signed join of the bundle's `joins` (docs/audit.md §18), and its signed statement
JOIN_FIELDS = frozenset({"seat", "statement", "key_id", "signature"})
JOIN_STATEMENT_FIELDS = frozenset({"game", "player", "client_seed", "issued_at"})
DRAW_FIELDS = ("index", "seq", "step", "purpose", "kind", "params", "result")
PLATFORM_EVENTS = ("game_started", "game_finished", TIMEOUT)
#: the statuses of a game that has ended (an abort may end it as `aborted`)
ENDED = ("finished", "aborted")
_HEX64 = re.compile(r"^[0-9a-f]{64}$")


class VerificationFailed(Exception):
    """One check failed; the message names the check and the place (entry, draw, seat)."""


@dataclass
class Report:
    """The outcome of `verify_bundle`: the checks passed, in order, and the first failure."""

    game: str | None = None
    passed: list[str] = field(default_factory=list)
    failure: str | None = None
    complete: bool = True
    server_key: str | None = None
    #: the seqs of the entries the server signed on a player's behalf from a mail reply
    mail_authorised: list[int] = field(default_factory=list)
    #: the seats held without a key: the server signs every move of theirs from mail replies
    mail_only: list[int] = field(default_factory=list)
    #: the seqs of the timeout actions the replay applied (forfeits, default moves, aborts)
    timeouts: list[int] = field(default_factory=list)
    #: whether every seat's clock was recomputed and each timeout action's timing checked
    #: (docs/audit.md §17): None for a game without a time control or not replayed, False
    #: for a timed game whose bundle has no `clocks` record
    timing_checked: bool | None = None
    #: how many of `timeouts` were checked against their seat's clock
    timeouts_timed: int = 0
    #: whether an abort ended the game (its result: nobody won)
    aborted: bool = False
    #: whether every client seed was shown chosen by its player (a signed join, docs/audit.md
    #: §18; a mail-only seat's made by the server): False for a bundle without `joins`
    joins_signed: bool | None = None

    @property
    def ok(self) -> bool:
        return self.failure is None

    def render(self) -> str:
        """A plain-text report for a terminal: one line per check, then the verdict."""
        lines = [f"Parley audit of {self.game or '(unknown game)'}"]
        lines += [f"  ok    {line}" for line in self.passed]
        if self.failure is not None:
            lines += [f"  FAIL  {self.failure}", "NOT VERIFIED"]
        elif not self.complete:
            lines.append("PARTLY VERIFIED: the game has not ended, so the dice and the replay "
                         "could not be checked")
        elif self.timing_checked is False and self.timeouts:
            lines.append("VERIFIED, except when its timeout actions were taken: the bundle has "
                         "no clocks record")
        else:
            lines.append("VERIFIED")
        return "\n".join(lines)


def verify_bundle(bundle: Any, *, server_key: str | None = None,
                  receipts: Iterable[dict[str, Any]] = (), partial: bool = False) -> Report:
    """Check an audit bundle or a record offline; the report names the first failure.

    `server_key` (base64url) pins the key the bundle must be signed with (compare it with
    `GET /v1/server-key`); without it the bundle's own `server_key` is trusted. `receipts` are
    receipts a player kept: each must be signed by that key and match its entry. With `partial`
    a running game's bundle passes if everything verifiable before the end verifies.
    """
    report = Report()
    try:
        _Verifier(bundle, report, server_key, partial).run(list(receipts))
    except (VerificationFailed, ClockFailure) as err:
        report.failure = str(err)
    except Exception as err:  # untrusted input: any crash is a failed verification, not a bug
        report.failure = f"malformed bundle: {type(err).__name__}: {err}"
    return report


def _fail(message: str) -> NoReturn:
    raise VerificationFailed(message)


def _short(value: Any, limit: int = 100) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _is_int(value: Any) -> bool:
    return type(value) is int


def _get(obj: Any, name: str, kind: type | tuple[type, ...], where: str) -> Any:
    """`obj[name]`, which must exist and have this JSON type (bool is not an int)."""
    if not isinstance(obj, dict):
        _fail(f"{where}: expected an object, found {_short(obj)}")
    if name not in obj:
        _fail(f"{where}: the field {name!r} is missing")
    value = obj[name]
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if isinstance(value, bool) and bool not in kinds:
        _fail(f"{where}: {name!r} must be {kinds[0].__name__}, not a boolean")
    if not isinstance(value, kinds):
        _fail(f"{where}: {name!r} must be {kinds[0].__name__}, found {_short(value)}")
    return value


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON values, byte for byte in JCS: `true` is not `1`, `[1]` is not `[true]`."""
    return signing.canonical(a) == signing.canonical(b)


def _json_copy(value: Any) -> Any:
    """A deep copy through JSON, as the server stores events and draws right after `apply`."""
    return json.loads(json.dumps(value))


class _Verifier:
    """One verification run; each `_check_*` method is one line of the report."""

    def __init__(self, bundle: Any, report: Report, pinned_key: str | None,
                 partial: bool) -> None:
        self.report = report
        self.pinned_key = pinned_key
        self.partial = partial
        self.events: list[Any] | None = None
        self.audit = self._unwrap(bundle)
        self.game: str = ""
        self.keys: dict[str, tuple[int, bytes]] = {}  # key id -> (seat, raw public key)
        self.by_mail: list[int] = []  # seqs of the mail-authorised entries
        #: each seat's consents to moves by mail: (when, allowed), in time order
        self.consents: dict[int, list[tuple[float, bool]]] = {}
        self.clocks: ClockRecord | None = None
        #: the moves with derived nonces seen: JCS([seat, step, move]) and the repeat named
        self.repeats: set[tuple[bytes, int]] = set()
        #: an envelope is hidden (a running game's secret move): later repeats are not checked
        self.hidden = False

    def run(self, receipts: list[dict[str, Any]]) -> None:
        self._check_fields()
        finished = self._check_finished()
        if finished:
            self._check_commitment()
        self._check_players()
        self._check_consents()
        self._check_joins()
        self._check_clocks()
        self._check_entries(finished)
        if finished:
            self._replay()
        for receipt in receipts:
            self._check_receipt(receipt)
        self._check_signature()

    def ok(self, line: str) -> None:
        self.report.passed.append(line)

    # ---- shape -------------------------------------------------------------------------------

    def _unwrap(self, bundle: Any) -> dict[str, Any]:
        """The audit bundle itself; a record's events are kept for the replay to compare."""
        fmt = _get(bundle, "format", str, "bundle")
        if fmt == AUDIT_FORMAT:
            return bundle
        if fmt != RECORD_FORMAT:
            _fail(f"bundle: unknown format {fmt!r} (expected {AUDIT_FORMAT!r} or "
                  f"{RECORD_FORMAT!r})")
        extra = sorted(set(bundle) - RECORD_FIELDS)
        if extra:
            _fail(f"record: unknown field {extra[0]!r}")
        audit = _get(bundle, "audit", dict, "record")
        if _get(audit, "format", str, "record audit") != AUDIT_FORMAT:
            _fail(f"record: its audit bundle has the format {audit['format']!r}")
        if _get(bundle, "game", str, "record") != audit.get("game"):
            _fail(f"record: it names game {bundle['game']!r}, its audit bundle "
                  f"{audit.get('game')!r}")
        self.events = _get(bundle, "events", list, "record")
        return audit

    def _check_fields(self) -> None:
        a = self.audit
        for name in BUNDLE_FIELDS:
            if name not in a:
                _fail(f"bundle: the field {name!r} is missing")
        self.game = _get(a, "game", str, "bundle")
        self.report.game = self.game
        ruleset = _get(a, "ruleset", str, "bundle")
        self.engine = _engine(ruleset)
        options = _get(a, "options", dict, "bundle")
        order = _get(_get(a, "platform", dict, "bundle"), "seat_order", str, "bundle platform")
        if order not in ("random", "joined"):
            _fail(f"bundle: unknown seat_order {order!r}")
        nonces = a["platform"].get("nonces", None)
        if nonces is not None and nonces != signing.DERIVED_NONCES:
            _fail(f"bundle: unknown platform nonces {_short(nonces)} (absent or "
                  f"{signing.DERIVED_NONCES!r})")
        seats = _get(a, "seats", int, "bundle")
        for name in ("players", "client_seeds", "joined"):
            if len(_get(a, name, list, "bundle")) != seats:
                _fail(f"bundle: {name!r} has {len(a[name])} items for {seats} seats")
        try:
            self.engine.validate_options(options, seats)
        except IllegalMove as err:
            _fail(f"bundle: the options are not valid for {ruleset}: {err.message}")
        for name in ("entries", "draws", "state_hashes"):
            _get(a, name, list, "bundle")
        commitment = _get(a, "commitment", str, "bundle")
        if not _HEX64.match(commitment):
            _fail("bundle: the commitment is not 64 lowercase hex digits")
        _get(a, "server_key", str, "bundle")
        _get(a, "signature", str, "bundle")
        self.ok(f"format: {AUDIT_FORMAT} of game {self.game} ({ruleset}, {seats} seats"
                + (", with its events)" if self.events is not None else ")"))
        if "clocks" in a and not isinstance(a["platform"].get("time_control"), dict):
            _fail("bundle: a clocks record in a game without a time control")

    def _check_finished(self) -> bool:
        """True for a finished game; a running one passes only in partial mode."""
        status = _get(self.audit, "status", str, "bundle")
        if status in ENDED:
            if self.audit["server_seed"] is None:
                _fail("bundle: the game is finished but the server seed is not revealed")
            if self.events is not None and not isinstance(self.audit["result"], dict):
                _fail("record: a finished game's record has no result")
            return True
        if not self.partial:
            _fail(f"status: the game is {status!r}, not finished: the server seed is not "
                  f"revealed yet, so the dice and the replay cannot be checked (fetch the "
                  f"bundle again after the end, or use --partial)")
        if self.audit["server_seed"] is not None:
            _fail(f"bundle: the game is {status!r} yet its server seed is revealed")
        self.report.complete = False
        return False

    def _check_commitment(self) -> None:
        seed = _get(self.audit, "server_seed", str, "bundle")
        if not _HEX64.match(seed):
            _fail("commitment: the server seed is not 64 lowercase hex digits (32 bytes)")
        digest = hashlib.sha256(bytes.fromhex(seed)).hexdigest()
        if digest != self.audit["commitment"]:
            _fail(f"commitment: SHA-256 of the revealed server seed is {digest}, but the "
                  f"game committed to {self.audit['commitment']}")
        self.ok(f"commitment: SHA-256(server_seed) = {digest[:16]}...")

    def _check_players(self) -> None:
        seen_players: set[str] = set()
        for seat, p in enumerate(self.audit["players"]):
            where = f"players[{seat}]"
            if _get(p, "seat", int, where) != seat:
                _fail(f"{where}: names seat {p['seat']}, expected {seat}")
            player = p.get("player")
            if isinstance(player, str):
                if player in seen_players:
                    _fail(f"{where}: player {player} holds two seats")
                seen_players.add(player)
            elif self.audit["status"] != "open" or player is not None:
                _fail(f"{where}: no player holds seat {seat}")
            keys = _get(p, "keys", dict, where)
            for key_id, public in keys.items():
                self._add_key(seat, key_id, public)
            if p.get("mail_only", False) is not False:
                if p["mail_only"] is not True:
                    _fail(f"{where}: mail_only is true or absent")
                self.report.mail_only.append(seat)
        self.ok(f"players: {len(seen_players)} seated, {len(self.keys)} public keys")
        if self.report.mail_only:
            self.ok(f"mail-only: seat{'s' if len(self.report.mail_only) > 1 else ''} "
                    f"{', '.join(map(str, self.report.mail_only))} joined without a key: the "
                    "server signs their moves from mail replies (any key listed was added "
                    "later)")

    def _check_consents(self) -> None:
        """Each player's signed statements allowing moves by mail (docs/audit.md §16): by the
        player of the seat named, with a key of that seat; absent in bundles of no consent."""
        consents = self.audit.get("consents", [])
        if not isinstance(consents, list):
            _fail("bundle: 'consents' is not a list")
        players = self.audit["players"]
        for i, consent in enumerate(consents):
            where = f"consents[{i}]"
            if not isinstance(consent, dict) or set(consent) != CONSENT_FIELDS:
                _fail(f"{where}: a consent must have exactly {sorted(CONSENT_FIELDS)}")
            seat = _get(consent, "seat", int, where)
            if not 0 <= seat < len(players):
                _fail(f"{where}: no seat {seat}")
            statement = _get(consent, "statement", dict, where)
            if set(statement) != STATEMENT_FIELDS:
                _fail(f"{where}: the statement must have exactly {sorted(STATEMENT_FIELDS)}")
            if statement["player"] != players[seat].get("player") or \
                    statement["scope"] != signing.CONSENT_SCOPE or \
                    not isinstance(statement["mail_moves"], bool):
                _fail(f"{where}: the statement is not one of the player of seat {seat} about "
                      f"moves by mail in {signing.CONSENT_SCOPE}")
            when = signing.parse_issued_at(statement["issued_at"])
            if when is None:
                _fail(f"{where}: issued_at is not an RFC 3339 moment")
            key_id = _get(consent, "key_id", str, where)
            if self.keys.get(key_id, (None,))[0] != seat:
                _fail(f"{where}: key {key_id} is not a key of the player of seat {seat}")
            if not signing.verify_consent(self.keys[key_id][1], statement,
                                          _get(consent, "signature", str, where)):
                _fail(f"{where}: the consent does not verify with key {key_id} (changed, or "
                      f"not signed by that player)")
            self.consents.setdefault(seat, []).append((when, statement["mail_moves"]))
        for timeline in self.consents.values():
            timeline.sort()
        if consents:
            self.ok(f"consents: {len(consents)} signed statements about moves by mail verified")

    def _check_joins(self) -> None:
        """Every client seed's signed join (docs/audit.md §18): the statement of the player
        who took that provisional seat, naming this game and exactly that seed, signed with
        one of that player's keys; a mail-only player's seat has none (the server made its
        seed). A bundle made before joins were signed has no `joins`."""
        a = self.audit
        if "joins" not in a:
            self.report.joins_signed = False
            self.ok("joins: not signed (bundle made before signed joins)")
            return
        joins = a["joins"]
        if not isinstance(joins, list) or len(joins) != a["seats"]:
            _fail(f"bundle: 'joins' must be an array of {a['seats']} items")
        final = {p.get("player"): s for s, p in enumerate(a["players"])
                 if isinstance(p.get("player"), str)}
        signed: list[int] = []
        by_server: list[int] = []
        for seat, (join, seed, player) in enumerate(zip(joins, a["client_seeds"], a["joined"],
                                                        strict=True)):
            where = f"joins[{seat}]"
            if seed is None:
                if join is not None:
                    _fail(f"{where}: a signed join for seat {seat}, which holds no client seed")
                continue
            if not isinstance(player, str):
                _fail(f"{where}: seat {seat} has a client seed but no player in 'joined'")
            if join is None:
                if final.get(player) in self.report.mail_only:
                    by_server.append(seat)
                    continue
                _fail(f"{where}: the client seed of seat {seat} (player {player}) has no signed "
                      f"join: nothing shows that its player chose it")
            if not isinstance(join, dict) or set(join) != JOIN_FIELDS:
                _fail(f"{where}: a join must have exactly {sorted(JOIN_FIELDS)}")
            if _get(join, "seat", int, where) != seat:
                _fail(f"{where}: names seat {join['seat']}, expected {seat}")
            statement = _get(join, "statement", dict, where)
            if set(statement) != JOIN_STATEMENT_FIELDS:
                _fail(f"{where}: the statement must have exactly "
                      f"{sorted(JOIN_STATEMENT_FIELDS)}")
            if not _same(statement["game"], self.game):
                _fail(f"{where}: the join of seat {seat} was signed for game "
                      f"{_short(statement['game'])}, not {self.game}")
            if not _same(statement["player"], player):
                _fail(f"{where}: the join of seat {seat} is signed for player "
                      f"{_short(statement['player'])}, but {player} took the seat")
            if not _same(statement["client_seed"], seed):
                _fail(f"{where}: the client seed of seat {seat} is {_short(seed)}, but its "
                      f"player signed {_short(statement['client_seed'])}")
            if signing.parse_issued_at(statement["issued_at"]) is None:
                _fail(f"{where}: issued_at is not an RFC 3339 moment")
            key_id = _get(join, "key_id", str, where)
            if player not in final or self.keys.get(key_id, (None,))[0] != final[player]:
                _fail(f"{where}: key {key_id} is not a key of player {player}, who took seat "
                      f"{seat}")
            if not signing.verify_join(self.keys[key_id][1], statement,
                                       _get(join, "signature", str, where)):
                _fail(f"{where}: the join of seat {seat} does not verify with key {key_id} "
                      f"(changed, or not signed by player {player})")
            signed.append(seat)
        self.report.joins_signed = True
        line = f"joins: {len(signed)} client seed{'s' * (len(signed) != 1)} signed by the " \
               f"player{'s' * (len(signed) != 1)} who chose {'them' if len(signed) != 1 else 'it'}"
        if by_server:
            line += (f"; seat{'s' * (len(by_server) > 1)} {', '.join(map(str, by_server))} "
                     f"mail-only, {'their seeds' if len(by_server) > 1 else 'its seed'} made "
                     f"by the server")
        self.ok(line)

    def _check_clocks(self) -> None:
        """The `clocks` record of a timed game (docs/audit.md §17): its shape here; the replay
        recomputes every clock from it."""
        self.clocks = read_record(self.audit)
        r = self.clocks
        if r is None:
            return
        tc = r.control
        system = {"per_move": f"per_move, {tc.initial} s a turn",
                  "fischer": f"fischer, {tc.initial} s + {tc.increment} s a turn"
                             + (f" up to {tc.maximum} s" if tc.maximum is not None else ""),
                  "total": f"total, {tc.initial} s for the game"}[tc.system]
        self.ok(f"clocks: {system}{', weekends off' if tc.weekends_off else ''}; "
                + (f"started {self.audit['clocks']['started_at']}, "
                   if r.started_at is not None else "not started, ")
                + f"{r.vacations} vacation{'s' * (r.vacations != 1)}, "
                  f"{len(r.gifts)} gift{'s' * (len(r.gifts) != 1)} of time")

    def _consented(self, seat: int, at: float) -> bool:
        """Whether the seat's player allowed moves by mail at `at` (a mail-only seat always:
        its player has no key to sign with)."""
        if seat in self.report.mail_only:
            return True
        allowed = False
        for when, value in self.consents.get(seat, []):
            if when > at:
                break
            allowed = value
        return allowed

    def _add_key(self, seat: int, key_id: str, public: Any) -> None:
        if key_id in self.keys:
            _fail(f"players: key {key_id} is listed for two seats")
        try:
            raw = signing.b64url_decode(public)
        except ValueError:
            _fail(f"players[{seat}]: key {key_id} is not base64url")
        if len(raw) != 32:
            _fail(f"players[{seat}]: key {key_id} is not 32 bytes")
        self.keys[key_id] = (seat, raw)

    # ---- the log -----------------------------------------------------------------------------

    def _check_entries(self, finished: bool) -> None:
        chain = ""
        nonces: dict[str, int] = {}
        for i, entry in enumerate(self.audit["entries"]):
            chain = self._check_entry(i, entry, chain, nonces, finished)
        n = len(self.audit["entries"])
        self.ok(f"log: {n} entries in order, {len(nonces)} signatures verified, chain head "
                f"{chain[:16] or '(empty)'}...")
        self.report.mail_authorised = list(self.by_mail)
        if self.by_mail:
            self.ok(f"mail-authorised: {len(self.by_mail)} entries signed by the server on the "
                    f"player's behalf from a mail reply (entries "
                    f"{', '.join(map(str, self.by_mail))}); the others are signed by the players"
                    " or are timeout actions")

    def _check_entry(self, i: int, entry: Any, chain: str, nonces: dict[str, int],
                     finished: bool) -> str:
        """One entry of the log: its place, status, envelope, digest and chain link."""
        seq = _get(entry, "seq", int, f"entries[{i}]")
        if seq != i + 1:
            _fail(f"entries: entry #{i + 1} has seq {seq}, expected {i + 1} (an entry is "
                  f"missing, repeated or out of order)")
        where = f"entry {seq}"
        status = _get(entry, "status", str, where)
        if status not in ("applied", "rejected", "queued"):
            _fail(f"{where}: unknown status {status!r}")
        if (status == "rejected") != ("code" in entry):
            _fail(f"{where}: a rejected entry has a code, any other has none")
        if status == "rejected":
            _get(entry, "code", str, where)
        _get(entry, "accepted_at", str, where)
        digest = _get(entry, "digest", str, where)
        if "envelope" in entry:
            self._check_envelope(where, entry["envelope"], nonces, seq)
            actual = signing.envelope_digest(entry["envelope"])
            if actual != digest:
                _fail(f"{where}: the digest is {digest}, but the envelope's is {actual}")
        elif finished:
            _fail(f"{where}: the envelope is missing (a finished game shows every one)")
        else:  # a secret move while the game runs
            self.hidden = True
        chain = signing.chain_hash(chain, digest)
        if _get(entry, "entry_hash", str, where) != chain:
            _fail(f"{where}: the entry hash is {entry['entry_hash']}, but the chain gives "
                  f"{chain}: the log was changed at or before this entry")
        return chain

    def _check_envelope(self, where: str, env: Any, nonces: dict[str, int], seq: int) -> None:
        if not isinstance(env, dict) or set(env) != ENVELOPE_FIELDS:
            _fail(f"{where}: the envelope must have exactly {sorted(ENVELOPE_FIELDS)}")
        payload = _get(env, "payload", dict, where)
        if set(payload) != PAYLOAD_FIELDS:
            _fail(f"{where}: the payload must have exactly {sorted(PAYLOAD_FIELDS)}")
        if payload["game"] != self.game:
            _fail(f"{where}: the move was signed for game {_short(payload['game'])}, "
                  f"not {self.game}")
        seat = _get(payload, "seat", int, where)
        key_id = _get(env, "key_id", str, where)
        if key_id == signing.SERVER_KEY_ID:
            self._check_server_envelope(where, env, payload)
        elif key_id == signing.MAIL_KEY_ID:
            self._check_mail_envelope(where, env, payload)
            self.by_mail.append(seq)
        elif key_id not in self.keys:
            _fail(f"{where}: key {key_id} is not a key of any seated player")
        else:
            key_seat, public = self.keys[key_id]
            if key_seat != seat:
                _fail(f"{where}: signed for seat {seat} with key {key_id}, which belongs to the "
                      f"player of seat {key_seat}")
            if not signing.verify_payload(public, payload, _get(env, "signature", str, where)):
                _fail(f"{where}: the signature does not verify with key {key_id} of seat {seat} "
                      f"(the envelope was changed or not signed by that player)")
            if signing.derives_nonces(self.audit["platform"]):
                self._check_derived_nonce(where, key_id, public, payload)
        nonce = _get(payload, "nonce", str, where)
        if nonce in nonces:
            _fail(f"{where}: reuses the nonce of entry {nonces[nonce]}")
        nonces[nonce] = seq
        _get(payload, "step", int, where)
        _get(payload, "move", dict, where)

    def _check_derived_nonce(self, where: str, key_id: str, public: bytes,
                             payload: dict[str, Any]) -> None:
        """A player's nonce in a game whose platform requires derived nonces (docs/audit.md
        §6): the key's signature of the payload's game, seat, step and move; a repeat r of the
        very same move at the same step follows its repeat r - 1."""
        if not signing.is_derived_nonce(public, payload):
            _fail(f"{where}: the nonce is not the derived nonce of its payload with key {key_id} "
                  f"(the game requires derived nonces: platform nonces "
                  f"{signing.DERIVED_NONCES!r})")
        repeat = signing.nonce_repeat(payload["nonce"]) or 0
        made = signing.canonical([payload["seat"], payload["step"], payload["move"]])
        if repeat and (made, repeat - 1) not in self.repeats and not self.hidden:
            _fail(f"{where}: the nonce names repeat {repeat} of a move that seat "
                  f"{payload['seat']} had not made {repeat} times before at step "
                  f"{_short(payload['step'])}")
        self.repeats.add((made, repeat))

    def _check_server_envelope(self, where: str, env: dict[str, Any],
                               payload: dict[str, Any]) -> None:
        """A timeout action (docs/audit.md §14): signed by the server key, only in a game with
        a time control, and only an abort, a forfeit (`resign`) or, under `skip`, the engine's
        default."""
        tc = (self.audit.get("platform") or {}).get("time_control")
        if not isinstance(tc, dict):
            _fail(f"{where}: a server-signed entry in a game without a time control")
        move = payload.get("move")
        if move == ABORT:  # whatever the policy (§14): the seat never made a decision
            seat = payload.get("seat")
            if not _is_int(seat) or not 0 <= seat < self.audit["seats"]:
                _fail(f"{where}: an abort for {_short(seat)}, not a seat of the game")
        elif tc.get("on_timeout") != "skip" and move != FORFEIT:
            _fail(f"{where}: a server-signed entry other than a forfeit or an abort under "
                  f"on_timeout {tc.get('on_timeout')!r}")
        if not signing.verify_payload(self._server_public(), payload,
                                      _get(env, "signature", str, where)):
            _fail(f"{where}: the server-signed timeout action does not verify with the "
                  f"server key")

    def _check_mail_envelope(self, where: str, env: dict[str, Any],
                             payload: dict[str, Any]) -> None:
        """A mail-authorised move (docs/audit.md §15): signed by the server key on the player's
        behalf, its nonce the SHA-256 of the one-time reply token (32 bytes), its `issued_at`
        the moment the reply arrived."""
        nonce = payload.get("nonce")
        try:
            digest = signing.b64url_decode(nonce) if isinstance(nonce, str) else b""
        except ValueError:
            digest = b""
        if len(digest) != 32:
            _fail(f"{where}: a mail-authorised entry's nonce is not a token digest (32 bytes)")
        issued_at = payload.get("issued_at")
        if not signing.whole_seconds(issued_at):
            _fail(f"{where}: a mail-authorised entry's issued_at is not an RFC 3339 moment in "
                  f"whole seconds")
        if not self._consented(payload["seat"], signing.parse_issued_at(issued_at) or 0.0):
            _fail(f"{where}: a mail-authorised move for seat {payload['seat']}, whose player "
                  f"had not allowed moves by mail at {issued_at} (no signed consent in force, "
                  f"docs/audit.md §16)")
        if not signing.verify_payload(self._server_public(), payload,
                                      _get(env, "signature", str, where)):
            _fail(f"{where}: the mail-authorised move does not verify with the server key")

    # ---- receipts and the bundle signature ---------------------------------------------------

    def _server_public(self) -> bytes:
        key = self.audit["server_key"]
        if self.pinned_key is not None and key != self.pinned_key:
            _fail(f"signature: the bundle names server key {key}, not the expected "
                  f"{self.pinned_key}")
        try:
            raw = signing.b64url_decode(key)
        except ValueError:
            _fail("signature: the server key is not base64url")
        if len(raw) != 32:
            _fail("signature: the server key is not 32 bytes")
        return raw

    def _check_receipt(self, receipt: Any) -> None:
        if not isinstance(receipt, dict):
            _fail("receipt: not a JSON object")
        body = {k: receipt.get(k) for k in ("game", "seq", "entry_hash", "accepted_at")}
        where = f"receipt of entry {_short(body['seq'])}"
        if not _verify_ed25519(self._server_public(), signing.RECEIPT_PREFIX
                               + signing.canonical(body), receipt.get("signature")):
            _fail(f"{where}: its signature does not verify with the server key")
        if body["game"] != self.game:
            _fail(f"{where}: it is a receipt of game {_short(body['game'])}")
        seq = body["seq"]
        entries = self.audit["entries"]
        if not _is_int(seq) or not 1 <= seq <= len(entries):
            _fail(f"{where}: the bundle has no such entry: the server dropped an accepted move")
        entry = entries[seq - 1]
        for name in ("entry_hash", "accepted_at"):
            if entry[name] != body[name]:
                _fail(f"{where}: the server signed {name} {body[name]}, the bundle has "
                      f"{entry[name]}: the log was rewritten")
        self.ok(f"receipt of entry {seq}: signed by the server, matches the log")

    def _check_signature(self) -> None:
        public = self._server_public()
        unsigned = {k: v for k, v in self.audit.items() if k != "signature"}
        message = signing.BUNDLE_PREFIX + signing.canonical(unsigned)
        if not _verify_ed25519(public, message, self.audit["signature"]):
            _fail(f"signature: the bundle signature does not verify with server key "
                  f"{self.audit['server_key']} (the bundle was changed after signing)")
        self.report.server_key = self.audit["server_key"]
        self.ok(f"signature: bundle signed by server key {self.audit['server_key']} "
                f"(compare with GET /v1/server-key)")

    # ---- the replay --------------------------------------------------------------------------

    def _replay(self) -> None:
        """Re-run the game: seat order and setup, then every entry, as the server did."""
        replay = Replay(self.audit, self.engine, self.events is not None, self.clocks)
        replay.start()
        for entry in self.audit["entries"]:
            replay.entry(entry)
        replay.finish()
        if self.audit["status"] == "aborted" and not replay.aborted:
            _fail("status: the bundle says 'aborted', but no abort ended the game")
        self.ok(f"dice: game seed re-derived, {replay.draws_seen} draws re-drawn and equal")
        counts = replay.outcomes
        self.ok(f"replay: {counts.get('applied', 0)} entries applied, "
                f"{counts.get('rejected', 0)} rejected as recorded, "
                f"{replay.hashes_seen} state hashes equal")
        self._report_timing(replay)
        self.ok(f"result: {_short(self.audit['result'])}"
                + (" (aborted: a seat never made a decision in time)" if replay.aborted else ""))
        if self.events is not None:
            compare_events(self.events, replay.events)
            self.ok(f"events: {len(self.events)} events equal the replay's")


    def _report_timing(self, replay: Replay) -> None:
        """What the replay's clocks showed of the timeout actions (docs/audit.md §17)."""
        report = self.report
        report.timeouts = list(replay.timeouts)
        report.aborted = replay.aborted
        if not isinstance(self.audit["platform"].get("time_control"), dict):
            return
        seqs = ", ".join(map(str, replay.timeouts))
        n = len(replay.timeouts)
        actions = (f"{n} timeout action{'s' * (n != 1)}"
                   + (f" (entr{'ies' if n > 1 else 'y'} {seqs})" if n else ""))
        if replay.clocks is None:
            report.timing_checked = False
            self.ok(f"timing: the bundle has no clocks record: the timing of {actions} was not "
                    "checked" if n else
                    "timing: the bundle has no clocks record (no timeout action to check)")
            return
        report.timing_checked = True
        report.timeouts_timed = len(replay.clocks.checked)
        self.ok(f"timing: every seat's clock recomputed; {actions}"
                + (f", {'each ' if n > 1 else ''}taken once its seat's clock had run out"
                   if n else ""))


def check_log(bundle: dict[str, Any]) -> None:
    """The checks of a bundle's fields, players and log (signatures, nonces, the receipt
    chain), without the replay: for a store's own consistency check (`parley fsck`), which
    replays against the stored state itself. Raises VerificationFailed."""
    verifier = _Verifier(bundle, Report(), None, partial=False)
    verifier._check_fields()
    verifier._check_players()
    verifier._check_entries(finished=True)


def _engine(ruleset: str) -> Engine:
    try:
        return get_engine(ruleset)
    except (KeyError, ModuleNotFoundError):
        _fail(f"bundle: this verifier does not know the rules of {ruleset!r}")


def _verify_ed25519(public: bytes, message: bytes, signature: Any) -> bool:
    try:
        return signing.ed25519_verify(public, signing.b64url_decode(signature), message)
    except (ValueError, TypeError):
        return False


def compare_events(recorded: list[Any], expected: list[dict[str, Any]]) -> None:
    for i, (got, want) in enumerate(zip(recorded, expected, strict=False)):
        want = {"id": i + 1, **want}
        if not _same(got, want):
            _fail(f"events: event {i + 1} is {_short(got)}, the replay gives {_short(want)}")
    if len(recorded) != len(expected):
        _fail(f"events: the record has {len(recorded)} events, the replay {len(expected)}")


class Replay:
    """The server's start and resolve loop (service/domain/game.py), rebuilt from the bundle.

    With `clocks` (the bundle's clocks record, `parley_protocol.clock_check.read_record`) it
    also runs every seat's clock and checks each timeout action against it."""

    def __init__(self, audit: dict[str, Any], engine: Engine, want_events: bool,
                 clocks: ClockRecord | None = None) -> None:
        self.audit = audit
        self.engine = engine
        self.want_events = want_events
        seed = bytes.fromhex(audit["server_seed"])
        seeds = audit["client_seeds"]
        if not all(isinstance(s, str) for s in seeds):
            _fail("dice: every seat's client seed must be a string")
        self.seed = game_seed(seed, audit["game"], seeds)
        self.draws: Iterator[tuple[int, Any]] = iter(enumerate(audit["draws"]))
        self.hashes: Iterator[tuple[int, Any]] = iter(enumerate(audit["state_hashes"]))
        self.draws_seen = 0
        self.hashes_seen = 0
        self.outcomes: dict[str, int] = {}
        self.events: list[dict[str, Any]] = []
        self.state: dict[str, Any] = {}
        self.dumped = ""
        self.result: Any = None
        #: the seqs of the timeout actions applied, and whether an abort ended the game
        self.timeouts: list[int] = []
        self.aborted = False
        self.clocks = ClockReplay(clocks, audit["seats"]) if clocks is not None else None

    def start(self) -> None:
        rng = AuditedRng(start_key(self.seed))
        joined = self.audit["joined"]
        if self.audit["platform"]["seat_order"] == "random":
            players = rng.shuffle("seat-order", list(joined))
        else:
            players = list(joined)
        self._draws(rng.draws, "the start", 0, 0)  # the draw first: it names the cause
        seated = [p.get("player") for p in self.audit["players"]]
        if not _same(seated, players):
            _fail(f"seats: the seat-order draw seats {_short(players)}, the bundle "
                  f"{_short(seated)}")
        done = len(rng.draws)
        self.state = self.engine.setup(self.audit["options"], self.audit["seats"], rng)
        self._draws(rng.draws[done:], "the start", 0, 0)
        self._state_hash(0, "the start")
        self._event(0, 0, {"type": "game_started", "players": players})
        self._maybe_finished(0, 0)
        if self.clocks is not None:  # the first decision's seats are asked at the start
            self.clocks.start(self.engine.decision(self.state)["to_act"])

    def entry(self, entry: dict[str, Any]) -> None:
        seq, where = entry["seq"], f"entry {entry['seq']}"
        payload = entry["envelope"]["payload"]
        step = self.engine.decision(self.state)["step"]
        if self.result is not None:
            self._expect(entry, "rejected", "game_over")
            return
        if entry["status"] == "queued":
            _fail(f"{where}: still queued, though the game had not ended before it")
        if payload["step"] != step:
            self._expect(entry, "rejected", "stale_step")
            return
        late = is_timeout(entry["envelope"])
        abort = late and is_abort(entry["envelope"])
        stale = self.clocks.refusal(seq, entry["accepted_at"], payload["seat"], late, abort) \
            if self.clocks is not None else None
        if stale is not None:  # a timeout the server must refuse as it resolves it (§17)
            if entry["status"] == "applied":
                _fail(f"{where}: {stale}")
            self._expect(entry, "rejected", "not_late")
            return
        if late and not abort:
            self._check_timeout_move(where, payload)
        rng = AuditedRng(move_key(self.seed,
                                  signing.roll_source(entry["envelope"], self.audit["platform"])))
        if abort:  # the platform's, not the rules': no engine, the state stays (§14)
            events = abort_events(payload)
        else:
            try:
                self.state, events = self.engine.apply(self.state, payload["seat"],
                                                       payload["move"], rng)
            except IllegalMove as err:
                self.state = json.loads(self.dumped)  # a rejected entry changes nothing
                self._expect(entry, "rejected", err.code)
                return
            events = _json_copy(events)
        self._expect(entry, "applied", None)
        self._draws(rng.draws, where, step, seq)
        self._state_hash(seq, f"the state after {where}")
        if late and not abort:  # the platform's record of a timeout action (§11, §14)
            events = [timeout_event(payload), *events]
        for event in events:
            self._event(seq, step, event)
        self._maybe_finished(seq, step, payload if late else None, abort)
        if late:
            self.timeouts.append(seq)
        if self.clocks is not None:
            self.clocks.applied(seq, entry["accepted_at"], payload["seat"], late, abort,
                                [] if self.result is not None
                                else self.engine.decision(self.state)["to_act"])

    def _check_timeout_move(self, where: str, payload: dict[str, Any]) -> None:
        """A server move under `skip` is the engine's default for that seat here, or a forfeit
        where there is none (docs/audit.md §14; the signature and policy are checked before)."""
        tc = (self.audit.get("platform") or {}).get("time_control") or {}
        if tc.get("on_timeout") != "skip":
            return
        seat = payload.get("seat")
        if not isinstance(seat, int) or not 0 <= seat < self.audit["seats"]:
            return  # the engine refuses it, and the entry's status is compared as usual
        expected = self.engine.default_move(self.state, seat) or {"type": "resign"}
        if not _same(payload["move"], expected):
            _fail(f"{where}: the server-signed timeout action {_short(payload['move'])} is not "
                  f"the engine's default move {_short(expected)} at that state")

    def finish(self) -> None:
        extra = next(self.draws, None)
        if extra is not None:
            _fail(f"draws: the bundle has draw {extra[0]} ({_short(extra[1])}) that the "
                  f"replay never makes")
        extra = next(self.hashes, None)
        if extra is not None:
            _fail(f"state hashes: the bundle has {_short(extra[1])} beyond the replay's")
        if self.result is None:
            _fail("result: the replay does not end the game, but the bundle says it finished")
        if not _same(self.audit["result"], self.result):
            _fail(f"result: the bundle says {_short(self.audit['result'])}, the replay ends "
                  f"with {_short(self.result)}")

    def _expect(self, entry: dict[str, Any], status: str, code: str | None) -> None:
        where = f"entry {entry['seq']}"
        if entry["status"] == "queued" and code == "game_over":
            status = "queued"  # accepted before the end, not yet resolved: will be game_over
        recorded = entry["status"] + (f" ({entry['code']})" if "code" in entry else "")
        replayed = status + (f" ({code})" if status == "rejected" else "")
        if recorded != replayed:
            _fail(f"{where}: the bundle says {recorded}, the replay gives {replayed}")
        self.outcomes[status] = self.outcomes.get(status, 0) + 1

    def _draws(self, made_draws: list[dict[str, Any]], where: str, step: int, seq: int
               ) -> None:
        """Compare draws just made with the bundle's next ones, member by member."""
        for made in _json_copy(made_draws):
            made.pop("secret", None)
            index, recorded = next(self.draws, (self.draws_seen, None))
            want = {"index": index, "seq": seq, "step": step, **made}
            label = f"draw {index} ({made['purpose']}, {where})"
            if recorded is None:
                _fail(f"{label}: missing from the bundle")
            if not isinstance(recorded, dict) or set(recorded) != set(DRAW_FIELDS):
                _fail(f"{label}: a draw has exactly the fields {list(DRAW_FIELDS)}")
            for name in DRAW_FIELDS:
                if not _same(recorded[name], want[name]):
                    _fail(f"{label}: {name} is {_short(recorded[name])} in the bundle, the "
                          f"replay gives {_short(want[name])}")
            self.draws_seen += 1

    def _state_hash(self, seq: int, where: str) -> None:
        self.dumped = signing.dump_state(self.state)
        digest = signing.sha256_hex(self.dumped.encode("utf-8"))
        i, recorded = next(self.hashes, (None, None))
        if recorded is None:
            _fail(f"state hashes: the bundle has none for {where} (seq {seq})")
        if not isinstance(recorded, dict) or set(recorded) != {"seq", "hash"}:
            _fail(f"state hashes[{i}]: expected {{\"seq\", \"hash\"}}, found {_short(recorded)}")
        if recorded["seq"] != seq or not _is_int(recorded["seq"]):
            _fail(f"state hashes[{i}]: names seq {_short(recorded['seq'])}, the replay's next "
                  f"state is {where} (seq {seq})")
        if recorded["hash"] != digest:
            _fail(f"state hash of {where}: {recorded['hash']} in the bundle, the replay "
                  f"gives {digest}")
        self.hashes_seen += 1

    def _event(self, seq: int, step: int, event: dict[str, Any]) -> None:
        if self.want_events:
            self.events.append({"seq": seq, "step": step, "event": event})

    def _maybe_finished(self, seq: int, step: int, timeout: dict[str, Any] | None = None,
                        abort: bool = False) -> None:
        """The rules' result, if the game has ended; a timeout action's (its `payload` in
        `timeout`) as the platform records it (`parley_protocol.timeouts`); an abort's,
        nobody's win."""
        if abort:
            self.aborted = True
            self.result = aborted_result(self.audit["seats"])
        else:
            self.result = _json_copy(self.engine.result(self.state))
        if self.result is not None and timeout is not None:
            self.result = timeout_result(self.result, timeout)
        if self.result is not None:
            self._event(seq, step, {"type": "game_finished", "result": self.result})
