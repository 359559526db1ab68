"""Invitations by mail (docs/notifications.md "Invitations and mail-only players").

A seated player invites an address with their token; the invited person needs no login: the
invitation's link (or a reply with the word `join`) is the proof that they read the mail. `GET`
on the link only shows a page with a button (mail systems fetch links to scan them); the
button's `POST` takes the seat.
"""

from __future__ import annotations

import html
from typing import Any

from flask import Response
from flask.views import MethodView
from flask_smorest import Blueprint
from marshmallow import Schema, fields, validate

from service.domain.accept import get_game_or_404
from service.notify import invitation_mail
from service.web.api import deps
from service.web.api.deps import PROBLEM
from service.web.api.game_schemas import JoinedSchema
from service.web.auth import current_player
from service.web.button_pages import page, wants_page
from service.web.limits import RATE_LIMITED, config

blp = Blueprint("invitations", __name__, url_prefix="/v1",
                description="Invitations by mail, for players with or without a key")


class InvitationCreateSchema(Schema):
    email = fields.Email(required=True, validate=validate.Length(max=254), metadata={
        "description": "the address to invite; its owner takes the seat by a reply or a link"})


class InvitationSentSchema(Schema):
    game = fields.String(required=True)
    email = fields.String(required=True)
    expires_in = fields.Integer(required=True, metadata={
        "description": "seconds the invitation can be taken up, from its mail"})


class InvitationTakenSchema(JoinedSchema):
    player = fields.String(required=True, metadata={"description": "the seated player"})
    mail_only = fields.Boolean(required=True, metadata={
        "description": "the player has no key: every move of theirs is made by mail reply, "
                       "and the game's audit marks the seat so"})


@blp.route("/games/<game>/invitations")
class GameInvitations(MethodView):
    @blp.doc(operationId="inviteByMail", security=[{"bearer": []}])
    @blp.arguments(InvitationCreateSchema)
    @blp.response(202, InvitationSentSchema)
    @blp.alt_response(401, **PROBLEM)
    @blp.alt_response(403, **PROBLEM)
    @blp.alt_response(404, **PROBLEM)
    @blp.alt_response(409, **PROBLEM)
    @blp.alt_response(422, **PROBLEM)
    @blp.alt_response(429, **RATE_LIMITED)
    def post(self, data: dict, game: str) -> dict:
        """Invite an address to an open game you hold a seat in: it gets one mail, whose
        reply `join` or link takes a free seat (an address no player has confirmed gets a new
        mail-only player). 403 `not_seated`, 409 `game_not_open` or `email_unconfirmed`
        (confirm your own address first), 429 `rate_limited` past PARLEY_INVITES_PER_PLAYER
        a day, or PARLEY_INVITES_PER_ADDRESS a day to one address."""
        pid = current_player()
        store = deps.store()
        return invitation_mail.invite(store, deps.queue(), config(), get_game_or_404(store, game),
                                  pid, data["email"])


@blp.route("/invitations/<token>")
class Invitation(MethodView):
    @blp.doc(operationId="invitationPage", responses={"200": {
        "description": "a page naming the game, with the button that takes the seat (`POST` "
                       "to the same link); it changes nothing",
        "content": {"text/html": {"schema": {"type": "string"}}}}})
    @blp.alt_response(404, **PROBLEM)
    def get(self, token: str) -> Response:
        """The invitation mail's link: a page with a Join button."""
        offer = invitation_mail.pending(deps.store(), token)
        game = deps.store().meta(offer["game"]) if offer else None
        if offer is None or not game:
            raise invitation_mail.unknown()
        title = html.escape(get_game_or_404(deps.store(), offer["game"]).engine.title)
        return page(f"An invitation to {title}", f"""<p>A seat in game
{html.escape(offer["game"])} waits for <b>{html.escape(offer["email"])}</b>. Press Join to take
it: a mail will come whenever it is your turn, and you play by replying to it.</p>
<form method="post"><button type="submit">Join</button></form>
<p>To play in a browser or with the parley program instead, open
<a href="/#/join/{html.escape(offer["game"])}">the game in the browser client</a>.</p>""")

    @blp.doc(operationId="takeInvitation")
    @blp.response(200, InvitationTakenSchema)
    @blp.alt_response(404, **PROBLEM)
    @blp.alt_response(409, **PROBLEM)
    def post(self, token: str) -> Any:
        """Take up the invitation of the link, which then works no more: the invited
        address's player takes a free seat (a browser gets a page saying so). 404
        `bad_invitation` for a link unknown, used or expired; 409 `game_not_open`,
        `already_seated`, `game_full`, or `join_with_key` for an address of a player with a
        key, who joins with a signed join instead (the invitation then stands)."""
        seated = invitation_mail.accept(deps.store(), deps.queue(), config(), token)
        if wants_page():
            return page("You have a seat", f"""<p>You hold seat {seated["seat"]} of game
{html.escape(seated["game"])}. The game starts when every seat is taken; a mail will come
whenever it is your turn.</p>""")
        return seated
