"""Störtebeker properties: random games over every option combination end and keep the
invariants (§4.2), nothing hidden leaks into views, events or text, and a seat's view does not
depend on what it may not see (non-interference).

Random games end by the rulebook alone: without the house rule `stall-limit` (off by default)
they still end, by the final round, within a few thousand moves (of 3,300 seeded games,
uniform and biased, the longest took 3,900). `play_out`'s cap of 20,000 moves only turns a
game that never ends into a failure instead of a hang; it never ends a game."""

from __future__ import annotations

import copy
import itertools
import json
import random
from typing import Any

import pytest

from engines.rng import SeededRng
from engines.stortebeker import ENGINE as E
from engines.stortebeker.state import RULES
from tests.engines.stortebeker_helpers import DATA

#: move types a biased player prefers, so that games see many boardings and captures
PREFER = {"board": 5, "counter_attack": 5, "place": 4, "fire_cannon": 3}


def _combos() -> list[tuple[dict[str, bool], int]]:
    out = []
    for values in itertools.product([False, True], repeat=len(RULES)):
        options = dict(zip(RULES, values, strict=True))
        for seats in (2, 3, 4):
            if seats == 2 or not options["two-player-three-ships"]:
                out.append((options, seats))
    return out


def _choose(chooser: random.Random, moves: list[dict], biased: bool) -> dict:
    if not biased:
        return chooser.choice(moves)
    best = max(PREFER.get(m["type"], 0) for m in moves)
    return chooser.choice([m for m in moves if PREFER.get(m["type"], 0) == best])


def _invariants(state: dict) -> None:
    cards = list(state["deck"]) + state["discard"] + state.get("out", [])
    for s in map(str, range(state["n"])):
        cards += state["hands"][s] + state["areas"][s]
    for ship, sides in state["sides"].items():
        assert ship in state["slots"]
        for own in sides.values():
            cards += own["prov"] + own["pir"]
            assert len(own["pir"]) <= len(own["prov"]), (ship, own)
            assert set(own["rev"]) <= set(own["pir"])
            for kind, count in DATA.ships[ship].requires.items():
                assert sum(DATA.cards[c].kind == kind for c in own["prov"]) <= count
            assert all(DATA.cards[c].kind in DATA.ships[ship].requires for c in own["prov"])
    assert sorted(cards) == sorted(DATA.card_order), "an action card was lost or doubled"
    ships = [s for s in state["slots"] if s] + state["harbour"] + state["removed"]
    ships += [s for won in state["captured"].values() for s in won]
    assert sorted(ships) == sorted(DATA.ship_order), "a ship was lost or doubled"
    to_act = E.decision(state)["to_act"]
    assert len(to_act) == (0 if state["result"] else 1)


def _hidden_from(state: dict, seat: int | None) -> set[str]:
    """Ids the seat may not see: other hands, the deck, hidden ships, others' covert pirates."""
    hidden = set(state["deck"]) | set(state["removed"]) | set(state["harbour"][3:])
    if not state["options"]["open-harbour"]:
        hidden |= set(state["harbour"][1:])
    for s in range(state["n"]):
        if s != seat:
            hidden |= set(state["hands"][str(s)])
    for sides in state["sides"].values():
        for owner, own in sides.items():
            if seat is None or int(owner) != seat:
                hidden |= set(own["pir"])
    return hidden


def play_out(options: dict, seats: int, seed: int, biased: bool, watch: bool = False,
             limit: int = 20000) -> dict:
    rng, chooser = SeededRng(seed), random.Random(seed)
    state = E.setup(E.validate_options(options, seats), seats, rng)
    for _ in range(limit):
        if E.result(state) is not None:
            _invariants(state)
            return state
        seat = E.decision(state)["to_act"][0]
        move = _choose(chooser, list(E.legal_moves(state, seat)), biased)
        hidden_before = {s: _hidden_from(state, s) for s in [None, *range(seats)]} \
            if watch else {}
        state, events = E.apply(state, seat, move, rng)
        if watch:
            _invariants(state)
        # a card hidden before and after the move must not show; a move that reshuffles the
        # (public) pile into the deck is skipped: its cards were face up a moment before
        if watch and not any(e["type"] == "reshuffled" for e in events):
            for who in [None, *range(seats)]:
                shown = json.dumps([E.view(state, who), E.render_text(E.view(state, who)),
                                    [E.view_event(e, who) for e in events]])
                leaked = {c for c in _hidden_from(state, who) & hidden_before[who]
                          if f'"{c}"' in shown or f" {c}" in shown}
                assert not leaked, (who, leaked, move)
    raise AssertionError("the game did not end")


@pytest.mark.parametrize(("options", "seats"), _combos())
def test_random_games_over_every_combination_end(options: dict, seats: int) -> None:
    """Seed 0 plays the rulebook's end only; seed 1 adds the house rule `stall-limit`."""
    for seed in range(2):
        stall = {"stall-limit": seed == 1}
        for biased in (False, True):
            state = play_out(options | stall, seats, seed, biased, watch=seed == 0 and biased)
            ends = {"final_round_complete", "stall_limit"} if seed else {"final_round_complete"}
            assert state["result"]["reason"] in ends


@pytest.mark.slow
def test_a_thousand_biased_games_end_with_captures() -> None:
    captured = 0
    combos = _combos()
    for seed in range(1000):
        options, seats = combos[seed % len(combos)]
        state = play_out(options, seats, seed, biased=True)
        captured += sum(len(s) for s in state["captured"].values())
    assert captured > 1000 * 5


def _twin(state: dict, viewer: int, chooser: random.Random) -> dict:
    """The same position with everything the viewer may not see dealt differently."""
    twin = copy.deepcopy(state)
    unseen = list(twin["deck"])
    for s in range(twin["n"]):
        if s != viewer:
            unseen += twin["hands"][str(s)]
    chooser.shuffle(unseen)
    for s in range(twin["n"]):
        if s != viewer:
            size = len(twin["hands"][str(s)])
            twin["hands"][str(s)], unseen = unseen[:size], unseen[size:]
    twin["deck"] = unseen
    shown = min(3 if twin["options"]["open-harbour"] else 1, len(twin["harbour"]))
    ships = twin["harbour"][shown:] + twin["removed"]
    chooser.shuffle(ships)
    keep = len(twin["harbour"]) - shown
    twin["harbour"] = twin["harbour"][:shown] + ships[:keep]
    twin["removed"] = ships[keep:]
    return twin


def test_a_seats_view_and_events_do_not_depend_on_what_it_cannot_see() -> None:
    chooser = random.Random(9)
    checked = 0
    for seed in range(12):
        options, seats = _combos()[seed * 7 % len(_combos())]
        rng, pick = SeededRng(seed), random.Random(seed)
        state = E.setup(E.validate_options(options, seats), seats, rng)
        for _ in range(300):
            if E.result(state) is not None:
                break
            seat = E.decision(state)["to_act"][0]
            move = _choose(pick, list(E.legal_moves(state, seat)), biased=True)
            twin = _twin(state, seat, chooser)
            assert E.view(twin, seat) == E.view(state, seat)
            _, mine = E.apply(copy.deepcopy(state), seat, move, SeededRng(seed * 1000 + 1))
            _, theirs = E.apply(twin, seat, move, SeededRng(seed * 1000 + 1))
            # draws reveal the next card or harbour ship, which the twin deals differently
            drawn = {"drew", "reshuffled", "sailed_in"}
            assert [E.view_event(e, seat) for e in mine if e["type"] not in drawn] == \
                [E.view_event(e, seat) for e in theirs if e["type"] not in drawn]
            checked += 1
            state, _ = E.apply(state, seat, move, rng)
    assert checked > 1000


def test_every_draw_is_named_and_secret_where_it_hides_something() -> None:
    rng = SeededRng(4)
    chooser = random.Random(4)
    state = E.setup(E.validate_options({}, 3), 3, rng)
    while E.result(state) is None:
        seat = E.decision(state)["to_act"][0]
        state, _ = E.apply(state, seat, _choose(chooser, list(E.legal_moves(state, seat)),
                                                True), rng)
    log: list[Any] = rng.draws
    purposes = {d["purpose"]: d["secret"] for d in log}
    assert purposes["ship-deck"] and purposes["action-deck"]
    assert {"cannon-colour", "boarding-dice", "counter-attack-dice"} <= set(purposes)
    assert not any(purposes[p] for p in ("cannon-colour", "boarding-dice",
                                         "counter-attack-dice"))
    assert set(purposes) <= {"ship-deck", "action-deck", "cannon-colour", "boarding-dice",
                             "penalty-colour", "counter-attack-dice", "reshuffle"}
