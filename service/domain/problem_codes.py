"""Every machine-readable `code` an error answer may carry, and the page that explains them.

A problem's `type` is `<base>/v1/problems/<code>`: the API serves each code's entry there (and
the whole list at `/v1/problems`), and `docs/errors.md` is the same list rendered once and kept
in step by a test. Platform codes are listed here by hand, next to nothing else, so that a new
`code=` in the service without its line here fails the test that scans the sources; engine codes
come from each engine's `error_codes` (contract v2 point 13).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from engines.contract import COMMON_CODES
from engines.registry import available, get_engine

#: the path under which each code's entry is served; a problem's `type` ends with it
PROBLEMS_PATH = "/v1/problems/"


@dataclass(frozen=True)
class Code:
    """One error code: who raises it, with which HTTP status, and when."""

    code: str
    status: int
    description: str
    source: str = "platform"


def _platform(*rows: tuple[str, int, str]) -> dict[str, Code]:
    return {code: Code(code, status, text) for code, status, text in rows}


PLATFORM: dict[str, Code] = _platform(
    # requests that cannot be read
    ("bad_request", 400, "The request is malformed in a way HTTP itself refuses."),
    ("invalid_json", 400, "The body is not valid JSON (or is nested too deeply)."),
    ("invalid_request", 422, "The body or a parameter does not match the operation's schema; "
                             "`errors` names the fields."),
    ("invalid_envelope", 422, "A move envelope lacks a field or has one of the wrong type."),
    ("invalid_batch", 422, "A batch is not 1 to the allowed number of envelopes, or its "
                           "envelopes are signed with more than one key."),
    ("invalid_cursor", 422, "An event list's cursor is not a `next` it gave out."),
    ("bad_cursor", 422, "A delivery list's cursor is not one it gave out."),
    ("wrong_game", 422, "The envelope's `game` is not the game of the URL."),
    ("bad_issued_at", 422, "A move's `issued_at` is not an RFC 3339 date and time with a zone."),
    ("stale_signature", 422, "A move's `issued_at` is more than 7 days old or more than 5 "
                             "minutes ahead of the server's clock: sign it again."),
    ("nonce_not_derived", 422, "The game requires derived nonces (its platform's `nonces` is "
                               "`derived`) and the move's nonce is not the signing key's "
                               "Ed25519 signature of `parley-nonce-v1` + JCS of the payload's "
                               "game, seat, step and move (docs/audit.md §6)."),
    ("no_such_seat", 422, "The seat number is outside the game's seats."),
    ("unknown_ruleset", 422, "A new game names a ruleset the server does not offer."),
    ("unsafe_url", 422, "A webhook URL is not an absolute http(s) URL, or its host is not "
                        "a public address."),
    ("unknown_parameter", 400, "The query string has a parameter the operation does not take; "
                               "`parameter` names it."),
    ("payload_too_large", 413, "The body is larger than the server accepts."),
    ("unsupported_media_type", 415, "The body is not `application/json`."),
    ("method_not_allowed", 405, "The path exists but not with this method."),
    ("not_acceptable", 406, "The `Accept` header asks for a type the server cannot send."),
    ("http_error", 400, "Any other HTTP-level refusal; `status` says which."),
    # who is asking
    ("unauthorized", 401, "The operation needs a bearer token and none was sent."),
    ("bad_token", 401, "The bearer token is unknown, revoked or expired."),
    ("bad_signature", 401, "A move's signature does not verify with the key it names (422 "
                           "for a consent or a join, whose key must also be the caller's)."),
    ("bad_ticket", 401, "The stream process got no valid ticket, or one used already: open a "
                        "stream or a long poll through the API, which redirects with a fresh "
                        "one (valid 60 s, once)."),
    ("bad_last_event_id", 400, "A stream's `Last-Event-ID` is not an id the stream sent."),
    ("unknown_key", 401, "A move names a `key_id` that no player registered."),
    ("bad_vacation", 422, "A vacation starts now or later and ends after it starts; moments "
                          "carry a zone."),
    ("vacation_too_long", 422, "The vacation is longer than the player's allowance left "
                               "(`GET /v1/players/{id}/vacation`)."),
    ("no_clocks", 422, "The game has no time control."),
    ("bad_seat", 422, "Time is given to another seat of the game."),
    ("bad_gift", 422, "A gift of time is 60 seconds to 7 days."),
    ("bad_consent", 422, "A consent's statement is not {player, scope: \"all_games\", "
                         "mail_moves, issued_at} of the caller, issued in the last 300 s."),
    ("join_unsigned", 422, "A join carries no signed statement: a seat is taken with "
                           "{statement, key_id, signature} (`parley-join-v1`, docs/audit.md "
                           "§18)."),
    ("bad_join", 422, "A join's statement is not exactly {game, player, client_seed, "
                      "issued_at} of this game and the caller, with a client seed of 1 to 128 "
                      "characters, issued within the last 7 days and at most 5 minutes ahead."),
    ("bad_key_proof", 422, "A registered key's `proof` is not its signature over the "
                           "registration (`parley-key-v1`, docs/audit.md)."),
    ("key_registered", 409, "The public key is registered already (to this or another "
                            "player)."),
    ("forbidden", 403, "The caller may not do this."),
    ("not_owner", 403, "A player may read or change only their own account."),
    ("not_seated", 403, "The signer (or caller) holds no seat in this game."),
    ("wrong_sender", 403, "An invitation is taken up only by the address it was sent to."),
    # what does not exist
    ("not_found", 404, "No such path."),
    ("game_not_found", 404, "No game with this id."),
    ("player_not_found", 404, "No player with this id."),
    ("move_not_found", 404, "No accepted move with this sequence number."),
    ("step_not_found", 404, "The game never reached this decision step (a board picture's "
                            "`step` is 0 to the finished game's last step)."),
    ("ruleset_not_found", 404, "No ruleset with this id."),
    ("token_not_found", 404, "No live token with this id."),
    ("webhook_not_found", 404, "No webhook with this id for this player."),
    ("delivery_not_found", 404, "No delivery with this id for this webhook."),
    ("bad_unsubscribe_link", 404, "The unsubscribe link is unknown or was used already."),
    ("bad_confirmation_link", 404, "The address confirmation link is unknown, used already, "
                                   "expired, or for an address the player has given up."),
    ("bad_invitation", 404, "The invitation is unknown, used already, or expired."),
    ("bad_claim_code", 404, "The key-claim code is unknown, used already, expired, or its "
                            "player has a key."),
    # the game's state
    ("game_not_open", 409, "The game is no longer open for joining (or for invitations)."),
    ("already_seated", 409, "The player holds a seat in this game already."),
    ("game_full", 409, "Every seat of the game is taken."),
    ("seat_taken", 409, "The seat asked for is taken."),
    ("consent_required", 409, "Moves by mail need the player's signed consent first "
                              "(`POST /v1/players/{id}/consents`, docs/audit.md §16)."),
    ("consent_too_old", 409, "A consent must be issued after the player's last move by mail; "
                             "sign it again with the current time."),
    ("join_with_key", 409, "An invitation is taken up by mail or its link only by a player "
                           "without a key; a player with one joins with a signed join "
                           "(docs/audit.md §18)."),
    ("email_unconfirmed", 409, "Inviting by mail needs a confirmed address of one's own "
                               "(docs/notifications.md \"Address confirmation\")."),
    ("game_over", 409, "The game has ended; no move is accepted any more."),
    ("game_not_started", 409, "Not every seat has joined yet."),
    ("game_not_active", 409, "The game has not started or has ended."),
    ("clock_not_running", 409, "Time can be given only to a seat asked to act now."),
    ("game_not_finished", 409, "The record (or full audit), and a board picture of an earlier "
                               "position (`board.svg?step=`), exist only once the game ended."),
    ("not_late", 409, "A timeout action (a log entry, docs/audit.md §17) turned out stale "
                      "when it was resolved: the seat's move or time given came first."),
    ("stale_step", 409, "The move names a decision that is over (`current_step` says which "
                        "is open); fetch the view and try again."),
    ("duplicate_nonce", 409, "Another envelope already used this nonce (in a game with "
                             "derived nonces: the same move at the same step was signed "
                             "before, and that envelope is the one in the log)."),
    ("early_repeat", 409, "A derived nonce names repeat r of a move (the very same move by "
                          "the same seat at the same step) whose repeat r - 1 is not in the "
                          "log (docs/audit.md §6)."),
    ("busy", 409, "Too many moves for one game at once; try again shortly."),
    ("too_many_keys", 409, "The player holds the most keys allowed (PARLEY_MAX_KEYS); keys "
     "stay to verify old moves, so none can be removed."),
    ("too_many_tokens", 409, "The player holds the most live tokens allowed."),
    ("too_many_webhooks", 409, "The player has the most webhooks allowed."),
    ("nothing_to_confirm", 409, "The player has no email address waiting for confirmation."),
    ("too_many_open_games", 409, "The player has the most games waiting for players allowed "
                                 "(`limit` says how many)."),
    ("conflict", 409, "The request conflicts with the game's state."),
    # moves the rules refuse
    ("illegal_move", 422, "The rules refuse the move; the engine's own code is given instead "
                          "wherever it has one (see the rulesets below)."),
    ("malformed_move", 422, "The move is not a JSON object, or repeats a key."),
    # the server
    ("rate_limited", 429, "Too many requests from this address or player; `Retry-After` says "
                          "when to try again."),
    ("internal_error", 500, "A fault in the server; nothing was changed. Please report it."),
    ("unavailable", 503, "Not now, and nothing was changed: Redis or a node of the game store "
                         "is unreachable, or the server is starting or stopping. Send the same "
                         "request again after `Retry-After` seconds (earlier servers said "
                         "`redis_unavailable` for the first case)."),
)


def engine_codes() -> Iterator[Code]:
    """Every ruleset's own codes (422, or 409 when the move came too late), then the common
    ones every engine may raise."""
    for ruleset in available():
        for code, text in get_engine(ruleset).error_codes.items():
            if code not in COMMON_CODES and code not in PLATFORM:
                yield Code(code, 422, text, ruleset)
    for code, text in COMMON_CODES.items():
        yield Code(code, 422, text, "every ruleset")


def catalogue() -> dict[str, list[Code]]:
    """code -> its entries: one for a platform code, one per ruleset that raises a game code
    (two games may use one name with their own meaning)."""
    out: dict[str, list[Code]] = {c: [entry] for c, entry in PLATFORM.items()}
    for entry in engine_codes():
        out.setdefault(entry.code, []).append(entry)
    return out


def as_json(entries: list[Code]) -> dict[str, object]:
    """One code's entry as the API serves it."""
    return {"code": entries[0].code,
            "entries": [{"source": e.source, "status": e.status, "description": e.description}
                        for e in entries]}


def render_markdown() -> str:
    """docs/errors.md: the platform's codes, then each ruleset's (anchors are the codes)."""
    lines = [
        "# Error codes",
        "",
        "Every error answer is `application/problem+json` (RFC 9457) with `type`, `title`,",
        "`status`, `detail` and a machine-readable `code`; a refused request changes nothing.",
        f"The `type` is `{PROBLEMS_PATH}<code>` on the server that answered, which serves the",
        "code's entry below as JSON (and the whole list at `/v1/problems`).",
        "",
        "This file is generated: `parley errors -o docs/errors.md`.",
        "",
        "## Platform",
        "",
        "| code | status | when |",
        "| --- | --- | --- |",
    ]
    lines += [f"| `{c.code}` | {c.status} | {c.description} |" for c in PLATFORM.values()]
    by_source: dict[str, list[Code]] = {}
    for entry in engine_codes():
        by_source.setdefault(entry.source, []).append(entry)
    for source, entries in by_source.items():
        title = "Every ruleset" if source == "every ruleset" else f"Ruleset `{source}`"
        doc = "" if source == "every ruleset" else \
            f" Rules: [docs/rules/{source}.md](rules/{source}.md)."
        lines += ["", f"## {title}", "",
                  f"Answered with status 422 (409 if the move came too late).{doc}", "",
                  "| code | when |", "| --- | --- |"]
        lines += [f"| `{e.code}` | {e.description} |" for e in entries]
    return "\n".join(lines) + "\n"
