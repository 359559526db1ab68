"""Phase 1, the card play, as small steps (spec §4.1 "Step form", §5).

The active seat uses exactly k = min(3, hand) cards: places, then one exchange (discard 2-3,
take up to 2 others from the pile), then at most one cannon shot. Each step is its own move;
every step `legal_moves` lists can be completed to a legal play (the look-ahead below), so a
client can never paint itself into a corner. The combined `play_cards` and the timeout's
`finish_play` are shorthands for sequences of these steps.

Checks never change the state: `check_*` read it and raise `IllegalMove`; `do_*` mutate.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations
from typing import Any

from engines.contract import IllegalMove, Move, State
from engines.stortebeker.data import CardData
from engines.stortebeker.state import at_sea, kind_count, peek_side, side
from engines.stortebeker.texts import fail


def start_play(state: State) -> bool:
    """Open the card play of the active seat; False when it has no card (phase skipped)."""
    k = min(3, len(state["hands"][str(state["active"])]))
    if k == 0:
        return False
    state["play"] = {"k": k, "u": 0, "D": [], "taken": [], "exchanged": False, "cannon": None}
    state["dec"] = {"kind": "play_cards", "seat": state["active"]}
    return True


# ---- what is possible --------------------------------------------------------------------


def place_error(data: CardData, state: State, seat: int, card: str, ship: str,
                extra: tuple[str, str] | None = None) -> str | None:
    """The placement code for `card` at `ship`, or None if it may go there (`extra`: a card
    already placed at a ship by the same hypothetical play, for the look-ahead)."""
    info = data.cards[card]
    own = peek_side(state, ship, seat)
    prov = list(own["prov"]) if own else []
    pirates = len(own["pir"]) if own else 0
    if extra is not None and extra[1] == ship:
        if data.cards[extra[0]].is_pirate:
            pirates += 1
        else:
            prov.append(extra[0])
    if info.is_pirate:
        return "too_many_pirates" if pirates + 1 > len(prov) else None
    need = data.ships[ship].requires.get(info.kind, 0)
    if need == 0:
        return "provision_not_required"
    if kind_count(data, prov, info.kind) >= need:
        return "provision_limit_exceeded"
    return None


def has_provision(state: State, seat: int, extra: tuple[str, str] | None = None,
                  data: CardData | None = None) -> bool:
    """Whether the seat has a provision card at some ship (a cannon needs one)."""
    if extra is not None and data is not None and not data.cards[extra[0]].is_pirate:
        return True
    return any((own := peek_side(state, ship, seat)) and own["prov"] for ship in at_sea(state))


def _can_use_one(data: CardData, state: State, seat: int, cards: list[str],
                 extra: tuple[str, str] | None = None) -> bool:
    """Whether one of `cards` can still be placed or fire the cannon."""
    if cards and has_provision(state, seat, extra, data):
        return True
    return any(place_error(data, state, seat, c, ship, extra) is None
               for c in cards for ship in at_sea(state))


def can_place(play: dict[str, Any]) -> bool:
    return not play["exchanged"] and play["cannon"] is None and play["u"] < play["k"]


# ---- checks (never mutate) ---------------------------------------------------------------


def _in_hand(state: State, seat: int, cards: list[Any]) -> None:
    hand = state["hands"][str(seat)]
    for c in cards:
        if c not in hand:
            raise fail("card_not_in_hand", repr(c))
    if len(set(cards)) != len(cards):
        raise fail("duplicate_card")


def _ship(state: State, ship: Any) -> str:
    if ship not in at_sea(state):
        raise fail("unknown_ship", repr(ship))
    return str(ship)


def check_place(data: CardData, state: State, seat: int, card: str, ship: str,
                look_ahead: bool = True) -> None:
    play = state["play"]
    if play["exchanged"] or play["cannon"] is not None:
        raise fail("wrong_decision", "Placing comes before the exchange and the cannon.")
    _in_hand(state, seat, [card])
    _ship(state, ship)
    code = place_error(data, state, seat, card, ship)
    if code:
        raise fail(code, f"{card} at {ship}.")
    if play["u"] >= play["k"]:
        raise fail("wrong_card_count")
    if look_ahead and play["k"] - play["u"] - 1 == 1:
        rest = [c for c in state["hands"][str(seat)] if c != card]
        if not _can_use_one(data, state, seat, rest, (card, ship)):
            raise fail("wrong_card_count", "No card could be used after this one.")


def check_discard(state: State, seat: int, cards: Any, look_ahead: bool = True) -> None:
    play = state["play"]
    if play["exchanged"] or play["cannon"] is not None:
        raise fail("wrong_decision", "One exchange per turn, before the cannon.")
    _in_hand(state, seat, cards)
    if not 2 <= len(cards) <= 3:
        raise fail("exchange_discard_count")
    if not look_ahead:
        return
    used = play["u"] + len(cards)
    if not (used == play["k"] or (used == play["k"] - 1 and has_provision(state, seat))):
        raise fail("wrong_card_count")


def check_take(state: State, card: Any) -> None:
    play = state["play"]
    if not play["exchanged"] or play["cannon"] is not None:
        raise fail("wrong_decision", "Take cards after discarding for an exchange.")
    if len(play["taken"]) >= 2:
        raise fail("exchange_take_count")
    if card not in state["discard"] or card in play["D"]:
        raise fail("exchange_take_invalid", repr(card))


def check_fire(state: State, seat: int, card: str, ship: str, look_ahead: bool = True) -> None:
    play = state["play"]
    if play["cannon"] is not None:
        raise fail("wrong_decision", "The cannon fires once per turn.")
    _in_hand(state, seat, [card])
    _ship(state, ship)
    own = peek_side(state, ship, seat)
    if not own or not own["prov"]:
        raise fail("cannon_needs_own_provision", ship)
    if look_ahead and play["u"] + 1 != play["k"]:
        raise fail("wrong_card_count", "The cannon card is the last card of the play.")


def end_allowed(data: CardData, state: State, seat: int) -> str | None:
    """None if `end_play` is legal now, else its code."""
    play = state["play"]
    if play["u"] == play["k"]:
        return None
    if play["u"] == 0 and play["k"] == 1 and not _can_use_one(
            data, state, seat, state["hands"][str(seat)]):
        return None
    return "must_play_cards" if play["u"] == 0 else "wrong_card_count"


# ---- steps (mutate) ----------------------------------------------------------------------


def do_place(data: CardData, state: State, seat: int, card: str, ship: str) -> dict[str, Any]:
    state["hands"][str(seat)].remove(card)
    own = side(state, ship, seat)
    own["pir" if data.cards[card].is_pirate else "prov"].append(card)
    state["play"]["u"] += 1
    return {"type": "placed", "seat": seat, "ship": ship, "card": card}


def do_discard(state: State, seat: int, cards: list[str]) -> dict[str, Any]:
    hand = state["hands"][str(seat)]
    for c in cards:
        hand.remove(c)
    state["discard"].extend(cards)
    play = state["play"]
    play["D"] = list(cards)
    play["u"] += len(cards)
    play["exchanged"] = True
    return {"type": "exchange_discarded", "seat": seat, "cards": list(cards)}


def do_take(state: State, seat: int, card: str) -> dict[str, Any]:
    state["discard"].remove(card)
    state["play"]["taken"].append(card)
    state["areas"][str(seat)].append(card)
    return {"type": "exchange_took", "seat": seat, "card": card}


def do_fire(state: State, seat: int, card: str, ship: str) -> dict[str, Any]:
    state["hands"][str(seat)].remove(card)
    state["discard"].append(card)
    play = state["play"]
    play["u"] += 1
    play["cannon"] = ship
    return {"type": "cannon_fired", "seat": seat, "ship": ship, "card": card}


# ---- listing -----------------------------------------------------------------------------


def legal_steps(data: CardData, state: State, seat: int) -> Iterator[Move]:
    """Every step move of the play now (§4.1 "Step form"), each completable."""
    play = state["play"]
    hand = state["hands"][str(seat)]
    ships = at_sea(state)
    if can_place(play):
        r = play["k"] - play["u"] - 1
        for card in hand:
            rest = [c for c in hand if c != card] if r == 1 else []
            for ship in ships:
                if place_error(data, state, seat, card, ship) is None and (
                        r != 1 or _can_use_one(data, state, seat, rest, (card, ship))):
                    yield {"type": "place", "card": card, "ship": ship}
    if not play["exchanged"] and play["cannon"] is None:
        left = play["k"] - play["u"]
        sizes = [n for n in (2, 3) if n == left or (n == left - 1 and has_provision(state, seat))]
        for size in sizes:
            for cards in combinations(hand, size):
                yield {"type": "exchange_discard", "cards": list(cards)}
    if play["exchanged"] and play["cannon"] is None and len(play["taken"]) < 2:
        for card in dict.fromkeys(state["discard"]):
            if card not in play["D"]:
                yield {"type": "exchange_take", "card": card}
    if play["cannon"] is None and play["u"] + 1 == play["k"]:
        for ship in ships:
            own = peek_side(state, ship, seat)
            if own and own["prov"]:
                for card in hand:
                    yield {"type": "fire_cannon", "card": card, "ship": ship}
    if end_allowed(data, state, seat) is None:
        yield {"type": "end_play"}


def finish_steps(data: CardData, state: State, seat: int) -> list[Move]:
    """The steps `finish_play` (the timeout default) stands for: the rest of the play done
    the plainest legal way: end if possible, else the cheapest completion."""
    if end_allowed(data, state, seat) is None:
        return [{"type": "end_play"}]
    play, hand = state["play"], sorted(state["hands"][str(seat)])
    left = play["k"] - play["u"]
    if left >= 2 and not play["exchanged"] and play["cannon"] is None:
        return [{"type": "exchange_discard", "cards": hand[:left]}, {"type": "end_play"}]
    fire = next((m for m in legal_steps(data, state, seat) if m["type"] == "fire_cannon"), None)
    if fire is not None:
        return [fire]
    place = next((m for m in legal_steps(data, state, seat) if m["type"] == "place"), None)
    if place is None:
        raise IllegalMove("wrong_card_count", "No way to finish the card play.")
    return [place, {"type": "end_play"}]


def combined_steps(data: CardData, move: Move) -> list[Move]:
    """The combined `play_cards` as its steps: provisions placed before pirates (§5)."""
    places = move.get("place") or []
    pirates = [p for p in places if p["card"] in data.cards and data.cards[p["card"]].is_pirate]
    steps: list[Move] = [{"type": "place", **p} for p in places if p not in pirates]
    steps += [{"type": "place", **p} for p in pirates]
    exchange = move.get("exchange")
    if exchange:
        steps.append({"type": "exchange_discard", "cards": exchange.get("discard", [])})
        steps += [{"type": "exchange_take", "card": c} for c in exchange.get("take") or []]
    cannon = move.get("cannon")
    if cannon:
        steps.append({"type": "fire_cannon", **cannon})
    else:
        steps.append({"type": "end_play"})
    return steps
