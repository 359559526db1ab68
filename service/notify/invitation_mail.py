"""Invitations by mail, and the players who only ever play by mail (docs/notifications.md
"Invitations and mail-only players").

A seated player invites an address to an open game. The invitation mail asks for the word
`join` in a reply to `join-<token>@<reply domain>`, or for a press of the Join button behind its
link (a page first: a mail system's link scanner that fetches every link seats nobody). Either
proves that whoever answers reads that address, so it is the address's confirmation too. An
address no player has confirmed gets a new player without a key, `mail_only`, who takes the
seat: every move of theirs is an entry the server signs from their reply, and the game's audit
marks their seat so for the whole game (docs/audit.md). Theirs is the one seat whose client
seed the server makes; a player with a key takes a seat only with a join signed by that key
(docs/audit.md §18), so their answer is refused `join_with_key` and the invitation stands.

An invitation carries the inviter's name, which the inviter chose, to an address nobody has
confirmed: the inviter needs a confirmed address of their own, and PARLEY_INVITES_PER_PLAYER
and PARLEY_INVITES_PER_ADDRESS a day bound what invitations can be used to send. The token is
130 random bits; the server keeps its SHA-256 only, for TOKEN_TTL, and it seats once.
"""

from __future__ import annotations

import base64
import hashlib
import logging
import re
import secrets
from typing import Any

from service.config import Config
from service.domain.game import load_game
from service.domain.game_model import Game
from service.domain.problems import Conflict, Forbidden, InvalidRequest, NotFound, Problem
from service.domain.seating import take_seat
from service.notify import confirmation, mail
from service.storage import invitation_records as records
from service.storage import mail_replies
from service.storage.store import Store, new_id, now_iso

log = logging.getLogger(__name__)

#: how long an invitation can be taken up
TOKEN_TTL = 14 * 86400
#: the local part of an invitation's reply address (lower case: some mail systems fold case)
ADDRESS = re.compile(r"join-([a-z2-7]{26})", re.IGNORECASE)
#: the word a reply must start with to take the seat
WORD = "join"
EVENT = "game.invitation"
JOB = "workers.notify.invitation_job"


class InvitationsLimited(Problem):
    status, code, title = 429, "rate_limited", "Too many invitations"


def invite(store: Store, queue: Any, config: Config, game: Game, inviter: str,
           address: str) -> dict[str, Any]:
    """Queue an invitation of `address` to `game` from the seated `inviter` -> what the API
    answers; raises the Problem a refusal is."""
    if game.status != "open":
        raise Conflict("Only a game that is still open for joining takes invitations.",
                       code="game_not_open")
    if inviter not in _seated(game):
        raise Forbidden("Only a player seated in the game may invite to it.", code="not_seated")
    if not (store.player(inviter) or {}).get("email"):
        raise Conflict("Confirm your own mail address before you invite others by mail "
                       "(docs/notifications.md \"Address confirmation\").",
                       code="email_unconfirmed")
    if confirmation.own_address(config, address):
        raise InvalidRequest(
            "The address is this server's own (its From address, or at its reply domain).",
            errors={"json": {"email": ["This server's own addresses are not allowed."]}})
    wait = records.allowance(store, inviter, address, config.INVITES_PER_PLAYER,
                             config.INVITES_PER_ADDRESS)
    if wait:
        raise InvitationsLimited(f"Too many invitations today (from you, or to that address); "
                                 f"try again in {wait} s.", headers={"Retry-After": str(wait)})
    queue.enqueue(JOB, game.id, inviter, address, job_timeout=60, result_ttl=0,
                  failure_ttl=7 * 86400)
    log.info("game %s: player %s invited an address", game.id, inviter)
    return {"game": game.id, "email": address, "expires_in": TOKEN_TTL}


def _seated(game: Game) -> set[str]:
    return {p for p in game.players if p} | {game.creator}


def _new_token() -> str:
    return base64.b32encode(secrets.token_bytes(17)).decode("ascii")[:26].lower()


def _digest(token: str) -> str:
    return hashlib.sha256(token.lower().encode("ascii")).hexdigest()


def token_of(address: str) -> str | None:
    """The token of an invitation's reply address (any domain), or None if it is not one."""
    match = ADDRESS.fullmatch(address.rsplit("@", 1)[0].strip("<> "))
    return match[1].lower() if match else None


def link(config: Config, token: str) -> str:
    return f"{config.BASE_URL}/v1/invitations/{token}"


def text(config: Config, game: Game, inviter_name: str, url: str) -> str:
    """The invitation's plain text."""
    free = game.seats - sum(1 for p in game.players if p)
    days = TOKEN_TTL // 86400
    return (f"Hello,\n\nthe player \"{inviter_name}\" invites you to a game of "
            f"{game.engine.title} for {game.seats}\non the Parley game server at "
            f"{config.BASE_URL} ({free} seat{'s' if free != 1 else ''} free).\n\n"
            f"To take a seat, reply to this mail with the word\n\n  {WORD}\n\n"
            f"or open this link and press Join:\n\n  {url}\n\n"
            "You need no account and no program: a mail comes whenever it is your turn, and\n"
            "you play by replying to it with your moves. To play in a browser or with the\n"
            f"parley program instead, open {config.BASE_URL}/#/join/{game.id}\n\n"
            f"The invitation works once, for {days} days. If you do not know this player,\n"
            "ignore this mail: nothing more is sent to this address unless you answer.\n")


def send(store: Store, config: Config, gid: str, inviter: str, address: str) -> str:
    """The job: mail an invitation -> "sent", "stale" (the game is no longer open) or
    "failed" (the inviter may invite again)."""
    game = load_game(store, gid)
    if game is None or game.status != "open":
        return "stale"
    token = _new_token()
    name = (store.player(inviter) or {}).get("name", inviter)
    records.save(store, _digest(token), {"game": gid, "email": address, "inviter": inviter,
                                         "created_at": now_iso()}, TOKEN_TTL)
    msg = mail.compose(config, to=address, subject=f"Parley: an invitation to {game.engine.title}",
                       body=text(config, game, name, link(config, token)),
                       message_id=new_id("invite"), unsubscribe=None,
                       reply_to=f"join-{token}@{config.MAIL_REPLY_DOMAIN}",
                       headers={"X-Parley-Event": EVENT})
    if not mail.send_or_log(config, msg, f"game {gid}: invitation mail"):
        return "failed"  # the inviter invites again
    log.info("game %s: invitation mail sent", gid)
    return "sent"


def pending(store: Store, token: str) -> dict[str, str] | None:
    """What an invitation offers, without using it up."""
    return records.record(store, _digest(token)) if ADDRESS.fullmatch(f"join-{token}") else None


def unknown() -> NotFound:
    return NotFound("The invitation is unknown, used already, or expired.", code="bad_invitation")


def accept(store: Store, queue: Any, config: Config, token: str,
           sender: str | None = None) -> dict[str, Any]:
    """Take up an invitation: the invited address's mail-only player (a new one if no player
    confirmed it) takes a seat -> {game, seat, status, player, mail_only}. `sender`: the
    From of a reply, which must be the invited address. Raises NotFound for a token unknown,
    used or expired, Conflict `join_with_key` for a player with a key (who signs a join
    instead), or the Problem the seat's refusal is (the invitation then stands)."""
    if not ADDRESS.fullmatch(f"join-{token}"):
        raise unknown()
    digest = _digest(token)
    offer = records.take(store, digest)
    if offer is None:
        raise unknown()
    if sender is not None and sender.lower() != offer["email"].lower():
        records.restore(store, digest, offer, TOKEN_TTL)
        raise Forbidden("Only the invited address can take up the invitation.",
                        code="wrong_sender")
    pid, mail_only = _player_for(store, offer["email"])
    if not mail_only:  # a player with a key chooses their seed and signs the join themselves
        records.restore(store, digest, offer, TOKEN_TTL)
        raise Conflict(f"The invited address is a player's with a key, who takes a seat with "
                       f"a join signed by that key: `parley join {offer['game']}`, or "
                       f"{config.BASE_URL}/#/join/{offer['game']} in the browser client.",
                       code="join_with_key")
    try:
        seated = take_seat(store, queue, offer["game"], pid, None, None, config.MAX_OPEN_GAMES)
    except Problem:
        records.restore(store, digest, offer, TOKEN_TTL)
        raise
    if mail_only:
        records.mark_mail_only(store, offer["game"], pid)
    log.info("game %s: invitation taken up by player %s%s", offer["game"], pid,
             " (mail-only)" if mail_only else "")
    return {**seated, "player": pid, "mail_only": mail_only}


def _player_for(store: Store, address: str) -> tuple[str, bool]:
    """The player who confirmed `address`, or a new mail-only player for it (its first use
    confirms it) -> (player id, whether the player has no key)."""
    known = mail_replies.player_for_email(store, address)
    if known is None:
        pid = new_id("p")
        store.update_player(pid, {"name": _name_for(address), "created_at": now_iso(),
                                  "email": address, "mail_only": "1"})
        if records.claim_address(store, address, pid):
            log.info("player %s created for an invited address (mail-only)", pid)
            return pid, True
        records.drop_player(store, pid)  # another invitation made the address's player first
        known = mail_replies.player_for_email(store, address) or pid
    return known, (store.player(known) or {}).get("mail_only") == "1"


def _name_for(address: str) -> str:
    """A mail-only player's name: the address's local part (other players see it)."""
    return address.split("@", 1)[0][:64] or "player"
