"""Board pictures on demand (`GET /v1/games/{id}/board.svg`): which position, whose view,
its entity tag, and the players' names drawn on it.

A picture is drawn only when someone asks for it, never on the move path. Its ETag is made
from the game's meta alone (the drawing's version, the engine, the game, the position, the
viewer), so a client that holds the current picture is answered 304 before any state is parsed
or drawn. Names are not in the tag: a player's name never changes once registered.

The current position is named by its decision step *and* the last entry resolved: within a
simultaneous decision the step stays while one seat's own picture changes (its setup placed).
An earlier position (`?step=N`) exists only once the game has finished, when nothing is secret
any more; it is replayed from the game's record as the verifier replays it (setup, then every
applied entry) up to the moment decision N opened, checked against the recorded state hash, and
shown as the caller saw it then: a seat's view for a seated player, a spectator's for anyone
else (the same rule as the current picture, so a player can step through their own game).
"""

from __future__ import annotations

from typing import Any

from parley_protocol import signing

from engines.rng import AuditedRng, move_key, start_key
from engines.svg import board_picture
from service.domain import names
from service.domain.game import seed_of
from service.domain.game_model import Game
from service.domain.game_reads import reads_of
from service.domain.problems import Conflict, NotFound
from service.storage.store import Store

#: names the drawing code in every ETag: bump it when pictures must be drawn again
PICTURE_VERSION = "board-v1"
MEDIA_TYPE = "image/svg+xml; charset=utf-8"
#: an SVG opened on its own is a document: it may style itself, it runs and loads nothing
HEADERS = {"Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'",
           "X-Content-Type-Options": "nosniff", "Vary": "Authorization"}
#: how long a finished game's public picture may be reused without asking (it never changes)
FINISHED_MAX_AGE = 3600


def check_position(game: Game, step: int | None) -> None:
    """Refuse a picture that does not exist: none before the start (409
    `game_not_started`), an earlier position only of a finished game (409
    `game_not_finished`) and only of a step it reached (404 `step_not_found`)."""
    if game.status in ("open", "full"):
        raise Conflict("The game has not started; there is no board yet.",
                       code="game_not_started")
    if step is None:
        return
    if not game.finished:
        raise Conflict("Earlier positions are shown once the game has finished; until then "
                       "only the current one is.", code="game_not_finished")
    if step > game.step:
        raise NotFound(f"The game ended at step {game.step}; there is no step {step}.",
                       code="step_not_found")


def etag(game: Game, seat: int | None, step: int | None = None) -> str:
    """The picture's entity tag, unquoted: version, engine, game, position, viewer."""
    where = f"{game.step}-{game.applied}" if step is None else f"at{step}"
    viewer = "spectator" if seat is None else f"seat{seat}"
    return f"{PICTURE_VERSION}.{game.ruleset}.{game.id}.{where}.{viewer}"


def cache_control(game: Game, seat: int | None) -> str:
    """A seat's picture is the seat's own and always revalidated; the public one is anyone's,
    reused for a while once the game has ended (the ETag still names its drawing version)."""
    if seat is not None:
        return "private, no-cache"
    return f"public, max-age={FINISHED_MAX_AGE}" if game.finished else "public, no-cache"


def seat_names(store: Store, game: Game) -> list[str]:
    """Each seat's player name, as pictures and mails name them ("someone" without a name,
    "nobody" for a seat nobody holds): `service.domain.names`, kept per process."""
    return names.seat_names(store, game.players)


def draw(store: Store, game: Game, state: dict[str, Any], seat: int | None) -> str:
    """The picture of `state` as `seat` (None: a spectator) may see it."""
    engine = game.engine
    return board_picture(engine, engine.view(state, seat), seat_names(store, game))


def position(store: Store, game: Game, state_json: str | None, step: int | None
             ) -> dict[str, Any]:
    """The state to draw: the current one as read, or the one decision `step` opened on."""
    if step is not None:
        return state_at(store, game, step)
    if state_json is None:  # started, yet no state: damage `parley fsck` reports
        raise RuntimeError(f"game {game.id} has no state")
    return signing.load_json(state_json)


def state_at(store: Store, game: Game, step: int) -> dict[str, Any]:
    """The finished game's state when decision `step` opened, replayed from its record with
    the dice re-drawn from the revealed seed, as `start_game` and `plan_resolve` made it (and
    as `parley verify` replays it); parsed back from its stored form like any read state."""
    reads = reads_of(store, game)
    engine = game.engine
    seed = seed_of(store, game, reads.secret(game.id)["server_seed"])
    rng = AuditedRng(start_key(seed))
    if game.platform["seat_order"] == "random":  # its draw comes first from the same source
        rng.shuffle("seat-order", [game.raw[f"join:{i}"] for i in range(game.seats)])
    state = engine.setup(game.options, game.seats, rng)
    rejected = reads.rejections(game.id)
    last = 0
    for seq, fields in reads.entries(game.id, 1, game.applied):
        if engine.decision(state)["step"] >= step:
            break
        if seq in rejected:  # a refused entry changed nothing
            continue
        envelope = signing.load_json(fields["env"])
        payload = envelope["payload"]
        rng = AuditedRng(move_key(seed, signing.roll_source(envelope, game.platform)))
        state, _ = engine.apply(state, payload["seat"], payload["move"], rng)
        last = seq
    if engine.decision(state)["step"] != step:
        raise NotFound(f"The game never opened decision step {step}.", code="step_not_found")
    dumped = signing.dump_state(state)
    recorded = dict(reads.hashes(game.id)).get(last)
    if recorded != signing.sha256_hex(dumped.encode()):
        raise RuntimeError(f"game {game.id}: the replay to step {step} (entry {last}) "
                           f"disagrees with the recorded state hash")
    return signing.load_json(dumped)
