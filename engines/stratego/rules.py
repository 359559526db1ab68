"""Stratego rules: state, setup, decisions, legal moves, apply and result.

The authority is `rules/stratego.md`; section numbers below refer to it.

State (plain JSON, §4)::

    options    {"army": ..., ...}                 as given to `setup`, army filled in
    step       decision counter (contract.close_decision)
    phase      "setup" | "play" | "game_over"
    to_act     seats asked now, ascending
    active     seat to move in play, else None
    setups     {"0": placement | None, "1": ...}  square -> piece id, ordered by square (§5.1)
    pieces     uid -> {"owner", "piece", "square" | None, "revealed", "moved"}
    board      square -> uid, occupied squares only
    ply        plies played so far
    last_ply   None | {"uid", "from", "to", "battle"}: the latest §5.3 ply record
    removed    {"0": [uid, ...], "1": [...]}      in order of removal
    result     None | {"winners", "scores", "reason"}
    recent     {"0": [[uid, from, to], ...], ...} the seat's last three own plies (§5.4)
    chase      incremental §5.5 data about the last ply (see `_chase_after`)
    positions  position keys of B_k since the last battle, oldest first (§5.5)
    quiet      plies since the last attack (§4, no-battle limit)

Performance: legality never replays history. §5.4 needs only `recent`; §5.5 needs the last
ply's threat/evasion data, the fled squares of the running chase, and `positions`. A position
key is a 64-bit Zobrist hash of the (square, uid) pairs, kept as 16 hex digits: equal boards
have equal keys, and two different boards share one with probability 2**-64.

Size: the state holds no history that grows with the game (only `positions`, which a battle
resets and the no-battle limit bounds at 200 keys). The full ply list is the `ply` events in
the game's event stream; the state keeps the latest ply and a count (docs/rules/stratego.md,
"Decisions").
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from engines.contract import (
    JSON,
    Decision,
    Event,
    IllegalMove,
    Move,
    Result,
    State,
    close_decision,
)

# --- fixed facts ---------------------------------------------------------------------------

#: piece id -> rank (§2.2); Bomb and Flag have none and never move.
RANK: dict[str, int] = {
    "marshal": 10, "general": 9, "colonel": 8, "major": 7, "captain": 6, "lieutenant": 5,
    "sergeant": 4, "miner": 3, "scout": 2, "spy": 1, "bomb": 0, "flag": 0,
}
IMMOVABLE = frozenset({"bomb", "flag"})

#: army id -> piece id -> count, from the replaceable data file (§2.2).
ARMIES: dict[str, dict[str, int]] = json.loads(
    (Path(__file__).parent / "data" / "stratego_armies.json").read_text(encoding="utf-8")
)
for _army in ARMIES.values():
    if not set(_army) <= set(RANK):
        raise ValueError(f"stratego_armies.json: unknown piece ids {set(_army) - set(RANK)}")

SEATS = 2
LETTER = ("r", "b")
COLOUR = ("Red", "Blue")
FILES = "abcdefghij"
#: every square name, a1 b1 ... j1 a2 ... j10 (§1: rank 1 is Red's back row).
SQUARES: tuple[str, ...] = tuple(f + str(r) for r in range(1, 11) for f in FILES)
COORD: dict[str, tuple[int, int]] = {f + str(r): (FILES.index(f), r)
                                     for r in range(1, 11) for f in FILES}
AT: dict[tuple[int, int], str] = {xy: sq for sq, xy in COORD.items()}
LAKES = frozenset({"c5", "d5", "c6", "d6", "g5", "h5", "g6", "h6"})
LAND: tuple[str, ...] = tuple(sq for sq in SQUARES if sq not in LAKES)
ORDER: dict[str, int] = {sq: i for i, sq in enumerate(SQUARES)}
#: home squares per seat (§2.1).
HOME: tuple[frozenset[str], frozenset[str]] = (
    frozenset(sq for sq in SQUARES if COORD[sq][1] <= 4),
    frozenset(sq for sq in SQUARES if COORD[sq][1] >= 7),
)
_DIRS = ((0, 1), (0, -1), (1, 0), (-1, 0))


def _ray(sq: str, dx: int, dy: int) -> tuple[str, ...]:
    x, y = COORD[sq]
    out = []
    while (x + dx, y + dy) in AT and AT[(x + dx, y + dy)] not in LAKES:
        x, y = x + dx, y + dy
        out.append(AT[(x, y)])
    return tuple(out)


#: land square -> land squares in each direction up to a lake or the edge (Scout lines).
RAYS: dict[str, tuple[tuple[str, ...], ...]] = {
    sq: tuple(r for r in (_ray(sq, dx, dy) for dx, dy in _DIRS) if r) for sq in LAND
}
#: land square -> adjacent land squares.
NEIGHBORS: dict[str, tuple[str, ...]] = {sq: tuple(r[0] for r in RAYS[sq]) for sq in LAND}
#: land square -> one-square "rays" (the lines of a one-square piece).
STEPS: dict[str, tuple[tuple[str, ...], ...]] = {sq: tuple(r[:1] for r in RAYS[sq]) for sq in LAND}

_zrand = random.Random(0x5374726174)
#: Zobrist values: uid -> square -> 64-bit int (any uid a test position may create). Stored
#: games hold keys made from this table: changing the seed or the order invalidates them.
ZOBRIST: dict[str, dict[str, int]] = {
    letter + "-" + origin: {sq: _zrand.getrandbits(64) for sq in LAND}
    for letter in LETTER for origin in LAND
}
del _zrand

MESSAGES: dict[str, str] = {
    "invalid_options": "An option has an invalid value.",
    "game_over": "The game has ended.",
    "unknown_move_type": "Unknown move type.",
    "wrong_phase": "Not possible in this phase.",
    "not_your_turn": "It is not your turn.",
    "setup_already_submitted": "Your setup is in and final.",
    "malformed_move": "A field is missing or has the wrong type.",
    "off_board": "Not a square of the board.",
    "unknown_piece": "Unknown piece id.",
    "setup_wrong_rows": "Pieces must stand on your four home rows.",
    "setup_wrong_pieces": "The placement must be exactly your army.",
    "same_square": "`from` equals `to`.",
    "no_piece_at_source": "No piece on `from`.",
    "not_your_piece": "The piece on `from` is not yours.",
    "immovable_piece": "Bombs and the Flag never move.",
    "into_lake": "No piece may enter a lake.",
    "diagonal_move": "Only along a file or rank, never diagonally.",
    "too_far": "Only a Scout moves more than one square.",
    "scout_path_not_straight": "A Scout moves along one file or rank.",
    "lake_in_path": "A Scout cannot cross a lake.",
    "blocked_path": "A Scout cannot pass over any piece.",
    "own_piece_at_target": "You cannot move onto your own piece.",
    "two_square_rule": "Not more than three times in a row back and forth over the same squares.",
    "more_square_rule": "This chasing move would repeat an earlier position.",
}

#: plies without an attack that draw the game (§4 step 3, HOUSE RULE §10.15).
NO_BATTLE_LIMIT = 200


def _reject(code: str, detail: str = "") -> IllegalMove:
    return IllegalMove(code, f"{MESSAGES[code]} {detail}".strip())


# --- setup ----------------------------------------------------------------------------------


def _no_chase() -> dict[str, Any]:
    """The §5.5 data before the first ply: nothing threatened, nothing evaded."""
    return {"threat": [], "evades": False, "chasing": False, "fled": [], "fled_prev": []}


def army_of(options: Mapping[str, JSON]) -> dict[str, int]:
    """The army of these options (§2.2, §9); raises invalid_options for an unknown army."""
    army = options.get("army", "original")
    if not isinstance(army, str) or army not in ARMIES:
        raise IllegalMove("invalid_options", f"Option 'army' must be one of {sorted(ARMIES)}.")
    return ARMIES[army]


def setup(options: Mapping[str, JSON], seats: int) -> State:
    """A new game in the secret-setup phase (§3). Draws nothing: seats are the platform's."""
    if seats != SEATS:
        raise IllegalMove("invalid_options", "Stratego is played by exactly 2 seats.")
    army_of(options)
    opts = dict(options)
    opts.setdefault("army", "original")
    return {
        "options": opts,
        "step": 0,
        "phase": "setup",
        "to_act": [0, 1],
        "active": None,
        "setups": {"0": None, "1": None},
        "pieces": {},
        "board": {},
        "ply": 0,
        "last_ply": None,
        "removed": {"0": [], "1": []},
        "result": None,
        "recent": {"0": [], "1": []},
        "chase": _no_chase(),
        "positions": [],
        "quiet": 0,
    }


def position_state(
    placement: Mapping[str, tuple[int, str] | list[Any]], active: int = 0,
    options: Mapping[str, JSON] | None = None,
) -> State:
    """A play-phase state with pieces square -> (owner, piece id), e.g. for the §11 scenarios.

    Play starts as after two setups (§3 step 3): uids from the squares, B₀ recorded, `active`
    to move, and the turn-start check run. Armies are not checked.
    """
    state = setup(options or {}, SEATS)
    for seat in range(SEATS):
        own = {sq: str(v[1]) for sq, v in placement.items() if v[0] == seat}
        state["setups"][str(seat)] = dict(sorted(own.items(), key=lambda kv: ORDER[kv[0]]))
    close_decision(state)
    _start_play(state, [], active)
    return state


def _start_play(state: State, events: list[Event], active: int = 0) -> None:
    """§3 step 3: place the pieces, assign uids, record B₀, run the turn-start check."""
    pieces = state["pieces"]
    board = state["board"]
    key = 0
    for seat in range(SEATS):
        for sq, piece in state["setups"][str(seat)].items():
            uid = LETTER[seat] + "-" + sq
            pieces[uid] = {"owner": seat, "piece": piece, "square": sq,
                           "revealed": False, "moved": False}
            board[sq] = uid
            key ^= ZOBRIST[uid][sq]
    state["positions"] = [f"{key:016x}"]
    state["phase"] = "play"
    events.append({"type": "play_started", "active": active})
    _start_turn(state, active, events)


def placements(army: Mapping[str, int], seat: int) -> Iterator[dict[str, str]]:
    """Three valid example placements, built without randomness (§5.1 "Listing").

    The army in data-file order from the back rank, the same from the front rank, and the
    army reversed from the back rank (which puts the Flag in a back corner behind Bombs).
    """
    ranks = range(1, 5) if seat == 0 else range(10, 6, -1)
    back = [f + str(r) for r in ranks for f in FILES]
    front = [f + str(r) for r in reversed(ranks) for f in FILES]
    ids = [piece for piece, n in army.items() for _ in range(n)]
    for squares, order in ((back, ids), (front, ids), (back, ids[::-1])):
        placed = dict(zip(squares, order, strict=False))
        yield dict(sorted(placed.items(), key=lambda kv: ORDER[kv[0]]))


def _check_setup(state: State, seat: int, move: Move) -> dict[str, str]:
    """§5.1 checks after the phase checks, each over all entries before the next (§5.7)."""
    if seat not in state["to_act"]:
        raise _reject("setup_already_submitted")
    placement = move.get("placement")
    if not isinstance(placement, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in placement.items()
    ):
        raise _reject("malformed_move", "`placement` must map square names to piece ids.")
    for sq in placement:
        if sq not in COORD:
            raise _reject("off_board", repr(sq))
    for piece in placement.values():
        if piece not in RANK:
            raise _reject("unknown_piece", repr(piece))
    home = HOME[seat]
    for sq in placement:
        if sq not in home:
            raise _reject("setup_wrong_rows", repr(sq))
    army = army_of(state["options"])
    if Counter(placement.values()) != Counter({p: n for p, n in army.items() if n}):
        raise _reject("setup_wrong_pieces")
    return placement


# --- decisions and listing --------------------------------------------------------------------


def decision(state: State) -> Decision:
    """Who must act now (§4 table); the step kind is the phase."""
    return {
        "step": state["step"],
        "step_kind": state["phase"],
        "to_act": list(state["to_act"]),
        "legal_moves_complete": state["phase"] != "setup",
    }


def legal_moves(state: State, seat: int) -> Iterator[Move]:
    """Every legal move of `seat` now (§4 "Decision and listing"); never `resign`.

    A generator; in play it is `_play_moves` itself (no extra layer on the hot path).
    """
    phase = state["phase"]
    if phase == "play" and seat == state["active"]:
        return _play_moves(state, seat)
    if phase == "setup" and seat in state["to_act"]:
        army = army_of(state["options"])
        return ({"type": "setup", "placement": p} for p in placements(army, seat))
    return iter(())


def _segment(frm: str, to: str) -> tuple[int, int, int]:
    """The edges crossed by a straight move as (line, lo, hi): edges lo..hi-1 of one line.

    Lines 0-9 are the files, 11-20 the ranks, so segments on different lines never meet.
    """
    fx, fy = COORD[frm]
    tx, ty = COORD[to]
    if fx == tx:
        return fx, min(fy, ty), max(fy, ty)
    return 10 + fy, min(fx, tx), max(fx, tx)


def _two_square_ban(recent: list[list[str]]) -> tuple[str | None, tuple[int, int, int]]:
    """The uid and shared edges that §5.4 forbids to cross next, or (None, _)."""
    if len(recent) < 3 or not recent[0][0] == recent[1][0] == recent[2][0]:
        return None, (0, 0, 0)
    line, lo, hi = _segment(recent[0][1], recent[0][2])
    for _uid, frm, to in recent[1:]:
        ln, lo2, hi2 = _segment(frm, to)
        if ln != line:
            return None, (0, 0, 0)
        lo, hi = max(lo, lo2), min(hi, hi2)
    if lo >= hi:
        return None, (0, 0, 0)
    return recent[0][0], (line, lo, hi)


def _crosses(ban: tuple[int, int, int], frm: str, to: str) -> bool:
    line, lo, hi = _segment(frm, to)
    return line == ban[0] and max(lo, ban[1]) < min(hi, ban[2])


class _MoreSquare:
    """§5.5 for the next ply: which non-attack moves would repeat a position while chasing.

    A candidate M is chasing iff the last ply evaded and M ends next to the piece that
    evaded; F is the running chase's fled squares (`chase["fled"]`). Only when |F| >= 3 is
    any move at risk, and then only plain moves onto a square next to that piece.
    """

    __slots__ = ("guard", "key", "seen")

    def __init__(self, state: State) -> None:
        chase = state["chase"]
        self.guard: tuple[str, ...] = ()
        if chase["evades"] and len(chase["fled"]) >= 3:
            self.guard = NEIGHBORS[state["last_ply"]["to"]]
            self.seen = frozenset(state["positions"])
            self.key = int(state["positions"][-1], 16)

    def banned(self, uid: str, frm: str, to: str) -> bool:
        if to not in self.guard:
            return False
        z = ZOBRIST[uid]
        return f"{self.key ^ z[frm] ^ z[to]:016x}" in self.seen


def _play_moves(state: State, seat: int, ordered: bool = True) -> Iterator[Move]:
    """Every legal `move` of `seat` (§5.2-5.5), generated straight from the board.

    The hot path of random playouts: only moves of the §5.4 piece and plain moves next to
    the last evader (§5.5) need more than a look at the target square. The squares are taken
    in sorted order, so the list is the same whatever order the board's keys were inserted in
    (`key_order_free`): as the state `apply` returns, or as parsed back from its stored JSON.
    `ordered=False` skips the sort, for a caller that only asks whether there is a move.
    """
    board: dict[str, str] = state["board"]
    pieces = state["pieces"]
    mine = LETTER[seat]
    ban_uid, ban = _two_square_ban(state["recent"][str(seat)])
    more = _MoreSquare(state)
    guarded = bool(more.guard)
    for frm, uid in sorted(board.items()) if ordered else tuple(board.items()):
        if uid[0] != mine:
            continue
        kind = pieces[uid]["piece"]
        if kind in IMMOVABLE:
            continue
        restricted = uid == ban_uid or guarded
        for ray in RAYS[frm] if kind == "scout" else STEPS[frm]:
            for to in ray:
                occ = board.get(to)
                if occ is not None and occ[0] == mine:
                    break
                if not restricted or not (
                    (uid == ban_uid and _crosses(ban, frm, to))
                    or (occ is None and more.banned(uid, frm, to))
                ):
                    yield {"type": "move", "from": frm, "to": to}
                if occ is not None:
                    break


def _has_basic_move(state: State, seat: int) -> bool:
    """Whether `seat` has a move allowed by §5.2 alone (turn-start check, §4)."""
    board = state["board"]
    pieces = state["pieces"]
    mine = LETTER[seat]
    for frm, uid in board.items():
        if uid[0] == mine and pieces[uid]["piece"] not in IMMOVABLE:
            for to in NEIGHBORS[frm]:
                occ = board.get(to)
                if occ is None or occ[0] != mine:
                    return True
    return False


# --- apply ----------------------------------------------------------------------------------


def check(state: State, seat: int, move: Any) -> None:
    """Raise the first failing check of §5.7 for this move; change nothing."""
    _validate(state, seat, move)


def _validate(state: State, seat: int, move: Any) -> Any:
    """The §5.7 checks in order; returns what `apply` needs for the move's type."""
    if state["phase"] == "game_over":
        raise _reject("game_over")
    if not isinstance(move, dict):
        raise _reject("malformed_move", "A move is a JSON object.")
    kind = move.get("type")
    if kind not in ("setup", "move", "resign"):
        raise _reject("unknown_move_type", repr(kind))
    if seat not in (0, 1):
        raise _reject("not_your_turn", f"No seat {seat!r}.")
    if kind == "resign":
        return None
    if kind == "setup":
        if state["phase"] != "setup":
            raise _reject("wrong_phase")
        return _check_setup(state, seat, move)
    if state["phase"] != "play":
        raise _reject("wrong_phase")
    if seat != state["active"]:
        raise _reject("not_your_turn")
    return _check_move(state, seat, move)


def _check_move(state: State, seat: int, move: Move) -> tuple[str, str, str, str | None]:
    """§5.2, §5.4, §5.5 in the §5.7 order; returns (uid, from, to, target uid or None)."""
    frm, to = move.get("from"), move.get("to")
    if not isinstance(frm, str) or not isinstance(to, str):
        raise _reject("malformed_move", "`from` and `to` must be square names.")
    for sq in (frm, to):
        if sq not in COORD:
            raise _reject("off_board", repr(sq))
    if frm == to:
        raise _reject("same_square")
    board = state["board"]
    uid = board.get(frm)
    if uid is None:
        raise _reject("no_piece_at_source", frm)
    mine = LETTER[seat]
    if uid[0] != mine:
        raise _reject("not_your_piece", frm)
    kind = state["pieces"][uid]["piece"]
    if kind in IMMOVABLE:
        raise _reject("immovable_piece", f"{frm} holds a {kind}.")
    if to in LAKES:
        raise _reject("into_lake", to)
    (fx, fy), (tx, ty) = COORD[frm], COORD[to]
    if kind != "scout":
        if fx != tx and fy != ty:
            raise _reject("diagonal_move")
        if abs(fx - tx) + abs(fy - ty) > 1:
            raise _reject("too_far")
    else:
        if fx != tx and fy != ty:
            raise _reject("scout_path_not_straight")
        dx, dy = (tx > fx) - (tx < fx), (ty > fy) - (ty < fy)
        between = [AT[(fx + dx * i, fy + dy * i)] for i in range(1, abs(tx - fx + ty - fy))]
        if any(sq in LAKES for sq in between):
            raise _reject("lake_in_path")
        if any(sq in board for sq in between):
            raise _reject("blocked_path")
    target = board.get(to)
    if target is not None and target[0] == mine:
        raise _reject("own_piece_at_target", to)
    ban_uid, ban = _two_square_ban(state["recent"][str(seat)])
    if uid == ban_uid and _crosses(ban, frm, to):
        raise _reject("two_square_rule")
    if target is None and _MoreSquare(state).banned(uid, frm, to):
        raise _reject("more_square_rule")
    return uid, frm, to, target


def apply(state: State, seat: int, move: Any) -> tuple[State, list[Event]]:
    """Validate completely (§5.7), then change `state` in place and return it with events."""
    checked = _validate(state, seat, move)
    events: list[Event] = []
    kind = move["type"]
    if kind == "resign":
        events.append({"type": "resigned", "seat": seat})
        close_decision(state)
        _finish(state, [1 - seat], "resigned", events)
    elif kind == "setup":
        _apply_setup(state, seat, checked, events)
    else:
        uid, frm, to, target = checked
        _apply_move(state, seat, uid, frm, to, target, events)
    return state, events


def _apply_setup(state: State, seat: int, placement: dict[str, str], events: list[Event]) -> None:
    """§3 step 2: a valid setup is final; the decision closes when both are in."""
    state["setups"][str(seat)] = dict(sorted(placement.items(), key=lambda kv: ORDER[kv[0]]))
    state["to_act"] = [s for s in state["to_act"] if s != seat]
    events.append({"type": "setup_submitted", "seat": seat})
    if not state["to_act"]:
        close_decision(state)
        _start_play(state, events)


def _apply_move(
    state: State, seat: int, uid: str, frm: str, to: str, target: str | None,
    events: list[Event],
) -> None:
    """Resolve a checked move (§5.2-5.3), update the §5.4/§5.5 data, then §4 "After a move"."""
    board = state["board"]
    pieces = state["pieces"]
    mover = pieces[uid]
    mover["moved"] = True
    if mover["piece"] == "scout" and to not in NEIGHBORS[frm]:
        mover["revealed"] = True
    z = ZOBRIST[uid]
    key = int(state["positions"][-1], 16) ^ z[frm]
    del board[frm]
    battle = None
    flag_taken = False
    if target is None:
        board[to] = uid
        mover["square"] = to
        key ^= z[to]
    else:
        defender = pieces[target]
        a, d = mover["piece"], defender["piece"]
        if d == "flag" or (d == "bomb" and a == "miner") or (a == "spy" and d == "marshal"):
            code = "attacker_wins"
        elif d == "bomb":
            code = "defender_wins"
        else:
            code = ("attacker_wins" if RANK[a] > RANK[d]
                    else "defender_wins" if RANK[a] < RANK[d] else "both_removed")
        flag_taken = d == "flag"
        lost = {"attacker_wins": [target], "defender_wins": [uid],
                "both_removed": [uid, target]}[code]
        for gone in lost:
            piece = pieces[gone]
            state["removed"][str(piece["owner"])].append(gone)
            piece["square"] = None
        if code == "attacker_wins":
            board[to] = uid
            mover["square"] = to
            mover["revealed"] = True
            key ^= ZOBRIST[target][to] ^ z[to]
        elif code == "defender_wins":
            defender["revealed"] = True
        else:
            del board[to]
            key ^= ZOBRIST[target][to]
        battle = {"attacker": uid, "defender": target, "attacker_piece": a,
                  "defender_piece": d, "result": code, "removed": lost}
    state["chase"] = _chase_after(state, uid, frm, to, target is not None)
    state["last_ply"] = {"uid": uid, "from": frm, "to": to, "battle": battle}
    state["ply"] += 1
    recent = state["recent"][str(seat)]
    recent.insert(0, [uid, frm, to])
    del recent[3:]
    if battle is None:
        state["positions"].append(f"{key:016x}")
        state["quiet"] += 1
    else:
        state["positions"] = [f"{key:016x}"]
        state["quiet"] = 0
    if battle is not None:
        battle = battle | {"removed": list(battle["removed"])}  # the event shares nothing
    events.append({"type": "ply", "ply": state["ply"], "seat": seat, "uid": uid,
                   "from": frm, "to": to, "battle": battle})
    close_decision(state)
    if flag_taken:
        _finish(state, [seat], "flag_captured", events)
    elif state["quiet"] >= NO_BATTLE_LIMIT:
        _finish(state, [], "no_battle_limit", events)
    else:
        _start_turn(state, 1 - seat, events)


def _chase_after(state: State, uid: str, frm: str, to: str, attack: bool) -> dict[str, Any]:
    """The §5.5 data after ply t+1 (this move), from the data after ply t.

    threat = threatened(t+1); evades = evades(t+1); chasing = chasing(t+1) (evades(t) and
    the piece moved in ply t is in threatened(t+1)); fled = G(t+1), the fled squares F of the
    chase that this evasion continues: {from, to} plus G(t-1) when ply t was chasing;
    fled_prev = G(t).
    """
    prev = state["chase"]
    board = state["board"]
    threat: list[str] = []
    if board.get(to) == uid:
        mine = uid[0]
        threat = [occ for n in NEIGHBORS[to] if (occ := board.get(n)) and occ[0] != mine]
    evades = not attack and uid in prev["threat"]
    last = state["last_ply"]
    chasing = bool(prev["evades"] and last and last["uid"] in threat)
    fled: list[str] = []
    if evades:
        fled = sorted({frm, to}.union(prev["fled_prev"] if prev["chasing"] else ()))
    return {"threat": threat, "evades": evades, "chasing": chasing, "fled": fled,
            "fled_prev": prev["fled"]}


def _start_turn(state: State, seat: int, events: list[Event]) -> None:
    """The turn-start check of §4 for `seat`."""
    state["active"] = seat
    state["to_act"] = [seat]
    if next(_play_moves(state, seat, ordered=False), None) is not None:
        return
    if _has_basic_move(state, 1 - seat):
        _finish(state, [1 - seat], "no_legal_move", events)
    else:
        _finish(state, [], "both_immobile", events)


def _finish(state: State, winners: list[int], reason: str, events: list[Event]) -> None:
    """End the game (§8): result with scores = opponent pieces removed."""
    removed = state["removed"]
    scores = {"0": len(removed["1"]), "1": len(removed["0"])}
    state["result"] = {"winners": winners, "scores": scores, "reason": reason}
    state["phase"] = "game_over"
    state["to_act"] = []
    state["active"] = None
    events.append({"type": "game_over", "result": {
        "winners": list(winners), "scores": dict(scores), "reason": reason}})


def result(state: State) -> Result | None:
    """The result (§8) once the game is over, else None."""
    res = state["result"]
    if res is None:
        return None
    return {"winners": list(res["winners"]), "scores": dict(res["scores"]),
            "reason": res["reason"]}
