"""Moves: signed envelope submission (202 + poll) and move status."""

from __future__ import annotations

from typing import Any

from flask import request, url_for
from flask.views import MethodView
from flask_smorest import Blueprint

from service.domain.accept import Accepted, get_game_or_404, move_status, queued_body, submit_move
from service.storage.resolve_queue import wake_again
from service.storage.store import Store
from service.web.api import deps
from service.web.api.deps import PROBLEM
from service.web.api.move_schemas import EnvelopeSchema, MoveAcceptedSchema, MoveStatusSchema
from service.web.limits import RATE_LIMITED

blp = Blueprint("moves", __name__, url_prefix="/v1/games", description="Signed moves")


@blp.route("/<game>/moves")
class Moves(MethodView):
    @blp.doc(operationId="postMove")
    @blp.doc(requestBody={"required": True, "content": {"application/json": {
        "schema": EnvelopeSchema}}})
    @blp.response(202, MoveAcceptedSchema, headers={"Location": {
        "description": "where to poll the move's status", "schema": {"type": "string"}}})
    @blp.alt_response(400, **PROBLEM)
    @blp.alt_response(401, **PROBLEM)
    @blp.alt_response(403, **PROBLEM)
    @blp.alt_response(404, **PROBLEM)
    @blp.alt_response(409, **PROBLEM)
    @blp.alt_response(413, **PROBLEM)
    @blp.alt_response(422, **PROBLEM)
    @blp.alt_response(429, **RATE_LIMITED)
    def post(self, game: str) -> tuple:
        """Submit a signed move envelope. It is checked at once (schema, key, signature, seat,
        turn, step, nonce, and a dry run of the rules), stored durably and queued: poll
        `Location` until `applied` or `rejected` (the answer's `status` says `applied` already
        when the server applied the move at once). Posting the same envelope again returns the
        same move. Rate-limited per address and per signing player (429 `rate_limited`)."""
        store = deps.store()
        accepted = submit_move(store, game, request.get_data(cache=False), deps.server_key())
        body = accepted_body(store, game, accepted)
        return body, 202, {"Location": body["location"]}


def accepted_body(store: Store, game: str, accepted: Accepted,
                  woken: bool = False) -> dict[str, Any]:
    """The answer to an accepted envelope (`id`, `status`, `location`, `receipt`), after
    waking its game when it needs a drain (and the caller has not `woken` the new moves'
    games already)."""
    location = url_for("moves.MoveResource", game=game, move=accepted.seq)
    if accepted.created:
        return queued_body(deps.queue(), game, accepted, location, woken)
    body = move_status(store, get_game_or_404(store, game), accepted.seq)
    if body["status"] == "queued":
        # a re-post of a move still queued: the first post may have stored it and then lost
        # its process before the wake (the client saw no 202 and retried). The flag cannot
        # tell an outstanding wake from a lost one, so wake the game anyway: at worst a
        # second drain finds nothing left to do.
        wake_again(store, deps.queue(), game)
    body = {**body, "location": location, "receipt": accepted.receipt}
    body.pop("code", None)
    body.pop("detail", None)
    return body


@blp.route("/<game>/moves/<int:move>")
class MoveResource(MethodView):
    @blp.doc(operationId="getMove")
    @blp.response(200, MoveStatusSchema)
    @blp.alt_response(404, **PROBLEM)
    def get(self, game: str, move: int) -> dict:
        """A move's status: `queued`, `applied`, or `rejected` with the rules' `code`."""
        store = deps.store()
        return move_status(store, get_game_or_404(store, game), move)
