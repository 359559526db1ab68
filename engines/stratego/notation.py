"""Stratego's move schema and text notation (contract v2 point 13; docs/rules/stratego.md).

A play move is `from-to` (`e4-e5`; `e4xe5` reads the same, since the mover cannot know whether
the target square hides a piece of the opponent until the battle). A setup is the word `setup`
and one `square=piece` per piece, the piece as its board code (`M`, `9`..`2`, `S`, `B`, `F`) or
its id: `setup a1=F b1=B c1=2 ...`. `resign` resigns.
"""

from __future__ import annotations

import re
from typing import Any

from engines.contract import BAD_NOTATION, IllegalMove, Move
from engines.stratego.rules import RANK, SQUARES
from engines.stratego.text import CODES

NOTATION = (
    "A move is 'from-to' ('e4-e5'; 'e4xe5' reads the same). A setup is 'setup' followed by one "
    "square=piece per piece, the piece as its board code (M, 9..2, S, B, F) or its id: "
    "'setup a1=F b1=B c1=2 ...'. 'resign' resigns."
)

_SQUARE = {"type": "string", "enum": list(SQUARES)}
MOVE_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "Stratego move",
    "oneOf": [
        {"type": "object", "required": ["type", "placement"], "additionalProperties": False,
         "properties": {"type": {"const": "setup"}, "placement": {
             "type": "object", "propertyNames": _SQUARE,
             "additionalProperties": {"enum": list(RANK)}}}},
        {"type": "object", "required": ["type", "from", "to"], "additionalProperties": False,
         "properties": {"type": {"const": "move"}, "from": _SQUARE, "to": _SQUARE}},
        {"type": "object", "required": ["type"], "additionalProperties": False,
         "properties": {"type": {"const": "resign"}}},
    ],
}

_PIECE_OF_CODE = {code: piece for piece, code in CODES.items()}
_PLAY = re.compile(r"([a-j](?:10|[1-9]))\s*[-x]\s*([a-j](?:10|[1-9]))")
_ENTRY = re.compile(r"([a-j](?:10|[1-9]))=([A-Za-z0-9]+)")


def _bad(text: str) -> IllegalMove:
    return IllegalMove(BAD_NOTATION, f"Cannot read {text!r} as a Stratego move; "
                                     "write 'e4-e5', 'setup a1=F b1=B ...' or 'resign'.")


def format_move(move: Move) -> str:
    """The move in the notation; the setup lists its squares in board order."""
    kind = move.get("type")
    if kind == "move":
        return f"{move['from']}-{move['to']}"
    if kind == "setup":
        return " ".join(["setup", *(f"{sq}={CODES.get(p, p)}"
                                    for sq, p in move["placement"].items())])
    return str(kind)


def parse_move(text: str) -> Move:
    """The move a line of notation names, read without regard to case or spacing (squares
    and piece ids are lower case, board codes upper case, so each is folded to its own);
    `bad_notation` for anything else."""
    if not isinstance(text, str):
        raise _bad(repr(text))
    words = text.lower().split()
    if words == ["resign"]:
        return {"type": "resign"}
    if words and words[0] == "setup" and len(words) > 1:
        placement: dict[str, str] = {}
        for word in words[1:]:
            m = _ENTRY.fullmatch(word)
            piece = m and (_PIECE_OF_CODE.get(m[2].upper()) or m[2].lower())
            if not m or piece not in RANK or m[1] in placement:
                raise _bad(text)
            placement[m[1]] = piece
        return {"type": "setup", "placement": placement}
    m = _PLAY.fullmatch(text.strip().lower())
    if m is None:
        raise _bad(text)
    return {"type": "move", "from": m[1], "to": m[2]}
