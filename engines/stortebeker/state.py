"""Störtebeker's state: options, setup and the small helpers every phase uses (spec §3, §4).

State (plain JSON)::

    options     validated options (the five rules, `extended`, `stall-limit`, `card_data`)
    n           seats; step (contract.close_decision); turn (1-based); active seat
    slots       ships at sea by slot (None: empty); harbour (top first); removed (never used)
    captured    {"0": [ship, ...]}; hands {"0": [card, ...]}; areas (exchange areas)
    deck        face-down action cards, top first; discard (oldest first)
    sides       {ship: {"0": {"prov": [...], "pir": [...], "rev": [...]}}} (rev: revealed
                pirates still at the ship, public memory §7)
    dec         the open decision: {"kind", "seat", ...its context}
    play        the card play of the turn (k, u, D, taken, exchanged, cannon)
    shots       the cannon's dice still to resolve; attempted (ships boarded this turn)
    boarding_over, captures_this_turn, armed, final_capture
    quiet       turns in a row without a capture; stall_end: it reached the stall limit
                (with `stall-limit`): the game ends with the round unless a capture comes first
    resigned    [bool per seat]; result (None while running)

Performance: every list a check needs is in the state (no history is replayed), cards and ships
are looked up in the frozen `CardData`, and a move mutates only what it changes.
"""

from __future__ import annotations

from collections.abc import Mapping

from engines.contract import JSON, IllegalMove, OptionSpec, Rng, State, fill_options
from engines.stortebeker.data import DATASETS, CardData, card_data

RULES = ("colour-bonus", "open-harbour", "failed-boarding-ends", "counter-ends-boarding",
         "two-player-three-ships")
OPTIONS: dict[str, OptionSpec] = {
    "colour-bonus": OptionSpec(False, (False, True), "Extended rule 1: at the end, each colour "
                               "with 3+ of your ships adds its best ship's points (§9)."),
    "open-harbour": OptionSpec(False, (False, True), "Extended rule 2: the top 3 harbour ships "
                               "are face up (§9)."),
    "failed-boarding-ends": OptionSpec(False, (False, True), "Extended rule 3: a failed "
                                       "boarding ends your boarding for the turn (§9)."),
    "counter-ends-boarding": OptionSpec(False, (False, True), "Extended rule 4: a successful "
                                        "counter-attack ends your boarding for the turn (§9)."),
    "two-player-three-ships": OptionSpec(False, (False, True), "Extended rule 5, 2 players "
                                         "only: 3 ships at sea (§9)."),
    "extended": OptionSpec(False, (False, True), "All five extended rules (the fifth only "
                           "with 2 players), whatever the other options say (§9)."),
    "stall-limit": OptionSpec(False, (False, True), "House rule, not the rulebook's: after "
                              "12 turns per seat in a row without a capture, the game ends "
                              "with the round unless a capture comes first (§8)."),
    "card_data": DATASETS.option("The ship and action card data set (house data, §2)."),
}
HAND = 6
#: the house rule `stall-limit`: turns per seat in a row without a capture
STALL_TURNS_PER_SEAT = 12


def validate_options(options: Mapping[str, JSON], seats: int) -> dict[str, JSON]:
    """Defaults filled in; `extended` switches the rules on; refusals per §9."""
    filled = fill_options(OPTIONS, options)
    if filled["extended"]:
        filled.update({r: True for r in RULES})
        filled["two-player-three-ships"] = seats == 2
    elif filled["two-player-three-ships"] and seats != 2:
        raise IllegalMove("invalid_options", "The rule two-player-three-ships is for 2 players "
                                             f"only, not {seats}.")
    card_data(filled["card_data"])  # invalid_options for a bad data set
    return filled


def setup(options: Mapping[str, JSON], n: int, rng: Rng) -> State:
    """§3: ships and action cards by two secret shuffles; seat 0 starts."""
    data = card_data(options["card_data"])
    ships = rng.shuffle("ship-deck", list(data.ship_order), secret=True)
    at_sea = 3 if options["two-player-three-ships"] else 4
    harbour = {2: 12, 3: 15, 4: 18}[n]
    cards = rng.shuffle("action-deck", list(data.card_order), secret=True)
    seats = [str(s) for s in range(n)]
    state: State = {
        "options": dict(options), "n": n, "step": 0, "turn": 1, "active": 0,
        "slots": ships[:at_sea], "harbour": ships[at_sea:at_sea + harbour],
        "removed": ships[at_sea + harbour:],
        "captured": {s: [] for s in seats},
        "hands": {s: cards[HAND * i:HAND * (i + 1)] for i, s in enumerate(seats)},
        "areas": {s: [] for s in seats},
        "deck": cards[HAND * n:], "discard": [],
        "sides": {}, "dec": {}, "play": None, "shots": [], "attempted": [],
        "boarding_over": False, "captures_this_turn": 0, "armed": False,
        "final_capture": False, "quiet": 0, "stall_end": False,
        "resigned": [False] * n, "result": None,
    }
    return state


def data_of(state: State) -> CardData:
    return card_data(state["options"]["card_data"])


def game_round(state: State) -> int:
    return (state["turn"] - 1) // state["n"] + 1


def side(state: State, ship: str, seat: int) -> dict[str, list[str]]:
    """A seat's side of a ship, created empty on first use."""
    sides = state["sides"].setdefault(ship, {})
    found: dict[str, list[str]] | None = sides.get(str(seat))
    if found is None:
        found = sides[str(seat)] = {"prov": [], "pir": [], "rev": []}
    return found


def peek_side(state: State, ship: str, seat: int) -> dict[str, list[str]] | None:
    """The side if it exists (never creates one: for checks that must change nothing)."""
    found: dict[str, list[str]] | None = state["sides"].get(ship, {}).get(str(seat))
    return found


def kind_count(data: CardData, cards: list[str], kind: str) -> int:
    return sum(1 for c in cards if data.cards[c].kind == kind)


def missing(data: CardData, state: State, ship: str, seat: int) -> dict[str, int]:
    """kind -> cards the seat still lacks at the ship to be complete."""
    own = peek_side(state, ship, seat)
    prov = own["prov"] if own else []
    out = {}
    for kind, need in data.ships[ship].requires.items():
        lack = need - kind_count(data, prov, kind)
        if lack > 0:
            out[kind] = lack
    return out


def is_complete(data: CardData, state: State, ship: str, seat: int) -> bool:
    own = peek_side(state, ship, seat)
    return own is not None and len(own["prov"]) == data.ships[ship].needed


def attack_bonus(data: CardData, own: Mapping[str, list[str]]) -> int:
    """Pirate values plus one per symbol provision (§4 attack value)."""
    return sum(data.cards[c].value for c in own["pir"]) + sum(
        data.cards[c].value for c in own["prov"])


def at_sea(state: State) -> list[str]:
    return [s for s in state["slots"] if s is not None]


def trim_pirates(data: CardData, state: State, ship: str, seat: int) -> list[str]:
    """§4.1: pirates above the provisions go to the discard pile, lowest value (then id)
    first; returns them sorted by id."""
    own = peek_side(state, ship, seat)
    if own is None or len(own["pir"]) <= len(own["prov"]):
        return []
    order = sorted(own["pir"], key=lambda c: (data.cards[c].value, c))
    gone = order[:len(own["pir"]) - len(own["prov"])]
    for card in gone:
        own["pir"].remove(card)
        if card in own["rev"]:
            own["rev"].remove(card)
    state["discard"].extend(gone)
    return sorted(gone)


def score(data: CardData, state: State, seat: int) -> tuple[int, int]:
    """(base points, colour bonus) of a seat's captured ships (§8)."""
    ships = [data.ships[s] for s in state["captured"][str(seat)]]
    base = sum(s.points for s in ships)
    bonus = 0
    if state["options"]["colour-bonus"]:
        by_colour: dict[str, list[int]] = {}
        for s in ships:
            by_colour.setdefault(s.colour, []).append(s.points)
        bonus = sum(max(p) for p in by_colour.values() if len(p) >= 3)
    return base, bonus


def track(points: int) -> int:
    """The score track position, 1-44 wrapping (§2.3)."""
    return 0 if points == 0 else (points - 1) % 44 + 1


def live_seats(state: State) -> list[int]:
    return [s for s in range(state["n"]) if not state["resigned"][s]]


def visible_harbour(state: State) -> list[str]:
    return state["harbour"][:3 if state["options"]["open-harbour"] else 1]
