"""The audit bundle of `GET /v1/games/{id}/audit` (specified byte for byte in docs/audit.md).

During play the bundle holds the commitment, the move digests and entry hashes, the draws (the
parameters and results of secret ones redacted), and the full envelopes of moves that are not
secret.
After the end it adds the revealed server seed and every envelope: then it is self-contained and
`parley verify` can check it offline.
"""

from __future__ import annotations

import json
from typing import Any

from parley_protocol import signing

from service.domain import game_clocks, joins
from service.domain.game_model import Game
from service.domain.game_reads import GameReads, reads_of
from service.storage import consent_records
from service.storage.store import Store, iso

FORMAT = "parley-audit-v1"


def build_bundle(store: Store, game: Game, server_key: Any,
                 reads: GameReads | None = None) -> dict[str, Any]:
    """The bundle of `game` (its parts read from `reads`, by default where `reads_of` says:
    a finished game from one consistent record, in Redis or in the archive)."""
    reads = reads or reads_of(store, game)
    engine = game.engine
    finished = game.finished
    rejections = reads.rejections(game.id)
    entries = []
    for seq, fields in reads.entries(game.id, 1, game.head):
        envelope = json.loads(fields["env"])
        entry: dict[str, Any] = {
            "seq": seq, "accepted_at": fields["t"], "entry_hash": fields["h"],
            "digest": signing.sha256_hex(fields["env"].encode("utf-8")),
            "status": "queued" if seq > game.applied else
            ("rejected" if seq in rejections else "applied"),
        }
        if seq in rejections:
            entry["code"] = rejections[seq]["code"]
        move = envelope["payload"]["move"]
        if finished or not engine.is_secret(move):
            entry["envelope"] = envelope
        entries.append(entry)
    draws = [bundle_draw(d, finished) for d in reads.draws(game.id)]
    players = []
    for seat, pid in enumerate(game.players):
        keys = {}
        if pid:
            for key_id in store.player_keys(pid):
                key = store.key(key_id)
                if key:
                    keys[key_id] = key["public_key"]
        player: dict[str, Any] = {"seat": seat, "player": pid, "keys": keys}
        if pid and game.raw.get(f"mail_only:{pid}"):
            player["mail_only"] = True  # no key: the server speaks for this seat throughout
        players.append(player)
    consents = [{"seat": seat, **consent} for seat, pid in enumerate(game.players) if pid
                for consent in consent_records.of_player(store, pid)]
    secret = reads.secret(game.id) if finished else {}
    bundle = {
        "format": FORMAT,
        "game": game.id,
        "ruleset": game.ruleset,
        "options": game.options,
        "platform": game.platform,
        "seats": game.seats,
        "status": game.status,
        "players": players,
        "consents": consents,
        "commitment": game.commitment,
        "server_seed": secret.get("server_seed"),
        "client_seeds": [game.raw.get(f"client_seed:{i}") for i in range(game.seats)],
        "joined": [game.raw.get(f"join:{i}") for i in range(game.seats)],
        "entries": entries,
        "draws": draws,
        # unsalted hashes of states holding secrets would let a player test guesses of a
        # hidden choice: published only once everything is public
        "state_hashes": [{"seq": s, "hash": h} for s, h in reads.hashes(game.id)]
        if finished else [],
        "result": game.result,
        "server_key": signing.public_key_b64(server_key),
    }
    if game.raw.get("signed_joins"):  # not for a game created before joins were signed
        bundle["joins"] = signed_joins(game)
    if game.platform.get("time_control") and (game.status in ("open", "full")
                                              or game.raw.get("zones")):
        bundle["clocks"] = clock_record(game)  # not for a game started before clocks
    bundle["signature"] = signing.b64url_encode(
        server_key.sign(signing.BUNDLE_PREFIX + signing.canonical(bundle)))
    return bundle


def signed_joins(game: Game) -> list[dict[str, Any] | None]:
    """Per provisional seat, the player's signed join (docs/audit.md §18), or None for a seat
    not taken or taken by a mail-only player (whose seed the server made)."""
    out: list[dict[str, Any] | None] = []
    for seat in range(game.seats):
        signed = joins.of_seat(game.raw, seat)
        out.append({"seat": seat, **signed} if signed else None)
    return out


def clock_record(game: Game) -> dict[str, Any]:
    """What a verifier needs besides the entries to recompute every clock (docs/audit.md
    §17): when the first decision opened, each seat's zone (for weekends off), the seats'
    vacations and the time given."""
    started = game.raw.get("started_at") or None
    away = game_clocks.away_of(game.raw)
    return {
        "started_at": started,
        "zones": game_clocks.zones_of(game.raw, game.seats) if started else [],
        "away": [{"seat": seat, "from": iso(a), "to": iso(b)}
                 for seat in sorted(away) for a, b in sorted(away[seat])],
        "gifts": [{**g.to_json(), "at": iso(g.at)} for g in game_clocks.gifts_of(game.raw)],
    }


def bundle_draw(draw: dict[str, Any], finished: bool) -> dict[str, Any]:
    """A stored draw as the bundle shows it (docs/audit.md §5): a secret draw shows neither
    its parameters nor its result before the end, since a secret shuffle's items would show
    what it hides (a hand)."""
    if draw.pop("secret", False) and not finished:
        draw["params"] = None
        draw["result"] = None
        draw["redacted"] = True
    return draw


#: events read per round trip by `all_events`
EVENTS_PAGE = 1000


def all_events(reads: GameReads, game: str) -> list[dict[str, Any]]:
    """Every stored event of the game in order, in the shape of `GET /events` (read from the
    store, or from a finished game's record: `reads_of`)."""
    out: list[dict[str, Any]] = []
    after = 0
    while True:
        page = reads.events(game, after, EVENTS_PAGE)
        out += [{"id": eid, "seq": rec["seq"], "step": rec["step"], "event": rec["event"]}
                for eid, rec in page]
        if len(page) < EVENTS_PAGE:
            return out
        after = page[-1][0]
