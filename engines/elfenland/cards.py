"""Travel cards and counters: the kinds, the canonical order, and what a card pays for a road.

docs/rules/elfenland.md "Components" (spec §2.2, §2.3). Shared by the race game and the war game:
hands and piles are multisets `{type: count}` (cards of one type are identical), expanded in the
canonical order for every random draw, and `cost` reads the board's chart so that a road's price
is never written twice.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping

from engines.elfenland.board import RAFT, TRANSPORTS, Board, Road

#: card types in canonical order (§2.3): the six land types, then raft
CARD_TYPES: tuple[str, ...] = (*TRANSPORTS, RAFT)
#: counter types in canonical order: the card types without raft
COUNTER_TYPES: tuple[str, ...] = TRANSPORTS
#: type -> its place in the canonical order (for sorting)
ORDER: Mapping[str, int] = {t: i for i, t in enumerate(CARD_TYPES)}

Multiset = dict[str, int]


def cost(board: Board, road: Road, transport: str, leaving: str) -> int | None:
    """Identical cards of `transport` needed to use `road` leaving town `leaving`, obstacles
    not counted; None if that transport cannot use the road (§2.2).

    Land roads cost `travel_cost[transport][terrain]` (a counter of that type must lie there:
    the caller checks). Water takes rafts only: a river costs 1 leaving its upstream end `a` and
    2 leaving `b`; a lake costs 2 either way (the ferryman variant is the caller's business).
    """
    terrain = road.terrain
    if terrain == "river":
        if transport != RAFT:
            return None
        key = "river_downstream" if leaving == road.a else "river_upstream"
        return board.raft_cost[key]
    if terrain == "lake":
        return board.raft_cost["lake"] if transport == RAFT else None
    if transport == RAFT:
        return None
    entry = board.travel_cost.get(transport)
    return None if entry is None else entry.get(terrain)


def allowed(board: Board, counter: str, terrain: str) -> bool:
    """True if a counter of this type may lie on a road of this terrain (§2.2: a chart entry)."""
    entry = board.travel_cost.get(counter)
    return entry is not None and terrain in entry


def caravan_cost(board: Board, obstacle: bool) -> int:
    """Cards of any types a caravan pays on a land road carrying a counter (§2.2): 3, or 4."""
    return board.caravan_cost[1 if obstacle else 0]


def full_deck(board: Board) -> Multiset:
    """Every travel card of the box as a multiset (72 on the shipped map)."""
    return {t: board.card_counts[t] for t in CARD_TYPES}


def full_pile(board: Board) -> Multiset:
    """Every transportation counter of the box as a multiset (48 on the shipped map)."""
    return {t: board.counter_counts[t] for t in COUNTER_TYPES}


def size(m: Mapping[str, int]) -> int:
    """The number of items in a multiset."""
    return sum(m.values())


def expand(m: Mapping[str, int]) -> list[str]:
    """The multiset as a list in canonical order: the list every draw indexes (§2.3)."""
    return [t for t in CARD_TYPES for _ in range(m.get(t, 0))]


def nth(m: Mapping[str, int], index: int) -> str:
    """The type at `index` of `expand(m)`, without building the list."""
    for t in CARD_TYPES:
        n = m.get(t, 0)
        if index < n:
            return t
        index -= n
    raise IndexError(index)


def add(m: Multiset, kind: str, n: int = 1) -> None:
    """Put `n` items of `kind` into `m` (in place)."""
    m[kind] = m.get(kind, 0) + n


def remove(m: Multiset, kind: str, n: int = 1) -> None:
    """Take `n` items of `kind` out of `m` (in place; the caller has checked they are there);
    a type that reaches 0 disappears, so equal multisets are equal dicts."""
    left = m[kind] - n
    if left:
        m[kind] = left
    else:
        del m[kind]


def contains(m: Mapping[str, int], sub: Mapping[str, int]) -> bool:
    """True if every item of `sub` is in `m`."""
    return all(m.get(k, 0) >= v for k, v in sub.items())


def subtract(m: Multiset, sub: Mapping[str, int]) -> None:
    """Remove the multiset `sub` from `m` (in place; the caller has checked `contains`)."""
    for k, v in sub.items():
        if v:
            remove(m, k, v)


def merge(m: Multiset, more: Mapping[str, int]) -> None:
    """Add the multiset `more` to `m` (in place)."""
    for k, v in more.items():
        if v:
            add(m, k, v)


def canonical(m: Mapping[str, int]) -> Multiset:
    """A copy of `m` with its keys in canonical order and no zero counts (for views, events)."""
    return {t: m[t] for t in CARD_TYPES if m.get(t)}


def is_multiset(value: object, kinds: Iterable[str] = CARD_TYPES) -> bool:
    """True if `value` is a JSON multiset of these kinds: `{kind: int >= 1}` (§5 "Format")."""
    if not isinstance(value, dict):
        return False
    names = set(kinds)
    return all(k in names and type(v) is int and v >= 1 for k, v in value.items())


def sub_multisets(m: Mapping[str, int], count: int) -> Iterator[Multiset]:
    """Every sub-multiset of `m` with exactly `count` items, in canonical order: depth first,
    the largest count of the earliest type first. Built as a list by one plain recursion that
    skips takes the later types cannot make up (a discard may list hundreds of choices)."""
    kinds = [t for t in CARD_TYPES if m.get(t)]
    room = [0] * (len(kinds) + 1)  # room[i]: how many items kinds[i:] hold together
    for i in range(len(kinds) - 1, -1, -1):
        room[i] = room[i + 1] + m[kinds[i]]
    found: list[Multiset] = []
    chosen: list[tuple[str, int]] = []

    def walk(i: int, left: int) -> None:
        if left == 0:
            found.append(dict(chosen))
            return
        if not 0 < left <= room[i]:
            return
        kind = kinds[i]
        for take in range(min(left, m[kind]), max(left - room[i + 1], 0) - 1, -1):
            if take:
                chosen.append((kind, take))
                walk(i + 1, left - take)
                chosen.pop()
            else:
                walk(i + 1, left)
    walk(0, count)
    return iter(found)
