"""Game lifecycle shared by the web process and the workers: create, join, start, resolve.

The web process creates games, seats players and accepts envelopes; a worker starts a full game
and drains its move stream (DESIGN.md "The flow of one move"). Both start paths run the same
idempotent `start_game`, guarded in Redis by the game's status, so a crash between the last join
and the start is repaired by the next job or the sweep.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import logging
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import orjson
from parley_protocol import signing
from parley_protocol.clocks import NOT_ASKED, NOT_DUE, Clocks, Stale, moment
from parley_protocol.timeouts import (
    abort_events,
    aborted_result,
    is_abort,
    is_timeout,
    timeout_event,
    timeout_result,
)

from engines.contract import Decision, Engine, IllegalMove, Rng
from engines.registry import get_engine
from engines.rng import AuditedRng, game_seed, move_key, start_key
from service.domain import game_clocks, game_reads, live_feed, names, notices
from service.domain.game_model import (
    PLATFORM_EVENTS,
    SEAT_ORDERS,
    Game,
    Resolution,
    seat_moves,
)
from service.domain.kept_states import Kept
from service.notify import prose
from service.ops import clock
from service.storage import live
from service.storage.archive import archived_meta
from service.storage.game_records import is_archived
from service.storage.history_segments import hashes_item
from service.storage.store import Command, Commit, ResolveRead, Store, iso, now_iso

log = logging.getLogger(__name__)

#: how many pending entries one commit resolves at most (bounds a commit's size)
BATCH = 256


class RecordedRng(Rng, Protocol):
    """A random source that lists what it drew (`AuditedRng`; a web process's source that
    refuses every draw, `foresight.NO_DRAWS`)."""

    draws: Sequence[dict[str, Any]]



def split_options(engine: Engine, options: dict[str, Any], seats: int
                  ) -> tuple[dict[str, Any], dict[str, Any]]:
    """(engine options, platform options): platform options and their per-game aliases
    (Stratego's `red_player` is `seat_order`) are taken out before the engine sees them."""
    opts = dict(options)
    seat_order = opts.pop("seat_order", None)
    for alias, platform_name in engine.platform_aliases.items():
        if alias in opts:
            value = opts.pop(alias)
            if platform_name != "seat_order":
                continue
            if seat_order is not None and value != seat_order:
                raise IllegalMove("invalid_options",
                                  f"{alias!r} = {value!r} contradicts seat_order = {seat_order!r}.")
            seat_order = value
    seat_order = "random" if seat_order is None else seat_order
    if seat_order not in SEAT_ORDERS:
        raise IllegalMove("invalid_options", f"seat_order must be one of {list(SEAT_ORDERS)}.")
    if not engine.min_players <= seats <= engine.max_players:
        raise IllegalMove("invalid_options", f"{engine.id} is for {engine.min_players}-"
                                             f"{engine.max_players} players, not {seats}.")
    validated = engine.validate_options(opts, seats)
    for alias in engine.platform_aliases:
        validated.pop(alias, None)
    return validated, {"seat_order": seat_order}


def create_game(store: Store, ruleset: str, options: dict[str, Any], seats: int,
                creator: str, time_control: dict[str, Any] | None = None) -> Game:
    """A new open game with a fresh committed server seed; nobody is seated yet."""
    engine = get_engine(ruleset)
    engine_opts, platform = split_options(engine, options, seats)
    if time_control:
        platform["time_control"] = time_control
    # every new game requires derived nonces: a move's dice follow its nonce, which re-signing
    # the same move at the same step cannot change (docs/audit.md §6)
    platform["nonces"] = signing.DERIVED_NONCES
    server_seed = secrets.token_bytes(32)
    gid = "g_" + secrets.token_hex(6)
    meta = {
        "ruleset": ruleset, "options": json.dumps(engine_opts), "platform": json.dumps(platform),
        "seats": str(seats), "status": "open", "step": "0", "to_act": "[]", "head": "0",
        "applied": "0", "joined": "0", "events": "0",
        "commitment": signing.sha256_hex(server_seed), "created_at": now_iso(),
        "creator": creator,
        # its seats are taken by signed joins (docs/audit.md §18): its bundle lists them
        "signed_joins": "1",
    }
    store.create_game(gid, meta, server_seed.hex(), creator)
    log.info("game %s created (%s, %d seats)", gid, ruleset, seats)
    return Game.from_meta(gid, meta)


def seat_view(gid: str, meta: dict[str, str], state_json: str | None,
              pid: str | None, store: Store | None = None) -> dict[str, Any]:
    """The body of a seat's view (a spectator's for a player without a seat): the engine's
    redaction, its text (with the players' names when `store` is given to read them), and,
    when that seat is to act, the legal moves and each in the game's notation (what a client
    shows and a person types, so no client needs each game's notation built in)."""
    record = Game.from_meta(gid, meta)
    seat = record.seat_of(pid)
    body = {"game": gid, "status": record.status, "seat": seat, "step": record.step,
            "step_kind": record.step_kind, "to_act": record.to_act, "state": None,
            "legal_moves": [], "legal_moves_notation": [], "legal_moves_complete": True,
            "result": record.result, "text": None}
    clocks = game_clocks.public_clocks(meta, record.platform, record.seats)
    if clocks is not None:
        body["clocks"] = clocks
    if state_json is None:
        return body
    engine = get_engine(record.ruleset)
    state = signing.load_json(state_json)
    view = engine.view(state, seat)
    body["state"] = view
    body["text"] = engine.render_text(
        view, names.seat_names(store, record.players) if store is not None else None)
    if seat is not None and seat in record.to_act:
        body.update(seat_moves(engine, state, seat))
        body["legal_moves_notation"] = [engine.format_move(m) for m in body["legal_moves"]]
    return body


def events_page(store: Store, game: Game, pid: str | None, after: int, limit: int
                ) -> dict[str, Any]:
    """The events `pid` may see after event id `after`, up to `limit` read: a seat its own
    redacted stream, a spectator the public one, everyone everything after the end; `next` is
    the cursor to read on (a page may hold fewer events than read when some are hidden)."""
    seat = game.seat_of(pid)
    engine = game.engine
    out = []
    cursor = after
    teller = None
    for eid, rec in game_reads.reads_of(store, game).events(game.id, after, limit):
        cursor = eid
        event = rec["event"]
        if not game.finished and event.get("type") not in PLATFORM_EVENTS:
            event = engine.view_event(event, seat)
            if event is None:
                continue
        if teller is None:  # the names are read only for a page that tells something
            teller = prose.Story(prose.seat_namer(names.seat_names(store, game.players), seat),
                                 engine)
        out.append({"id": eid, "seq": rec["seq"], "step": rec["step"], "event": event,
                    "text": event_text(teller, game.seats, rec["seq"], event)})
    return {"events": out, "next": str(cursor)}


def event_text(teller: prose.Story, seats: int, seq: int, event: dict[str, Any]) -> str:
    """An event in words from the reader's seat, as the mails tell it (the engine's sentence,
    else the platform's); the platform's `game_finished` states the result. "" for an event
    not worth a line of its own (the game's start, an engine's own end-of-game record, a
    resignation that only repeats a forfeit on time told just before it in the same entry)."""
    result = event.get("result")
    if event.get("type") == "game_finished" and isinstance(result, dict):
        return prose.result_sentence(result, teller.seat_name, seats, teller.engine)
    return teller.sentence(seq, event) or ""


def load_game(store: Store, gid: str) -> Game | None:
    """The game's meta hash, decoded: from Redis, or from the archive once it has moved."""
    meta = store.meta(gid)
    if is_archived(meta):
        meta = archived_meta(store, gid)
    return Game.from_meta(gid, meta) if meta else None


def seed_of(store: Store, game: Game, server_seed_hex: str | None = None) -> bytes:
    """The game seed (HMAC of the server seed over the game id and the client seeds); the
    server seed is read from the game's secret hash unless the caller has it already."""
    if server_seed_hex is None:
        server_seed_hex = store.secret(game.id)["server_seed"]
    return _game_seed(game, server_seed_hex)


def _game_seed(game: Game, server_seed_hex: str) -> bytes:
    client_seeds = tuple(game.raw[f"client_seed:{i}"] for i in range(game.seats))
    return _seed(server_seed_hex, game.id, client_seeds)


@functools.lru_cache(maxsize=1024)
def _seed(server_seed_hex: str, gid: str, client_seeds: tuple[str, ...]) -> bytes:
    """A game's seed, fixed once it started: derived once per process, not per resolve (an
    HMAC over its JCS, about 25 µs)."""
    return game_seed(bytes.fromhex(server_seed_hex), gid, list(client_seeds))


def _draw_records(rng: RecordedRng, first_index: int, step: int, seq: int) -> list[str]:
    return [json.dumps({"index": first_index + i, "step": step, "seq": seq, **d})
            for i, d in enumerate(rng.draws)]


def _event_record(seq: int, step: int, event: dict[str, Any]) -> str:
    """Stored compactly as [seq, step, event] (`Store.events` reads it back as a dict)."""
    return orjson.dumps([seq, step, event], option=orjson.OPT_NON_STR_KEYS).decode()


def _decision_fields(d: Decision) -> dict[str, str]:
    return {"step": str(d["step"]), "to_act": orjson.dumps(d["to_act"]).decode(),
            "step_kind": d["step_kind"]}


def start_game(store: Store, gid: str) -> bool:
    """Fix the seats and set the game up once every seat is taken; idempotent.

    With `seat_order: random` the audited draw `seat-order` shuffles the joined players over the
    seats (seat 0 moves first in every game); with `joined` they keep the seats they took.
    """
    game = load_game(store, gid)
    if game is None or game.status != "full":
        return False
    engine = game.engine
    rng = AuditedRng(start_key(seed_of(store, game)))
    joined = [game.raw[f"join:{i}"] for i in range(game.seats)]
    if game.platform["seat_order"] == "random":
        players = rng.shuffle("seat-order", joined)
    else:
        players = joined
    state = engine.setup(game.options, game.seats, rng)
    dumped = signing.dump_state(state)
    decision = engine.decision(state)
    now = int(clock.now())
    meta = {"status": "active", "players": json.dumps(players), "started_at": iso(now),
            **_decision_fields(decision)}
    events = [_event_record(0, 0, {"type": "game_started", "players": players})]
    result = engine.result(state)
    if result is not None:
        meta.update(_finish_fields(result))
        events.append(_event_record(0, 0, {"type": "game_finished", "result": result}))
    meta.update(_started_clocks(store, game, players, decision, now, result is None))
    told = notices.transition_notices(game.seats, None, decision["step"], decision["to_act"],
                                      result, meta.get("deadline"), started=True)
    commit = Commit(gid, ("status", "full"), dumped, meta, events, _draw_records(rng, 0, 0, 0),
                    {}, [(0, signing.sha256_hex(dumped.encode()))], told)
    ok = store.commit_many([commit])[0]
    if ok:
        for player in players:
            store.index_player_game(player, gid)
        log.info("game %s started", gid)
        started = dataclasses.replace(game, players=players, step=-1)  # every seat: a new turn
        live_feed.publish(store, [Resolution(started, commit, 0, 0)])
    return ok


def _started_clocks(store: Store, game: Game, players: list[str], decision: Decision,
                    now: int, active: bool) -> dict[str, str]:
    """The clock fields of a game that starts now: every seat's bank, the zones its players
    have now (weekends off count in them), their vacations, and the first deadline."""
    control = game_clocks.control(game.platform)
    if control is None:
        return {}
    profiles = [store.player(p) or {} for p in players]
    fields = {"zones": orjson.dumps([p.get("time_zone") or "UTC" for p in profiles]).decode()}
    away = {str(s): spans for s, p in enumerate(profiles)
            if (spans := orjson.loads(p.get("vacations") or "[]"))}
    if away:
        fields["away"] = orjson.dumps(away).decode()
    pauses = game_clocks.pauses_of(fields, control, game.seats)
    clocks = Clocks.start(control, game.seats, now, decision["to_act"], pauses)
    fields.update(game_clocks.clock_fields(clocks, [], decision["step"], active))
    return fields


def _accepted_at(fields: dict[str, str]) -> int:
    """An entry's acceptance as Unix seconds (the stream keeps it as RFC 3339 text)."""
    t = fields["t"]
    return int(t) if t.isdigit() else moment(t)


def _stale_text(seat: int, at: int, stale: Stale) -> str:
    """Why a timeout action was refused `not_late`, for its rejection's detail."""
    if stale.reason == NOT_ASKED:
        return f"seat {seat} was no longer asked to act (its move came first)"
    if stale.reason == NOT_DUE:
        assert stale.due is not None
        return f"seat {seat}'s clock ran out only at {iso(stale.due)}, {stale.due - at} s after it"
    return f"seat {seat} had made a decision of its own, so its game is not aborted"


def _clocks_of(game: Game, entries: list[tuple[int, dict[str, str]]]) -> Clocks | None:
    """The game's clocks as its last commit left them; a game that started before the server
    kept clocks gets them now, running from its first pending entry, every seat counted as
    having moved (no abort), and its bundle without `clocks` (`audit_bundle.clock_record`)."""
    control = game_clocks.control(game.platform)
    if control is None:
        return None
    clocks = game_clocks.clocks_of(game.raw, control, game.seats)
    if clocks is None:
        clocks = Clocks.start(control, game.seats, _accepted_at(entries[0][1]), game.to_act,
                              game_clocks.pauses_of(game.raw, control, game.seats))
        clocks.moved = [True] * game.seats
    return clocks


def _finish_fields(result: dict[str, Any]) -> dict[str, str]:
    return {"status": "finished", "result": json.dumps(result), "finished_at": now_iso(),
            "to_act": "[]"}


@dataclass
class Resolved:
    """What one resolve did: entries resolved, and whether it caught up with the stream."""

    count: int
    caught_up: bool
    game: Game | None = None


def resolve_pending(store: Store, gid: str) -> int:
    """Apply the game's pending entries in order and commit them atomically; returns how many."""
    return resolve(store, gid).count


def resolve(store: Store, gid: str) -> Resolved:
    """Apply up to BATCH pending entries in order and commit them atomically.

    The caller holds the game's lock. The commit is guarded by `applied`, so a worker that lost
    its lock (it stalled past the lock's expiry) writes nothing and a later job redoes the work.
    One round trip reads everything (`Store.read_for_resolve`), one commits.
    """
    read = store.read_for_resolve(gid, BATCH)
    if read[0] and read[0]["status"] == "full":
        start_game(store, gid)
        read = store.read_for_resolve(gid, BATCH)
    planned = plan_resolve(gid, read)
    if isinstance(planned, Resolution):
        return write_resolutions(store, [planned])[0]
    if planned is None:  # still not started (`start_game` found it changed meanwhile)
        return Resolved(0, False, Game.from_meta(gid, read[0]))
    return planned


def plan_resolve(gid: str, read: ResolveRead, kept: Kept | None = None,
                 rng_for: Callable[[bytes], RecordedRng] | None = None
                 ) -> Resolution | Resolved | None:
    """What resolving the entries in `read` (`Store.read_for_resolve`) writes, computed
    without touching the store: a Resolution to write, a Resolved with nothing to write, or
    None for a game that must be started first (`start_game`). `kept`: the state this worker
    kept, where the read carries `KEPT_STATE` instead (applying the entries changes it).
    `rng_for`: each move's random source from its roll source (`signing.roll_source`: the
    signature, or a player's derived nonce); by default the game's audited one (which needs
    the server seed in `read`)."""
    meta, state_json, entries, draw_index, server_seed = read
    if kept is not None:
        state_json = kept.state_json
    if not meta or is_archived(meta):  # no such game, or finished and in the archive
        return Resolved(0, True)
    if meta["status"] == "full":
        return None
    game = Game.from_meta(gid, meta)
    if game.applied >= game.head or state_json is None:
        return Resolved(0, True, game)
    if not entries:  # head says there is more, the stream disagrees: damage, for `parley fsck`
        log.error("game %s: entries after %d are missing from the move stream", gid, game.applied)
        return Resolved(0, False, game)
    last = entries[-1][0]
    engine = game.engine
    state = kept.state if kept is not None else signing.load_json(state_json)
    if rng_for is None:
        if server_seed is None:
            raise RuntimeError(f"game {gid} has no server seed")
        seed = _game_seed(game, server_seed)

        def rng_for(source: bytes) -> RecordedRng:
            return AuditedRng(move_key(seed, source))
    result = game.result
    events: list[str] = []
    draws: list[str] = []
    hashes: list[tuple[int, str]] = []
    rejected: dict[str, str] = {}
    told: list[str] = []

    def reject(seq: int, seat: int, step: int, code: str, detail: str) -> None:
        rejected[str(seq)] = json.dumps({"code": code, "detail": detail})
        told.append(notices.rejection_notice(seat, step, seq, code, detail))

    clocks = _clocks_of(game, entries) if result is None else None
    gifts = game_clocks.gifts_of(game.raw) if clocks is not None else []
    dumped = state_json
    for seq, fields in entries:
        envelope = signing.load_json(fields["env"])
        payload = envelope["payload"]
        seat, move = payload["seat"], payload["move"]
        step = engine.decision(state)["step"]
        if result is not None:
            reject(seq, seat, step, "game_over", "The game has ended.")
            continue
        if payload["step"] != step:
            reject(seq, seat, step, "stale_step",
                   f"The move names step {payload['step']}, the game is at step {step}.")
            continue
        late = is_timeout(envelope)
        abort = late and is_abort(envelope)
        at = _accepted_at(fields) if clocks is not None else 0
        if clocks is not None:
            clocks.fold(gifts, seq)
            stale = clocks.refusal(seat, at, abort) if late else None
            if stale is not None:  # decided on what the job read; a move or gift came first
                reject(seq, seat, step, "not_late",
                       f"The timeout action is stale: {_stale_text(seat, at, stale)}.")
                continue
        rng = rng_for(signing.roll_source(envelope, game.platform))
        if abort:  # the platform's, not the rules': the game ends
            new_events = abort_events(payload)
        else:
            try:
                state, new_events = engine.apply(state, seat, move, rng)
            except IllegalMove as err:
                reject(seq, seat, step, err.code, err.message)
                continue
        if late and not abort:  # a move to the rules, a timeout to the record
            new_events = [timeout_event(payload), *new_events]
        events.extend(_event_record(seq, step, e) for e in new_events)
        draws.extend(_draw_records(rng, draw_index, step, seq))
        draw_index += len(rng.draws)
        dumped = signing.dump_state(state)
        hashes.append((seq, signing.sha256_hex(dumped.encode())))
        result = aborted_result(game.seats) if abort else engine.result(state)
        if result is not None:
            if late:
                result = timeout_result(dict(result), payload)
            events.append(_event_record(seq, step, {"type": "game_finished", "result": result}))
        if clocks is not None:
            clocks.applied(at, seat, not late,
                           [] if result is not None else engine.decision(state)["to_act"])
    decision = engine.decision(state)
    meta_update = {"applied": str(last), **_decision_fields(decision)}
    newly_finished = result if result is not None and game.result is None else None
    if newly_finished is not None:
        meta_update.update(_finish_fields(result))
    if game.result is None:
        if clocks is not None:
            meta_update.update(game_clocks.clock_fields(clocks, gifts, decision["step"],
                                                        result is None))
        told += notices.transition_notices(game.seats, game.step, decision["step"],
                                           decision["to_act"], newly_finished,
                                           meta_update.get("deadline"))
    commit = Commit(gid, ("applied", str(game.applied)), dumped, meta_update, events, draws,
                    rejected, hashes, told)
    if hashes:
        return Resolution(game, commit, last, len(entries), hashes_item(*hashes[-1]),
                          applied_state=state)
    # nothing applied: the state is the one read, a kept one as it was
    return Resolution(game, commit, last, len(entries), kept.item if kept else None,
                      kept.state if kept else None)


def write_resolutions(store: Store, resolutions: list[Resolution], then: Sequence[Command] = (),
                      then_replies: list[Any] | None = None,
                      listening: Sequence[list[str] | None] = ()) -> list[Resolved]:
    """Commit resolutions (one round trip for all), each guarded by its game's `applied`,
    and append what they show to the live feeds of the players listening. The commands
    `then` ride in the commit's round trip, their replies put in `then_replies`.

    `listening`: per resolution, its players who listen, as the script that opened the game
    read them (`Store.open_for_resolve`); their entries then ride in the commits themselves.
    Otherwise who listens is read in the commit's round trip (when the feeds share its Redis)
    and the entries are appended after it."""
    if len(listening) == len(resolutions) and all(p is not None for p in listening):
        feeds = [live_feed.feed_entries([r], set(p or ())) for r, p in
                 zip(resolutions, listening, strict=True)]
        written = store.commit_many([r.commit for r in resolutions], then=then,
                                    then_replies=then_replies, feeds=feeds)
    else:
        written = _commit_then_feeds(store, resolutions, then, then_replies)
    out = []
    for r, ok in zip(resolutions, written, strict=True):
        first = r.game.applied + 1
        if not ok:
            log.warning("game %s: commit of %d..%d lost the race; nothing written",
                        r.game.id, first, r.last)
            out.append(Resolved(0, False, r.game))
            continue
        log.info("game %s: resolved %d..%d (%d rejected)", r.game.id, first, r.last,
                 len(r.commit.rejected))
        out.append(Resolved(r.count, r.last >= r.game.head, r.game))
    return out


def _commit_then_feeds(store: Store, resolutions: list[Resolution], then: Sequence[Command],
                       then_replies: list[Any] | None) -> list[bool]:
    """`write_resolutions` without the listeners read: who listens is read in the commit's
    round trip when the feeds share its Redis, and the entries take one more."""
    players = live_feed.seated(resolutions)
    riding = bool(players) and store.feeds_ride
    heard: list[Any] = []
    written = store.commit_many([r.commit for r in resolutions],
                                then=[*([live.listening_command(players)] if riding else ()),
                                      *then], then_replies=heard)
    if then_replies is not None:
        then_replies.extend(heard[1:] if riding else heard)
    scores = heard[0] if riding and not isinstance(heard[0], Exception) else None
    live_feed.publish(store, [r for r, ok in zip(resolutions, written, strict=True) if ok],
                      live.listening_from(players, scores) if scores is not None else None)
    return written
