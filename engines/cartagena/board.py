"""Cartagena's board: options, setup, the route and its movement primitives (spec §2.5, §3, §5.1).

State (plain JSON)::

    options    validated options; n seats; step (contract.close_decision)
    route      escape | tortuga | complete; squares: symbol per square (index 0 unused)
    tunnel     the number of tunnel squares (complete: T; the others: all squares)
    layout     [{"tile", "side", "reversed"}] in route order
    occ        pirates per square (index 0 unused), kept with every move
    pirates    {"0": {location: count}}; a location is "prison" | "wreck" | "ship" | "cove"
               or a square number written as a string
    shore      cartagena | tortuga (complete only, else None)
    hands, deck (top first), discard (oldest first)
    active, actions, captain, free_sail_used, phase (action | discard | game_over), to_act
    owed, pending  the Rascals discard: cards still owed, cards named so far, per seat
    resigned, result
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engines.cartagena.data import DATASETS, TileData
from engines.cartagena.texts import fail
from engines.contract import JSON, IllegalMove, OptionSpec, Rng, State

ROUTES = ("escape", "tortuga", "complete")
DRAW_MODES = ("back", "morgan", "both")
OPTIONS: dict[str, OptionSpec] = {
    "route": OptionSpec("escape", ROUTES, "escape (the base game), tortuga (the jungle, from "
                        "the wreck to the cove) or complete (tunnel, ship and jungle) (§9)."),
    "tiles": OptionSpec(6, None, "Board tiles: 4-8 for escape and tortuga; for complete "
                        "{\"tunnel\": t, \"jungle\": j}, each >= 3, t + j <= 8 (default 3 + 3)."),
    "pirates": OptionSpec(6, (4, 5, 6), "Pirates per player (the whole crew must escape)."),
    "draw_mode": OptionSpec({"tunnel": "back", "jungle": "back"}, None,
                            "Per part of the route: back (move back to draw), morgan (move "
                            "another's pirate forward to draw) or both (§9 Morgan)."),
    "rascals": OptionSpec(False, (False, True), "Rascals: a dark card played makes the others "
                          "discard down to 7 (§5.4)."),
    "witch": OptionSpec(False, (False, True), "The Caribbean Witch: spells and chest tokens "
                        "(§5.5, §5.6)."),
    "tile_data": DATASETS.option("The tile sequences and card set (house data, §2.3)."),
}
HAND = 6
FINISH = {"escape": "ship", "tortuga": "cove", "complete": "cove"}
START = {"escape": "prison", "tortuga": "wreck", "complete": "prison"}


def validate_options(options: Mapping[str, JSON], seats: int) -> dict[str, JSON]:
    raw = dict(options)
    route = raw.get("route", "escape")
    if "tiles" not in raw and route == "complete":
        raw["tiles"] = {"tunnel": 3, "jungle": 3}
    out = _fill(raw)
    tiles = out["tiles"]
    if out["route"] == "complete":
        if not (isinstance(tiles, dict) and set(tiles) == {"tunnel", "jungle"}
                and all(_int(v) and v >= 3 for v in tiles.values())
                and tiles["tunnel"] + tiles["jungle"] <= 8):
            raise IllegalMove("invalid_options", "complete: tiles is {\"tunnel\": t, "
                              "\"jungle\": j} with t, j >= 3 and t + j <= 8.")
    elif not (_int(tiles) and 4 <= tiles <= 8):
        raise IllegalMove("invalid_options", "tiles is an integer 4-8 for this route.")
    mode = out["draw_mode"]
    if not (isinstance(mode, dict) and set(mode) == {"tunnel", "jungle"}
            and all(v in DRAW_MODES for v in mode.values())):
        raise IllegalMove("invalid_options", "draw_mode is {\"tunnel\": m, \"jungle\": m} "
                          f"with m in {list(DRAW_MODES)}.")
    DATASETS.load(out["tile_data"])
    return out


def _fill(raw: dict[str, Any]) -> dict[str, JSON]:
    from engines.contract import fill_options

    return fill_options(OPTIONS, raw)


def _int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def data_of(state: State) -> TileData:
    return DATASETS.load(state["options"]["tile_data"])


def setup(options: Mapping[str, JSON], n: int, rng: Rng) -> State:
    """§3: the board by two audited draws, pirates at the start, a secret deal."""
    data = DATASETS.load(options["tile_data"])
    route = options["route"]
    order = rng.shuffle("board-tiles", list(range(1, 9)))
    if route == "complete":
        t, j = options["tiles"]["tunnel"], options["tiles"]["jungle"]
        placed = [(tile, "tunnel") for tile in order[:t]] + [
            (tile, "jungle") for tile in order[t:t + j]]
    else:
        side = "jungle" if route == "tortuga" else "tunnel"
        placed = [(tile, side) for tile in order[:options["tiles"]]]
    layout, squares = [], [""]
    for tile, side in placed:
        reversed_ = rng.randint("tile-orientation", 0, 1) == 1
        symbols = data.tiles[tile][side]
        squares += list(reversed(symbols) if reversed_ else symbols)
        layout.append({"tile": tile, "side": side, "reversed": reversed_})
    tunnel = 6 * sum(1 for _, side in placed if side == "tunnel") if route == "complete" \
        else len(squares) - 1
    chests: dict[str, Any] = {"chests": {}, "chests_aside": [], "chests_opened": []}
    if options["witch"]:
        tokens = rng.shuffle("chest-tokens", list(data.chests), secret=True)
        on = [q for q in range(1, len(squares)) if squares[q] == "chest"]
        chests = {"chests": {str(q): t for q, t in zip(on, tokens, strict=False)},
                  "chests_aside": tokens[len(on):], "chests_opened": []}
    cards = rng.shuffle("deck-initial", list(data.cards), secret=True)
    hands: dict[str, list[str]] = {str(s): [] for s in range(n)}
    for i in range(HAND * n):
        hands[str(i % n)].append(cards[i])
    start = START[route]
    return {
        "options": dict(options), "n": n, "step": 0, "route": route, "squares": squares,
        "tunnel": tunnel, "layout": layout, "occ": [0] * len(squares),
        "pirates": {str(s): {start: options["pirates"]} for s in range(n)},
        "shore": "cartagena" if route == "complete" else None,
        "hands": hands, "deck": cards[HAND * n:], "discard": [],
        "active": 0, "actions": 0, "captain": False, "free_sail_used": False,
        "phase": "action", "to_act": [0], "owed": {}, "pending": {}, "end_after_discard": False,
        "resigned": [False] * n, "result": None, **chests,
    }


# ---- locations and segments ------------------------------------------------------------


def loc_key(loc: Any) -> str:
    return str(loc)


def loc_value(key: str) -> int | str:
    return int(key) if key.isdigit() else key


def last_square(state: State) -> int:
    return len(state["squares"]) - 1


def part_of(state: State, loc: int | str) -> str:
    route = state["route"]
    if route != "complete":
        return "jungle" if route == "tortuga" else "tunnel"
    if loc == "prison":
        return "tunnel"
    if loc == "cove":
        return "jungle"
    if loc == "ship":
        return "tunnel" if state["shore"] == "cartagena" else "jungle"
    return "tunnel" if int(loc) <= state["tunnel"] else "jungle"


def segment(state: State, part: str) -> tuple[str, int, int, str]:
    """(start, first square, last square, end) of a part of the route (§2.5)."""
    route = state["route"]
    if route == "escape":
        return "prison", 1, last_square(state), "ship"
    if route == "tortuga":
        return "wreck", 1, last_square(state), "cove"
    if part == "tunnel":
        return "prison", 1, state["tunnel"], "ship"
    return "ship", state["tunnel"] + 1, last_square(state), "cove"


def aboard(state: State, seat: int) -> int:
    count: int = state["pirates"][str(seat)].get("ship", 0)
    return count if state["route"] == "complete" else 0


def _not_at_end(state: State, loc: int | str) -> tuple[str, int, int, str]:
    start, first, last, end = seg = segment(state, part_of(state, loc))
    if loc == end:
        if state["route"] == "complete" and loc == "ship":
            raise fail("ship_not_at_tortuga")
        raise fail("pirate_at_finish")
    return seg


def _entry(state: State, seat: int, dest: int | str, movers: int = 1) -> None:
    code = _entry_refusal(state, seat, dest, movers)
    if code:
        raise fail(code)


def _entry_refusal(state: State, seat: int, dest: int | str, movers: int = 1) -> str | None:
    """Why `movers` pirates of `seat` may not enter `dest` (only the ship has limits)."""
    if state["route"] == "complete" and dest == "ship":
        if state["shore"] != "cartagena":
            return "ship_not_at_cartagena"
        if aboard(state, seat) + movers > 3:
            return "ship_crew_limit"
    return None


def forward(state: State, seat: int, loc: int | str, symbol: str) -> int | str:
    """Forward(L, s): the first free square of that symbol ahead, else the segment's end."""
    start, first, last, end = _not_at_end(state, loc)
    squares, occ = state["squares"], state["occ"]
    for q in range(first if loc == start else int(loc) + 1, last + 1):
        if squares[q] == symbol and occ[q] == 0:
            return q
    _entry(state, seat, end)
    return end


def forward_all(state: State, seat: int, loc: int | str) -> dict[str, int | str]:
    """Forward(L, s) for every symbol s at once (one scan; for listing): symbol -> where a
    card of it takes the pirate; a symbol is missing where the move is illegal."""
    start, first, last, end = segment(state, part_of(state, loc))
    if loc == end:
        return {}
    squares, occ = state["squares"], state["occ"]
    found: dict[str, int | str] = {}
    for q in range(first if loc == start else int(loc) + 1, last + 1):
        if occ[q] == 0 and squares[q] not in found:
            found[squares[q]] = q
            if len(found) == 6:
                return found
    if _entry_refusal(state, seat, end):
        return found
    for symbol in _data_symbols(state):
        if symbol not in found:
            found[symbol] = end
    return found


def _data_symbols(state: State) -> tuple[str, ...]:
    return DATASETS.load(state["options"]["tile_data"]).symbols


class Span:
    """One part of the route as `legal_moves` sees it: its ends and, from one scan, the lowest
    and highest squares holding 1 or 2 pirates (where moving back and Morgan can land)."""

    __slots__ = ("start", "first", "last", "end", "low", "high")

    def __init__(self, state: State, part: str) -> None:
        self.start, self.first, self.last, self.end = segment(state, part)
        occ = state["occ"]
        self.low = self.high = None
        for q in range(self.first, self.last + 1):
            if 0 < occ[q] < 3:
                self.low = q
                break
        for q in range(self.last, (self.low or self.last + 1) - 1, -1):
            if 0 < occ[q] < 3:
                self.high = q
                break

    def can_back(self, loc: int | str) -> bool:
        """Whether `back(state, loc)` finds a square (its only failures)."""
        if loc == self.start or self.low is None:
            return False
        return loc == self.end or self.low < int(loc)

    def can_morgan(self, state: State, seat: int, loc: int | str) -> bool:
        """Whether `morgan_dest(state, seat, loc)` succeeds."""
        if loc == self.end:
            return False
        if self.high is not None and (loc == self.start or self.high > int(loc)):
            return True
        return _entry_refusal(state, seat, self.end) is None


def spans(state: State) -> dict[str, Span]:
    """The parts of the route by name (one for escape and tortuga, two for complete)."""
    if state["route"] == "complete":
        return {"tunnel": Span(state, "tunnel"), "jungle": Span(state, "jungle")}
    part = "jungle" if state["route"] == "tortuga" else "tunnel"
    return {part: Span(state, part)}


def back(state: State, loc: int | str) -> tuple[int, int]:
    """Back(L): the nearest square behind with 1 or 2 pirates, and that count."""
    start, first, last, end = segment(state, part_of(state, loc))
    if loc == start:
        if state["route"] == "complete" and loc == "ship":
            raise fail("cannot_move_back_from_ship")
        raise fail("no_square_behind")
    occ = state["occ"]
    for q in range(last if loc == end else int(loc) - 1, first - 1, -1):
        if occ[q] in (1, 2):
            return q, occ[q]
    raise fail("no_square_behind")


def morgan_dest(state: State, seat: int, loc: int | str) -> tuple[int | str, int]:
    """MorganDest(L): the first square ahead with 1 or 2 pirates (draw that many), else the
    end (draw 2)."""
    start, first, last, end = _not_at_end(state, loc)
    occ = state["occ"]
    for q in range(first if loc == start else int(loc) + 1, last + 1):
        if occ[q] in (1, 2):
            return q, occ[q]
    _entry(state, seat, end)
    return end, 2


def move_pirate(state: State, seat: int, frm: int | str, to: int | str) -> None:
    own = state["pirates"][str(seat)]
    key = loc_key(frm)
    own[key] -= 1
    if not own[key]:
        del own[key]
    own[loc_key(to)] = own.get(loc_key(to), 0) + 1
    if isinstance(frm, int):
        state["occ"][frm] -= 1
    if isinstance(to, int):
        state["occ"][to] += 1


def escaped(state: State, seat: int) -> bool:
    count: int = state["pirates"][str(seat)].get(FINISH[state["route"]], 0)
    return count == state["options"]["pirates"]


def draw(state: State, seat: int, k: int, rng: Rng, events: list[dict[str, Any]]
         ) -> list[str]:
    """Draw(seat, k): the pile becomes the deck when the deck runs out; a short draw is fine."""
    drawn: list[str] = []
    for _ in range(k):
        if not state["deck"] and state["discard"]:
            order = rng.shuffle("deck-reshuffle", list(range(len(state["discard"]))),
                                secret=True)
            state["deck"] = [state["discard"][i] for i in order]
            state["discard"] = []
            state.pop("known_deck", None)  # a lantern's knowledge ends with a reshuffle
            events.append({"type": "deck_reshuffled", "cards": len(state["deck"])})
        if not state["deck"]:
            break
        drawn.append(state["deck"].pop(0))
    state["hands"][str(seat)] += drawn
    if drawn:
        events.append({"type": "drew", "seat": seat, "cards": drawn})
    return drawn
