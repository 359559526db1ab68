"""Rulesets, games, seats, views, events."""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, ValidationError, fields, pre_load, validate, validates_schema

from service.domain.envelope import B64Url, StrictInt
from service.web.api.common_schemas import CursorQuerySchema, ProblemSchema


class OptionSchema(Schema):
    default = fields.Raw(allow_none=True)
    choices = fields.List(fields.Raw(), allow_none=True)
    description = fields.String()


class VariantSchema(Schema):
    id = fields.String()
    title = fields.String()
    options = fields.Dict()


class RulesetSchema(Schema):
    id = fields.String(required=True)
    title = fields.String(required=True)
    min_players = fields.Integer(required=True)
    max_players = fields.Integer(required=True)
    variants = fields.List(fields.Nested(VariantSchema))
    options = fields.Dict(keys=fields.String(), values=fields.Nested(OptionSchema))


class ErrorCodeSchema(Schema):
    code = fields.String(required=True)
    description = fields.String(required=True)


class RulesetDetailSchema(RulesetSchema):
    data_option = fields.String(allow_none=True, metadata={
        "description": "the option naming the game's data set (card lists, maps), if any"})
    move_schema = fields.Dict(metadata={"description": "JSON Schema (2020-12) of one move"})
    error_codes = fields.List(fields.Nested(ErrorCodeSchema), metadata={
        "description": "every code the game's rules may answer a move with"})
    notation = fields.String(metadata={"description": "the text notation of moves"})


#: the longest text `parseNotation` reads (an Original Stratego setup takes about 250)
MAX_NOTATION = 4096


class NotationSchema(Schema):
    text = fields.String(required=True, validate=validate.Length(min=1, max=MAX_NOTATION),
                         metadata={"description": "a move in the game's text notation"})


class ParsedMoveSchema(Schema):
    move = fields.Dict(required=True, metadata={
        "description": "the move the text names, as a move envelope carries it"})
    notation = fields.String(required=True, metadata={
        "description": "the same move written the way the game writes it (`format_move`)"})


#: the longest any clock amount may be (seconds): 60 days
CLOCK_MAX = 60 * 86400
_CLOCK_RANGE = validate.Range(min=1, max=CLOCK_MAX)
#: the members each clock system needs and allows besides the common ones
_SYSTEM_FIELDS = {"per_move": ({"seconds_per_move"}, set()),
                  "fischer": ({"initial", "increment"}, {"maximum"}),
                  "total": ({"initial"}, set())}


class TimeControlSchema(Schema):
    """A game's clock (docs/games.md "Clocks"); amounts in seconds."""

    system = fields.String(load_default="per_move", validate=validate.OneOf(list(_SYSTEM_FIELDS)),
                           metadata={"description": "`per_move`: a fixed time for each turn; "
                                     "`fischer`: a bank, an increment after each turn, a cap; "
                                     "`total`: one bank for the whole game"})
    seconds_per_move = fields.Integer(validate=_CLOCK_RANGE, metadata={
        "description": "per_move: the time of each turn"})
    initial = fields.Integer(validate=_CLOCK_RANGE, metadata={
        "description": "fischer and total: the bank at the start"})
    increment = fields.Integer(validate=validate.Range(min=0, max=CLOCK_MAX), metadata={
        "description": "fischer: added to the bank after each turn"})
    maximum = fields.Integer(validate=_CLOCK_RANGE, metadata={
        "description": "fischer: the increment never raises the bank above it"})
    weekends_off = fields.Boolean(load_default=False, metadata={
        "description": "clocks stop from Saturday 00:00 to Monday 00:00 in each player's zone"})
    reminder_fraction = fields.Float(load_default=0.5, validate=validate.Range(min=0, max=1),
                                     metadata={"description": "remind a seat when this share "
                                               "of its turn's time is left (0: never)"})
    on_timeout = fields.String(load_default="forfeit",
                               validate=validate.OneOf(["forfeit", "skip"]))

    @validates_schema
    def _system_members(self, data: dict, **_: object) -> None:
        needed, optional = _SYSTEM_FIELDS[data.get("system", "per_move")]
        amounts = {"seconds_per_move", "initial", "increment", "maximum"}
        errors = {name: [f"required by the {data.get('system', 'per_move')} system"]
                  for name in needed if name not in data}
        errors.update({name: [f"not part of the {data.get('system', 'per_move')} system"]
                       for name in amounts - needed - optional if name in data})
        if "maximum" in data and "initial" in data and data["maximum"] < data["initial"]:
            errors["maximum"] = ["must be at least `initial`"]
        if errors:
            raise ValidationError(errors)


class GameCreateSchema(Schema):
    ruleset = fields.String(required=True, validate=validate.Length(min=1, max=64))
    options = fields.Dict(keys=fields.String(), load_default=dict)
    players = StrictInt(required=True, validate=validate.Range(min=1, max=16),
                        metadata={"description": "the number of seats"})
    time_control = fields.Nested(TimeControlSchema, load_default=None, allow_none=True)


class SeatSchema(Schema):
    seat = fields.Integer()
    player = fields.String(allow_none=True)


class DeadlineSchema(Schema):
    seat = fields.Integer(required=True)
    step = fields.Integer(required=True)
    due = fields.String(required=True)


class SeatClockSchema(Schema):
    seat = fields.Integer(required=True)
    left = fields.Integer(required=True, metadata={"description": "seconds left now"})
    running = fields.Boolean(required=True, metadata={
        "description": "the seat is asked to act and its clock runs now (not on vacation, "
                       "not a weekend off)"})
    due = fields.String(allow_none=True, metadata={
        "description": "when the seat's clock runs out (UTC), while it is asked to act"})
    away_from = fields.String(allow_none=True, metadata={
        "description": "the player's current or next vacation: its start (UTC)"})
    away_until = fields.String(allow_none=True, metadata={"description": "and its end (UTC)"})


class GameSummarySchema(Schema):
    id = fields.String(required=True)
    ruleset = fields.String(required=True)
    options = fields.Dict(required=True)
    status = fields.String(required=True, validate=validate.OneOf(
        ["open", "full", "active", "finished", "aborted"]))
    seats = fields.Integer(required=True)
    players = fields.List(fields.Nested(SeatSchema))
    step = fields.Integer(required=True)
    step_kind = fields.String(allow_none=True)
    to_act = fields.List(fields.Integer())
    deadline = fields.String(allow_none=True, metadata={
        "description": "when the current decision times out (UTC), if the game has a time control"})
    deadlines = fields.List(fields.Nested(DeadlineSchema), metadata={
        "description": "each seat asked to act, with its deadline"})
    clocks = fields.List(fields.Nested(SeatClockSchema), allow_none=True, metadata={
        "description": "every seat's clock, if the game has a time control"})
    result = fields.Dict(allow_none=True)
    commitment = fields.String(required=True, metadata={"description": "SHA-256 of server seed"})
    created_at = fields.String()


class GameListQuerySchema(CursorQuerySchema):
    """A page of the caller's games, optionally only some of them."""

    status = fields.String(validate=validate.OneOf(
        ["open", "full", "active", "finished"]), metadata={
        "description": "only games in this status (open and full: waiting for players)"})
    turn = fields.String(validate=validate.OneOf(["mine"]), metadata={
        "description": "`mine`: only games where one of the caller's seats is to act, all "
                       "in one page, the most urgent first (the earliest deadline of the "
                       "caller's own clock, then games without a clock)"})


class GameListSchema(Schema):
    games = fields.List(fields.Nested(GameSummarySchema))
    next = fields.String(allow_none=True, metadata={
        "description": "pass as `cursor` for the next page; null: this was the last page"})


class JoinSchema(Schema):
    """A signed join (docs/audit.md §18); without `statement`, `key_id` and `signature` it is
    refused `join_unsigned` (by the route, so that the refusal has its own code)."""

    seat = StrictInt(load_default=None, allow_none=True, validate=validate.Range(min=0, max=63))
    statement = fields.Dict(load_default=None, metadata={
        "description": "{game, player, client_seed, issued_at}: this game, you, the client "
                       "seed you chose (1 to 128 characters, mixed into the dice) and when you "
                       "signed it; signed as `parley-join-v1\\n` + JCS(statement) "
                       "(docs/audit.md §18)"})
    key_id = fields.String(load_default=None, validate=validate.Length(min=1, max=64),
                           metadata={"description": "the signing key's id, one of yours"})
    signature = B64Url(load_default=None, min_bytes=64, max_len=128)

    @pre_load
    def _unsigned(self, data: Any, **_: Any) -> Any:
        """The bare `client_seed` of an unsigned join is answered `join_unsigned`, not as an
        unknown member."""
        if isinstance(data, dict) and "statement" not in data:
            data = {k: v for k, v in data.items() if k != "client_seed"}
        return data


class JoinedSchema(Schema):
    game = fields.String(required=True)
    seat = fields.Integer(required=True, metadata={
        "description": "the seat taken; with seat_order random, until the game starts, only "
                       "a place in the queue: the final seats are drawn at the start"})
    seat_final = fields.Boolean(required=True, metadata={
        "description": "whether `seat` is the seat the player holds in the game: true with "
                       "seat_order joined, and for the join that starts the game"})
    status = fields.String(required=True)


class _ViewFields(Schema):
    """A seat view's fields, none required (a batch item may be a problem instead)."""

    game = fields.String()
    status = fields.String()
    seat = fields.Integer(allow_none=True, metadata={"description": "the caller's seat"})
    step = fields.Integer()
    step_kind = fields.String(allow_none=True)
    to_act = fields.List(fields.Integer())
    state = fields.Dict(allow_none=True, metadata={"description": "the engine's redacted view"})
    legal_moves = fields.List(fields.Dict(), metadata={
        "description": "the caller's legal moves when its seat is to act (else empty)"})
    legal_moves_notation = fields.List(fields.String(), metadata={
        "description": "each of `legal_moves` in the game's text notation, in the same order "
                       "(`format_move`; the ruleset's `notation` describes it): what a "
                       "client shows and a person types"})
    legal_moves_complete = fields.Boolean(metadata={
        "description": "false where `legal_moves` only offers examples of a free arrangement "
                       "(a Stratego setup, a Cartagena rum deal, an Elfenland war placement): "
                       "other moves are legal too (`parseNotation` reads one typed)"})
    result = fields.Dict(allow_none=True)
    clocks = fields.List(fields.Nested(SeatClockSchema), metadata={
        "description": "games with a time control: every seat's clock (as in the summary)"})
    text = fields.String(allow_none=True, metadata={
        "description": "the board as plain text, with the players' names (\"you\" for the "
                       "caller's seat); null before the game starts"})


class ViewSchema(_ViewFields):
    game = fields.String(required=True)
    status = fields.String(required=True)
    step = fields.Integer(required=True)


class BoardQuerySchema(Schema):
    step = fields.Integer(load_default=None, validate=validate.Range(min=0), metadata={
        "description": "a finished game's earlier position: the board when this decision "
                       "step opened (409 `game_not_finished` while the game runs)"})


_HEADER = {"schema": {"type": "string"}}
#: the picture's answers besides the problems (flask-smorest documents no SVG body itself)
BOARD_RESPONSES = {
    "200": {"description": "the board as an SVG document, drawn from the caller's view",
            "content": {"image/svg+xml": {"schema": {"type": "string"}}},
            "headers": {"ETag": _HEADER, "Cache-Control": _HEADER}},
    "304": {"description": "the picture named by `If-None-Match` is still the current one",
            "headers": {"ETag": _HEADER, "Cache-Control": _HEADER}},
}


#: games in one batch of views at most
MAX_VIEWS = 64


class ViewBatchQuerySchema(Schema):
    game = fields.List(fields.String(validate=validate.Length(min=1, max=64)), required=True,
                       validate=validate.Length(min=1, max=MAX_VIEWS), metadata={
                           "description": "a game id; repeat for each game (at most 64)"})


class ViewItemSchema(_ViewFields):
    """One game's view, or only its `game` and the `problem` its single view would answer."""

    problem = fields.Nested(ProblemSchema, metadata={"description": "why there is no view"})


class ViewBatchSchema(Schema):
    views = fields.List(fields.Nested(ViewItemSchema), required=True, metadata={
        "description": "one per game asked for, in the order asked"})


class EventSchema(Schema):
    id = fields.Integer(required=True, metadata={"description": "cursor of this event"})
    seq = fields.Integer(metadata={"description": "the move that caused it (0: game start)"})
    step = fields.Integer()
    event = fields.Dict(metadata={"description": "the event as the caller may see it"})
    text = fields.String(metadata={
        "description": "the event in a sentence from the caller's seat, with the players' "
                       "names (\"Bob moved a4-a5.\", \"You captured Bob's flag.\"), as the "
                       "mails tell it; \"\" for an event not worth a line of its own (the "
                       "game's start)"})


class EventQuerySchema(CursorQuerySchema):
    wait = fields.Float(load_default=0, validate=validate.Range(min=0, max=60), metadata={
        "description": "long poll: when nothing is new, wait up to this many seconds for the "
                       "next event (answered through a 307 to the stream process)"})


class EventListSchema(Schema):
    events = fields.List(fields.Nested(EventSchema))
    next = fields.String(required=True, metadata={
        "description": "pass as `cursor` to read on; the stream is open-ended, so this is "
                       "never null: an empty page means nothing new yet"})


class ServerKeySchema(Schema):
    public_key = fields.String(required=True)
    algorithm = fields.String(required=True)


class HealthSchema(Schema):
    status = fields.String(required=True)
    redis = fields.Boolean()
    workers = fields.Integer()
    queue_depth = fields.Integer()
    pending_games = fields.Integer()
    reason = fields.String()


class AuditEntrySchema(Schema):
    seq = fields.Integer(required=True)
    accepted_at = fields.String()
    entry_hash = fields.String()
    digest = fields.String(metadata={"description": "SHA-256 of the envelope's canonical JSON"})
    status = fields.String()
    code = fields.String()
    envelope = fields.Dict(metadata={"description": "absent for a secret move during play"})


class AuditSchema(Schema):
    """The audit bundle; docs/audit.md specifies every field byte for byte."""

    format = fields.String(required=True)
    game = fields.String(required=True)
    ruleset = fields.String()
    options = fields.Dict()
    platform = fields.Dict()
    seats = fields.Integer()
    status = fields.String()
    players = fields.List(fields.Dict())
    consents = fields.List(fields.Dict(), metadata={
        "description": "the seated players' signed consents to moves by mail (§16)"})
    commitment = fields.String()
    server_seed = fields.String(allow_none=True, metadata={"description": "after the end"})
    client_seeds = fields.List(fields.String(allow_none=True))
    joined = fields.List(fields.String(allow_none=True))
    joins = fields.List(fields.Dict(allow_none=True), metadata={
        "description": "per provisional seat, the player's signed join {seat, statement, "
                       "key_id, signature}, or null (a seat not taken, or taken by a mail-only "
                       "player); absent for games created before joins were signed (§18)"})
    entries = fields.List(fields.Nested(AuditEntrySchema))
    draws = fields.List(fields.Dict())
    state_hashes = fields.List(fields.Dict())
    result = fields.Dict(allow_none=True)
    clocks = fields.Dict(metadata={
        "description": "games with a time control: what recomputes every clock (the first "
                       "decision's start, zones, vacations, time given; docs/audit.md §17)"})
    server_key = fields.String()
    signature = fields.String()
