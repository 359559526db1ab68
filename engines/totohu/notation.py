"""Totohu's move schema and text notation (contract v2 point 13; docs/rules/totohu.md).

`play m2` (with `hide` after it to hide the treasure, §4.4), `order 0-1 0-2 1-2` (the three
encounters in the order they are fought, §4.3), `raid shoot` or `raid rob`, and `resign`.
"""

from __future__ import annotations

import re
from typing import Any

from engines.contract import BAD_NOTATION, IllegalMove, Move

NOTATION = (
    "'play m2' plays ship m2 ('play m2 hide' also hides the treasure); 'order 0-1 0-2 1-2' "
    "fixes the order of the encounters; 'raid shoot' or 'raid rob' answers a raid; 'resign' "
    "resigns."
)

_SEAT = {"type": "integer", "minimum": 0, "maximum": 2}
MOVE_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "Totohu move",
    "oneOf": [
        {"type": "object", "required": ["type", "ship"], "additionalProperties": False,
         "properties": {"type": {"const": "play"}, "ship": {"type": "string"},
                        "hide": {"type": "boolean"}}},
        {"type": "object", "required": ["type", "pairs"], "additionalProperties": False,
         "properties": {"type": {"const": "order"}, "pairs": {
             "type": "array", "minItems": 3, "maxItems": 3,
             "items": {"type": "array", "items": _SEAT, "minItems": 2, "maxItems": 2}}}},
        {"type": "object", "required": ["type", "action"], "additionalProperties": False,
         "properties": {"type": {"const": "raid"}, "action": {"enum": ["shoot", "rob"]}}},
        {"type": "object", "required": ["type"], "additionalProperties": False,
         "properties": {"type": {"const": "resign"}}},
    ],
}

_SHIP = re.compile(r"[a-z0-9_]{1,16}")
_PAIR = re.compile(r"(\d)-(\d)")


def _bad(text: str) -> IllegalMove:
    return IllegalMove(BAD_NOTATION, f"Cannot read {text!r} as a Totohu move; write "
                                     "'play m2', 'order 0-1 0-2 1-2', 'raid shoot' or 'resign'.")


def format_move(move: Move) -> str:
    """The move in the notation."""
    kind = move.get("type")
    if kind == "play":
        return f"play {move['ship']}" + (" hide" if move.get("hide") else "")
    if kind == "order":
        return "order " + " ".join(f"{a}-{b}" for a, b in move["pairs"])
    if kind == "raid":
        return f"raid {move['action']}"
    return str(kind)


def parse_move(text: str) -> Move:
    """The move a line of notation names, read without regard to case or spacing (ship ids
    are lower case: a phone's keyboard capitalises); `bad_notation` for anything else."""
    words = text.lower().split() if isinstance(text, str) else []
    match words:
        case ["resign"]:
            return {"type": "resign"}
        case ["play", ship] if _SHIP.fullmatch(ship):
            return {"type": "play", "ship": ship}
        case ["play", ship, "hide"] if _SHIP.fullmatch(ship):
            return {"type": "play", "ship": ship, "hide": True}
        case ["raid", ("shoot" | "rob") as action]:
            return {"type": "raid", "action": action}
        case ["order", *pairs] if len(pairs) == 3 and all(map(_PAIR.fullmatch, pairs)):
            return {"type": "order", "pairs": [[int(p[0]), int(p[2])] for p in pairs]}
    raise _bad(str(text))
