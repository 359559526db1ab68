"""The war game's text notation and the JSON Schema of its moves (contract v2 point 13).

docs/rules/elfenland-war.md "Notation". A multiset is written as the race game writes it: types
joined by `,`, each with an optional `*count` (`dragon*2,unicorn`); `-` is the empty multiset.
Every move that `legal_moves` yields round-trips through `format_move` and `parse_move`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from engines.contract import JSON, Move
from engines.elfenland.cards import CARD_TYPES, canonical
from engines.elfenland.war.errors import fail
from engines.elfenland.war.geo import UNIT_TYPES

NOTATION = (
    "One move per line: `move <from> <road>[,<road>] <units> pay <cards>` (a movement; units "
    "`-` starts a unit-by-unit selection), `attack <from> <road> <unit>[,<unit>] pay <cards>`, "
    "`unit <unit>` (pick one), `done`, `cancel`, `casualties <units>`, `trade <card>[@<town>]`, "
    "`trunk <road>`, `untrunk <road>`, `initial <town>=<unit> ...`, `capital <town>`, "
    "`rest <town>=<units> ...`, `pass`, `pass-turn`, `end-turn`, `resign`. Multisets are "
    "`dragon*2,unicorn`, `-` when empty. Example: `move virst 44 giant_pig*2,unicorn pay raft*3`."
)

_WORDS = {"pass": "pass", "pass_turn": "pass-turn", "end_turn": "end-turn", "done": "done",
          "cancel": "cancel", "resign": "resign"}
_ITEM = re.compile(r"([a-z_]+)(?:\*([1-9][0-9]*))?")
_TOWN = re.compile(r"[a-z][a-z0-9_-]*")


def _ms(m: Mapping[str, int]) -> str:
    items = canonical(m)
    return ",".join(t if k == 1 else f"{t}*{k}" for t, k in items.items()) or "-"


def _parse_ms(text: str, kinds: tuple[str, ...]) -> dict[str, int]:
    if text == "-":
        return {}
    out: dict[str, int] = {}
    for part in text.split(","):
        m = _ITEM.fullmatch(part)
        if m is None or m.group(1) not in kinds or m.group(1) in out:
            raise fail("bad_notation", f"Cannot read {part!r} as a type and a count.")
        out[m.group(1)] = int(m.group(2) or 1)
    return out


def format_move(move: Move) -> str:
    """The move in the war notation (see `NOTATION`)."""
    t = move.get("type")
    if t in _WORDS:
        return _WORDS[t]
    if t == "war_move":
        roads = ",".join(str(r) for r in move["roads"])
        return f"move {move['from']} {roads} {_ms(move.get('units', {}))} pay " \
               f"{_ms(move.get('cards', {}))}"
    if t == "attack":
        units = ",".join(move.get("units", [])) or "-"
        return f"attack {move['from']} {move['road']} {units} pay {_ms(move.get('cards', {}))}"
    if t == "pick_unit":
        return f"unit {move['unit']}"
    if t == "casualties":
        return f"casualties {_ms(move['units'])}"
    if t == "trade_in":
        return f"trade {move['card']}" + (f"@{move['town']}" if "town" in move else "")
    if t == "place_trunk":
        return f"trunk {move['road']}"
    if t == "remove_trunk":
        return f"untrunk {move['road']}"
    if t == "choose_capital":
        return f"capital {move['town']}"
    if t == "war_place_initial":
        return "initial " + " ".join(f"{k}={v}" for k, v in sorted(move["towns"].items()))
    if t == "war_place_rest":
        return "rest " + " ".join(f"{k}={_ms(v)}" for k, v in sorted(move["units"].items()))
    return str(t)


def _int(text: str) -> int:
    if not text.isdigit():
        raise fail("bad_notation", f"{text!r} is not a road id.")
    return int(text)


def _town(text: str) -> str:
    if not _TOWN.fullmatch(text):
        raise fail("bad_notation", f"{text!r} is not a town id.")
    return text


def parse_move(text: str) -> Move:
    """The move a line of notation names, read without regard to case or spacing (every id is
    lower case: a phone's keyboard capitalises); `bad_notation` if it cannot be read."""
    if not isinstance(text, str):
        raise fail("bad_notation", "A move in notation is a string.")
    words = text.lower().split()
    if not words:
        raise fail("bad_notation", "Empty move.")
    head, args = words[0], words[1:]
    for t, word in _WORDS.items():
        if head == word and not args:
            return {"type": t}
    try:
        if head == "move" and len(args) == 5 and args[3] == "pay":
            roads = [_int(r) for r in args[1].split(",")]
            return {"type": "war_move", "from": _town(args[0]), "roads": roads,
                    "units": _parse_ms(args[2], UNIT_TYPES),
                    "cards": _parse_ms(args[4], CARD_TYPES)}
        if head == "attack" and len(args) == 5 and args[3] == "pay":
            units = [] if args[2] == "-" else args[2].split(",")
            if any(u not in UNIT_TYPES for u in units):
                raise fail("bad_notation", f"{args[2]!r} is not a list of unit types.")
            return {"type": "attack", "from": _town(args[0]), "road": _int(args[1]),
                    "units": units, "cards": _parse_ms(args[4], CARD_TYPES)}
        if len(args) == 1:
            arg = args[0]
            if head == "unit" and arg in UNIT_TYPES:
                return {"type": "pick_unit", "unit": arg}
            if head == "casualties":
                return {"type": "casualties", "units": _parse_ms(arg, UNIT_TYPES)}
            if head == "trade":
                card, _, town = arg.partition("@")
                if card not in CARD_TYPES:
                    raise fail("bad_notation", f"{card!r} is not a card type.")
                return {"type": "trade_in", "card": card, **({"town": _town(town)} if town
                                                             else {})}
            if head == "trunk":
                return {"type": "place_trunk", "road": _int(arg)}
            if head == "untrunk":
                return {"type": "remove_trunk", "road": _int(arg)}
            if head == "capital":
                return {"type": "choose_capital", "town": _town(arg)}
        if head in ("initial", "rest") and args:
            pairs = [a.partition("=") for a in args]
            if any(not sep for _, sep, _ in pairs):
                raise fail("bad_notation", "Placements are written town=units.")
            if head == "initial":
                towns = {_town(k): v for k, _, v in pairs}
                if any(v not in UNIT_TYPES for v in towns.values()):
                    raise fail("bad_notation", "An initial placement puts one unit type.")
                return {"type": "war_place_initial", "towns": towns}
            return {"type": "war_place_rest",
                    "units": {_town(k): _parse_ms(v, UNIT_TYPES) for k, _, v in pairs}}
    except (KeyError, ValueError) as err:
        raise fail("bad_notation", f"Cannot read {text!r}: {err}") from None
    raise fail("bad_notation", f"Cannot read {text!r} as a war move.")


def _multiset(kinds: tuple[str, ...]) -> dict[str, JSON]:
    return {"type": "object", "propertyNames": {"enum": list(kinds)},
            "additionalProperties": {"type": "integer", "minimum": 1}}


def _obj(kind: str, required: dict[str, Any], optional: dict[str, Any] | None = None
         ) -> dict[str, JSON]:
    props = {"type": {"const": kind}, **required, **(optional or {})}
    return {"type": "object", "required": ["type", *required], "properties": props,
            "additionalProperties": False}


_TOWN_S = {"type": "string"}
_ROAD_S = {"type": "integer", "minimum": 0}
_UNIT_S = {"enum": list(UNIT_TYPES)}

_BRANCHES: list[dict[str, JSON]] = [
    _obj("war_place_initial", {"towns": {"type": "object", "additionalProperties": _UNIT_S}}),
    _obj("choose_capital", {"town": _TOWN_S}),
    _obj("war_place_rest", {"units": {"type": "object",
                                      "additionalProperties": _multiset(UNIT_TYPES)}}),
    _obj("place_trunk", {"road": _ROAD_S}),
    _obj("remove_trunk", {"road": _ROAD_S}),
    _obj("trade_in", {"card": {"enum": list(CARD_TYPES)}}, {"town": _TOWN_S}),
    _obj("war_move", {"from": _TOWN_S,
                      "roads": {"type": "array", "items": _ROAD_S, "minItems": 1,
                                "maxItems": 2}},
         {"units": _multiset(UNIT_TYPES), "cards": _multiset(CARD_TYPES)}),
    _obj("attack", {"from": _TOWN_S, "road": _ROAD_S},
         {"units": {"type": "array", "items": _UNIT_S, "maxItems": 2},
          "cards": _multiset(CARD_TYPES)}),
    _obj("pick_unit", {"unit": _UNIT_S}),
    _obj("casualties", {"units": _multiset(UNIT_TYPES)}),
    *(_obj(t, {}) for t in _WORDS),
]

#: one branch per move type, chosen by `type` (if/then: cheap to validate, unlike oneOf)
MOVE_SCHEMA: dict[str, JSON] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "Elfenland war move",
    "type": "object",
    "required": ["type"],
    "properties": {"type": {"enum": [b["properties"]["type"]["const"] for b in _BRANCHES]}},
    "allOf": [{"if": {"properties": {"type": {"const": b["properties"]["type"]["const"]}}},
               "then": b} for b in _BRANCHES],
}
