"""Every Redis key Parley writes, in one place (docs/architecture.md "Redis keys").

A game's keys share the hash tag `{g:<id>}`, so on a Redis Cluster they live in one slot and a
move's scripts and pipelines touch one node (tests/test_keys.py checks it). Everything else is
keyed by player, key, token, webhook or delivery; the few global indexes are named constants.
"""

from __future__ import annotations

#: set of game ids that may have unresolved moves
PENDING_KEY = "parley:pending"
#: sorted set of all game ids by creation time
GAMES_KEY = "parley:games"
#: sorted set, every score 0 (so in id order): games created and not yet seen started, the
#: lobby of `GET /v1/games?status=open`, which drops the started ones as it meets them
LOBBY_KEY = "parley:lobby"
#: set of game ids whose outbox may hold undispatched notices
NOTIFY_KEY = "parley:notify"
#: pub/sub channel: "<game id> <applied>" after every commit
APPLIED_CHANNEL = "parley:applied"
#: sorted set "<game>|<step>|<kind>" by due time (reminders and timeouts)
DEADLINES_KEY = "parley:deadlines"
#: hash of the counters behind /metrics, one field each (service/storage/metrics_records.py);
#: its hash tag puts it in the pending index's cluster slot, so a move's append, which touches
#: both, still reaches the game's node and at most one more
METRICS_KEY = "parley:metrics{parley:pending}"
#: string, JSON {"at", "counts"}: the games by status as last counted for /metrics, and the
#: lock of the one scrape that counts them again
GAME_COUNTS_KEY = "parley:metrics:games"
GAME_COUNTS_LOCK_KEY = "parley:metrics:games:lock"
#: sorted set: finished game id -> when (Unix seconds) it may move to the archive
ARCHIVE_KEY = "parley:archive"

#: sorted set: player id -> when (Unix seconds) their next daily mail digest is due
DIGESTS_KEY = "parley:digests"

#: sorted set: player id -> until when (Unix seconds) the player's live feed is written (a
#: stream connection renews it; a player who left keeps it for the resume grace)
LIVE_PLAYERS_KEY = "parley:live"
#: pub/sub channel: the entries appended to players' live feeds, a line "<feed key> <entry id>
#: <entry>" each (service/storage/live.py), on the feeds' Redis
FEEDS_CHANNEL = "parley:feeds"

#: the parts of a game, each `game_key(gid, part)`
GAME_PARTS = ("meta", "state", "moves", "nonces", "rejected", "events", "draws", "hashes",
              "secret", "scheduled", "lock", "outbox", "submitted", "moves:seg", "events:seg",
              "hashes:seg")


def game_key(gid: str, part: str) -> str:
    return f"{{g:{gid}}}:{part}"


# ---- players and their credentials ---------------------------------------------------------

def player_key(pid: str) -> str:
    return f"player:{pid}"


def player_games_key(pid: str) -> str:
    return f"player:{pid}:games"


def player_consents_key(pid: str) -> str:
    """List of the player's signed consents about moves by mail (JSON each), in order."""
    return f"player:{pid}:consents"


def player_keys_key(pid: str) -> str:
    """Set of the player's signing key ids."""
    return f"player:{pid}:keys"


def open_games_key(pid: str) -> str:
    """Set of the player's games that may not have started yet (pruned when counted)."""
    return f"player:{pid}:open"


def tokens_key(pid: str) -> str:
    return f"player:{pid}:tokens"


def key_key(key_id: str) -> str:
    return f"key:{key_id}"


def public_key_key(public_key: str) -> str:
    """The key id a public key is registered under: one registration per public key."""
    return f"pubkey:{public_key}"


def token_key(token_hash: str) -> str:
    return f"token:{token_hash}"


def mail_prefs_key(pid: str, gid: str | None = None) -> str:
    return f"player:{pid}:mail" if gid is None else f"player:{pid}:mail:{gid}"


def mail_thread_key(pid: str, gid: str) -> str:
    """Hash: the mail thread of one game for one player (its root mail, the events told)."""
    return f"player:{pid}:thread:{gid}"


def email_key(address: str) -> str:
    """The player who confirmed this mail address (lower-cased): whom a reply may answer."""
    return f"email:{address}"


def confirm_token_key(digest: str) -> str:
    """String: JSON {"player", "address"}, what an address confirmation link confirms (by the
    SHA-256 of its token; the token itself is never stored)."""
    return f"confirmtoken:{digest}"


def confirm_sent_key(address: str) -> str:
    """Set while no other confirmation mail may go to this address (lower-cased)."""
    return f"confirmsent:{address}"


def confirms_key(address: str) -> str:
    """Counter of the confirmation mails sent to this address (lower-cased) today."""
    return f"confirms:{address}"


def player_confirms_key(pid: str) -> str:
    """Counter of the confirmation mails sent for this player today."""
    return f"player:{pid}:confirms"


def key_claim_key(digest: str) -> str:
    """String: the mail-only player a key-claim code lets add a key (by the SHA-256 of the
    code; the code itself is never stored)."""
    return f"keyclaim:{digest}"


def invitation_key(digest: str) -> str:
    """String: JSON {"game", "email", "inviter", "created_at"}, the seat an invitation offers
    (by the SHA-256 of its token; the token itself is never stored)."""
    return f"invitation:{digest}"


def invitations_key(address: str) -> str:
    """Counter of the invitations mailed to this address (lower-cased) today."""
    return f"invitations:{address}"


def player_invitations_key(pid: str) -> str:
    """Counter of the invitations this player sent today."""
    return f"player:{pid}:invitations"


def replying_key(gid: str, seat: int) -> str:
    """String, short-lived: "running" while a mail reply of this seat is being played, then
    the step whose position its answer showed (the turn mails it made needless)."""
    return f"replying:{gid}:{seat}"


def reply_token_key(digest: str) -> str:
    """String "<game> <seat> <step> <player>": what a mail reply token authorises (by the
    token's digest; the token itself is never stored)."""
    return f"mailtoken:{digest}"


def answers_key(address: str) -> str:
    """Counter of the answers sent to one address this hour (a loop never grows past it)."""
    return f"mailanswers:{address}"


def live_key(pid: str) -> str:
    """Stream of what the player may see of all their games, for the SSE feed (capped)."""
    return f"player:{pid}:live"


# ---- notifications -------------------------------------------------------------------------

def webhook_key(wid: str) -> str:
    return f"webhook:{wid}"


def player_webhooks_key(pid: str) -> str:
    return f"player:{pid}:webhooks"


def deliveries_key(wid: str) -> str:
    return f"webhook:{wid}:deliveries"


def delivery_key(did: str) -> str:
    return f"delivery:{did}"


def attempts_key(did: str) -> str:
    return f"delivery:{did}:attempts"


# ---- the resolve queue's drainers (on the queue's Redis) -------------------------------------

def ready_key(queue_name: str) -> str:
    return f"parley:resolve:{queue_name}:ready"


def drainers_key(queue_name: str) -> str:
    return f"parley:resolve:{queue_name}:drainers"
