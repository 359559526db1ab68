"""Schemas shared by several resources: problem JSON, strict scalar fields, pagination."""

from __future__ import annotations

from marshmallow import INCLUDE, Schema, fields, validate


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
