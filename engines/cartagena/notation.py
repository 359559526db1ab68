"""Cartagena's move schema and text notation (contract v2 point 13; docs/rules/cartagena.md).

`play rum-05 7` (a card from a location), `back 21`, `morgan 1 30` (seat 1's pirate from 30),
`sail`, `pass`, `end`, `discard hook-01 rum-04`, `discard-random`, `resign`. A location is a
square number or `prison`, `wreck`, `ship`, `cove`.
"""

from __future__ import annotations

from typing import Any

from engines.contract import BAD_NOTATION, IllegalMove, Move

NOTATION = (
    "'play rum-05 7' plays a card to move the pirate from a location (a square number, or "
    "prison, wreck, ship, cove); 'back 21'; 'morgan 1 30' moves seat 1's pirate from 30; "
    "'sail'; 'pass'; 'end'; 'discard hook-01 rum-04'; 'discard-random'; 'resign'."
)
_LOC = {"oneOf": [{"type": "integer", "minimum": 1},
                  {"enum": ["prison", "wreck", "ship", "cove"]}]}
_CARD = {"type": "string", "minLength": 1}


def _one(kind: str, **props: Any) -> dict[str, Any]:
    return {"type": "object", "required": ["type", *props], "additionalProperties": False,
            "properties": {"type": {"const": kind}, **props}}


_BRANCHES = [
    _one("play", card=_CARD, **{"from": _LOC}), _one("back", **{"from": _LOC}),
    _one("morgan", seat={"type": "integer", "minimum": 0}, **{"from": _LOC}),
    _one("sail"), _one("pass"), _one("end_turn"),
    _one("discard", cards={"type": "array", "items": _CARD, "minItems": 1}),
    _one("discard_random"), _one("resign"),
]
MOVE_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "Cartagena move", "type": "object", "required": ["type"],
    "properties": {"type": {"enum": [b["properties"]["type"]["const"] for b in _BRANCHES]}},
    "allOf": [{"if": {"properties": {"type": {"const": b["properties"]["type"]["const"]}}},
               "then": b} for b in _BRANCHES],
}
_WORDS = {"sail": "sail", "pass": "pass", "end_turn": "end", "discard_random": "discard-random",
          "resign": "resign"}


def _bad(text: str) -> IllegalMove:
    return IllegalMove(BAD_NOTATION, f"Cannot read {text!r} as a Cartagena move; e.g. "
                                     "'play rum-05 7', 'back 21', 'end'.")


def _loc(word: str, text: str) -> int | str:
    if word.isdigit():
        return int(word)
    if word in ("prison", "wreck", "ship", "cove"):
        return word
    raise _bad(text)


def format_move(move: Move) -> str:
    kind = move.get("type")
    if kind in _WORDS:
        return _WORDS[kind]
    if kind == "play":
        return f"play {move['card']} {move['from']}"
    if kind == "back":
        return f"back {move['from']}"
    if kind == "morgan":
        return f"morgan {move['seat']} {move['from']}"
    return " ".join(["discard", *move["cards"]])


def parse_move(text: str) -> Move:
    words = text.split() if isinstance(text, str) else []
    if not words:
        raise _bad(str(text))
    head, args = words[0], words[1:]
    for kind, word in _WORDS.items():
        if head == word and not args:
            return {"type": kind}
    if head == "play" and len(args) == 2 and "-" in args[0]:
        return {"type": "play", "card": args[0], "from": _loc(args[1], text)}
    if head == "back" and len(args) == 1:
        return {"type": "back", "from": _loc(args[0], text)}
    if head == "morgan" and len(args) == 2 and args[0].isdigit():
        return {"type": "morgan", "seat": int(args[0]), "from": _loc(args[1], text)}
    if head == "discard" and args and all("-" in a for a in args):
        return {"type": "discard", "cards": args}
    raise _bad(str(text))
