"""JSON Schema (2020-12) of one race move (contract v2 point 13; spec §5.1, §5.2)."""

from __future__ import annotations

from typing import Any

from engines.elfenland.race.fields import MOVE_FIELDS

_MULTISET = {"type": "object", "additionalProperties": {"type": "integer", "minimum": 1}}
_STEP = {
    "type": "object",
    "oneOf": [
        {"required": ["road", "cards"]}, {"required": ["road", "caravan"]},
        {"required": ["road", "ferryman"]}, {"required": ["roads", "cards"]},
    ],
    "properties": {
        "road": {"type": "integer"},
        "roads": {"type": "array", "items": {"type": "integer"}, "minItems": 2},
        "cards": _MULTISET, "caravan": _MULTISET, "ferryman": _MULTISET,
    },
    "additionalProperties": False,
}
_FIELD_SCHEMAS: dict[str, Any] = {
    "counter": {"type": "string"}, "card": {"type": "string"}, "road": {"type": "integer"},
    "hidden": {"type": "boolean"}, "side": {"type": ["string", "null"]},
    "allow": {"type": "boolean"}, "steps": {"type": "array", "items": _STEP, "minItems": 1},
    "cards": _MULTISET, "victim": {"type": "integer"}, "left": {"type": "string"},
    "right": {"type": ["string", "null"]}, "discard": _MULTISET,
    "keep": {"oneOf": [{"type": "null"}, {
        "type": "object", "required": ["counter"], "additionalProperties": False,
        "properties": {"counter": {"type": "string"}, "hidden": {"type": "boolean"}}}]},
}


def _one(move_type: str) -> dict[str, Any]:
    required, optional = MOVE_FIELDS[move_type]
    props: dict[str, Any] = {"type": {"const": move_type}}
    for name in sorted(required | optional):
        props[name] = _FIELD_SCHEMAS[name]
    return {"type": "object", "required": ["type", *sorted(required)], "properties": props,
            "additionalProperties": False}


#: one schema per move type, in `MOVE_FIELDS` order (precise; used by the tests and the docs)
MOVE_SCHEMAS: list[dict[str, Any]] = [_one(t) for t in MOVE_FIELDS]

#: the served schema: flat, so that checking a move costs one pass over its few fields
RACE_MOVE_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "Elfenland race move", "type": "object", "required": ["type"],
    "properties": {"type": {"enum": list(MOVE_FIELDS)}, **_FIELD_SCHEMAS},
    "additionalProperties": False,
}
