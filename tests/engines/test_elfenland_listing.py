"""Elfenland race listings stay complete where they are computed the fast way: the plan listing
(per-listing and per-map shortcuts) against every candidate `check` accepts, sub-multisets
against brute force, and the cached hellish-road paths against mutation."""

from __future__ import annotations

import json
import random
from itertools import product

import pytest

from engines.contract import IllegalMove
from engines.elfenland import ENGINE as E
from engines.elfenland import cards
from engines.elfenland.race import flow
from engines.rng import SeededRng
from tests.engines.test_elfenland import DRAGON, PIG, RAFT, B, at_move, clear, new_with, refused

PLAN_VARIANTS = ["trunk-first-three-rounds", "trunk-round-limit", "indiana-jones",
                 "station-street", "construction-works", "substitution", "objection"]


def _plan_candidates(st: dict) -> list[dict]:
    """Every plan move of the vocabulary's shapes that the listing could offer."""
    out: list[dict] = [{"type": "pass"}]
    for road in B.roads:
        for kind, hidden in product(cards.COUNTER_TYPES, (False, True)):
            for t in ("place_counter", "substitute"):
                out.append({"type": t, "road": road.id, "counter": kind, "hidden": hidden})
        out.append({"type": "place_obstacle", "road": road.id})
        out.extend({"type": "place_obstacle", "road": road.id, "side": side}
                   for side in (road.a, road.b))
    return out


def _accepted(st: dict, seat: int, move: dict) -> bool:
    try:
        E.check(st, seat, move)
    except IllegalMove:
        return False
    return True


@pytest.mark.parametrize("variant", [None, *PLAN_VARIANTS, "all"])
def test_plan_listing_is_what_check_accepts(variant: str | None) -> None:
    options = {v: True for v in PLAN_VARIANTS} if variant == "all" else (
        {variant: True} if variant else {})
    compared = 0
    for seed in range(2):
        chooser = random.Random(seed)
        rng = SeededRng(seed)
        st = new_with(3, options, seed)
        while E.result(st) is None:
            seat = chooser.choice(E.decision(st)["to_act"])
            listed = list(E.legal_moves(st, seat))
            if st["dec"]["kind"] == "plan" and compared < 40:
                want = [m for m in _plan_candidates(st) if _accepted(st, seat, m)]
                assert sorted(map(json.dumps, listed)) == sorted(map(json.dumps, want))
                compared += 1
            st, _ = E.apply(st, seat, chooser.choice(listed), rng)
    assert compared


#: (options, boot town, opening step, road facts, cards the payment takes): a caravan on a
#: counter, a bridge with an obstacle on it, the ferryman on Mare Nebulae
OPENINGS = [
    ({}, "elvenhold", {"road": 2, "caravan": {}}, {"counters": PIG}, 3),
    ({"indiana-jones": True}, "elvenhold", {"road": 2, "cards": {}},
     {"bridges": 1, "obstacles": {"owner": 1, "side": None}}, 2),
    ({"ferryman": True}, "yttar", {"road": 40, "ferryman": {}}, {}, 3),
]


@pytest.mark.parametrize(("options", "town", "step", "facts", "need"), OPENINGS,
                         ids=["caravan", "bridge", "ferryman"])
def test_an_opening_needs_the_cards_to_finish_it(options: dict, town: str, step: dict,
                                                 facts: dict, need: int) -> None:
    """Opening a free payment with too few cards to pick is refused, as the listing leaves it
    out: accepted, it left the seat at `pick` with nothing to pick and no default move."""
    st = new_with(3, options)
    clear(st)
    st["boot"][0] = town
    for field, value in facts.items():
        st[field][str(step["road"])] = value
    at_move(st, 0)
    travel = {"type": "travel", "steps": [step]}
    st["hand"][0] = {RAFT: need - 1}
    assert travel not in list(E.legal_moves(st, 0))
    refused(st, 0, travel, "cards_not_in_hand")
    st["hand"][0] = {RAFT: 1, DRAGON: need - 1}
    assert travel in list(E.legal_moves(st, 0))
    E.check(st, 0, travel)


def test_sub_multisets_match_brute_force() -> None:
    rng = random.Random(5)
    for _ in range(300):
        m = {k: rng.randint(0, 3) for k in rng.sample(cards.CARD_TYPES, rng.randint(0, 7))}
        kinds = [k for k in cards.CARD_TYPES if m.get(k)]
        for count in range(-1, sum(m.values()) + 2):
            takes = [t for t in product(*(range(m[k], -1, -1) for k in kinds))
                     if sum(t) == count]
            want = [{k: n for k, n in zip(kinds, t, strict=True) if n} for t in takes]
            got = list(cards.sub_multisets(m, count))
            assert got == want and [list(g) for g in got] == [list(w) for w in want]


def test_land_paths_are_fresh_lists() -> None:
    st = new_with(3, {"hellish-road": True})
    paths = flow.land_paths(st, "beata", "mahdavikia")
    paths[0].append(99)
    paths.pop()
    assert flow.land_paths(st, "beata", "mahdavikia") == [
        [0, 1, 11, 19], [0, 1, 12, 15], [7, 6, 13, 15]]
