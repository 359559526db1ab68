"""The race game's state: its shape, setup, and the small functions every race module shares.

docs/rules/elfenland.md "State"; spec §2.3, §3.2. Plain JSON, mutated in place by `apply`:

- `mode` "race", `step`, `n` (seats), `options` (validated race options), `round`, `start`,
  `phase` (where `flow.advance` resumes), `cursor` (turn index inside the phase), `dec` (the open
  decision: `kind`, `to_act`, and context), `pending` (str seat -> a simultaneous submission,
  SECRET until the decision resolves), `result` (None until the end).
- `boot[s]` town; `collected[s]` towns whose piece s has collected, in order; `hand[s]`,
  `hidden[s]`, `faceup[s]` multisets of cards / face-down counters / face-up counters (hand
  and hidden are SECRET).
- `pile` counter multiset (SECRET: only its size is shown), `display` face-up counters (sorted),
  `deck` travel cards as a string of card codes, top first (SECRET), `discards` the public
  discard pile as a multiset.
- `counters` str road id -> counter type; `obstacles` str road id -> {"owner", "side"};
  `bridges` str road id -> owner (indiana-jones); `obstacle_available[s]`; `placed` obstacles
  and bridges laid this round (trunk-round-limit).
- `plan_seat`, `passes` (passes in a row); `mover` and `travel` (a step whose cards are being
  picked, `picked` SECRET); `adj[s]`; `resigned[s]`; variant fields only when the variant is on.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from engines.contract import Event, IllegalMove, Rng, State
from engines.elfenland import cards
from engines.elfenland.board import Board, board
from engines.elfenland.options import colours_of

HAND_LIMIT = 4
COUNTER_LIMIT = 5
DEAL = 8


def deck_pop(st: State) -> str:
    """Take the deck's top card. The deck is a string of card codes, top first: one character
    per card, its index in `cards.CARD_TYPES` (compact, so states stay small and fast)."""
    deck = st["deck"]
    st["deck"] = deck[1:]
    return cards.CARD_TYPES[int(deck[0])]


def deck_bottom(st: State, kinds: list[str]) -> None:
    """Put cards under the deck (a resigned seat's hand; it is reshuffled at the next R1)."""
    st["deck"] += "".join(str(cards.ORDER[k]) for k in kinds)


def the_board(st: State) -> Board:
    """The (cached) map of a game."""
    return board(st["options"]["map_data"])


def opt(st: State, name: str) -> Any:
    """One option of the game."""
    return st["options"][name]


def fail(code: str, message: str) -> IllegalMove:
    """The refusal of a move, with the spec's code (§5.6)."""
    return IllegalMove(code, message)


def active(st: State) -> list[int]:
    """The seats that have not resigned, ascending."""
    return [s for s in range(st["n"]) if not st["resigned"][s]]


def order_from(st: State, first: int) -> Iterator[int]:
    """The active seats in turn order from `first` (§1 "turn order")."""
    n = st["n"]
    resigned = st["resigned"]
    for k in range(n):
        s = (first + k) % n
        if not resigned[s]:
            yield s


def next_active(st: State, seat: int, step: int = 1) -> int:
    """The next active seat after `seat` going left (+1) or right (-1); `seat` if alone."""
    n = st["n"]
    s = seat
    for _ in range(n):
        s = (s + step) % n
        if not st["resigned"][s]:
            return s
    return seat


def held(st: State, seat: int) -> int:
    """How many counters a seat holds (face up and face down)."""
    return sum(st["hidden"][seat].values()) + sum(st["faceup"][seat].values())


def target(st: State, seat: int) -> int:
    """The seat's hand target H = 8 + adj (§4.1 R1; travel-monopoly changes adj)."""
    return DEAL + st["adj"][seat]


def draw_counter(st: State, rng: Rng, purpose: str) -> str | None:
    """Draw one counter from the pile by a secret index (§2.3, §6); None if it is empty."""
    pile = st["pile"]
    total = sum(pile.values())
    if not total:
        return None
    kind = cards.nth(pile, rng.randint(purpose, 0, total - 1, secret=True))
    cards.remove(pile, kind)
    return kind


def refill_display(st: State, rng: Rng, events: list[Event], purpose: str) -> None:
    """Fill the face-up display up to D from the pile (§3.2, §4.1 R6)."""
    size = 3 if opt(st, "quality-of-choice") else 5
    display = st["display"]
    drawn = []
    while len(display) < size:
        kind = draw_counter(st, rng, purpose)
        if kind is None:
            break
        display.append(kind)
        drawn.append(kind)
    if drawn:
        display.sort(key=cards.ORDER.__getitem__)
        events.append({"type": "display_refilled", "counters": drawn,
                       "pile": sum(st["pile"].values())})


def shuffle_deck(st: State, rng: Rng, events: list[Event]) -> None:
    """R1: every card outside the hands becomes the new deck, shuffled by indices (§4.1, §6)."""
    deck = st["deck"]
    outside = {kind: deck.count(str(code)) for kind, code in cards.ORDER.items()}
    cards.merge(outside, st["discards"])
    for kind in st.get("card_display", ()):
        cards.add(outside, kind)
    codes = [str(cards.ORDER[kind]) for kind in cards.expand(outside)]
    order = rng.shuffle("travel-deck", list(range(len(codes))), secret=True)
    st["deck"] = "".join([codes[i] for i in order])
    st["discards"] = {}
    if "card_display" in st:
        st["card_display"] = []
    events.append({"type": "deck_shuffled", "deck": len(codes)})


def deal_cards(st: State, events: list[Event], quota: Mapping[int, int],
               fill_to: bool) -> None:
    """`deal_to(T)` (fill_to) or `deal_count(K)`: one card at a time in full passes in turn
    order from `start`, while the deck lasts (§4.1 R1)."""
    hands = st["hand"]
    given = {s: 0 for s in quota}
    seats = list(order_from(st, st["start"]))
    dealt = True
    while dealt and st["deck"]:
        dealt = False
        for s in seats:
            if not st["deck"]:
                break
            have = sum(hands[s].values()) if fill_to else given[s]
            if have < quota[s]:
                cards.add(hands[s], deck_pop(st))
                given[s] += 1
                dealt = True
    events.append({
        "type": "cards_dealt", "dealt": {str(s): given[s] for s in seats}, "deck": len(st["deck"]),
        "private": {str(s): {"hand": cards.canonical(hands[s])} for s in seats},
    })


def setup(options: Mapping[str, Any], seats: int, rng: Rng) -> State:
    """The race game before round 1 (§3.2); `flow.advance` then plays the automatic steps."""
    b = board(options["map_data"])
    n = seats
    st: State = {
        "mode": "race", "step": 0, "n": n, "options": dict(options),
        "colours": colours_of(options, n),
        "round": 1, "start": 0, "phase": "round_start", "cursor": 0,
        "dec": {"kind": "setup", "to_act": []}, "pending": {}, "result": None,
        "boot": [b.start] * n, "collected": [[] for _ in range(n)],
        "hand": [{} for _ in range(n)], "hidden": [{} for _ in range(n)],
        "faceup": [{} for _ in range(n)],
        "pile": cards.full_pile(b), "display": [], "deck": "",  # filled just below
        "discards": {}, "counters": {}, "obstacles": {}, "bridges": {},
        "obstacle_available": [True] * n, "placed": 0,
        "plan_seat": 0, "passes": 0, "mover": 0, "travel": None,
        "adj": [0] * n, "resigned": [False] * n,
    }
    deck_bottom(st, cards.expand(cards.full_deck(b)))
    if options["quality-of-choice"]:
        st["card_display"] = []
        st["quota"] = [[0, 0] for _ in range(n)]
    if options["substitution"]:
        st["subst_tokens"] = [2] * n
        st["substituted"] = []
    if options["objection"]:
        st["objections"] = [2] * n
        st["objection"] = None
    if options["travel-monopoly"]:
        st["monopoly"] = []
        st["visited"] = [[] for _ in range(n)]
    if options["hellish-road"]:
        st["hellish"] = None
    if options["centre"]:
        st["centre"], st["putters"], st["takers"] = [], [], []
    if options["thief"]:
        st["thief"] = {"passed": [False] * n, "stolen": None}
    events: list[Event] = []
    refill_display(st, rng, events, "counter-reveal")
    if options["destination"]:
        towns = b.card_towns
        order = rng.shuffle("destination-cards", list(range(len(towns))), secret=True)
        st["destination"] = [towns[i] for i in order[:n]]
    return st


def note_visit(st: State, seat: int, town: str) -> None:
    """travel-monopoly: a step ending in a monopoly town visits it (§9.2.5)."""
    if "monopoly" in st and town in st["monopoly"] and town not in st["visited"][seat]:
        st["visited"][seat].append(town)
