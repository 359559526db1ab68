"""Consent to moves by mail (docs/audit.md §16): a player allows the server to make moves
from their mail replies by a statement signed with their own key, so that an audit bundle can
show, for every mail-authorised entry, that its player had allowed it at that moment.

A statement must name the player, scope `all_games`, `mail_moves` true or false, and an
`issued_at` no later than now and no earlier than PAST_WINDOW ago. It must also come after
the player's last move by mail (a statement backdated before a move already made would make
that move look unauthorised to a verifier) and after their previous statement (the server
holds the last one given in force, a verifier the latest by `issued_at`: so they agree).
"""

from __future__ import annotations

import time
from typing import Any

from parley_protocol import signing

from service.domain.problems import Conflict, InvalidRequest
from service.storage import consent_records
from service.storage.store import Store

#: how old a statement's issued_at may be when it arrives (seconds)
PAST_WINDOW = 300
#: how far ahead of the server's clock it may be (whole seconds round down)
AHEAD = 1


def record(store: Store, pid: str, statement: dict[str, Any], key_id: str,
           signature: str) -> dict[str, Any]:
    """Check and keep a signed statement of player `pid` -> the consent kept; raises the
    Problem a refusal is (nothing kept)."""
    expected = signing.consent_statement(pid, bool(statement.get("mail_moves")),
                                         str(statement.get("issued_at")))
    if statement != expected or not isinstance(statement.get("mail_moves"), bool):
        raise InvalidRequest("The statement must be exactly {player: your id, scope: "
                             f"{signing.CONSENT_SCOPE!r}, mail_moves: true or false, "
                             "issued_at} (docs/audit.md §16).", code="bad_consent")
    when = signing.parse_issued_at(statement["issued_at"])
    now = time.time()
    if when is None or not now - PAST_WINDOW <= when <= now + AHEAD:
        raise InvalidRequest(f"issued_at must be an RFC 3339 moment within the last "
                             f"{PAST_WINDOW} s.", code="bad_consent")
    player = store.player(pid) or {}
    if when <= float(player.get("last_mail_move") or 0):
        raise Conflict("A move by mail arrived after that moment; sign the statement again "
                       "with the current time.", code="consent_too_old")
    previous = consent_records.latest(store, pid)
    if previous is not None and when < (signing.parse_issued_at(
            previous["statement"]["issued_at"]) or 0):
        # the last one given is the one in force here; for a verifier it is the latest by
        # issued_at (`true` on a tie): each must not come before the one before, or the
        # verifier could refuse a move the server made
        raise Conflict("Your previous statement was issued after that moment; sign this "
                       "one again with the current time.", code="consent_too_old")
    key = store.key(key_id)
    if key is None or key.get("player") != pid or not signing.verify_consent(
            signing.b64url_decode(key["public_key"]), statement, signature):
        raise InvalidRequest("The signature is not one of your keys over the statement "
                             "(`parley-consent-v1`, docs/audit.md §16).", code="bad_signature")
    consent = {"statement": statement, "key_id": key_id, "signature": signature}
    consent_records.add(store, pid, consent)
    return consent
