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
    "'sail'; 'pass'; 'end'; 'discard hook-01 rum-04'; 'discard-random'; 'resign'; the witch: "
    "'cast pistol-07 target=0', 'cast parrot-03 parrot-08 symbol=hook from=13', 'cast hook-05 "
    "lantern-04 from=ship', 'cast chest-03 from=20', 'take chest-05', 'keep parrot-11 "
    "return=pistol-13,rum-10', 'deal keep=hook-10,chest-14 give=0:lantern-11,2:pistol-12'."
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
    {"type": "object", "required": ["type", "cards"], "additionalProperties": False,
     "properties": {"type": {"const": "spell"},
                    "cards": {"type": "array", "items": _CARD, "minItems": 1, "maxItems": 2},
                    "from": _LOC, "symbol": {"type": "string"},
                    "target": {"type": "integer", "minimum": 0}}},
    _one("pistol_take", card=_CARD),
    _one("rum_deal", keep={"type": "array", "items": _CARD, "maxItems": 2},
         give={"type": "array", "items": {
             "type": "object", "required": ["seat", "card"], "additionalProperties": False,
             "properties": {"seat": {"type": "integer", "minimum": 0}, "card": _CARD}}}),
    _one("lantern_keep", keep=_CARD, **{"return": {"type": "array", "items": _CARD}}),
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
    if kind == "spell":
        extra = [f"{k}={move[k]}" for k in ("symbol", "from", "target") if k in move]
        return " ".join(["cast", *move["cards"], *extra])
    if kind == "pistol_take":
        return f"take {move['card']}"
    if kind == "lantern_keep":
        return f"keep {move['keep']} return={','.join(move['return']) or '-'}"
    if kind == "rum_deal":
        give = ",".join(f"{g['seat']}:{g['card']}" for g in move["give"]) or "-"
        return f"deal keep={','.join(move['keep']) or '-'} give={give}"
    if kind == "play":
        return f"play {move['card']} {move['from']}"
    if kind == "back":
        return f"back {move['from']}"
    if kind == "morgan":
        return f"morgan {move['seat']} {move['from']}"
    return " ".join(["discard", *move["cards"]])


def parse_move(text: str) -> Move:
    """The move a line of notation names, read without regard to case or spacing (ids are
    lower case: a phone's keyboard capitalises); `bad_notation` for anything else."""
    words = text.lower().split() if isinstance(text, str) else []
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
    if head == "cast" and args:
        return _parse_cast(args, text)
    if head == "take" and len(args) == 1:
        return {"type": "pistol_take", "card": args[0]}
    if head == "keep" and len(args) == 2 and args[1].startswith("return="):
        return {"type": "lantern_keep", "keep": args[0], "return": _list(args[1][7:])}
    if head == "deal" and len(args) == 2 and args[0].startswith("keep=") \
            and args[1].startswith("give="):
        try:
            give = [{"seat": int(g.split(":")[0]), "card": g.split(":")[1]}
                    for g in _list(args[1][5:])]
        except (ValueError, IndexError):
            raise _bad(text) from None
        return {"type": "rum_deal", "keep": _list(args[0][5:]), "give": give}
    raise _bad(str(text))


def _list(text: str) -> list[str]:
    return [] if text == "-" else text.split(",")


def _parse_cast(args: list[str], text: str) -> Move:
    cards = [a for a in args if "=" not in a]
    fields = dict(a.split("=", 1) for a in args if "=" in a)
    if not 1 <= len(cards) <= 2 or not set(fields) <= {"symbol", "from", "target"}:
        raise _bad(text)
    move: Move = {"type": "spell", "cards": cards}
    if "symbol" in fields:
        move["symbol"] = fields["symbol"]
    if "from" in fields:
        move["from"] = _loc(fields["from"], text)
    if "target" in fields:
        if not fields["target"].isdigit():
            raise _bad(text)
        move["target"] = int(fields["target"])
    return move
