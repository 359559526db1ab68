"""Störtebeker's move schema and text notation (contract v2 point 13; docs/rules/stortebeker.md).

One line per move, a word then card and ship ids: `place rum-04 black-4`, `discard water-07
biscuits-05`, `take pirate4-2`, `fire water-07 black-4`, `end`, `finish`, `loot meat-01`,
`board black-4`, `end-boarding`, `counter beans-06` (`counter -` when already complete),
`decline`, `resign`. The combined play is `play place=rum-04@black-4,beans-05@black-4
discard=a,b take=c cannon=water-07@black-4` (each part optional).
"""

from __future__ import annotations

import re
from typing import Any

from engines.contract import BAD_NOTATION, IllegalMove, Move

NOTATION = (
    "A word, then card and ship ids: 'place rum-04 black-4', 'discard water-07 biscuits-05', "
    "'take pirate4-2', 'fire water-07 black-4', 'end', 'finish', 'loot meat-01', 'board "
    "black-4', 'end-boarding', 'counter beans-06' ('counter -' when complete), 'decline', "
    "'resign'; the combined play: 'play place=rum-04@black-4 discard=a,b take=c "
    "cannon=water-07@black-4'."
)

_ID = {"type": "string", "minLength": 1}
_CARD_SHIP = {"type": "object", "required": ["card", "ship"], "additionalProperties": False,
              "properties": {"card": _ID, "ship": _ID}}


def _one(kind: str, **props: Any) -> dict[str, Any]:
    return {"type": "object", "required": ["type", *props], "additionalProperties": False,
            "properties": {"type": {"const": kind}, **props}}


_BRANCHES: list[dict[str, Any]] = [
    _one("place", card=_ID, ship=_ID),
    _one("exchange_discard", cards={"type": "array", "items": _ID, "minItems": 2,
                                    "maxItems": 3}),
    _one("exchange_take", card=_ID),
    _one("fire_cannon", card=_ID, ship=_ID),
    _one("end_play"), _one("finish_play"),
    {"type": "object", "required": ["type"], "additionalProperties": False,
     "properties": {"type": {"const": "play_cards"},
                    "place": {"type": ["array", "null"], "items": _CARD_SHIP},
                    "exchange": {"oneOf": [{"type": "null"}, {
                        "type": "object", "required": ["discard"], "additionalProperties": False,
                        "properties": {"discard": {"type": "array", "items": _ID},
                                       "take": {"type": "array", "items": _ID}}}]},
                    "cannon": {"oneOf": [{"type": "null"}, _CARD_SHIP]}}},
    _one("cannon_take", card=_ID),
    _one("board", ship=_ID), _one("end_boarding"),
    _one("counter_attack", complete={"type": "array", "items": _ID, "maxItems": 3}),
    _one("decline_counter"), _one("resign"),
]
#: one branch per move type, chosen by `type` (if/then: a move is checked against its own
#: branch only, not against all of them as `oneOf` would)
MOVE_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "Störtebeker move", "type": "object", "required": ["type"],
    "properties": {"type": {"enum": [b["properties"]["type"]["const"] for b in _BRANCHES]}},
    "allOf": [{"if": {"properties": {"type": {"const": b["properties"]["type"]["const"]}}},
               "then": b} for b in _BRANCHES],
}

_WORD = {"end_play": "end", "finish_play": "finish", "end_boarding": "end-boarding",
         "decline_counter": "decline", "resign": "resign"}
_CARD = {"exchange_take": "take", "cannon_take": "loot", "board": "board"}
_FIELD = {"exchange_take": "card", "cannon_take": "card", "board": "ship"}
_NAME = re.compile(r"[a-z0-9][a-z0-9-]{0,31}")


def _bad(text: str) -> IllegalMove:
    return IllegalMove(BAD_NOTATION, f"Cannot read {text!r} as a Störtebeker move; e.g. "
                                     "'place rum-04 black-4', 'board black-4', 'end'.")


def format_move(move: Move) -> str:
    kind = move.get("type")
    if kind in _WORD:
        return _WORD[kind]
    if kind in _CARD:
        return f"{_CARD[kind]} {move[_FIELD[kind]]}"
    if kind == "place":
        return f"place {move['card']} {move['ship']}"
    if kind == "fire_cannon":
        return f"fire {move['card']} {move['ship']}"
    if kind == "exchange_discard":
        return " ".join(["discard", *move["cards"]])
    if kind == "counter_attack":
        return " ".join(["counter", *(move["complete"] or ["-"])])
    parts = ["play"]
    if move.get("place"):
        parts.append("place=" + ",".join(f"{p['card']}@{p['ship']}" for p in move["place"]))
    exchange = move.get("exchange")
    if exchange:
        parts.append("discard=" + ",".join(exchange["discard"]))
        if exchange.get("take"):
            parts.append("take=" + ",".join(exchange["take"]))
    if move.get("cannon"):
        parts.append(f"cannon={move['cannon']['card']}@{move['cannon']['ship']}")
    return " ".join(parts)


def parse_move(text: str) -> Move:
    """The move a line of notation names, read without regard to case or spacing (ids are
    lower case: a phone's keyboard capitalises); `bad_notation` for anything else."""
    words = text.lower().split() if isinstance(text, str) else []
    if not words or not all(_NAME.fullmatch(w) or "=" in w or w == "-" for w in words):
        raise _bad(str(text))
    head, args = words[0], words[1:]
    for kind, word in _WORD.items():
        if head == word and not args:
            return {"type": kind}
    for kind, word in _CARD.items():
        if head == word and len(args) == 1:
            return {"type": kind, _FIELD[kind]: args[0]}
    if head in ("place", "fire") and len(args) == 2:
        return {"type": "place" if head == "place" else "fire_cannon", "card": args[0],
                "ship": args[1]}
    if head == "discard" and 2 <= len(args) <= 3:
        return {"type": "exchange_discard", "cards": args}
    if head == "counter" and args:
        return {"type": "counter_attack", "complete": [] if args == ["-"] else args}
    if head == "play":
        return _parse_play(args, str(text))
    raise _bad(str(text))


def _parse_play(args: list[str], text: str) -> Move:
    parts = dict(a.partition("=")[::2] for a in args)
    if len(parts) != len(args) or not set(parts) <= {"place", "discard", "take", "cannon"}:
        raise _bad(text)
    move: Move = {"type": "play_cards"}
    try:
        if "place" in parts:
            move["place"] = [dict(zip(("card", "ship"), p.split("@"), strict=True))
                             for p in parts["place"].split(",")]
        if "discard" in parts:
            move["exchange"] = {"discard": parts["discard"].split(",")}
            if "take" in parts:
                move["exchange"]["take"] = parts["take"].split(",")
        elif "take" in parts:
            raise _bad(text)
        if "cannon" in parts:
            move["cannon"] = dict(zip(("card", "ship"), parts["cannon"].split("@"),
                                      strict=True))
    except ValueError:
        raise _bad(text) from None
    return move
