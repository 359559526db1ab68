"""Mail preferences (for all games and per game) and the one-click unsubscribe link."""

from __future__ import annotations

from flask.views import MethodView
from flask_smorest import Blueprint

from service.domain.accept import get_game_or_404
from service.domain.problems import Forbidden, NotFound
from service.notify import mail
from service.web.api import deps
from service.web.api.deps import PROBLEM
from service.web.api.notification_schemas import (
    MailPrefsSchema,
    MailPrefsUpdateSchema,
    UnsubscribedSchema,
    UnsubscribeQuerySchema,
)
from service.web.auth import current_player, require_self

blp = Blueprint("mail", __name__, url_prefix="/v1", description="Mail notifications")
AUTH = {"security": [{"bearer": []}]}


def _game_player(game: str) -> str:
    pid = current_player()
    if pid not in get_game_or_404(deps.store(), game).players:
        raise Forbidden("Only the game's players have mail settings for it.", code="not_seated")
    return pid  # type: ignore[return-value]


@blp.route("/players/<player>/mail")
class PlayerMail(MethodView):
    @blp.doc(operationId="getPlayerMail")
    @blp.response(200, MailPrefsSchema)
    @blp.alt_response(401, **PROBLEM)
    @blp.alt_response(403, **PROBLEM)
    @blp.doc(**AUTH)
    def get(self, player: str) -> dict:
        """The player's mail settings for all games (every kind on by default)."""
        require_self(player)
        return mail.get_prefs(deps.store(), player)

    @blp.doc(operationId="setPlayerMail")
    @blp.arguments(MailPrefsUpdateSchema)
    @blp.response(200, MailPrefsSchema)
    @blp.alt_response(401, **PROBLEM)
    @blp.alt_response(403, **PROBLEM)
    @blp.alt_response(422, **PROBLEM)
    @blp.doc(**AUTH)
    def put(self, data: dict, player: str) -> dict:
        """Turn mail on or off for all games, wholly (`enabled`) or per kind (`types`)."""
        require_self(player)
        return mail.set_prefs(deps.store(), player, None, data["enabled"], data["types"])


@blp.route("/games/<game>/mail")
class GameMail(MethodView):
    @blp.doc(operationId="getGameMail")
    @blp.response(200, MailPrefsSchema)
    @blp.alt_response(401, **PROBLEM)
    @blp.alt_response(403, **PROBLEM)
    @blp.alt_response(404, **PROBLEM)
    @blp.doc(**AUTH)
    def get(self, game: str) -> dict:
        """The caller's mail settings for this game (the all-games settings apply as well)."""
        return mail.get_prefs(deps.store(), _game_player(game), game)

    @blp.doc(operationId="setGameMail")
    @blp.arguments(MailPrefsUpdateSchema)
    @blp.response(200, MailPrefsSchema)
    @blp.alt_response(401, **PROBLEM)
    @blp.alt_response(403, **PROBLEM)
    @blp.alt_response(404, **PROBLEM)
    @blp.alt_response(422, **PROBLEM)
    @blp.doc(**AUTH)
    def put(self, data: dict, game: str) -> dict:
        """Turn this game's mail on or off, wholly (`enabled`) or per kind (`types`)."""
        pid = _game_player(game)
        return mail.set_prefs(deps.store(), pid, game, data["enabled"], data["types"])


@blp.route("/mail/unsubscribe")
class Unsubscribe(MethodView):
    @blp.doc(operationId="unsubscribeMail")
    @blp.arguments(UnsubscribeQuerySchema, location="query")
    @blp.response(200, UnsubscribedSchema)
    @blp.alt_response(404, **PROBLEM)
    @blp.alt_response(422, **PROBLEM)
    def post(self, args: dict) -> dict:
        """One-click unsubscribe (RFC 8058), the `List-Unsubscribe` link of every mail: turns
        off all mail of that game for that player. Authenticated by the link's token."""
        if not mail.check_unsubscribe(deps.server_key(), args["player"], args["game"],
                                      args["token"]):
            raise NotFound("No such subscription.", code="bad_unsubscribe_link")
        prefs = mail.set_prefs(deps.store(), args["player"], args["game"], False, {})
        return {"player": args["player"], "game": args["game"], "mail": prefs}
