"""Schemas shared by several resources: problem JSON, strict scalar fields, pagination."""

from __future__ import annotations

import re
from typing import Any

from marshmallow import INCLUDE, Schema, ValidationError, fields, validate

B64URL = re.compile(r"^[A-Za-z0-9_-]+$")


class StrictInt(fields.Integer):
    """An integer that must be a JSON number without fraction (no strings, no booleans)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(strict=True, **kwargs)

    def _validated(self, value: Any) -> Any:
        if isinstance(value, bool):
            raise self.make_error("invalid")
        return super()._validated(value)


class B64Url(fields.String):
    """base64url without padding (RFC 4648 §5), with a minimum decoded length."""

    def __init__(self, min_bytes: int = 1, max_len: int = 512, **kwargs: Any) -> None:
        self.min_bytes = min_bytes
        super().__init__(validate=validate.Length(max=max_len), **kwargs)

    def _deserialize(self, value: Any, attr: Any, data: Any, **kwargs: Any) -> str:
        text = super()._deserialize(value, attr, data, **kwargs)
        if not B64URL.match(text) or len(text) % 4 == 1 or len(text) * 3 // 4 < self.min_bytes:
            raise ValidationError(f"base64url without padding of at least {self.min_bytes} bytes")
        return text


class ProblemSchema(Schema):
    """RFC 9457 problem details with Parley's machine-readable `code`, and extension members
    where a problem has more to say (such as `current_step` of a `stale_step`)."""

    class Meta:
        unknown = INCLUDE

    type = fields.String(metadata={"description": "URI naming the problem type"})
    title = fields.String()
    status = fields.Integer()
    detail = fields.String()
    code = fields.String(required=True, metadata={"description": "machine-readable error code"})
    errors = fields.Dict(metadata={"description": "field errors of a schema failure"})


class CursorQuerySchema(Schema):
    """Cursor pagination, the same on every list: pass a page's `next` as `cursor` to read on.

    `after` is the older name of `cursor`, still accepted.
    """

    cursor = fields.String(load_default=None, validate=validate.Length(max=128), metadata={
        "description": "opaque cursor from a previous page's `next`; omit for the first page"})
    after = fields.String(load_default=None, validate=validate.Length(max=128),
                          metadata={"description": "deprecated name of `cursor`"})
    limit = fields.Integer(load_default=100, validate=validate.Range(min=1, max=1000),
                           metadata={"description": "most items in one page"})


class ProblemCodeEntrySchema(Schema):
    source = fields.String(required=True, metadata={
        "description": "`platform`, a ruleset id, or `every ruleset`"})
    status = fields.Integer(required=True)
    description = fields.String(required=True)


class ProblemCodeSchema(Schema):
    code = fields.String(required=True)
    entries = fields.List(fields.Nested(ProblemCodeEntrySchema), required=True)
