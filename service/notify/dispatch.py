"""From recorded notices to deliveries: mail and webhooks, at most once, retried, logged.

Flow (docs/notifications.md):
1. A commit records notices in the game's outbox (`service.domain.notices`), and the game in the
   notify set just before, so a crash after the commit loses nothing.
2. `flush` (after each drain, and from the sweep) turns each notice into one delivery per target
   (the seat player's mail; each of their webhooks subscribed to the type) with a deterministic
   id: hash of (game, seat, step, type, target). Records are created with HSETNX, so a flush
   that runs twice creates nothing twice; the outbox is trimmed only after that.
3. `deliver(did, attempt)` claims the attempt with HSETNX `claim:<n>` before it sends: however
   often RQ runs a job, an attempt is made at most once, so a notification goes out at most
   once per (seat, step, kind) and target. Webhook attempts that fail in a retryable way
   schedule the next attempt with exponential backoff.

Deadlines: a `turn.started` notice with a deadline schedules two RQ jobs (`deadline_job`),
a reminder and the timeout; both do nothing once the game has left that step. Each is also
recorded in the `parley:deadlines` sorted set until it has run, and the sweep runs any that is
overdue by more than DEADLINE_GRACE seconds: a worker (and its scheduler) killed before a
deadline loses nothing, even though RQ's scheduler lock only passes to another worker later.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Collection
from datetime import UTC, datetime, timedelta
from typing import Any

from parley_protocol.clocks import Clocks
from parley_protocol.timeouts import ABORT
from rq import Queue

from service.config import Config
from service.domain import game_clocks, mail_moves, notices
from service.domain.chain import append_server_move, server_envelope
from service.domain.game import load_game
from service.domain.game_model import Game
from service.notify import digest, letters, mail, webhooks
from service.ops import clock
from service.storage import game_records, metrics_records, reply_marks
from service.storage import notify_records as records
from service.storage.resolve_queue import wake
from service.storage.store import Store, now_iso

log = logging.getLogger(__name__)

DEADLINE_GRACE = 2.0
DELIVERY_TTL = 30 * 86400  # delivery records and their attempt logs are kept 30 days
MAIL_MAX_ATTEMPTS = 3
JOB = "workers.notify"


def delivery_id(gid: str, notice: dict[str, Any], target: str) -> str:
    ident = (f"{gid}|{notice['seat']}|{notice['step']}|{notice['type']}|"
             f"{notice.get('seq', '')}|{target}")
    return "msg_" + hashlib.sha256(ident.encode()).hexdigest()[:24]


def iso(epoch: float | None) -> str | None:
    if epoch is None:
        return None
    return datetime.fromtimestamp(epoch, tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


# ---- 2. flush: notices -> deliveries ----------------------------------------------------------

def flush(store: Store, queue: Queue, config: Config, gid: str,
          game: Game | None = None) -> int:
    """Turn the game's recorded notices into deliveries; returns how many notices it took.

    Runs under the game's lock so that two flushes never trim each other's notices. A resolve
    job calls it while it still holds the lock, passing the game it loaded (its players are
    what matter here); without `game` the flush takes the lock itself.
    """
    if game is not None:
        return flush_locked(store, queue, config, [game])[0]
    if not records.outbox_length(store, gid):
        records.unmark(store, gid)
        return 0
    with store.lock(gid, wait=2) as got:
        if not got:
            return 0  # the holder's job flushes after it; the sweep repairs the rest
        game = load_game(store, gid)
        if game is None:  # no such game (any more): its notices have nobody to go to
            records.unmark(store, gid, drop_outbox=True)
            return 0
        return flush_locked(store, queue, config, [game])[0]


def flush_players(games: list[Game]) -> list[str]:
    """The players whose records a flush of `games` reads: each once, however many of the
    games they sit in (a bot's batch)."""
    return list(dict.fromkeys(p for game in games for p in game.players if p))


def flush_locked(store: Store, queue: Queue, config: Config, games: list[Game],
                 read: records.Outboxes | None = None,
                 trims: list[tuple[str, int]] | None = None) -> list[int]:
    """The flush proper of games whose locks the caller holds, in two round trips for all of
    them when no player has mail or webhooks: the outboxes with every seated player's record
    and webhook ids (`read`, when the caller read them in a round trip of its own:
    `records.outbox_commands` for the games and `flush_players(games)`), then the trims. Per
    game, how many notices it took.

    `trims`: the caller sends the trims itself, before it releases the locks, in that round
    trip (`records.trim_commands`): each game's (id, notices taken) is added to it. Unless a
    game ended: then the trims go now, before its archive is scheduled."""
    if not games:
        return []
    if read is None:
        read = records.read_outboxes(store, [game.id for game in games], flush_players(games))
    outboxes, reach = read
    taken = []
    ended: list[str] = []  # games whose end this flush tells: they move to the archive later
    for game, items in zip(games, outboxes, strict=True):
        told = [json.loads(raw) for raw in items]
        opening = _opening_turns(told)
        for notice in told:
            _dispatch(store, queue, config, game, notice, reach, opening)
            if notice["type"] == notices.GAME_FINISHED and game.id not in ended:
                ended.append(game.id)
        taken.append(len(items))
    game_records.mark_for_archive(store, ended, config.ARCHIVE_AFTER)
    counts = [(game.id, n) for game, n in zip(games, taken, strict=True)]
    if trims is not None and not ended:
        trims += counts
    else:
        records.trim_outboxes(store, counts)
    if config.ARCHIVE_AFTER <= 0:
        game_records.enqueue_archive(queue, ended)
    return taken


def _opening_turns(told: list[dict[str, Any]]) -> set[tuple[int, int]]:
    """The (seat, step) whose start and first turn come in one flush: such a seat gets one
    mail, its turn mail saying the game started, so that the thread's first mail carries the
    reply address and no two mails arrive in the same second (webhooks get both events)."""
    def of(kind: str) -> set[tuple[int, int]]:
        return {(n["seat"], n["step"]) for n in told if n["type"] == kind}
    return of(notices.GAME_STARTED) & of(notices.TURN_STARTED)


def pending_games(store: Store) -> list[str]:
    return records.games_to_notify(store)


def _dispatch(store: Store, queue: Queue, config: Config, game: Game,
              notice: dict[str, Any], reach: dict[str, tuple[dict[str, str], list[str]]],
              opening: Collection[tuple[int, int]] = ()) -> None:
    """One notice -> a delivery per target; `reach`: player -> (record, webhook ids);
    `opening`: the seats' starts told in their first turn mail (`_opening_turns`)."""
    kind, seat = notice["type"], notice["seat"]
    if notices.schedules_deadline(notice):  # `notices.reach` follows these rules
        schedule_deadline(store, queue, game, notice["step"], notice["deadline"])
    pid = game.players[seat] if 0 <= seat < len(game.players) else None
    if pid is None or pid not in reach:
        return
    player, hook_ids = reach[pid]
    targets: list[tuple[str, str | None]] = []
    merged = (seat, notice["step"]) in opening
    if player.get("email") and kind in notices.MAIL_TYPES and not (
            merged and kind == notices.GAME_STARTED):
        targets.append(("mail", None))
    for wid in hook_ids:
        hook = webhooks.get(store, wid)
        if hook and webhooks.subscribed(hook, kind):
            targets.append(("webhook", hook["id"]))
    for channel, wid in targets:
        did = delivery_id(game.id, notice, wid or "mail")
        record = {"id": did, "channel": channel, "webhook": wid or "", "player": pid,
                  "game": game.id, "seat": str(seat), "step": str(notice["step"]),
                  "type": kind, "status": "pending",
                  "notice": json.dumps({**notice, "started": True} if merged and
                                       channel == "mail" else notice),
                  "attempts": "0", "created_at": now_iso()}
        if (not records.create_delivery(store, did, record, DELIVERY_TTL)
                and records.attempt_claimed(store, did, 1)):
            continue  # the first attempt ran already
        enqueue_delivery(queue, did, 1)


def enqueue_delivery(queue: Queue, did: str, attempt: int, delay: float = 0) -> None:
    kwargs: dict[str, Any] = {"job_timeout": 60, "result_ttl": 0, "failure_ttl": 7 * 86400}
    if delay > 0:
        queue.enqueue_in(timedelta(seconds=delay), f"{JOB}.deliver", did, attempt, **kwargs)
    else:
        queue.enqueue(f"{JOB}.deliver", did, attempt, **kwargs)


# ---- 3. deliver one attempt -------------------------------------------------------------------

def deliver(store: Store, queue: Queue, config: Config, server_key: Any, did: str,
            attempt: int) -> str:
    """Make attempt `attempt` of a delivery, at most once; returns the delivery's status,
    which is counted by channel (/metrics)."""
    record = records.claim_attempt(store, did, attempt, now_iso())
    if record is None:
        return "claimed"
    if not record:  # expired (kept 30 days); the claim just made went with it
        return "missing"
    outcome = _attempt(store, queue, config, server_key, did, record, attempt)
    metrics_records.record_delivery(store, record["channel"], outcome)
    return outcome


def _attempt(store: Store, queue: Queue, config: Config, server_key: Any, did: str,
             record: dict[str, str], attempt: int) -> str:
    """A claimed attempt of a delivery -> its status."""
    notice = json.loads(record["notice"])
    game = load_game(store, record["game"])
    if game is None:
        return _finish(store, did, "skipped", "the game is gone")
    if "body" not in record and _superseded(game, notice):
        if not notice.get("started"):
            return _finish(store, did, "superseded", "the game has left that step")
        notice = _start_alone(notice)  # the turn is over, the start is still news
    if record["channel"] == "mail":
        return _deliver_mail(store, queue, config, server_key, did, record, game, notice,
                             attempt)
    return _deliver_webhook(store, queue, config, did, record, game, notice, attempt)


def _start_alone(notice: dict[str, Any]) -> dict[str, Any]:
    """A start told with the first turn, as the start mail alone: for a player who gets no
    mail of that turn (it is over, turned off, or in the digest)."""
    return {**{k: v for k, v in notice.items() if k not in ("started", "deadline")},
            "type": notices.GAME_STARTED}


def _superseded(game: Game, notice: dict[str, Any]) -> bool:
    if notice["type"] not in notices.STEP_BOUND:
        return False
    return (game.status != "active" or game.step != notice["step"]
            or notice["seat"] not in game.to_act)


def _finish(store: Store, did: str, status: str, error: str | None = None) -> str:
    records.update_delivery(store, did, {"status": status, "last_error": error or ""})
    return status


def _log_attempt(store: Store, did: str, attempt: int, outcome: dict[str, Any]) -> None:
    entry = {"attempt": attempt, "at": now_iso(), **outcome}
    records.log_attempt(store, did, entry, DELIVERY_TTL)


def _backoff(config: Config, attempt: int) -> float:
    return config.WEBHOOK_RETRY_BASE * 2 ** (attempt - 1)


def _deliver_mail(store: Store, queue: Queue, config: Config, server_key: Any, did: str,
                  record: dict[str, str], game: Game, notice: dict[str, Any],
                  attempt: int) -> str:
    pid = record["player"]
    player = store.player(pid) or {}
    if not player.get("email"):
        return _finish(store, did, "skipped", "the player has no email address")
    if notice.get("started") and (digest.wants_digest(player) or not mail.wants_mail(
            store, pid, game.id, notices.TURN_STARTED)):
        notice = _start_alone(notice)
    if not mail.wants_mail(store, pid, game.id, notice["type"]):
        return _finish(store, did, "suppressed", "the player turned this mail off")
    if digest.wants_digest(player) and notice["type"] in digest.DIGESTED:
        return _finish(store, did, "suppressed", "in the player's daily digest")
    if letters.asks_to_move(game, notice) and reply_marks.covers(store, game.id, notice["seat"],
                                                                notice["step"]):
        return _finish(store, did, "suppressed", "the seat's mail reply is being played; its "
                                                 "answer shows the position and the moves")
    # the thread's first mail takes its root id; what it tells starts where the player's last
    # turn mail stopped, frozen at the first attempt so that a retry says the same
    first, told = records.join_thread(store, pid, game.id, did)
    if record.get("mail_after"):
        told = int(record["mail_after"])
    else:
        records.update_delivery(store, did, {"mail_after": str(told)})
    reply = None
    if mail_moves.allows_mail_moves(player) and letters.asks_to_move(game, notice):
        reply = mail_moves.reply_to(store, server_key, config.MAIL_REPLY_DOMAIN, game.id,
                                    notice["seat"], notice["step"], pid)
    letter = letters.write(store, config, game, notice, player, pid, told, reply)
    root = letters.thread_root(game.id, pid)
    msg = mail.compose(config, to=player["email"], subject=letter.subject, body=letter.text,
                       html=letter.html, images=letter.pictures,
                       message_id=root if first else did, thread=root, reply_to=reply,
                       headers={"X-Parley-Event": notice["type"]},
                       unsubscribe=mail.unsubscribe_url(config, server_key, pid, game.id))
    started = time.monotonic()
    try:
        where = mail.send(config, msg)
    except Exception as err:  # any SMTP or socket failure: logged, retried a few times
        outcome = {"status": None, "latency_ms": round((time.monotonic() - started) * 1000, 1),
                   "error": f"{type(err).__name__}: {err}"}
        _log_attempt(store, did, attempt, outcome)
        if attempt < MAIL_MAX_ATTEMPTS:
            enqueue_delivery(queue, did, attempt + 1, _backoff(config, attempt))
            return _finish(store, did, "retrying", outcome["error"])
        log.warning("mail %s failed for good: %s", did, outcome["error"])
        return _finish(store, did, "failed", outcome["error"])
    _log_attempt(store, did, attempt, {"status": 250, "error": None, "to": where,
                                       "latency_ms": round((time.monotonic() - started) * 1000,
                                                           1)})
    if notice["type"] == notices.TURN_STARTED:
        records.mark_told(store, pid, game.id, letter.told)
    return _finish(store, did, "delivered")


def _deliver_webhook(store: Store, queue: Queue, config: Config, did: str,
                     record: dict[str, str], game: Game, notice: dict[str, Any],
                     attempt: int) -> str:
    hook = webhooks.get(store, record["webhook"])
    if hook is None:
        return _finish(store, did, "skipped", "the webhook was deleted")
    if hook.get("enabled") != "1":
        return _finish(store, did, "skipped", "the webhook is disabled")
    try:
        addresses = webhooks.check_url(hook["url"], config.WEBHOOK_ALLOW_PRIVATE)
    except webhooks.UnsafeUrl as err:
        _log_attempt(store, did, attempt, {"status": None, "latency_ms": 0, "error": str(err)})
        return _finish(store, did, "failed", str(err))
    body = record.get("body")
    if body is None:  # frozen at the first attempt: retries and redeliveries send the same bytes
        body = webhooks.body_of(notice["type"], _payload(store, config, game, notice))
        records.update_delivery(store, did, {"body": body})
    outcome = webhooks.post(hook["url"], addresses, hook["secret"], did, body,
                            config.WEBHOOK_TIMEOUT)
    _log_attempt(store, did, attempt, outcome)
    status = outcome["status"]
    if status is not None and 200 <= status < 300:
        records.webhook_succeeded(store, hook["id"])
        return _finish(store, did, "delivered")
    error = outcome["error"] or f"HTTP {status}"
    if webhooks.retryable(outcome) and attempt < config.WEBHOOK_MAX_ATTEMPTS:
        enqueue_delivery(queue, did, attempt + 1, _backoff(config, attempt))
        return _finish(store, did, "retrying", error)
    _maybe_disable(store, config, hook, records.webhook_failed(store, hook["id"]))
    return _finish(store, did, "failed", error)


def _maybe_disable(store: Store, config: Config, hook: dict[str, str], since: float) -> None:
    """A webhook that has failed for WEBHOOK_DISABLE_AFTER seconds is disabled; owner told."""
    if time.time() - since < config.WEBHOOK_DISABLE_AFTER:
        return
    reason = f"deliveries failed since {iso(since)}"
    webhooks.update(store, hook["id"], {"enabled": "0", "disabled_reason": reason})
    log.warning("webhook %s of %s disabled: %s", hook["id"], hook["player"], reason)
    owner = store.player(hook["player"]) or {}
    if owner.get("email"):
        msg = mail.compose(
            config, to=owner["email"], subject="[Parley] Your webhook was disabled",
            body=(f"Your webhook {hook['id']} ({hook['url']}) was disabled: {reason}.\n\n"
                  f"Its delivery log: {config.BASE_URL}/v1/players/{hook['player']}/webhooks/"
                  f"{hook['id']}/deliveries\nTurn it on again with PATCH "
                  f"{config.BASE_URL}/v1/players/{hook['player']}/webhooks/{hook['id']} "
                  '{"enabled": true}.\n'),
            message_id=f"disabled-{hook['id']}-{int(since)}", unsubscribe=None)
        try:
            mail.send(config, msg)
        except Exception:  # the disabling stands; the log line above records it
            log.exception("could not tell %s that webhook %s was disabled", hook["player"],
                          hook["id"])


def redeliver(store: Store, queue: Queue, did: str) -> int:
    """Queue a new attempt of a delivery (same webhook-id and body); returns its number."""
    attempt = records.next_attempt(store, did)
    enqueue_delivery(queue, did, attempt)
    return attempt


def delivery_public(store: Store, did: str) -> dict[str, Any] | None:
    record, attempts = records.delivery(store, did)
    if "channel" not in record:
        return None
    return {
        "id": did, "type": record["type"], "game": record["game"], "seat": int(record["seat"]),
        "step": int(record["step"]), "status": record["status"],
        "created_at": record["created_at"],
        "attempts": attempts,
    }


# ---- what a notification says -----------------------------------------------------------------

def _links(config: Config, gid: str) -> dict[str, str]:
    base = f"{config.BASE_URL}/v1/games/{gid}"
    return {"game": base, "view": f"{base}/view", "moves": f"{base}/moves",
            "events": f"{base}/events", "audit": f"{base}/audit"}


def _payload(store: Store, config: Config, game: Game, notice: dict[str, Any]) -> dict[str, Any]:
    """The webhook `data`: public facts, plus the seat's own view on its turn."""
    seat = notice["seat"]
    data: dict[str, Any] = {
        "game": game.id, "ruleset": game.ruleset, "seat": seat, "step": notice["step"],
        "status": game.status, "to_act": game.to_act,
        "deadline": iso(_deadline(game)), "links": _links(config, game.id),
    }
    clocks = game_clocks.public_clocks(game.raw, game.platform, game.seats)
    if clocks is not None:
        data["clocks"] = clocks
    if notice["type"] == notices.TURN_STARTED:
        data["view"] = _view(store, game, seat)
    for name in ("result", "seq", "code", "detail"):
        if name in notice:
            data[name] = notice[name]
    return data


def _view(store: Store, game: Game, seat: int) -> dict[str, Any]:
    state = store.state(game.id)
    return game.engine.view(state, seat)


def _deadline(game: Game) -> float | None:
    raw = game.raw.get("deadline")
    return float(raw) if raw else None


# ---- deadlines --------------------------------------------------------------------------------

def schedule_deadline(store: Store, queue: Queue, game: Game, step: int, due: float) -> None:
    """Schedule the reminder and the timeout of one decision (same ids: scheduling twice is
    harmless, and each job checks the step and the clocks when it runs)."""
    _schedule(store, queue, game.id, step, "timeout", due)
    at = _reminder_moment(game)
    if at is not None and at < due:
        _schedule(store, queue, game.id, step, "reminder", at)


def _reminder_moment(game: Game) -> int | None:
    """When the game's reminder falls (the time control's `reminder_fraction` of the first
    running clock's turn left), None without one."""
    clocks = game_clocks.game_clocks(game)
    fraction = float((game.platform.get("time_control") or {}).get("reminder_fraction", 0))
    if clocks is None or not 0 < fraction < 1:
        return None
    return game_clocks.reminder_at(*clocks, fraction)


def _schedule(store: Store, queue: Queue, gid: str, step: int, kind: str, at: float) -> None:
    """One deadline job, recorded for the sweep (`overdue_deadlines`); a later schedule of the
    same (game, step, kind) moves the record and adds a job for the new moment."""
    records.add_deadline(store, f"{gid}|{step}|{kind}", at)
    queue.enqueue_at(datetime.fromtimestamp(at, tz=UTC), f"{JOB}.deadline_job", gid, step, kind,
                     job_id=f"deadline-{gid}-{step}-{kind}-{int(at)}", job_timeout=120,
                     result_ttl=0, failure_ttl=7 * 86400)


def overdue_deadlines(store: Store, grace: float = DEADLINE_GRACE) -> list[tuple[str, int, str]]:
    """Deadlines whose job should have run more than `grace` seconds ago."""
    out = []
    for member in records.due_deadlines(store, clock.now() - grace):
        gid, step, kind = member.split("|")
        out.append((gid, int(step), kind))
    return out


def deadline_due(store: Store, queue: Queue, config: Config, server_key: Any, gid: str,
                 step: int, kind: str) -> str:
    """A deadline job: remind the seats still to act, or take the timeout action for the seats
    whose clock ran out. A job that finds the moment moved on (a vacation, time given)
    schedules itself for the new one.

    Removed from the deadline index only once done, so a crash midway leaves it to the sweep.
    """
    outcome, again = _deadline_action(store, queue, config, server_key, gid, step, kind)
    if again is None:
        records.remove_deadline(store, f"{gid}|{step}|{kind}")
    else:
        _schedule(store, queue, gid, step, kind, again)
    return outcome


def _deadline_action(store: Store, queue: Queue, config: Config, server_key: Any, gid: str,
                     step: int, kind: str) -> tuple[str, float | None]:
    """What the job did, and the moment to run again (None: done)."""
    game = load_game(store, gid)
    if game is None or game.status != "active" or game.step != step:
        return "past", None
    now = clock.now()
    if kind == "reminder":
        at = _reminder_moment(game)
        if at is not None and now < at - 1:
            return "early", at
        due = _deadline(game)
        _record(store, gid, [notices.notice(notices.DEADLINE_REMINDER, s, step, deadline=due)
                             for s in game.to_act])
        flush(store, queue, config, gid)
        return "reminded", None
    clocks = game_clocks.game_clocks(game)
    if clocks is None:  # a game without per-seat clocks: the decision's one deadline
        due = _deadline(game)
        if due is not None and now < due - 1:
            return "early", due
        late, later = list(game.to_act), None
    else:
        late, later = game_clocks.late_seats(*clocks, game.to_act, now)
    if not late:
        return "early", later
    _time_out(store, queue, server_key, game, late, clocks[0] if clocks else None)
    return "timed_out", later


def _time_out(store: Store, queue: Queue, server_key: Any, game: Game, late: list[int],
              clocks: Clocks | None) -> None:
    """The timeout action for each late seat: an abort where a seat never made a decision of
    its own (the game ends without a result), else the game's policy."""
    gid, step = game.id, game.step
    policy = (game.platform.get("time_control") or {}).get("on_timeout", "forfeit")
    state = store.state(gid) if policy == "skip" else None
    never_moved = [s for s in late if clocks is not None and not clocks.moved[s]]
    fresh = False
    for seat in never_moved[:1] or late:
        if never_moved:
            move: dict[str, Any] = dict(ABORT)
        else:
            move = (game.engine.default_move(state, seat) if state is not None else None
                    ) or {"type": "resign"}
        try:
            envelope = server_envelope(server_key, gid, seat, step, move)
            fresh |= append_server_move(store, server_key, envelope).schedule
        except Exception as err:  # the step moved on meanwhile: the seat was not late after all
            log.info("game %s: timeout action for seat %d not taken: %s", gid, seat, err)
    _record(store, gid, [notices.notice(notices.TIMED_OUT, s, step) for s in late])
    if fresh or store.mark_pending(gid):
        wake(queue, gid)
    log.info("game %s: step %d timed out for seats %s (%s)", gid, step, late,
             "abort" if never_moved else policy)


def _record(store: Store, gid: str, items: list[str]) -> None:
    records.record_notices(store, gid, items)
