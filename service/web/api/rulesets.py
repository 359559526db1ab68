"""Rulesets: every game the server referees, with variants and options; one ruleset in full.

`GET /v1/rulesets` lists every game briefly; `GET /v1/rulesets/{id}` adds what a client needs to
build moves and explain refusals (contract v2, point 13): the JSON Schema of one move, every error
code the engine may answer with one line each, and the text notation of its moves;
`POST /v1/rulesets/{id}/notation` reads a move typed in that notation (the browser client's
notation box).
"""

from __future__ import annotations

from flask.views import MethodView
from flask_smorest import Blueprint

from engines.contract import COMMON_CODES, IllegalMove
from engines.registry import RULESETS, available, get_engine
from service.domain.game_model import SEAT_ORDERS
from service.domain.problems import IllegalMoveProblem, NotFound
from service.web.api.deps import PROBLEM
from service.web.api.game_schemas import (
    NotationSchema,
    ParsedMoveSchema,
    RulesetDetailSchema,
    RulesetSchema,
)

blp = Blueprint("rulesets", __name__, url_prefix="/v1/rulesets", description="Rulesets")

#: options every game has; the platform takes them out before the engine sees the rest
PLATFORM_OPTIONS = {
    "seat_order": {"default": "random", "choices": list(SEAT_ORDERS),
                   "description": "random: an audited draw `seat-order` seats the players; "
                                  "joined: players keep the seats they took"},
}


def describe(ruleset: str) -> dict:
    engine = get_engine(ruleset)
    options = {name: {"default": spec.default,
                      "choices": list(spec.choices) if spec.choices is not None else None,
                      "description": spec.description}
               for name, spec in engine.options.items()}
    return {
        "id": engine.id, "title": engine.title, "min_players": engine.min_players,
        "max_players": engine.max_players,
        "variants": [{"id": v.id, "title": v.title, "options": dict(v.options)}
                     for v in engine.variants],
        "options": {**PLATFORM_OPTIONS, **options},
    }


def describe_in_full(ruleset: str) -> dict:
    """`describe` plus the move schema, the error codes and the notation."""
    engine = get_engine(ruleset)
    codes = dict(engine.error_codes)
    codes.setdefault("invalid_options", COMMON_CODES["invalid_options"])
    return {
        **describe(ruleset),
        "data_option": engine.data_option,
        "move_schema": dict(engine.move_schema),
        "error_codes": [{"code": code, "description": line} for code, line in codes.items()],
        "notation": engine.notation,
    }


@blp.route("")
class Rulesets(MethodView):
    @blp.doc(operationId="listRulesets")
    @blp.response(200, RulesetSchema(many=True))
    def get(self) -> list[dict]:
        """Every ruleset: id, title, seat counts, variants, options with defaults."""
        return [describe(rid) for rid in available()]


@blp.route("/<ruleset>")
class Ruleset(MethodView):
    @blp.doc(operationId="getRuleset")
    @blp.response(200, RulesetDetailSchema)
    @blp.alt_response(404, **PROBLEM)
    def get(self, ruleset: str) -> dict:
        """One ruleset in full: options, variants, the JSON Schema of a move, every error code
        the game may answer with, and the text notation of its moves."""
        if ruleset not in RULESETS:
            raise NotFound(f"No ruleset {ruleset!r}.", code="ruleset_not_found")
        return describe_in_full(ruleset)


@blp.route("/<ruleset>/notation")
class Notation(MethodView):
    @blp.doc(operationId="parseNotation")
    @blp.arguments(NotationSchema)
    @blp.response(200, ParsedMoveSchema)
    @blp.alt_response(404, **PROBLEM)
    @blp.alt_response(422, **PROBLEM)
    def post(self, body: dict, ruleset: str) -> dict:
        """A move typed in the game's notation, read as the move object an envelope carries
        (`bad_notation` for a text the notation cannot read). Reading is not judging: whether
        the move is legal now is the game's to say when it is posted. A client needs no game's
        notation built in: it shows a view's `legal_moves_notation` and sends anything else
        typed here, which matters where a listing offers only examples (a setup). POST, not a
        query string: a typed setup is secret and stays out of URLs and their logs."""
        if ruleset not in RULESETS:
            raise NotFound(f"No ruleset {ruleset!r}.", code="ruleset_not_found")
        engine = get_engine(ruleset)
        try:
            move = engine.parse_move(body["text"])
        except IllegalMove as err:
            raise IllegalMoveProblem(err.message, code=err.code) from err
        return {"move": move, "notation": engine.format_move(move)}
