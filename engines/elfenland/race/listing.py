"""Legal moves and timeout defaults of the race, per decision kind (spec §4.2, §4.4).

Every decision lists whole, small choices: travel one step at a time (free card multisets of a
caravan, ferryman or bridge are picked one card at a time), discards and round-end choices whole
(at most a few hundred entries). Defaults (contract v2 point 6) take the seat out of `to_act`:
pass, end the move, allow, a random discard by a secret draw, or the first listed choice.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import product

from engines.contract import Move, State
from engines.elfenland import cards
from engines.elfenland.race import flow, planning, travel
from engines.elfenland.race import state as S


def _distinct(m: dict[str, int]) -> list[str]:
    return [t for t in cards.CARD_TYPES if m.get(t)]


def legal_moves(st: State, seat: int) -> Iterator[Move]:
    """Every legal move of `seat` now; nothing unless it is in `to_act`."""
    dec = st["dec"]
    if seat not in dec["to_act"]:
        return
    kind = dec["kind"]
    hand = st["hand"][seat]
    if kind in ("draft", "qoc_draft"):
        counters = kind == "draft" or flow.qoc_counters_open(st, seat)
        if counters:
            for k in sorted(set(st["display"]), key=cards.ORDER.__getitem__):
                yield {"type": "take_counter", "counter": k}
            if st["pile"]:
                yield {"type": "draw_counter"}
        if kind == "qoc_draft" and flow.qoc_cards_open(st, seat):
            for c in sorted(set(st["card_display"]), key=cards.ORDER.__getitem__):
                yield {"type": "take_card", "card": c}
            if st["deck"]:
                yield {"type": "draw_card"}
    elif kind in ("discard", "discard_public"):
        for sub in cards.sub_multisets(hand, dec["owed"][str(seat)]):
            yield {"type": kind, "cards": sub}
    elif kind == "centre_put":
        for c in _distinct(hand):
            yield {"type": "centre_put", "card": c}
    elif kind == "centre_take":
        for c in sorted(set(st["centre"]), key=cards.ORDER.__getitem__):
            yield {"type": "centre_take", "card": c}
    elif kind == "rotation":
        for k in _distinct(st["faceup"][seat]):
            yield {"type": "pass_counter", "counter": k}
    elif kind == "plan":
        yield from planning.plan_moves(st, seat)
    elif kind == "objection_window":
        yield {"type": "object"}
        yield {"type": "allow"}
    elif kind == "vote":
        yield {"type": "vote", "allow": True}
        yield {"type": "vote", "allow": False}
    elif kind == "junk_exchange":
        yield from _exchanges(hand)
    elif kind == "move":
        yield from travel.legal_steps(st, seat)
        yield {"type": "end_move"}
    elif kind == "pick":
        picked = st["travel"]["picked"]
        for c in _distinct(hand):
            if hand[c] > picked.get(c, 0):
                yield {"type": "pick", "card": c}
    elif kind == "steal":
        for v in dec["victims"]:
            yield {"type": "steal", "victim": v}
        yield {"type": "no_steal"}
    elif kind == "forced_step":
        yield from travel.legal_steps(st, seat)
    elif kind == "finish_round":
        yield from _finish_moves(st, seat)


def _exchanges(hand: dict[str, int]) -> Iterator[Move]:
    kinds = _distinct(hand)
    if cards.size(hand) == 1:
        yield {"type": "exchange", "left": kinds[0]}
        return
    for left, right in product(kinds, kinds):
        if left != right or hand[left] >= 2:
            yield {"type": "exchange", "left": left, "right": right}


def _finish_moves(st: State, seat: int) -> Iterator[Move]:
    keeps: list[dict | None] = [None]
    if S.held(st, seat) >= 2:
        keeps = [{"counter": k, "hidden": h} for h in (False, True)
                 for k in _distinct(st["hidden" if h else "faceup"][seat])]
    drops: list[dict] = [{}]
    hand = st["hand"][seat]
    if S.opt(st, "lost-tickets"):
        drops = [sub for n in range(cards.size(hand) + 1)
                 for sub in cards.sub_multisets(hand, n)]
    for keep in keeps:
        for drop in drops:
            move: Move = {"type": "finish_round", "keep": keep}
            if drop:
                move["discard"] = drop
            yield move


def default_move(st: State, seat: int) -> Move | None:
    """The timeout move of the seat's decision kind (docs/rules/elfenland.md "Timeouts")."""
    dec = st["dec"]
    if st["result"] is not None or seat not in dec["to_act"]:
        return None
    kind = dec["kind"]
    fixed: dict[str, Move] = {
        "plan": {"type": "pass"}, "move": {"type": "end_move"},
        "objection_window": {"type": "allow"}, "vote": {"type": "vote", "allow": True},
        "steal": {"type": "no_steal"}, "discard": {"type": "discard_random"},
        "discard_public": {"type": "discard_random"},
    }
    if kind in fixed:
        return fixed[kind]
    return next(legal_moves(st, seat), None)
