"""Game records: a finished game's audit bundle and every event, as one downloadable file."""

from __future__ import annotations

from flask import Response, jsonify
from flask.views import MethodView
from flask_smorest import Blueprint
from marshmallow import Schema, fields
from parley_protocol.verify import RECORD_FORMAT

from service.domain.accept import get_game_or_404
from service.domain.audit_bundle import all_events, build_bundle
from service.domain.game_reads import reads_of
from service.domain.problems import Conflict
from service.web.api import deps
from service.web.api.deps import PROBLEM
from service.web.api.game_schemas import AuditSchema, EventSchema

blp = Blueprint("records", __name__, url_prefix="/v1/games",
                description="Records of finished games")

#: events read from the store per round trip while assembling a record


class RecordSchema(Schema):
    """A finished game's record; `parley verify` checks it offline (docs/audit.md)."""

    format = fields.String(required=True, metadata={"description": RECORD_FORMAT})
    game = fields.String(required=True)
    audit = fields.Nested(AuditSchema, required=True,
                          metadata={"description": "the signed audit bundle, as GET /audit"})
    events = fields.List(fields.Nested(EventSchema), required=True, metadata={
        "description": "every event in full, in order; the verifier's replay re-creates them"})


@blp.route("/<game>/record")
class Record(MethodView):
    @blp.doc(operationId="getRecord")
    @blp.response(200, RecordSchema)
    @blp.alt_response(404, **PROBLEM)
    @blp.alt_response(409, **PROBLEM)
    def get(self, game: str) -> Response:
        """A finished game's full record: the signed audit bundle (revealed seed, every
        envelope) and every event, unredacted. `parley verify` accepts it offline. While the
        game runs the answer is 409 `game_not_finished`: hidden information stays hidden."""
        store = deps.store()
        record = get_game_or_404(store, game)
        if not record.finished:
            raise Conflict("The game has not finished; its record is published at the end.",
                           code="game_not_finished")
        reads = reads_of(store, record)  # one consistent copy, in Redis or the archive
        body = {"format": RECORD_FORMAT, "game": game,
                "audit": build_bundle(store, record, deps.server_key(), reads),
                "events": all_events(reads, game)}
        # returned as a Response so that no schema dump can drop a signed field: the bundle's
        # signature covers exactly what build_bundle produced
        return jsonify(body)
