"""Signed joins (docs/audit.md §18): a player takes a seat with a statement, signed with their
own key, naming the game, themselves and the client seed they chose, so that an audit bundle
can show, for every client seed that went into the dice, that its player chose it.

The statement has exactly the members {game, player, client_seed, issued_at}: the game of the
URL, the caller, a seed of 1 to 128 code points, and an `issued_at` within the window of a
move's (`service.domain.accept`: at most 7 days old, at most 300 s ahead). A mail-only player
(who joins by an invitation, without a key) is the one seat whose seed the server makes.
"""

from __future__ import annotations

import json
from typing import Any

from parley_protocol import signing

from service.domain.problems import InvalidRequest
from service.ops import clock
from service.storage.store import Store

#: the members of a join's statement
STATEMENT_FIELDS = frozenset({"game", "player", "client_seed", "issued_at"})


def check(store: Store, gid: str, pid: str, statement: Any, key_id: str | None,
          signature: str | None) -> dict[str, Any]:
    """Check player `pid`'s signed join of game `gid` -> the signed join to keep with the
    seat ({statement, key_id, signature}); raises the Problem a refusal is (nothing kept)."""
    # imported here: the accepting module loads marshmallow, which the workers (they seat
    # mail-only players through service.domain.seating, which imports this module) never load
    from service.domain.accept import ISSUED_MAX_AGE, ISSUED_MAX_AHEAD

    if statement is None or key_id is None or signature is None:
        raise InvalidRequest("A join is signed: send {statement: {game, player, client_seed, "
                             "issued_at}, key_id, signature} (`parley-join-v1`, docs/audit.md "
                             "§18).", code="join_unsigned")
    if not isinstance(statement, dict) or set(statement) != STATEMENT_FIELDS or not all(
            isinstance(v, str) for v in statement.values()):
        raise InvalidRequest("The statement must be exactly {game, player, client_seed, "
                             "issued_at}, each a string (docs/audit.md §18).", code="bad_join")
    if statement["game"] != gid:
        raise InvalidRequest(f"The statement names game {statement['game']!r}, not {gid}.",
                             code="bad_join")
    if statement["player"] != pid:
        raise InvalidRequest("The statement names another player than you.", code="bad_join")
    if not signing.client_seed_ok(statement["client_seed"]):
        raise InvalidRequest(f"client_seed is 1 to {signing.MAX_CLIENT_SEED} characters of "
                             "Unicode text.", code="bad_join")
    when = signing.parse_issued_at(statement["issued_at"])
    now = clock.now()
    if when is None or not now - ISSUED_MAX_AGE <= when <= now + ISSUED_MAX_AHEAD:
        raise InvalidRequest(f"issued_at must be an RFC 3339 moment within the last "
                             f"{ISSUED_MAX_AGE // 86400} days and at most "
                             f"{ISSUED_MAX_AHEAD // 60} minutes ahead of the server's clock.",
                             code="bad_join")
    key = store.key(key_id)
    if key is None or key.get("player") != pid or not signing.verify_join(
            signing.b64url_decode(key["public_key"]), statement, signature):
        raise InvalidRequest("The signature is not one of your keys over the statement "
                             "(`parley-join-v1`, docs/audit.md §18).", code="bad_signature")
    return {"statement": statement, "key_id": key_id, "signature": signature}


def stored(signed: dict[str, Any] | None) -> str:
    """A signed join as the game's record keeps it ('' for none)."""
    return json.dumps(signed, sort_keys=True, ensure_ascii=False,
                      separators=(",", ":")) if signed else ""


def of_seat(raw: dict[str, str], seat: int) -> dict[str, Any] | None:
    """The signed join kept for provisional seat `seat` of a game's meta, or None."""
    kept = raw.get(f"join_statement:{seat}")
    return json.loads(kept) if kept else None
