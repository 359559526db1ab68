"""An engine's `apply` gives the same state, events and draws whatever the order of its state's
keys (and a `key_order_free` engine's listing and views too). The worker applies a batch's
later entries to the state `apply` returned, whose keys are in another order than the stored
state's (parsed from canonical JSON, keys sorted), and a replay starts from the stored state:
both must agree to the byte, draws included."""

from __future__ import annotations

import copy
import random

import orjson
import pytest
from parley_protocol import signing

from engines.contract import key_order_free
from engines.registry import available, get_engine
from engines.rng import SeededRng


def _combos() -> list[tuple[str, str, dict, int]]:
    """Every variant of every engine, at its fewest and most seats."""
    return [(ruleset, variant.id, dict(variant.options), seats)
            for ruleset in available()
            for variant in get_engine(ruleset).variants
            for seats in sorted({get_engine(ruleset).min_players,
                                 get_engine(ruleset).max_players})]


@pytest.mark.parametrize(("ruleset", "variant", "options", "seats"), _combos(),
                         ids=lambda x: str(x) if isinstance(x, str | int) else "")
def test_apply_does_not_depend_on_the_order_of_the_states_keys(ruleset: str, variant: str,
                                                               options: dict,
                                                               seats: int) -> None:
    """Also, for an engine that says it is `key_order_free`, what that lets the platform do:
    list a feed's legal moves, and foresee, from the state `apply` returned instead of
    parsing it back from the stored JSON. Both must list the same moves in the same order and
    show the same views."""
    engine = get_engine(ruleset)
    order_free = key_order_free(engine)
    reordered = 0
    for seed in range(3):
        chooser, rng = random.Random(seed), SeededRng(seed)
        state = engine.setup(engine.validate_options(options, seats), seats, rng)
        for n in range(400):
            if engine.result(state) is not None:
                break
            stored = signing.load_json(signing.dump_state(state))
            if order_free:
                reordered += orjson.dumps(stored) != orjson.dumps(state)
                for seat in range(seats):
                    assert list(engine.legal_moves(state, seat)) == list(
                        engine.legal_moves(stored, seat))
                    assert engine.view(state, seat) == engine.view(stored, seat)
            seat = chooser.choice(engine.decision(state)["to_act"])
            move = chooser.choice(list(engine.legal_moves(stored, seat)))
            as_returned, as_stored = SeededRng(n), SeededRng(n)
            after, events = engine.apply(copy.deepcopy(state), seat, move, as_returned)
            again, events_again = engine.apply(stored, seat, move, as_stored)
            assert signing.dump_state(after) == signing.dump_state(again), (seed, n, move)
            assert events == events_again and as_returned.draws == as_stored.draws
            state = after
    if order_free:
        assert reordered > 100  # the states compared did differ in their keys' order


def test_stratego_says_it_is_key_order_free() -> None:
    assert key_order_free(get_engine("stratego"))
    assert not key_order_free(object())  # an engine that does not say is not
