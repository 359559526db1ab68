"""Batches for bots and tournaments: several signed moves in one request, several seat views in
another.

A client playing many games pays the web framework's per-request cost once per batch instead
of once per move (docs/performance.md, "Batches"). Every item is checked exactly as its single
endpoint checks it and answers what that endpoint would answer: a refused item carries its
`problem` and leaves the others alone. Both answer with a pre-built response, so that items
keep every field of their problem (such as `current_step`), which a schema dump would drop.
"""

from __future__ import annotations

from typing import Any

from flask import current_app, request
from flask.views import MethodView
from flask_smorest import Blueprint

from service.domain import names
from service.domain.accept import Accepted, parse_body, submit_moves
from service.domain.game import seat_view
from service.domain.game_model import Game
from service.domain.game_reads import view_inputs
from service.domain.problems import InvalidRequest, NotFound, Problem
from service.storage.resolve_queue import wake_games
from service.web.api import deps
from service.web.api.deps import PROBLEM
from service.web.api.game_schemas import ViewBatchQuerySchema, ViewBatchSchema
from service.web.api.move_schemas import MAX_BATCH, MoveBatchResultSchema, MoveBatchSchema
from service.web.api.moves import accepted_body
from service.web.auth import bearer_digest, known_token
from service.web.errors import item_problem
from service.web.limits import RATE_LIMITED, note_signed

blp = Blueprint("batch", __name__, url_prefix="/v1", description="Batches of moves and views")


@blp.route("/moves")
class MoveBatch(MethodView):
    @blp.doc(operationId="postMoveBatch")
    @blp.doc(requestBody={"required": True, "content": {"application/json": {
        "schema": MoveBatchSchema}}})
    @blp.response(200, MoveBatchResultSchema)
    @blp.alt_response(400, **PROBLEM)
    @blp.alt_response(413, **PROBLEM)
    @blp.alt_response(422, **PROBLEM)
    @blp.alt_response(429, **RATE_LIMITED)
    def post(self) -> Any:
        """Submit up to 64 signed envelopes, for any games, all signed with one key: each is
        checked, stored and queued as `POST /v1/games/{game}/moves` does it, and `results`
        holds, in order, what that endpoint would have answered: the accepted move (its `game`,
        `id`, `status`, `location`, `receipt`) or a `problem`. Each envelope counts against
        the move rate limits. 422 `invalid_batch` when the body is not 1 to 64 envelopes under
        `envelopes`, or they are signed with different keys."""
        data = parse_body(request.get_data(cache=False))
        envelopes = data.get("envelopes") if isinstance(data, dict) else None
        if (not isinstance(envelopes, list) or not 1 <= len(envelopes) <= MAX_BATCH
                or len(data) != 1):
            raise InvalidRequest(f"A batch is {{\"envelopes\": [...]}} with 1 to {MAX_BATCH} "
                                 "envelopes.", code="invalid_batch")
        store = deps.store()
        outcomes = submit_moves(store, envelopes, deps.server_key())
        note_signed(outcomes)
        gids = [_named_game(envelope) for envelope in envelopes]
        # the games whose new moves need a drain, unless the accepting script handed them to a
        # live drainer itself, woken in one round trip (an append set the game's `scheduled`
        # flag at most once, so each is named once)
        wake_games(deps.queue(), [gid for gid, outcome in zip(gids, outcomes, strict=True)
                                  if isinstance(outcome, Accepted) and outcome.created
                                  and outcome.schedule])
        results = []
        for gid, outcome in zip(gids, outcomes, strict=True):
            if isinstance(outcome, Problem):
                results.append({"game": gid, "problem": item_problem(outcome)})
            else:
                results.append({"game": gid, **accepted_body(store, gid, outcome, woken=True)})
        return current_app.json.response({"results": results})


@blp.route("/views")
class ViewBatch(MethodView):
    @blp.doc(operationId="getViewBatch")
    @blp.arguments(ViewBatchQuerySchema, location="query")
    @blp.response(200, ViewBatchSchema)
    @blp.alt_response(401, **PROBLEM)
    @blp.alt_response(422, **PROBLEM)
    @blp.doc(security=[{"bearer": []}])
    def get(self, query: dict) -> Any:
        """The caller's views of up to 64 games (repeat `game`), each what
        `GET /v1/games/{game}/view` answers that caller, in the order asked; a game that does
        not exist has a `problem` instead. One request and one Redis round trip for all (and
        one more for the players' names this server has not read before)."""
        digest = bearer_digest()
        store = deps.store()
        pid, contexts = store.view_contexts(digest, query["game"])
        known_token(pid)
        inputs = [view_inputs(store, gid, meta, state_json) if meta else None
                  for gid, (meta, state_json) in zip(query["game"], contexts, strict=True)]
        # every game's names in one round trip: each view below then finds them kept
        names.seat_names(store, [player for gid, got in zip(query["game"], inputs, strict=True)
                                 if got is not None and got[1] is not None
                                 for player in Game.from_meta(gid, got[0]).players])
        views = [seat_view(gid, *got, pid, store) if got is not None else
                 {"game": gid, "problem": item_problem(NotFound("No such game.",
                                                                code="game_not_found"))}
                 for gid, got in zip(query["game"], inputs, strict=True)]
        return current_app.json.response({"views": views})


def _named_game(envelope: Any) -> str | None:
    """The game an envelope names, if it names one."""
    payload = envelope.get("payload") if isinstance(envelope, dict) else None
    gid = payload.get("game") if isinstance(payload, dict) else None
    return gid if isinstance(gid, str) else None
