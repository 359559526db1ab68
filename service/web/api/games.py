"""Games: create, list, join, summary, seat views and events."""

from __future__ import annotations

import logging
from urllib.parse import urlencode

from flask import Response, redirect, request
from flask.views import MethodView
from flask_smorest import Blueprint
from parley_protocol.timeouts import ABORTED

from engines.contract import IllegalMove
from engines.registry import RULESETS
from service.domain import boards, game_clocks, joins
from service.domain.accept import get_game_or_404
from service.domain.game import create_game, events_page, load_game, seat_view
from service.domain.game_model import Game
from service.domain.game_reads import player_games, view_inputs
from service.domain.live_feed import ticket
from service.domain.lobby import lobby_page
from service.domain.open_games import check_open_games, track_open_game
from service.domain.problems import InvalidRequest, NotFound
from service.domain.seating import take_seat
from service.notify import dispatch
from service.storage.store import Store
from service.web.api import deps
from service.web.api.deps import PROBLEM
from service.web.api.game_schemas import (
    BOARD_RESPONSES,
    BoardQuerySchema,
    EventListSchema,
    EventQuerySchema,
    GameCreateSchema,
    GameListQuerySchema,
    GameListSchema,
    GameSummarySchema,
    JoinedSchema,
    JoinSchema,
    ViewSchema,
)
from service.web.auth import bearer_digest, current_player, known_token
from service.web.limits import RATE_LIMITED, config
from service.web.query_params import numeric_cursor

log = logging.getLogger(__name__)
blp = Blueprint("games", __name__, url_prefix="/v1/games", description="Games and seats")


def deadlines(game: Game) -> dict:
    """The decision's deadline (the first clock to run out), each asked seat's own, and every
    seat's clock (`clocks`: None without a time control)."""
    clocks = game_clocks.public_clocks(game.raw, game.platform, game.seats)
    due = dispatch.iso(float(game.raw["deadline"])) if game.raw.get("deadline") else None
    if due is None or game.status != "active":
        return {"deadline": None, "deadlines": [], "clocks": clocks}
    if clocks is None:  # a game that started before it kept clocks: one deadline for all
        return {"deadline": due, "deadlines": [{"seat": s, "step": game.step, "due": due}
                                               for s in game.to_act], "clocks": None}
    dues = [{"seat": c["seat"], "step": game.step, "due": c["due"]} for c in clocks
            if c["due"] is not None]
    return {"deadline": min((d["due"] for d in dues), default=None), "deadlines": dues,
            "clocks": clocks}


def status_shown(game: Game) -> str:
    """The status a reader sees: a game ended by an abort is `aborted`, not `finished`."""
    if game.status == "finished" and (game.result or {}).get("reason") == ABORTED:
        return "aborted"
    return game.status


def summary(game: Game) -> dict:
    # `platform.nonces` is the protocol's rule, not a choice of the creator: the audit bundle
    # shows it (docs/audit.md §9)
    chosen = {k: v for k, v in game.platform.items() if k != "nonces"}
    return {
        "id": game.id, "ruleset": game.ruleset, "options": {**game.options, **chosen},
        "status": status_shown(game), "seats": game.seats,
        "players": [{"seat": i, "player": p} for i, p in enumerate(game.players)],
        "step": game.step, "step_kind": game.step_kind, "to_act": game.to_act,
        **deadlines(game), "result": game.result, "commitment": game.commitment,
        "created_at": game.created_at,
    }


@blp.route("")
class Games(MethodView):
    @blp.doc(operationId="createGame")
    @blp.arguments(GameCreateSchema)
    @blp.response(201, GameSummarySchema)
    @blp.alt_response(401, **PROBLEM)
    @blp.alt_response(409, **PROBLEM)
    @blp.alt_response(413, **PROBLEM)
    @blp.alt_response(422, **PROBLEM)
    @blp.alt_response(429, **RATE_LIMITED)
    @blp.doc(security=[{"bearer": []}])
    def post(self, data: dict) -> dict:
        """Create a game: ruleset, options, number of seats. Nobody is seated yet: every
        player, the creator too, joins. The response carries the dice commitment.

        A player holds at most PARLEY_MAX_OPEN_GAMES games that have not started (409
        `too_many_open_games`); creation is rate-limited per token and per address (429)."""
        pid = current_player()
        assert pid is not None
        if data["ruleset"] not in RULESETS:
            raise InvalidRequest(f"Unknown ruleset {data['ruleset']!r}.", code="unknown_ruleset")
        store = deps.store()
        check_open_games(store, pid, config().MAX_OPEN_GAMES)
        try:
            game = create_game(store, data["ruleset"], data["options"], data["players"],
                               pid, data["time_control"])
        except IllegalMove as err:
            raise InvalidRequest(err.message, code=err.code) from err
        track_open_game(store, pid, game.id)
        return summary(game)

    @blp.doc(operationId="listGames")
    @blp.arguments(GameListQuerySchema, location="query")
    @blp.response(200, GameListSchema)
    @blp.alt_response(400, **PROBLEM)
    @blp.alt_response(401, **PROBLEM)
    @blp.doc(security=[{"bearer": []}])
    def get(self, query: dict) -> dict:
        """The caller's games (created or joined) in the order of their ids, a page at a time,
        optionally only those in one `status` or (`turn=mine`) waiting for the caller. `next`
        is the cursor of the following page, null after the last; the cursor is the last id
        looked at, so games added meanwhile neither repeat nor shift a page.
        `GET /v1/players/me/games` is the same list, but for `status=open`: here it is the
        lobby, every game with a free seat whoever created it (seated or not), to join."""
        pid = current_player()
        if query.get("status") == "open" and query.get("turn") is None:
            games, last = lobby_page(deps.store(), query["cursor"] or query["after"],
                                     query["limit"])
            return {"games": [summary(g) for g in games], "next": last}
        return games_page(pid, query)


def _wanted(game: Game, pid: str, query: dict) -> bool:
    if query.get("status") not in (None, game.status):
        return False
    if query.get("turn") == "mine":
        return any(p == pid and seat in game.to_act for seat, p in enumerate(game.players))
    return True


def games_page(pid: str, query: dict) -> dict:
    """One page of a player's games that pass the query's filters (see `listGames`): those
    in Redis and the archived ones, merged in id order (archived games are all finished, so
    a filter for another status or for `turn=mine` skips the archive)."""
    store = deps.store()
    if query.get("turn") == "mine":
        return _my_turns(store, pid, query)
    archived = query.get("status") in (None, "finished")
    games: list[dict] = []
    last = None
    for gid, meta in player_games(store, pid, query["cursor"] or query["after"], archived):
        if len(games) == query["limit"]:
            return {"games": games, "next": last}  # more follow
        last = gid
        game = Game.from_meta(gid, meta) if meta is not None else load_game(store, gid)
        if game is not None and _wanted(game, pid, query):
            games.append(summary(game))
    return {"games": games, "next": None}


#: at most so many games waiting for one player are listed (most urgent first)
MY_TURNS_MAX = 1000


def _my_turns(store: Store, pid: str, query: dict) -> dict:
    """Every game waiting for the player, in one page, the most urgent first: by the
    player's own clock's due moment (the earliest first), then games without a clock, by id.
    A player waits in few games at once, so this is one page; `limit` and the cursor do not
    apply."""
    found = []
    for gid, _ in player_games(store, pid, None, False):
        game = load_game(store, gid)
        if game is not None and _wanted(game, pid, query):
            found.append(summary(game))
            if len(found) == MY_TURNS_MAX:
                break

    def urgency(shown: dict) -> tuple[int, str, str]:
        mine = [d["due"] for d in shown["deadlines"]
                if shown["players"][d["seat"]]["player"] == pid]
        return (0, min(mine), shown["id"]) if mine else (1, "", shown["id"])
    return {"games": sorted(found, key=urgency), "next": None}


@blp.route("/<game>")
class GameResource(MethodView):
    @blp.doc(operationId="getGame")
    @blp.response(200, GameSummarySchema)
    @blp.alt_response(404, **PROBLEM)
    def get(self, game: str) -> dict:
        """The public summary: ruleset, options, status, step, who is to act, players, result."""
        return summary(get_game_or_404(deps.store(), game))


@blp.route("/<game>/join")
class Join(MethodView):
    @blp.doc(operationId="joinGame")
    @blp.arguments(JoinSchema)
    @blp.response(200, JoinedSchema)
    @blp.alt_response(401, **PROBLEM)
    @blp.alt_response(404, **PROBLEM)
    @blp.alt_response(409, **PROBLEM)
    @blp.alt_response(422, **PROBLEM)
    @blp.doc(security=[{"bearer": []}])
    def post(self, data: dict, game: str) -> dict:
        """Take a seat with a signed join: a statement {game, player, client_seed, issued_at}
        signed by one of your keys (`parley-join-v1`, docs/audit.md §18). Its client seed is
        mixed into the dice and the signed join goes into the game's audit bundle. 422
        `join_unsigned` without one, `bad_join` for a statement not of this game and you,
        a seed not 1 to 128 characters or an `issued_at` outside the window of a move's,
        `bad_signature` for a key not yours or a signature that does not verify: nothing
        changes. The game starts when every seat is taken. With `seat_order: random` the
        final seats are drawn at the start. Joining counts against PARLEY_MAX_OPEN_GAMES
        unless it takes the last seat."""
        store, pid = deps.store(), current_player()
        get_game_or_404(store, game)  # an unknown game is 404 whatever the statement says
        signed = joins.check(store, game, pid, data["statement"], data["key_id"],
                             data["signature"])
        return take_seat(store, deps.queue(), game, pid, data["seat"], signed,
                         config().MAX_OPEN_GAMES)


@blp.route("/<game>/view")
class View(MethodView):
    @blp.doc(operationId="getView")
    @blp.response(200, ViewSchema)
    @blp.alt_response(401, **PROBLEM)
    @blp.alt_response(404, **PROBLEM)
    @blp.doc(security=[{"bearer": []}, {}])
    def get(self, game: str) -> dict:
        """The caller's seat view with its legal moves, or a spectator's view without a seated
        token. Nothing the caller may not see is in it."""
        digest = bearer_digest(required=False)
        store = deps.store()
        meta, state_json, pid = store.view_context(game, digest)  # one round trip per view
        if digest is not None:
            known_token(pid)
        if not meta:
            raise NotFound("No such game.", code="game_not_found")
        meta, state_json = view_inputs(store, game, meta, state_json)
        return seat_view(game, meta, state_json, pid, store)


@blp.route("/<game>/board.svg")
class BoardPicture(MethodView):
    @blp.doc(operationId="getBoardPicture", responses=BOARD_RESPONSES)
    @blp.arguments(BoardQuerySchema, location="query")
    @blp.alt_response(401, **PROBLEM)
    @blp.alt_response(404, **PROBLEM)
    @blp.alt_response(409, **PROBLEM)
    @blp.alt_response(422, **PROBLEM)
    @blp.doc(security=[{"bearer": []}, {}])
    def get(self, query: dict, game: str) -> Response:
        """The board as a picture (SVG), seen as `getView` sees it: a seated token's seat, or
        a spectator. Drawn on demand; `ETag` names the position and the viewer, so
        `If-None-Match` with it is answered 304 until the game moves. `step` shows a finished
        game's earlier position, as the caller's seat saw it then (docs/games.md)."""
        digest = bearer_digest(required=False)
        store = deps.store()
        meta, state_json, pid = store.view_context(game, digest)
        if digest is not None:
            known_token(pid)
        if not meta:
            raise NotFound("No such game.", code="game_not_found")
        meta, state_json = view_inputs(store, game, meta, state_json)
        record = Game.from_meta(game, meta)
        seat, step = record.seat_of(pid), query["step"]
        boards.check_position(record, step)
        tag = boards.etag(record, seat, step)
        headers = {"ETag": f'"{tag}"', "Cache-Control": boards.cache_control(record, seat),
                   **boards.HEADERS}
        if request.if_none_match.contains_weak(tag):
            return Response(status=304, headers=headers)
        state = boards.position(store, record, state_json, step)
        return Response(boards.draw(store, record, state, seat), headers=headers,
                        content_type=boards.MEDIA_TYPE)


@blp.route("/<game>/events")
class Events(MethodView):
    @blp.doc(operationId="listEvents")
    @blp.arguments(EventQuerySchema, location="query")
    @blp.response(200, EventListSchema)
    @blp.doc(responses={"307": {
        "description": "with `wait`, nothing new yet: to the stream process, which answers "
                       "this page as soon as the game moves (or empty when `wait` runs out)",
        "headers": {"Location": {"schema": {"type": "string"}}}}})
    @blp.alt_response(401, **PROBLEM)
    @blp.alt_response(404, **PROBLEM)
    @blp.alt_response(422, **PROBLEM)
    @blp.doc(security=[{"bearer": []}, {}])
    def get(self, query: dict, game: str) -> dict:
        """The events the caller may see, a page at a time after `cursor`: a seat sees its
        own redacted stream, a spectator the public one, everyone everything after the end.
        `next` is always a cursor (poll it later for new events); a page may hold fewer than
        `limit` events when some are hidden from the caller."""
        pid = current_player(required=False)
        store = deps.store()
        record = get_game_or_404(store, game)
        after = numeric_cursor(query, "invalid_cursor")
        page = events_page(store, record, pid, after, query["limit"])
        if query["wait"] and not page["events"] and not record.finished:
            # nothing new: the stream process waits for the next commit, not a web process
            args = {"cursor": page["next"], "limit": query["limit"], "wait": query["wait"]}
            if pid is not None:
                args["ticket"] = ticket(deps.server_key(), pid)
            return redirect(f"{config().STREAM_URL}/v1/games/{game}/events?"
                            f"{urlencode(args)}", code=307)
        return page
