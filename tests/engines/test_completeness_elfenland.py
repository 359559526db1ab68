"""Elfenland, race and war: `legal_moves` lists exactly the moves `check` accepts (issue 58
point 7).

At each compared decision the move types it accepts (the "Decision kinds" tables of
docs/rules/elfenland.md and elfenland-war.md) are enumerated as below; every other move type is
probed with its first three candidates (all must be refused). Cards of one type are identical,
so a payment or discard is a multiset (`{type: count}`): that is the equivalence "up to cards
the rules cannot tell apart", and the candidates enumerate multisets, not card lists.

Race (every preset and every variant flag, 2-6 seats):

- counters, cards, centre, rotation, pick: every counter or card type (and raft where a counter
  is asked); `steal`: every seat and one beyond either way; `exchange`: every pair of card
  types, and every left card alone (with and without a null right);
- `plan`: every road id (and an unknown one) with every counter type, each without `hidden`,
  `hidden: false` and `hidden: true`, for `place_counter` and `substitute`; every road with no
  side, a null side, either end and a town off the road for `place_obstacle`; `pass`;
- discards: every sub-multiset of the hand of the owed size and one more or fewer, and one card
  more of each type than the hand holds; `finish_round`: every kept counter (without `hidden`,
  face up, face down, or none) with no discard and with every sub-multiset of the hand;
- `travel` (one step): every road at the boot with every form (`cards`, `caravan`, `ferryman`)
  and every sub-multiset of the hand of at most 4 cards (no single road costs more); every
  other road with an empty and one random payment (SAMPLED: they all start elsewhere); every
  non-stop chain of 2+ distinct roads carrying counters of one type (or all rivers) from the
  boot, and each chain (or first road) with one road of another kind appended, paid with
  nothing or with 1-4 cards of any one type (a mixed payment never pays a chain); SAMPLED
  two-step travels: each accepted single step followed by every road at its end
  paid with up to 3 cards.

Equivalences: an absent optional field is its default (`hidden`, `side`, `right`, a
`finish_round` without `discard`); the free payments of a caravan, the ferryman and a bridge
are picked one card at a time, so a full multiset means its opening (empty) form; a travel of
several steps means its first step followed by the rest (not under the thief, who takes one
step a turn); `discard_random` discards some listed discard, so it must be accepted exactly
when discards are listed. `resign` is always accepted and never listed: not a candidate.

War (both victory modes, and a 5-round limit, at 2-6 seats; the two placements are free
arrangements, `legal_moves_complete: false`, and are not compared):

- `trade_in`: every card type with no town and with every town; trunks: every road id;
  `choose_capital`: every town; picks: every unit type, the cloud and raft;
- `war_move` starts: from every own town every road and every road at it followed by every
  road; from other towns every road at them; combined forms: from every own town over every
  path of the map (a road, or two connected roads) with one or two units of each type there
  (and of a type not there, and two mixed), paid the cost the rules give and one card off;
- `attack` starts: from every own town every road, from other towns every road at them;
  combined forms: every road at an own town with every list of one or two unit types there
  (and one not there), paid the cost the rules give;
- `casualties`: every multiset of the target's units of the lost size and one more or fewer.

Equivalence: a combined movement or attack means its start followed by the picks (`units` and
`cards` absent mean empty), so it must be accepted only where its start is listed.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Hashable, Iterable, Iterator

import pytest

from engines.contract import IllegalMove, Move, State
from engines.elfenland import ENGINE
from engines.elfenland import options as O
from engines.elfenland.board import Board, board
from tests.engines.completeness import (
    ANY_LISTED,
    Completeness,
    canonical_key,
    games,
    preferring,
)

RAFT = "raft"
COUNTERS = ("giant_pig", "elfcycle", "magic_cloud", "unicorn", "troll_wagon", "dragon")
CARDS = (*COUNTERS, RAFT)
UNITS = ("giant_pig", "elfcycle", "unicorn", "troll_wagon", "dragon")
FORMS = ("cards", "caravan", "ferryman")
#: the dearest single road: troll wagon 2 (or a caravan 3) and an obstacle (docs "The board")
MAX_ROAD_PRICE = 4
PROBES = 3

Gen = Callable[[State, int], Iterable[Move]]


# --------------------------------------------------------------------------- multisets


def multisets(bound: dict[str, int], sizes: Iterable[int]) -> Iterator[dict[str, int]]:
    """Every multiset under `bound` (type -> most copies) whose size is in `sizes`."""
    wanted = set(sizes)
    kinds = [t for t in CARDS if bound.get(t, 0) > 0]
    for counts in itertools.product(*(range(bound[t] + 1) for t in kinds)):
        if sum(counts) in wanted:
            yield {t: k for t, k in zip(kinds, counts, strict=True) if k}


def lacking(hand: dict[str, int]) -> list[dict[str, int]]:
    """One more card of a type than the hand holds (for every type): never payable."""
    return [{t: hand.get(t, 0) + 1} for t in CARDS]


def multiset_key(m: dict[str, int] | None) -> tuple[tuple[str, int], ...]:
    return tuple(sorted((m or {}).items()))


# --------------------------------------------------------------------------- the race


def game_board(st: State) -> Board:
    return board(st["options"]["map_data"])


def _discards(kind: str) -> Gen:
    def gen(st: State, seat: int) -> Iterator[Move]:
        hand = st["hand"][seat]
        owed = st["dec"].get("owed", {}).get(str(seat), 1)
        for cards in [*multisets(hand, (owed - 1, owed, owed + 1)), *lacking(hand)]:
            yield {"type": kind, "cards": cards}
        yield {"type": "discard_random"}
    return gen


def _one_card(kind: str, field: str = "card") -> Gen:
    def gen(st: State, seat: int) -> Iterator[Move]:
        for card in CARDS:
            yield {"type": kind, field: card}
    return gen


def _placements(kind: str) -> Gen:
    def gen(st: State, seat: int) -> Iterator[Move]:
        for road in [*range(len(game_board(st).roads)), 99]:
            for counter in COUNTERS:
                yield {"type": kind, "road": road, "counter": counter}
                for hidden in (False, True):
                    yield {"type": kind, "road": road, "counter": counter, "hidden": hidden}
    return gen


def _obstacles(st: State, seat: int) -> Iterator[Move]:
    b = game_board(st)
    for road in b.roads:
        off = next(t for t in b.towns if not road.touches(t))
        yield {"type": "place_obstacle", "road": road.id}
        for side in (None, road.a, road.b, off):
            yield {"type": "place_obstacle", "road": road.id, "side": side}
    yield {"type": "place_obstacle", "road": 99}


def _simple(*moves: Move) -> Gen:
    def gen(st: State, seat: int) -> Iterator[Move]:
        yield from (dict(m) for m in moves)
    return gen


def _steal(st: State, seat: int) -> Iterator[Move]:
    for victim in range(-1, st["n"] + 1):
        yield {"type": "steal", "victim": victim}
    yield {"type": "no_steal"}


def _exchange(st: State, seat: int) -> Iterator[Move]:
    for left in CARDS:
        yield {"type": "exchange", "left": left}
        yield {"type": "exchange", "left": left, "right": None}
        for right in CARDS:
            yield {"type": "exchange", "left": left, "right": right}


def _finish(st: State, seat: int) -> Iterator[Move]:
    hand = st["hand"][seat]
    keeps: list[dict | None] = [None]
    for counter in COUNTERS:
        keeps += [{"counter": counter}, {"counter": counter, "hidden": False},
                  {"counter": counter, "hidden": True}]
    drops = [*multisets(hand, range(sum(hand.values()) + 1)), *lacking(hand)[:1]]
    for keep in keeps:
        yield {"type": "finish_round", "keep": keep}
        for drop in drops:
            yield {"type": "finish_round", "keep": keep, "discard": drop}


def _travel(st: State, seat: int) -> Iterator[Move]:
    """Single steps, chains, then sampled two-step travels (see the module docstring)."""
    b = game_board(st)
    town = st["boot"][seat]
    hand = st["hand"][seat]
    sample = random.Random(st["step"])
    pays = [*multisets(hand, range(MAX_ROAD_PRICE + 1)), *lacking(hand)[:2]]
    for rid in b.roads_at[town]:
        for form in FORMS:
            for pay in pays:
                yield _trip({"road": rid, form: pay})
    for road in b.roads:
        if not road.touches(town):
            for form in FORMS:
                yield _trip({"road": road.id, form: {}})
                yield _trip({"road": road.id, form: sample.choice(pays)})
    for roads in _chains(st, b, town):
        for pay in [{}, *({t: n} for t in CARDS for n in range(1, MAX_ROAD_PRICE + 1))]:
            yield _trip({"roads": roads, "cards": pay})
    yield from _two_steps(st, seat, b, pays)


def _trip(*steps: dict) -> Move:
    return {"type": "travel", "steps": [dict(s) for s in steps]}


def _chains(st: State, b: Board, town: str) -> Iterator[list[int]]:
    """Every chain of 2+ distinct roads from `town` whose roads all carry counters of one type
    (or are all rivers), and each such chain or single road with a road of another kind
    appended."""
    def kind_of(rid: int) -> str | None:
        road = b.roads[rid]
        return RAFT if road.terrain == "river" else st["counters"].get(str(rid))

    def walk(here: str, path: list[int], kind: str) -> Iterator[list[int]]:
        for rid in b.roads_at[here]:
            if rid in path:
                continue
            if kind_of(rid) != kind:
                yield [*path, rid]
                continue
            path.append(rid)
            if len(path) >= 2:
                yield list(path)
            yield from walk(b.roads[rid].other(here), path, kind)
            path.pop()

    for rid in b.roads_at[town]:
        kind = kind_of(rid)
        if kind is not None:
            yield from walk(b.roads[rid].other(town), [rid], kind)


def _two_steps(st: State, seat: int, b: Board, pays: list[dict]) -> Iterator[Move]:
    """Each accepted single `cards` step, then every road at its end with up to 3 cards of
    what is left (SAMPLED: a whole travel may have any number of steps)."""
    town = st["boot"][seat]
    hand = st["hand"][seat]
    for rid in b.roads_at[town]:
        for pay in pays:
            first = {"road": rid, "cards": pay}
            if not _accepted(st, seat, _trip(first)) or not pay:
                continue
            left = {t: k - pay.get(t, 0) for t, k in hand.items() if k > pay.get(t, 0)}
            far = b.roads[rid].other(town)
            for second in b.roads_at[far]:
                for more in multisets(left, range(1, 4)):
                    yield _trip(first, {"road": second, "cards": more})


def _accepted(st: State, seat: int, move: Move) -> bool:
    try:
        ENGINE.check(st, seat, move)
    except IllegalMove:
        return False
    return True


RACE_GENS: dict[str, Gen] = {
    "take_counter": _one_card("take_counter", "counter"),
    "draw_counter": _simple({"type": "draw_counter"}),
    "take_card": _one_card("take_card"),
    "draw_card": _simple({"type": "draw_card"}),
    "discard": _discards("discard"),
    "discard_public": _discards("discard_public"),
    "centre_put": _one_card("centre_put"),
    "centre_take": _one_card("centre_take"),
    "pass_counter": _one_card("pass_counter", "counter"),
    "place_counter": _placements("place_counter"),
    "substitute": _placements("substitute"),
    "place_obstacle": _obstacles,
    "pass": _simple({"type": "pass"}),
    "object": _simple({"type": "object"}),
    "allow": _simple({"type": "allow"}),
    "vote": _simple({"type": "vote", "allow": True}, {"type": "vote", "allow": False}),
    "exchange": _exchange,
    "travel": _travel,
    "end_move": _simple({"type": "end_move"}),
    "pick": _one_card("pick"),
    "steal": _steal,
    "no_steal": _simple({"type": "no_steal"}),
    "finish_round": _finish,
}

#: docs/rules/elfenland.md "Decision kinds": kind -> the move types it takes
RACE_ACCEPTS: dict[str, tuple[str, ...]] = {
    "draft": ("take_counter", "draw_counter"),
    "qoc_draft": ("take_counter", "draw_counter", "take_card", "draw_card"),
    "discard": ("discard",),
    "discard_public": ("discard_public",),
    "centre_put": ("centre_put",),
    "centre_take": ("centre_take",),
    "rotation": ("pass_counter",),
    "plan": ("place_counter", "place_obstacle", "substitute", "pass"),
    "objection_window": ("object", "allow"),
    "vote": ("vote",),
    "junk_exchange": ("exchange",),
    "move": ("travel", "end_move"),
    "pick": ("pick",),
    "steal": ("steal", "no_steal"),
    "forced_step": ("travel",),
    "finish_round": ("finish_round",),
}


def by_kind(gens: dict[str, Gen], accepts: dict[str, tuple[str, ...]],
            kind_of: Callable[[State], str]) -> Gen:
    """All candidates of the types the decision takes, and a few of every other type."""
    def candidates(st: State, seat: int) -> Iterator[Move]:
        taken = accepts.get(kind_of(st), ())
        for name, gen in gens.items():
            moves = gen(st, seat)
            yield from moves if name in taken else itertools.islice(moves, PROBES)
    return candidates


def race_key(st: State, seat: int, move: Move) -> Hashable:
    """The race's equivalence (see the module docstring)."""
    kind = move["type"]
    if kind == "discard_random":
        return ANY_LISTED if st["dec"]["kind"] in ("discard", "discard_public") else (kind,)
    if kind in ("place_counter", "substitute"):
        return kind, move["road"], move["counter"], bool(move.get("hidden", False))
    if kind == "place_obstacle":
        return kind, move["road"], move.get("side")
    if kind == "exchange":
        return kind, move["left"], move.get("right")
    if kind == "finish_round":
        keep = move["keep"]
        kept = None if keep is None else (keep["counter"], bool(keep.get("hidden", False)))
        return kind, kept, multiset_key(move.get("discard"))
    if kind == "travel":
        return _travel_key(st, move["steps"])
    if kind in ("discard", "discard_public"):
        return kind, multiset_key(move["cards"])
    return canonical_key(st, seat, move)


def _travel_key(st: State, steps: list[dict]) -> Hashable:
    if len(steps) > 1 and st["options"]["thief"]:
        return "travel", "several steps", str(steps)  # one step a turn: never listed
    step = steps[0]
    if "roads" in step:
        return "travel", tuple(step["roads"]), "cards", multiset_key(step["cards"])
    form = next(f for f in FORMS if f in step)
    free = form != "cards" or str(step["road"]) in st["bridges"]
    return "travel", step["road"], form, () if free else multiset_key(step[form])


RACE_PRESETS = [dict(v.options) for v in ENGINE.variants if v.options.get("mode") != "war"]
RACE_MIXES = [
    {"eight-new-tickets": True, "thief": True, "non-stop": True, "ferryman": True,
     "lost-tickets": True},
    {"quality-of-choice": True, "objection": True, "substitution": True, "indiana-jones": True,
     "station-street": True, "hellish-road": True, "construction-works": True},
    {"tickets-on-demand": True, "thief": True, "indiana-jones": True, "non-stop": True,
     "travel-monopoly": True, "trunk-round-limit": True, "destination": True},
    {"junk-exchange": True, "centre": True, "circular-rotation": True, "objection": True,
     "no-caravan": True, "trunk-first-three-rounds": True, "rounds": 3},
]
RACE_BUSY = ("travel", "pick", "place_counter", "place_obstacle", "substitute", "steal",
             "object", "take_card", "exchange")


def race_spec() -> Completeness:
    gens = by_kind(RACE_GENS, RACE_ACCEPTS, lambda st: st["dec"]["kind"])
    return Completeness(ENGINE, gens, race_key, preferring(RACE_BUSY), rate=0.15)


RACE_SETS = list(enumerate(RACE_PRESETS + RACE_MIXES))


def _name(case: tuple[int, dict]) -> str:
    return "-".join(sorted(k for k, v in case[1].items() if v)) or "base"


def test_every_race_variant_flag_is_played() -> None:
    flags = {k for _, opts in RACE_SETS for k, v in opts.items() if v is True}
    assert set(O.VARIANT_IDS) | {"destination"} <= flags


@pytest.mark.parametrize("case", RACE_SETS, ids=_name)
def test_race_listing_is_exactly_what_check_accepts(case: tuple[int, dict]) -> None:
    """Seat counts cycle through 2-6 over the games and the option sets."""
    index, options = case
    spec = race_spec()
    for seed in range(games(1)):
        spec.play(options, 2 + (seed + index) % 5, seed)
    kinds = set(spec.compared)
    assert {"plan", "move"} <= kinds and kinds & {"draft", "qoc_draft"}, spec.compared


def test_every_race_decision_kind_is_compared() -> None:
    """Games whose variants make the rarer decisions likely (thefts, votes, the centre)."""
    spec = race_spec()
    for seed, (options, seats) in enumerate([(RACE_MIXES[0], 4), (RACE_MIXES[3], 5),
                                             (RACE_MIXES[1], 3)]):
        spec.play(options, seats, seed)
    assert set(RACE_ACCEPTS) <= set(spec.compared), spec.compared


# --------------------------------------------------------------------------- the war


def _towns(st: State) -> tuple[str, ...]:
    return game_board(st).towns


def _own(st: State, seat: int) -> list[str]:
    return [t for t, g in st["garrison"].items() if g["seat"] == seat]


def _trades(st: State, seat: int) -> Iterator[Move]:
    for card in CARDS:
        yield {"type": "trade_in", "card": card}
        for town in _towns(st):
            yield {"type": "trade_in", "card": card, "town": town}


def _road_moves(kind: str) -> Gen:
    def gen(st: State, seat: int) -> Iterator[Move]:
        for road in [*range(len(game_board(st).roads)), 99]:
            yield {"type": kind, "road": road}
    return gen


def _capitals(st: State, seat: int) -> Iterator[Move]:
    for town in [*_towns(st), "atlantis"]:
        yield {"type": "choose_capital", "town": town}


def _picks(st: State, seat: int) -> Iterator[Move]:
    for unit in CARDS:
        yield {"type": "pick_unit", "unit": unit}


def _casualties(st: State, seat: int) -> Iterator[Move]:
    fight = st["fight"] or {"target": None, "losses": 1}
    garrison = st["garrison"].get(fight["target"], {"units": {}})["units"]
    losses = fight["losses"]
    bound = {t: garrison.get(t, 0) + 1 for t in UNITS}
    for units in multisets(bound, (losses - 1, losses, losses + 1)):
        yield {"type": "casualties", "units": units}


def _paths(b: Board, origin: str) -> Iterator[list[int]]:
    """Every road at `origin`, and every such road followed by a road at its far end."""
    for rid in b.roads_at[origin]:
        yield [rid]
        for second in b.roads_at[b.roads[rid].other(origin)]:
            yield [rid, second]


def rafts_leaving(b: Board, rid: int, town: str) -> int:
    """docs "The board": a river costs 1 raft leaving its upstream end `a`, 2 leaving `b`; a
    lake 2 either way (0 for a land road)."""
    road = b.roads[rid]
    if road.terrain == "river":
        return b.raft_cost["river_downstream" if town == road.a else "river_upstream"]
    return b.raft_cost["lake"] if road.terrain == "lake" else 0


def movement_cost(b: Board, origin: str, roads: list[int], units: dict[str, int]) -> dict:
    """elfenland-war.md "Movement": one land road is free; two cost, per unit of type t,
    twice the chart cost of t on that terrain in t cards; water costs each unit the rafts of
    each road it crosses."""
    first = b.roads[roads[0]]
    if first.land:
        if len(roads) == 1:
            return {}
        chart = b.travel_cost
        out = {t: 2 * chart[t].get(first.terrain, 0) * k for t, k in units.items()}
        return {t: k for t, k in out.items() if k}
    town, rafts = origin, 0
    for rid in roads:
        rafts += rafts_leaving(b, rid, town)
        town = b.roads[rid].other(town)
    n = sum(units.values())
    return {RAFT: rafts * n} if n else {}


def _groups(present: dict[str, int]) -> list[dict[str, int]]:
    """One or two units of each type in a town, one of a type not there, two mixed."""
    kinds = [t for t in UNITS if present.get(t)]
    absent = [t for t in UNITS if not present.get(t)][:1]
    out = [{t: k} for t in kinds for k in (1, 2)] + [{t: 1} for t in absent]
    out += [{a: 1, c: 1} for a, c in itertools.combinations(kinds, 2)]
    return out


def _movements(st: State, seat: int) -> Iterator[Move]:
    b = game_board(st)
    own = set(_own(st, seat))
    for town in _towns(st):
        if town not in own:
            for rid in b.roads_at[town]:
                yield {"type": "war_move", "from": town, "roads": [rid]}
            continue
        for rid in range(len(b.roads)):
            yield {"type": "war_move", "from": town, "roads": [rid], "units": {}, "cards": {}}
        for first in b.roads_at[town]:
            for second in range(len(b.roads)):
                yield {"type": "war_move", "from": town, "roads": [first, second]}
    yield from _combined_movements(st, seat, b, own)


def _combined_movements(st: State, seat: int, b: Board, own: set[str]) -> Iterator[Move]:
    for town in sorted(own):
        present = st["garrison"][town]["units"]
        for roads in _paths(b, town):
            for units in _groups(present):
                cost = movement_cost(b, town, roads, units)
                for cards in (cost, _off_by_one(cost, units)):
                    yield {"type": "war_move", "from": town, "roads": roads, "units": units,
                           "cards": cards}


def _off_by_one(cost: dict[str, int], units: dict[str, int]) -> dict[str, int]:
    """A payment one card off the cost: one fewer of its first type, or one card too many."""
    if not cost:
        return {next(iter(units)): 1}
    kind, k = next(iter(cost.items()))
    return {**cost, kind: k - 1} if k > 1 else {t: v for t, v in cost.items() if t != kind}


def _attacks(st: State, seat: int) -> Iterator[Move]:
    b = game_board(st)
    own = set(_own(st, seat))
    for town in _towns(st):
        roads = range(len(b.roads)) if town in own else b.roads_at[town]
        for rid in roads:
            yield {"type": "attack", "from": town, "road": rid, "units": [], "cards": {}}
        if town in own:
            yield from _combined_attacks(st, b, town)


def _combined_attacks(st: State, b: Board, town: str) -> Iterator[Move]:
    present = st["garrison"][town]["units"]
    kinds = [t for t in UNITS if present.get(t)] + [t for t in UNITS if not present.get(t)][:1]
    lists = [[t] for t in kinds] + [list(p) for p in itertools.product(kinds, repeat=2)]
    for rid in b.roads_at[town]:
        rafts = rafts_leaving(b, rid, town)
        for units in lists:
            cards = {RAFT: rafts * len(units)} if rafts else {}
            yield {"type": "attack", "from": town, "road": rid, "units": units, "cards": cards}


WAR_GENS: dict[str, Gen] = {
    "choose_capital": _capitals,
    "place_trunk": _road_moves("place_trunk"),
    "remove_trunk": _road_moves("remove_trunk"),
    "pass": _simple({"type": "pass"}),
    "trade_in": _trades,
    "war_move": _movements,
    "attack": _attacks,
    "pick_unit": _picks,
    "done": _simple({"type": "done"}),
    "cancel": _simple({"type": "cancel"}),
    "casualties": _casualties,
    "pass_turn": _simple({"type": "pass_turn"}),
    "end_turn": _simple({"type": "end_turn"}),
}

#: docs/rules/elfenland-war.md "Decision kinds": kind -> the move types it takes
WAR_ACCEPTS: dict[str, tuple[str, ...]] = {
    "war_capital": ("choose_capital",),
    "war_opening": ("place_trunk", "pass"),
    "war_turn": ("trade_in", "war_move", "attack", "place_trunk", "remove_trunk",
                 "pass_turn"),
    "war_pick": ("pick_unit", "cancel"),
    "war_pick_more": ("pick_unit", "done"),
    "war_casualties": ("casualties",),
    "war_attack_again": ("attack", "end_turn"),
    "war_convert": ("trade_in", "end_turn"),
}


def war_key(st: State, seat: int, move: Move) -> Hashable:
    """A combined movement or attack stands for its start (see the module docstring)."""
    kind = move["type"]
    if kind == "war_move":
        return kind, move["from"], tuple(move["roads"])
    if kind == "attack":
        return kind, move["from"], move["road"]
    return canonical_key(st, seat, move)


WAR_BUSY = ("war_move", "attack", "pick_unit", "trade_in", "remove_trunk", "casualties")


def war_spec() -> Completeness:
    gens = by_kind(WAR_GENS, WAR_ACCEPTS, lambda st: st["phase"])
    return Completeness(ENGINE, gens, war_key, preferring(WAR_BUSY, 0.8), rate=0.15)


WAR_SETS = [{"war-victory": "capitals"}, {"war-victory": "conditions"},
            {"war-victory": "conditions", "war-max-rounds": 5}]


@pytest.mark.parametrize("options", WAR_SETS, ids=lambda o: "-".join(map(str, o.values())))
@pytest.mark.parametrize("seats", [2, 3, 4, 5, 6])
def test_war_listing_is_exactly_what_check_accepts(seats: int, options: dict) -> None:
    spec = war_spec()
    for seed in range(games(1)):
        spec.play({"mode": "war", **options}, seats, seed)
    assert {"war_capital", "war_turn", "war_pick"} <= set(spec.compared), spec.compared
    assert not {"war_place_initial", "war_place_rest"} & set(spec.compared)


def test_every_war_decision_kind_is_compared() -> None:
    """Two games reach every decision of the war but the placements (casualties, repeated
    attacks, conversions included)."""
    spec = war_spec()
    for seed in range(2):
        spec.play({"mode": "war"}, 3, seed)
    assert set(WAR_ACCEPTS) <= set(spec.compared), spec.compared
