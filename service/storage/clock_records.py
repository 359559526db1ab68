"""What clocks keep beside a game's commits: a player's vacations and allowance, each active
game's copy of its players' vacations, and the time players give each other
(`service.domain.game_clocks` describes the game's fields)."""

from __future__ import annotations

import orjson

from service.storage.keys import game_key, player_key
from service.storage.store import Store

# KEYS: the game's meta; ARGV: the gift as JSON without `after_seq` -> {'ok', head} with the
#       gift appended to `gifts`, `after_seq` the game's head then (so it folds in at the next
#       entry: an entry appended meanwhile cannot precede it), or {'inactive'}
ADD_GIFT = """
if redis.call('HGET', KEYS[1], 'status') ~= 'active' then return {'inactive'} end
local head = tonumber(redis.call('HGET', KEYS[1], 'head') or '0')
local raw = redis.call('HGET', KEYS[1], 'gifts')
local gifts = {}
if raw and raw ~= '' then gifts = cjson.decode(raw) end
local gift = cjson.decode(ARGV[1])
gift['after_seq'] = head
gifts[#gifts + 1] = gift
redis.call('HSET', KEYS[1], 'gifts', cjson.encode(gifts))
return {'ok', tostring(head)}
"""


def add_gift(store: Store, gid: str, seat: int, by: int, seconds: int, at: int) -> int | None:
    """Append time given to `seat`; the game's head then (None: the game is not active)."""
    gift = orjson.dumps({"seat": seat, "by": by, "seconds": seconds, "at": at}).decode()
    reply = store.r.eval(ADD_GIFT, 1, game_key(gid, "meta"), gift)
    return int(reply[1]) if reply[0] == "ok" else None


def set_away(store: Store, gid: str, seat_spans: dict[int, list[tuple[int, int]]]) -> None:
    """Each seat's vacations as the game counts them (`away`), for the seats given."""
    raw = store.r.hget(game_key(gid, "meta"), "away")
    away = orjson.loads(raw) if raw else {}
    for seat, spans in seat_spans.items():
        if spans:
            away[str(seat)] = [list(s) for s in spans]
        else:
            away.pop(str(seat), None)
    store.r.hset(game_key(gid, "meta"), "away", orjson.dumps(away).decode())


def vacation_fields(store: Store, pid: str) -> dict[str, str]:
    """The player's `vacations`, `vacation_left` and `vacation_month` (missing: never set)."""
    names = ("vacations", "vacation_left", "vacation_month")
    values = store.r.hmget(player_key(pid), names)
    return {n: v for n, v in zip(names, values, strict=True) if v is not None}


def save_vacation_fields(store: Store, pid: str, fields: dict[str, str]) -> None:
    store.r.hset(player_key(pid), mapping=fields)
