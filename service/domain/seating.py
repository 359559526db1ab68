"""Taking a seat: one path for a join by the API and an invitation accepted by mail or link."""

from __future__ import annotations

import logging
import secrets
from typing import Any

from service.domain import joins
from service.domain.game import load_game, start_game
from service.domain.open_games import check_open_games, track_open_game
from service.domain.problems import Conflict, InvalidRequest, NotFound
from service.storage.resolve_queue import wake
from service.storage.store import Store

log = logging.getLogger(__name__)

_REFUSED = {"game_not_open": "The game is not open for joining.",
            "already_seated": "You already hold a seat in this game.",
            "game_full": "Every seat is taken.",
            "seat_taken": "That seat is taken."}


def take_seat(store: Store, queue: Any, gid: str, pid: str, seat: int | None,
              signed: dict[str, Any] | None, max_open: int) -> dict[str, Any]:
    """Seat `pid` (at `seat`, or the first free one) with the client seed of their signed join
    (`service.domain.joins.check`; mixed into the dice, and the signed join kept with the
    seat), or for a mail-only player, who has no key (`signed` None), with a seed the server
    makes -> {game, seat, seat_final, status}; the game starts when every seat is taken.
    Joining counts against `max_open` unless it takes the last seat. Raises the Problem a
    refusal is."""
    record = load_game(store, gid)  # not accept.get_game_or_404: workers load no marshmallow
    if record is None:
        raise NotFound("No such game.", code="game_not_found")
    wanted = -1 if seat is None else seat
    if wanted >= record.seats:
        raise InvalidRequest(f"Seats are 0..{record.seats - 1}.", code="no_such_seat")
    if int(record.raw.get("joined", "0")) + 1 < record.seats:  # not the last seat
        check_open_games(store, pid, max_open, gid)
    client_seed = signed["statement"]["client_seed"] if signed else secrets.token_urlsafe(16)
    code, taken_seat, taken = store.join(gid, wanted, pid, client_seed, record.seats,
                                         joins.stored(signed))
    if code != "ok":
        if store.meta(gid).get("status") == "full":
            # every seat is taken but the game never started: the last join died between the
            # join script and the start (a retried join lands here); start it now
            if store.mark_pending(gid):
                wake(queue, gid)
            start_game(store, gid)
        raise Conflict(_REFUSED[code], code=code)
    status = "open"
    final = record.platform.get("seat_order", "random") != "random"
    if taken < record.seats:
        track_open_game(store, pid, gid)
    if taken == record.seats:
        # pending first: if this process dies before the start, the sweep starts the game
        if store.mark_pending(gid):
            wake(queue, gid)
        start_game(store, gid)
        status, final = "active", True
        started = load_game(store, gid)
        if started is not None and pid in started.players:  # the drawn seat
            taken_seat = started.players.index(pid)
    log.info("game %s: player %s joined seat %d", gid, pid, taken_seat)
    return {"game": gid, "seat": taken_seat, "seat_final": final, "status": status}
