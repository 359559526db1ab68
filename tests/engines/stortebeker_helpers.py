"""Building Störtebeker positions for the scenario tests (spec §11): cards and ships put exactly
where a scenario's "Given" says, taken from wherever setup dealt them."""

from __future__ import annotations

from typing import Any

from engines.rng import NoDraws, ScriptedRng
from engines.stortebeker import ENGINE as E
from engines.stortebeker.data import card_data
from engines.stortebeker.play import start_play
from tests.engines.refusals import assert_refused

DATA = card_data("stortebeker-house-1")


def game(n: int = 3, **options: Any) -> dict:
    """A game dealt in data-file order (ships and cards unshuffled), seat 0 to play."""
    opts = E.validate_options(options, n)
    return E.setup(opts, n, ScriptedRng([list(DATA.ship_order), list(DATA.card_order)]))


def _take_card(state: dict, card: str) -> None:
    for pile in (state["deck"], state["discard"], *state["hands"].values(),
                 *state["areas"].values()):
        if card in pile:
            pile.remove(card)
            return
    for sides in state["sides"].values():
        for own in sides.values():
            for part in ("prov", "pir", "rev"):
                if card in own[part]:
                    own[part].remove(card)
    # (a card found nowhere was already placed by the scenario)


def _take_ship(state: dict, ship: str) -> None:
    for pile in (state["harbour"], state["removed"], *state["captured"].values()):
        if ship in pile:
            pile.remove(ship)
    state["slots"] = [None if s == ship else s for s in state["slots"]]


def sea(state: dict, *ships: str | None) -> None:
    """The ships at sea by slot; the previous ones go back to the removed pile."""
    for ship in ships:
        if ship is not None:
            _take_ship(state, ship)
    state["removed"] += [s for s in state["slots"] if s is not None]
    state["slots"] = list(ships)


def harbour(state: dict, *ships: str) -> None:
    for ship in ships:
        _take_ship(state, ship)
    state["removed"] += state["harbour"]
    state["harbour"] = list(ships)


def captured(state: dict, seat: int, *ships: str) -> None:
    for ship in ships:
        _take_ship(state, ship)
    state["captured"][str(seat)] = list(ships)


def put(state: dict, seat: int, ship: str, *cards: str, revealed: bool = False) -> None:
    """Cards on the seat's side of a ship (pirates face down unless `revealed`)."""
    own = state["sides"].setdefault(ship, {}).setdefault(str(seat),
                                                         {"prov": [], "pir": [], "rev": []})
    for card in cards:
        _take_card(state, card)
        if DATA.cards[card].is_pirate:
            own["pir"].append(card)
            if revealed:
                own["rev"].append(card)
        else:
            own["prov"].append(card)


def hand(state: dict, seat: int, *cards: str, fill: bool = False) -> None:
    """The seat's hand: exactly these cards (plus deck cards up to 6 with `fill`)."""
    state["deck"] += state["hands"][str(seat)]
    state["hands"][str(seat)] = []
    for card in cards:
        _take_card(state, card)
    extra = [c for c in state["deck"] if c not in cards][:6 - len(cards)] if fill else []
    for card in extra:
        state["deck"].remove(card)
    state["hands"][str(seat)] = list(cards) + extra


def discard(state: dict, *cards: str) -> None:
    for card in cards:
        _take_card(state, card)
    state["discard"] = list(cards)


def turn_of(state: dict, seat: int, turn: int) -> None:
    """Start `seat`'s card play on `turn` (round = ceil(turn / n))."""
    state.update(turn=turn, active=seat, attempted=[], boarding_over=False,
                 captures_this_turn=0, shots=[])
    assert start_play(state)


def to_board(state: dict, seat: int, turn: int) -> None:
    """`seat` is past its card play, at the boarding decision (built as `advance` would)."""
    state.update(turn=turn, active=seat, attempted=[], boarding_over=False,
                 captures_this_turn=0, shots=[], play=None)
    from engines.stortebeker.turn import eligible

    state["dec"] = {"kind": "board", "seat": seat, "eligible": eligible(DATA, state)}


def send(state: dict, seat: int, move: dict, dice: list[Any] = ()) -> list[dict]:
    """Apply with scripted draws; every scripted value must be used."""
    rng = ScriptedRng(list(dice)) if dice else NoDraws()
    _, events = E.apply(state, seat, move, rng)
    if dice:
        assert not rng._results, f"unused scripted draws {rng._results}"
    return events


def rejects(state: dict, seat: int, move: Any, code: str) -> None:
    assert_refused(E, state, seat, move, code)


def of_type(events: list[dict], kind: str) -> list[dict]:
    return [e for e in events if e["type"] == kind]


def side_of(state: dict, ship: str, seat: int) -> dict:
    return state["sides"].get(ship, {}).get(str(seat), {"prov": [], "pir": [], "rev": []})
