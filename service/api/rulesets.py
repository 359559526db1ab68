"""Rulesets: every game the server referees, with variants and options."""

from __future__ import annotations

from flask.views import MethodView
from flask_smorest import Blueprint

from engines.registry import available, get_engine
from service.games import SEAT_ORDERS
from service.schemas.games import RulesetSchema

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


@blp.route("")
class Rulesets(MethodView):
    @blp.response(200, RulesetSchema(many=True))
    def get(self) -> list[dict]:
        """Every ruleset: id, title, seat counts, variants, options with defaults."""
        return [describe(rid) for rid in available()]
