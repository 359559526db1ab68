"""A player's mail address and its confirmation (docs/notifications.md "Address confirmation").

The player reads, changes and re-confirms their own address with their token; the owner of an
address confirms it with the link of the confirmation mail, which needs no login: the link's
token is the proof that they read the mail. `GET` on the link only shows a page with a button
(mail systems fetch links to scan them); the button's `POST` confirms.
"""

from __future__ import annotations

import html
from typing import Any

from flask import Response
from flask.views import MethodView
from flask_smorest import Blueprint

from service.domain.problems import Conflict, InvalidRequest, NotFound, Problem
from service.notify import confirmation
from service.storage import address_records
from service.web.api import deps
from service.web.api.deps import PROBLEM
from service.web.api.player_schemas import (
    ConfirmedSchema,
    ConfirmQuerySchema,
    EmailChangedSchema,
    EmailSchema,
    EmailSetSchema,
)
from service.web.auth import require_self
from service.web.button_pages import page, wants_page
from service.web.limits import RATE_LIMITED, config

blp = Blueprint("email", __name__, url_prefix="/v1",
                description="Mail addresses and their confirmation")
AUTH = {"security": [{"bearer": []}]}
class ConfirmationsLimited(Problem):
    status, code, title = 429, "rate_limited", "Too many confirmation mails"


def refuse_servers_own(address: str) -> None:
    """422 for an address whose mail would come back to this server."""
    if confirmation.own_address(config(), address):
        raise InvalidRequest(
            "The address is this server's own (its From address, or at its reply domain).",
            errors={"json": {"email": ["This server's own addresses are not allowed."]}})


def ask_confirmation(pid: str, address: str) -> int:
    """Queue a confirmation mail if the limits allow: 0, or the seconds until one may go."""
    return confirmation.ask(deps.store(), deps.queue(), config(), pid, address)


@blp.route("/players/<player>/email")
class PlayerEmail(MethodView):
    @blp.doc(operationId="getEmail", **AUTH)
    @blp.response(200, EmailSchema)
    @blp.alt_response(401, **PROBLEM)
    @blp.alt_response(403, **PROBLEM)
    def get(self, player: str) -> dict:
        """The player's address and whether its owner confirmed it."""
        require_self(player)
        return confirmation.state(deps.store().player(player) or {})

    @blp.doc(operationId="setEmail", **AUTH)
    @blp.arguments(EmailSetSchema)
    @blp.response(200, EmailChangedSchema)
    @blp.alt_response(401, **PROBLEM)
    @blp.alt_response(403, **PROBLEM)
    def put(self, data: dict, player: str) -> dict:
        """Change the address (null: none). A new address gets no mail but its confirmation
        until its owner confirms it; the old one gets nothing from then on. Giving the
        confirmed address again changes nothing."""
        require_self(player)
        address, store = data["email"], deps.store()
        if address:
            refuse_servers_own(address)
        shown = confirmation.state(store.player(player) or {})
        if address and shown["email_confirmed"] and shown["email"].lower() == address.lower():
            return {**shown, "confirmation_sent": False}  # confirmed already: nothing to do
        if address is None or address != shown["email"]:  # else the waiting one, mailed anew
            address_records.change(store, player, address)
        sent = bool(address) and ask_confirmation(player, address) == 0
        return {**confirmation.state(store.player(player) or {}), "confirmation_sent": sent}


@blp.route("/players/<player>/email/confirmation")
class EmailConfirmation(MethodView):
    @blp.doc(operationId="resendConfirmation", **AUTH)
    @blp.response(202, EmailChangedSchema)
    @blp.alt_response(401, **PROBLEM)
    @blp.alt_response(403, **PROBLEM)
    @blp.alt_response(409, **PROBLEM)
    @blp.alt_response(429, **RATE_LIMITED)
    def post(self, player: str) -> dict:
        """Send the waiting address another confirmation mail (the links of earlier ones
        keep working). One per address per PARLEY_CONFIRM_INTERVAL, and a few a day per
        address and per player (429 `rate_limited` with `Retry-After`); 409
        `nothing_to_confirm` when no address waits."""
        require_self(player)
        record = deps.store().player(player) or {}
        address = record.get("email_pending")
        if not address:
            raise Conflict("No address waits for confirmation.", code="nothing_to_confirm")
        wait = ask_confirmation(player, address)
        if wait:
            raise ConfirmationsLimited(
                f"A confirmation mail went out recently; ask again in {wait} s.",
                headers={"Retry-After": str(wait)})
        return {**confirmation.state(record), "confirmation_sent": True}


@blp.route("/email/confirm")
class Confirm(MethodView):
    @blp.doc(operationId="confirmPage", responses={"200": {
        "description": "a page naming the address, with the button that confirms it "
                       "(`POST` to the same link); it changes nothing",
        "content": {"text/html": {"schema": {"type": "string"}}}}})
    @blp.arguments(ConfirmQuerySchema, location="query")
    @blp.alt_response(404, **PROBLEM)
    def get(self, args: dict) -> Response:
        """The confirmation mail's link: a page with a Confirm button."""
        record = confirmation.pending(deps.store(), args["token"])
        if record is None:
            raise _bad_link()
        address = html.escape(record["address"])
        action = html.escape(f"?token={args['token']}")
        return page("Confirm your address", f"""<p>Parley may send the mails of player
{html.escape(record["player"])} to <b>{address}</b> once you confirm that it is yours.</p>
<form method="post" action="{action}"><button type="submit">Confirm</button></form>
<p>If you did not give this address to Parley, close this page: nothing more will be sent to
it.</p>""")

    @blp.doc(operationId="confirmEmail")
    @blp.arguments(ConfirmQuerySchema, location="query")
    @blp.response(200, ConfirmedSchema)
    @blp.alt_response(404, **PROBLEM)
    def post(self, args: dict) -> Any:
        """Confirm the address of the link, which then works no more: the player's mails go
        to it from now on (a browser gets a page saying so). 404 `bad_confirmation_link`
        for a link unknown, used, expired, or whose address the player has given up."""
        record = confirmation.confirm(deps.store(), args["token"])
        if record is None:
            raise _bad_link()
        if wants_page():
            return page("Address confirmed", f"""<p>Your address
<b>{html.escape(record["address"])}</b> is confirmed: Parley's mails for player
{html.escape(record["player"])} go to it from now on.</p>""")
        return {"player": record["player"], "email": record["address"], "email_confirmed": True}


def _bad_link() -> NotFound:
    return NotFound("The confirmation link is unknown, used already, expired, or for an "
                    "address the player has given up.", code="bad_confirmation_link")
