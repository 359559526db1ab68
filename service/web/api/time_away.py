"""Clock requests: a player's vacation (their clocks stop in every game while away) and time
given to an opponent (docs/games.md "Clocks")."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView
from flask_smorest import Blueprint
from marshmallow import Schema, fields, validate

from service.domain import game_clocks, vacations
from service.domain.accept import get_game_or_404
from service.domain.game import load_game
from service.domain.problems import InvalidRequest
from service.notify import dispatch
from service.ops import clock
from service.web.api import deps
from service.web.api.deps import PROBLEM
from service.web.api.game_schemas import GameSummarySchema
from service.web.api.games import summary
from service.web.auth import current_player, require_self
from service.web.limits import config

blp = Blueprint("clocks", __name__, description="Vacations and time given")


class VacationSchema(Schema):
    seconds_left = fields.Integer(required=True, metadata={
        "description": "vacation time left to spend (a twelfth of the yearly amount is added "
                       "on the first of each month, up to the yearly amount)"})
    days_left = fields.Float(required=True, metadata={"description": "the same in days"})
    days_a_year = fields.Integer(required=True)
    away = fields.Boolean(required=True, metadata={"description": "away now"})
    away_from = fields.String(allow_none=True, metadata={
        "description": "the vacation under way or to come: its start (UTC)"})
    away_until = fields.String(allow_none=True, metadata={"description": "and its end (UTC)"})
    games = fields.List(fields.String(), metadata={
        "description": "the active games with clocks that count it (after a change)"})


class GoAwaySchema(Schema):
    from_ = fields.DateTime(data_key="from", load_default=None, metadata={
        "description": "when the vacation starts (RFC 3339; default now)"})
    until = fields.DateTime(required=True, metadata={
        "description": "when it ends (RFC 3339)"})


class GiftSchema(Schema):
    seat = fields.Integer(required=True, metadata={"description": "the seat to give time to"})
    seconds = fields.Integer(required=True, validate=validate.Range(
        min=game_clocks.GIFT_MIN, max=game_clocks.GIFT_MAX))


def _shown(vacation: vacations.Vacation, changed: list[str] | None = None) -> dict[str, Any]:
    now = int(clock.now())
    span = vacation.current(now)
    out: dict[str, Any] = {
        "seconds_left": vacation.left, "days_left": round(vacation.left / 86_400, 2),
        "days_a_year": vacation.yearly // 86_400,
        "away": span is not None and span[0] <= now,
        "away_from": dispatch.iso(span[0]) if span else None,
        "away_until": dispatch.iso(span[1]) if span else None}
    if changed is not None:
        out["games"] = changed
    return out


def _reschedule(changed: list[str]) -> None:
    """Each changed game's deadline jobs at its clocks' new moments (a job that finds its
    moment moved on schedules itself again, but one that now falls earlier must be told)."""
    store, queue = deps.store(), deps.queue()
    for gid in changed:
        game = load_game(store, gid)
        clocks = game_clocks.game_clocks(game) if game is not None else None
        due = game_clocks.earliest_due(*clocks) if clocks is not None else None
        if game is not None and due is not None:
            dispatch.schedule_deadline(store, queue, game, game.step, due)


@blp.route("/v1/players/<player>/vacation")
class Vacation(MethodView):
    @blp.doc(operationId="getVacation", security=[{"bearer": []}])
    @blp.response(200, VacationSchema)
    @blp.alt_response(401, **PROBLEM)
    @blp.alt_response(403, **PROBLEM)
    def get(self, player: str) -> dict:
        """Your vacation allowance and your vacation under way or to come."""
        require_self(player)
        return _shown(vacations.of_player(deps.store(), player, config().VACATION_DAYS))

    @blp.doc(operationId="goAway", security=[{"bearer": []}])
    @blp.arguments(GoAwaySchema)
    @blp.response(200, VacationSchema)
    @blp.alt_response(401, **PROBLEM)
    @blp.alt_response(403, **PROBLEM)
    @blp.alt_response(422, **PROBLEM)
    def put(self, data: dict, player: str) -> dict:
        """Be away from `from` (default now) until `until`: your clocks stop in every game
        meanwhile and your opponents see until when. Replaces a vacation not yet ended (its
        unused time comes back). 422 `vacation_too_long` beyond your allowance,
        `bad_vacation` for a span not ahead of now."""
        require_self(player)
        start = data["from_"]
        if data["until"].tzinfo is None or (start is not None and start.tzinfo is None):
            raise InvalidRequest("Give moments with a zone, e.g. 2026-12-24T00:00:00Z.",
                                 code="bad_vacation")
        vacation, changed = vacations.go_away(
            deps.store(), player, config().VACATION_DAYS,
            None if start is None else int(start.timestamp()), int(data["until"].timestamp()))
        _reschedule(changed)
        return _shown(vacation, changed)

    @blp.doc(operationId="comeBack", security=[{"bearer": []}])
    @blp.response(200, VacationSchema)
    @blp.alt_response(401, **PROBLEM)
    @blp.alt_response(403, **PROBLEM)
    def delete(self, player: str) -> dict:
        """Come back now (or cancel a vacation still to come); unused time comes back."""
        require_self(player)
        vacation, changed = vacations.come_back(deps.store(), player, config().VACATION_DAYS)
        _reschedule(changed)
        return _shown(vacation, changed)


@blp.route("/v1/games/<game>/time-gifts")
class TimeGifts(MethodView):
    @blp.doc(operationId="giveTime", security=[{"bearer": []}])
    @blp.arguments(GiftSchema)
    @blp.response(200, GameSummarySchema)
    @blp.alt_response(401, **PROBLEM)
    @blp.alt_response(403, **PROBLEM)
    @blp.alt_response(404, **PROBLEM)
    @blp.alt_response(409, **PROBLEM)
    @blp.alt_response(422, **PROBLEM)
    def post(self, data: dict, game: str) -> dict:
        """Give an opponent time: `seconds` (60 s to 7 days) added to the running clock of
        `seat`. 409 `clock_not_running` when that seat is not asked to act."""
        store = deps.store()
        g = get_game_or_404(store, game)
        game_clocks.give_time(store, g, current_player(), data["seat"], data["seconds"])
        _reschedule([game])
        return summary(load_game(store, game))
