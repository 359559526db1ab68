"""A game's clocks as the game's meta keeps them, between the arithmetic
(`parley_protocol.clocks`) and the places that act on it (resolve, the deadline jobs, views).

Meta fields of a game with a time control (docs/architecture.md "Clocks"):

- `clock`: JSON of `Clocks.to_json` — each seat's bank, the start of its running stretch, whether
  it has moved, how many gifts are folded in; written only by commits of the game (start,
  resolve), so it follows the move log exactly;
- `zones`: JSON list of each seat's time zone, fixed at the start (weekends off count in it);
- `away`: JSON object seat -> [[from, to], ...], each seat's player's vacations, written by the
  vacation requests (`service.domain.vacations`) for every active game of the player;
- `gifts`: JSON list of `Gift.to_json`, appended by a give-time request (never rewritten);
- `deadline`: the earliest moment a running clock reaches zero (Unix seconds), and
  `deadline_step` the step it belongs to; both empty once nobody's clock runs.

Vacations and gifts only ever change the future: a vacation is set from the present on and
ended at the present, a gift folds in at the entry after it. So a resolve that read them a
moment before they changed computed what a later reader computes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import orjson
from parley_protocol import clocks as arithmetic
from parley_protocol.clocks import Clocks, Gift, Pauses, TimeControl

from service.domain.game_model import Game
from service.domain.problems import Conflict, Forbidden, InvalidRequest
from service.ops import clock
from service.storage import clock_records
from service.storage.store import Store, iso


def control(platform: Mapping[str, Any]) -> TimeControl | None:
    tc = platform.get("time_control")
    return TimeControl.of(tc) if tc else None


def zones_of(meta: Mapping[str, str], seats: int) -> list[str | None]:
    raw = meta.get("zones")
    return orjson.loads(raw) if raw else [None] * seats


def away_of(meta: Mapping[str, str]) -> dict[int, list[tuple[int, int]]]:
    raw = meta.get("away")
    if not raw:
        return {}
    return {int(seat): [(int(a), int(b)) for a, b in spans]
            for seat, spans in orjson.loads(raw).items()}


def pauses_of(meta: Mapping[str, str], control: TimeControl, seats: int) -> list[Pauses]:
    zones = zones_of(meta, seats) if control.weekends_off else [None] * seats
    away = away_of(meta)
    return [Pauses(tuple(away.get(s, ())), zones[s] or ("UTC" if control.weekends_off else None))
            for s in range(seats)]


def gifts_of(meta: Mapping[str, str]) -> list[Gift]:
    raw = meta.get("gifts")
    return [Gift.from_json(g) for g in orjson.loads(raw)] if raw else []


def clocks_of(meta: Mapping[str, str], control: TimeControl, seats: int) -> Clocks | None:
    raw = meta.get("clock")
    if not raw:
        return None
    return Clocks.from_json(control, orjson.loads(raw), pauses_of(meta, control, seats))


def loaded(meta: Mapping[str, str], platform: Mapping[str, Any], seats: int
           ) -> tuple[Clocks, list[Gift]] | None:
    """The clocks and gifts a game's meta holds (None: no clocks)."""
    tc = control(platform)
    clocks = clocks_of(meta, tc, seats) if tc is not None else None
    return (clocks, gifts_of(meta)) if clocks is not None else None


def game_clocks(game: Game) -> tuple[Clocks, list[Gift]] | None:
    """The clocks and gifts of a game as loaded (None: no clocks)."""
    return loaded(game.raw, game.platform, game.seats)


def late_seats(clocks: Clocks, gifts: Sequence[Gift], to_act: Sequence[int], now: float
               ) -> tuple[list[int], int | None]:
    """The seats asked to act whose clock has run out by `now`, and the earliest moment
    another runs out (None: no other runs)."""
    late, later = [], None
    for seat in to_act:
        due = clocks.due(seat, gifts)
        if due is None:
            continue
        if due <= now:
            late.append(seat)
        elif later is None or due < later:
            later = due
    return late, later


def reminder_at(clocks: Clocks, gifts: Sequence[Gift], fraction: float) -> int | None:
    """When the first running seat has only `fraction` of its stretch's time left."""
    moments = []
    for seat, since in enumerate(clocks.since):
        if since is None:
            continue
        bank = clocks.left[seat] + clocks.pending(seat, gifts)
        moments.append(arithmetic.due(since, bank - round(bank * fraction),
                                      clocks.pauses[seat]))
    return min(moments) if moments else None


def earliest_due(clocks: Clocks, gifts: Sequence[Gift]) -> int | None:
    dues = [d for s in range(len(clocks.left)) if (d := clocks.due(s, gifts)) is not None]
    return min(dues) if dues else None


def clock_fields(clocks: Clocks, gifts: Sequence[Gift], step: int, active: bool
                 ) -> dict[str, str]:
    """The meta fields a commit writes for the clocks it moved on."""
    fields = {"clock": orjson.dumps(clocks.to_json()).decode()}
    due = earliest_due(clocks, gifts) if active else None
    if due is None:
        fields.update(deadline="", deadline_step="")
    else:
        fields.update(deadline=str(due), deadline_step=str(step))
    return fields


def seat_clocks(meta: Mapping[str, str], platform: Mapping[str, Any], seats: int,
                now: float | None = None) -> list[dict[str, Any]] | None:
    """Each seat's clock as a reader sees it now: time left, whether it runs, when it runs
    out, and the player's current or next vacation (None for a game without clocks)."""
    found = loaded(meta, platform, seats)
    if found is None:
        return None
    clocks, gifts = found
    moment = int(clock.now() if now is None else now)
    out = []
    for seat in range(seats):
        due = clocks.due(seat, gifts) if meta.get("status") == "active" else None
        away = [(a, b) for a, b in clocks.pauses[seat].vacations if b > moment]
        out.append({"seat": seat, "left": clocks.remaining(seat, moment, gifts),
                    "running": due is not None and not _paused(clocks.pauses[seat], moment),
                    "due": due, "away": min(away) if away else None})
    return out


def public_clocks(meta: Mapping[str, str], platform: Mapping[str, Any], seats: int
                  ) -> list[dict[str, Any]] | None:
    """`seat_clocks` as the API, views and webhooks show them: moments in RFC 3339."""
    clocks = seat_clocks(meta, platform, seats)
    if clocks is None:
        return None
    return [{"seat": c["seat"], "left": c["left"], "running": c["running"],
             "due": iso(c["due"]) if c["due"] is not None else None,
             "away_from": iso(c["away"][0]) if c["away"] else None,
             "away_until": iso(c["away"][1]) if c["away"] else None} for c in clocks]


def _paused(pauses: Pauses, moment: int) -> bool:
    for a, b in pauses.stream(moment):
        return a <= moment < b
    return False


#: the least and most time one gift may add (seconds)
GIFT_MIN, GIFT_MAX = 60, 7 * 86_400


def give_time(store: Store, game: Game, giver: str, seat: int, seconds: int) -> int:
    """Add `seconds` to the running clock of `seat`, given by the player `giver` from their
    own seat; the game's head when recorded (the gift folds in at the next entry)."""
    if control(game.platform) is None:
        raise InvalidRequest("This game has no clocks.", code="no_clocks")
    givers = [s for s, p in enumerate(game.players) if p == giver]
    if not givers:
        raise Forbidden("Only a player of the game may give time.", code="not_seated")
    if not 0 <= seat < game.seats or seat in givers:
        raise InvalidRequest("Give time to another seat of the game.", code="bad_seat")
    if not GIFT_MIN <= seconds <= GIFT_MAX:
        raise InvalidRequest(f"A gift is {GIFT_MIN} s to {GIFT_MAX // 86_400} days.",
                             code="bad_gift")
    found = game_clocks(game)
    if game.status != "active" or found is None or found[0].since[seat] is None:
        raise Conflict("Time can be given only to a seat whose clock runs.",
                       code="clock_not_running")
    head = clock_records.add_gift(store, game.id, seat, givers[0], seconds, int(clock.now()))
    if head is None:
        raise Conflict("The game is not active.", code="game_not_active")
    return head
