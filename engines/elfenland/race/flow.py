"""The race game's round: the automatic steps between decisions, phase by phase (spec §4.1).

`advance(state, rng, events)` runs automatic steps until a decision needs a seat (it sets
`state["dec"]`) or the game ends. Each phase handler returns True when it has opened a decision
and False when it has moved the state to another phase. Moves (`moves.py`) change the state and
then call `advance`; a phase resumes from `state["phase"]` and `state["cursor"]`.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from functools import cache

from engines.contract import Event, Rng, State
from engines.elfenland import cards
from engines.elfenland.board import board
from engines.elfenland.race import state as S
from engines.elfenland.race.planning import close_objection, may_place_obstacle
from engines.elfenland.race.scoring import finish_game
from engines.elfenland.race.state import COUNTER_LIMIT, HAND_LIMIT, opt
from engines.elfenland.race.travel import any_step

Phase = Callable[[State, Rng, list[Event]], bool]


def open_decision(st: State, kind: str, to_act: list[int], **context: object) -> bool:
    """Ask `to_act` for a decision of `kind` (context for the view); always True."""
    st["dec"] = {"kind": kind, "to_act": to_act, **context}
    st["pending"] = {}
    return True


def advance(st: State, rng: Rng, events: list[Event]) -> None:
    """Play automatic steps until a seat must decide or the game is over."""
    while st["result"] is None:
        if PHASES[st["phase"]](st, rng, events):
            return


# ---- R0-R3: round start, deal, secret counter, draft --------------------------------------------

def _round_start(st: State, rng: Rng, events: list[Event]) -> bool:
    events.append({"type": "round_started", "round": st["round"], "start": st["start"]})
    b = S.the_board(st)
    if opt(st, "travel-monopoly"):
        towns = rng.shuffle("monopoly-towns", list(b.card_towns))
        st["monopoly"] = towns[:2]
        st["visited"] = [[] for _ in range(st["n"])]
        events.append({"type": "monopoly_towns", "towns": st["monopoly"]})
    S.shuffle_deck(st, rng, events)
    seats = list(S.order_from(st, st["start"]))
    goal = {s: S.target(st, s) for s in seats}
    if opt(st, "quality-of-choice"):
        _secret_counters(st, rng, events, seats)
        S.deal_cards(st, events, {s: max(goal[s] - 4, 0) for s in seats}, fill_to=True)
        st["card_display"] = [S.deck_pop(st) for _ in range(min(3, len(st["deck"])))]
        st["quota"] = [[0, max(goal[s] - sum(st["hand"][s].values()), 0)] if s in goal
                       else [3, 0] for s in range(st["n"])]
        events.append({"type": "card_display", "cards": list(st["card_display"])})
        st["phase"], st["cursor"] = "qoc", 0
        return False
    if opt(st, "tickets-on-demand"):
        S.deal_cards(st, events, {s: goal[s] + 4 for s in seats}, fill_to=True)
    elif opt(st, "eight-new-tickets"):
        S.deal_cards(st, events, goal, fill_to=False)
    else:
        S.deal_cards(st, events, goal, fill_to=True)
    _secret_counters(st, rng, events, seats)
    st["phase"], st["cursor"] = "draft", 0
    return False


def _secret_counters(st: State, rng: Rng, events: list[Event], seats: list[int]) -> None:
    """R2: one face-down counter per seat in turn order, unless the pile is empty or the seat
    holds 5 (§4.1)."""
    for s in seats:
        if S.held(st, s) >= COUNTER_LIMIT:
            continue
        kind = S.draw_counter(st, rng, "counter-secret")
        if kind is None:
            break
        cards.add(st["hidden"][s], kind)
        events.append({"type": "secret_counter", "seat": s,
                       "private": {str(s): {"counter": kind}}})


def can_draft(st: State, seat: int) -> bool:
    """R3: a seat drafts unless it holds 5 counters or display and pile are both empty."""
    return S.held(st, seat) < COUNTER_LIMIT and bool(st["display"] or st["pile"])


def _draft(st: State, rng: Rng, events: list[Event]) -> bool:
    n = st["n"]
    while st["cursor"] < 3 * n:
        s = (st["start"] + st["cursor"]) % n
        if not st["resigned"][s] and can_draft(st, s):
            return open_decision(st, "draft", [s], draft_pass=st["cursor"] // n + 1)
        st["cursor"] += 1
    st["phase"] = "hellish"
    return False


def qoc_counters_open(st: State, seat: int) -> bool:
    """QoC: the seat may still take a counter (quota 3, limit 5, something to take)."""
    return st["quota"][seat][0] < 3 and can_draft(st, seat)


def qoc_cards_open(st: State, seat: int) -> bool:
    """QoC: the seat may still take a card (its card quota, something to take)."""
    quota = st["quota"][seat]
    return quota[1] > 0 and bool(st["card_display"] or st["deck"])


def _qoc(st: State, rng: Rng, events: list[Event]) -> bool:
    n = st["n"]
    while st["cursor"] < 7 * n:
        s = (st["start"] + st["cursor"]) % n
        if not st["resigned"][s] and (qoc_counters_open(st, s) or qoc_cards_open(st, s)):
            return open_decision(st, "qoc_draft", [s], draft_pass=st["cursor"] // n + 1)
        st["cursor"] += 1
    st["phase"] = "hellish"
    return False


# ---- R3x: hellish road, ticket discards, centre, rotation ---------------------------------------

def land_paths(st: State, src: str, dst: str) -> list[list[int]]:
    """Every shortest path from `src` to `dst` over land roads, as road-id lists, sorted (new
    lists: the hellish road keeps one in the state)."""
    return [list(path) for path in _land_paths(st["options"]["map_data"], src, dst)]


@cache
def _land_paths(map_name: str, src: str, dst: str) -> tuple[tuple[int, ...], ...]:
    """`land_paths` on a map: they depend on the map alone, so each pair is searched once."""
    b = board(map_name)
    dist = {src: 0}
    queue = deque([src])
    while queue:
        town = queue.popleft()
        for rid in b.roads_at[town]:
            road = b.roads[rid]
            if road.land:
                other = road.other(town)
                if other not in dist:
                    dist[other] = dist[town] + 1
                    queue.append(other)
    if dst not in dist:
        return ()
    paths: list[list[int]] = []

    def walk(town: str, path: list[int]) -> None:
        if town == dst:
            paths.append(list(path))
            return
        for rid in b.roads_at[town]:
            road = b.roads[rid]
            other = road.other(town)
            if road.land and dist.get(other) == dist[town] + 1 and dist[other] <= dist[dst]:
                path.append(rid)
                walk(other, path)
                path.pop()
    walk(src, [])
    return tuple(tuple(path) for path in sorted(paths))


def _hellish(st: State, rng: Rng, events: list[Event]) -> bool:
    st["phase"] = "tickets"
    if not opt(st, "hellish-road"):
        return False
    b = S.the_board(st)
    towns = rng.shuffle("hellish-towns", list(b.card_towns))[:2]
    paths = land_paths(st, towns[0], towns[1])
    path = paths[rng.randint("hellish-path", 0, len(paths) - 1)] if len(paths) > 1 else (
        paths[0] if paths else [])
    laid: dict[str, str | None] = {}
    here = towns[0]
    for rid in path:
        road = b.roads[rid]
        aside: dict[str, int] = {}
        placed = None
        while any(cards.allowed(b, k, road.terrain) for k in st["pile"]):
            kind = S.draw_counter(st, rng, "hellish-counter")
            assert kind is not None
            if cards.allowed(b, kind, road.terrain):
                placed = kind
                break
            cards.add(aside, kind)
        cards.merge(st["pile"], aside)
        if placed is not None and str(rid) not in st["counters"]:
            st["counters"][str(rid)] = placed
        laid[str(rid)] = placed
        here = road.other(here)
    st["hellish"] = {"towns": towns, "path": path, "counters": laid}
    events.append({"type": "hellish_road", "towns": towns, "path": path, "counters": laid})
    return False


def _tickets(st: State, rng: Rng, events: list[Event]) -> bool:
    st["phase"], st["cursor"] = "centre_put", 0
    if not (opt(st, "tickets-on-demand") or opt(st, "eight-new-tickets")):
        return False
    owed = {str(s): sum(st["hand"][s].values()) - S.target(st, s) for s in S.active(st)}
    owed = {s: k for s, k in owed.items() if k > 0}
    if not owed:
        return False
    return open_decision(st, "discard", [int(s) for s in owed], owed=owed)


def _centre_put(st: State, rng: Rng, events: list[Event]) -> bool:
    if not opt(st, "centre"):
        st["phase"], st["cursor"] = "rotation", 0
        return False
    n = st["n"]
    while st["cursor"] < n:
        s = (st["start"] + st["cursor"]) % n
        if not st["resigned"][s] and st["hand"][s]:
            return open_decision(st, "centre_put", [s])
        st["cursor"] += 1
    st["takers"] = list(reversed(st["putters"]))
    st["phase"], st["cursor"] = "centre_take", 0
    return False


def _centre_take(st: State, rng: Rng, events: list[Event]) -> bool:
    takers = st["takers"]
    while st["cursor"] < len(takers):
        s = takers[st["cursor"]]
        if st["resigned"][s]:
            st["cursor"] += 1
            continue
        if st["cursor"] == len(takers) - 1 or len(st["centre"]) == 1:
            card = st["centre"].pop(0)
            cards.add(st["hand"][s], card)
            events.append({"type": "centre_taken", "seat": s, "card": card, "automatic": True})
            st["cursor"] += 1
            continue
        return open_decision(st, "centre_take", [s])
    if st["centre"]:  # cards of resigned takers: back to the deck's bottom, unseen order
        S.deck_bottom(st, st["centre"])
        st["centre"] = []
    st["putters"], st["takers"] = [], []
    st["phase"], st["cursor"] = "rotation", 0
    return False


def _rotation(st: State, rng: Rng, events: list[Event]) -> bool:
    if not opt(st, "circular-rotation"):
        st["phase"] = "plan_start"
        return False
    n = st["n"]
    while st["cursor"] < n:
        s = (st["start"] + st["cursor"]) % n
        if not st["resigned"][s] and st["faceup"][s] and len(S.active(st)) > 1:
            return open_decision(st, "rotation", [s], to=S.next_active(st, s))
        st["cursor"] += 1
    st["phase"] = "plan_start"
    return False


# ---- R4: planning -------------------------------------------------------------------------------

def _plan_start(st: State, rng: Rng, events: list[Event]) -> bool:
    st["passes"] = 0
    st["plan_seat"] = st["start"] if not st["resigned"][st["start"]] else S.next_active(
        st, st["start"])
    st["phase"] = "plan"
    return False


def _plan(st: State, rng: Rng, events: list[Event]) -> bool:
    live = len(S.active(st))
    while st["passes"] < live:
        s = st["plan_seat"]
        if st["resigned"][s]:
            st["plan_seat"] = S.next_active(st, s)
            continue
        if not st["hidden"][s] and not st["faceup"][s] and not may_place_obstacle(st, s):
            st["passes"] += 1
            events.append({"type": "passed", "seat": s, "automatic": True})
            st["plan_seat"] = S.next_active(st, s)
            continue
        return open_decision(st, "plan", [s], passes=st["passes"])
    st["phase"] = "junk"
    return False


def _objection(st: State, rng: Rng, events: list[Event]) -> bool:
    obj = st["objection"]
    if obj is None:
        st["phase"] = "plan"
        return False
    if obj["objector"] is None:
        seats = [s for s in obj["seats"] if not st["resigned"][s]]
        kind = "objection_window"
    else:
        seats = [s for s in obj["voters"] if not st["resigned"][s]]
        kind = "vote"
    if not seats:
        close_objection(st, events, stands=True)
        return False
    return open_decision(st, kind, sorted(seats), placer=obj["placer"], road=obj["road"],
                         counter=obj["counter"], objector=obj["objector"])


# ---- R4x, R5: junk exchange, moving -------------------------------------------------------------

def _junk(st: State, rng: Rng, events: list[Event]) -> bool:
    st["phase"] = "move_start"
    if not opt(st, "junk-exchange") or len(S.active(st)) < 2:
        return False
    seats = [s for s in S.active(st) if st["hand"][s]]
    if not seats:
        return False
    return open_decision(st, "junk_exchange", seats)


def _move_start(st: State, rng: Rng, events: list[Event]) -> bool:
    st["travel"] = None
    st["mstage"] = 0
    st["cursor"] = 0
    if opt(st, "thief"):
        st["thief"] = {"passed": list(st["resigned"]), "stolen": None, "stage": None}
        st["mover"] = st["start"]
        st["phase"] = "thief"
    else:
        st["phase"] = "move"
    return False


def _move(st: State, rng: Rng, events: list[Event]) -> bool:
    n = st["n"]
    while st["cursor"] < n:
        s = (st["start"] + st["cursor"]) % n
        st["mover"] = s
        if st["resigned"][s]:
            st["cursor"] += 1
            st["mstage"] = 0
            continue
        stage = st["mstage"]
        if stage in (0, 1):
            if st["travel"] is not None:
                return open_decision(st, "pick", [s], **pick_context(st))
            if not st["hand"][s]:
                st["mstage"] = 2
                continue
            st["mstage"] = 1
            return open_decision(st, "move", [s])
        over = sum(st["hand"][s].values()) - HAND_LIMIT
        if over > 0:
            return open_decision(st, "discard_public", [s], owed={str(s): over})
        st["cursor"] += 1
        st["mstage"] = 0
    st["phase"] = "end_check"
    return False


def pick_context(st: State) -> dict[str, object]:
    """The view's context of a `pick` decision: the step being paid and the count still owed."""
    travel = st["travel"]
    return {"road": travel["road"], "form": travel["form"], "need": travel["need"],
            "picked_count": sum(travel["picked"].values())}


def _thief(st: State, rng: Rng, events: list[Event]) -> bool:
    th = st["thief"]
    passed = th["passed"]
    n = st["n"]
    while not all(passed):
        s = st["mover"]
        if passed[s]:
            st["mover"] = (s + 1) % n
            continue
        if st["travel"] is not None:
            return open_decision(st, "pick", [s], **pick_context(st))
        stage = th["stage"]
        if stage == "steal":
            return open_decision(st, "steal", [s], victims=th["victims"])
        if stage == "forced":
            if any_step(st, s):
                return open_decision(st, "forced_step", [s])
            _failed_forced_step(st, rng, events, s)
            continue
        if not st["hand"][s]:
            passed[s] = True
            events.append({"type": "passed", "seat": s, "automatic": True})
            st["mover"] = (s + 1) % n
            continue
        return open_decision(st, "move", [s])
    st["phase"] = "thief_discard"
    return False


def end_thief_turn(st: State, seat: int) -> None:
    """The thief's turn is over; the next seat that has not passed is on turn (§9.2.1)."""
    th = st["thief"]
    th["stage"], th["stolen"] = None, None
    th.pop("victims", None)
    st["mover"] = (seat + 1) % st["n"]


def _failed_forced_step(st: State, rng: Rng, events: list[Event], seat: int) -> None:
    """No legal step after a theft: the card goes back, the victim draws one from the thief,
    and the thief's turn ends (§9.2.1 "No legal step")."""
    th = st["thief"]
    stolen = th["stolen"]
    victim, card = stolen["victim"], stolen["card"]
    cards.remove(st["hand"][seat], card)
    cards.add(st["hand"][victim], card)
    private = {str(seat): {"returned": card}, str(victim): {"returned": card}}
    taken = None
    hand = st["hand"][seat]
    if hand:
        taken = cards.nth(hand, rng.randint("thief-penalty", 0, sum(hand.values()) - 1,
                                            secret=True))
        cards.remove(hand, taken)
        cards.add(st["hand"][victim], taken)
        private[str(seat)]["penalty"] = taken
        private[str(victim)]["penalty"] = taken
    events.append({"type": "theft_failed", "seat": seat, "victim": victim,
                   "penalty": taken is not None, "private": private})
    end_thief_turn(st, seat)


def _thief_discard(st: State, rng: Rng, events: list[Event]) -> bool:
    st["phase"] = "end_check"
    owed = {str(s): sum(st["hand"][s].values()) - HAND_LIMIT for s in S.active(st)}
    owed = {s: k for s, k in owed.items() if k > 0}
    if not owed:
        return False
    return open_decision(st, "discard", [int(s) for s in owed], owed=owed)


# ---- end check, R6 ------------------------------------------------------------------------------

def _end_check(st: State, rng: Rng, events: list[Event]) -> bool:
    for s in S.active(st):
        S.note_visit(st, s, st["boot"][s])
    if st["round"] >= opt(st, "rounds"):
        finish_game(st, events, "rounds_complete")
        return True
    total = len(S.the_board(st).piece_towns)
    if any(len(st["collected"][s]) == total for s in S.active(st)):
        finish_game(st, events, "all_towns_collected")
        return True
    st["phase"] = "finish"
    return False


def finish_choosers(st: State) -> list[int]:
    """R6: the seats with a choice: ≥ 2 counters to keep one of, or cards to lose (§4.1)."""
    lost = opt(st, "lost-tickets")
    return [s for s in S.active(st) if S.held(st, s) >= 2 or (lost and st["hand"][s])]


def _finish(st: State, rng: Rng, events: list[Event]) -> bool:
    seats = finish_choosers(st)
    if seats:
        st["phase"] = "cleanup"
        return open_decision(st, "finish_round", seats)
    cleanup(st, rng, events, {})
    return False


def _cleanup(st: State, rng: Rng, events: list[Event]) -> bool:
    cleanup(st, rng, events, {})
    return False


def cleanup(st: State, rng: Rng, events: list[Event], choices: dict[str, dict]) -> None:
    """R6 step 2: counters back to the pile unseen, obstacles out, adj, refill, next round."""
    pile = st["pile"]
    kept_public: dict[str, object] = {}
    private: dict[str, dict] = {}
    for s in range(st["n"]):
        keep = None
        choice = choices.get(str(s))
        if choice and choice.get("keep"):
            keep = choice["keep"]
        elif S.held(st, s) == 1:
            hidden = bool(st["hidden"][s])
            kind = next(iter(st["hidden"][s] or st["faceup"][s]))
            keep = {"counter": kind, "hidden": hidden}
        cards.merge(pile, st["hidden"][s])
        cards.merge(pile, st["faceup"][s])
        st["hidden"][s], st["faceup"][s] = {}, {}
        if keep is not None and not st["resigned"][s]:
            cards.remove(pile, keep["counter"])
            side = "hidden" if keep["hidden"] else "faceup"
            st[side][s] = {keep["counter"]: 1}
            kept_public[str(s)] = None if keep["hidden"] else keep["counter"]
            if keep["hidden"]:
                private[str(s)] = {"kept": keep["counter"]}
        if choice and choice.get("discard"):
            cards.subtract(st["hand"][s], choice["discard"])
            cards.merge(st["discards"], choice["discard"])
    for kind in st["counters"].values():
        cards.add(pile, kind)
    st["counters"] = {}
    if opt(st, "construction-works"):
        owners = [ob["owner"] for ob in st["obstacles"].values()] + list(st["bridges"].values())
        for owner in owners:
            st["obstacle_available"][owner] = not st["resigned"][owner]
    st["obstacles"], st["bridges"] = {}, {}
    st["placed"] = 0
    if "substituted" in st:
        st["substituted"] = []
    if "monopoly" in st:
        st["adj"] = [len(v) if v else -1 for v in st["visited"]]
    lost = {str(s): cards.canonical(c["discard"]) for s, c in choices.items()
            if c.get("discard")}
    events.append({"type": "round_finished", "round": st["round"], "kept": kept_public,
                   "lost_cards": lost, "adj": list(st["adj"]), "private": private})
    S.refill_display(st, rng, events, "counter-refill")
    st["start"] = S.next_active(st, st["start"])
    st["round"] += 1
    st["phase"], st["cursor"] = "round_start", 0


PHASES: dict[str, Phase] = {
    "round_start": _round_start, "draft": _draft, "qoc": _qoc, "hellish": _hellish,
    "tickets": _tickets, "centre_put": _centre_put, "centre_take": _centre_take,
    "rotation": _rotation, "plan_start": _plan_start, "plan": _plan,
    "objection": _objection, "junk": _junk,
    "move_start": _move_start, "move": _move, "thief": _thief, "thief_discard": _thief_discard,
    "end_check": _end_check, "finish": _finish, "cleanup": _cleanup,
}
