"""The Caribbean Witch (`witch: true`): spells cast with cards, and the chest tokens (§5.5, §5.6).

A spell is one action; its cards go to the pile first. Pistol, rum and lantern open a follow-up
decision of the caster (`pistol_take`, `rum_deal`, `lantern_keep`) over cards only the caster
may see, kept in `state["follow"]` (`drawn`, or the pistol's `target`). Parrot, hook and chest
resolve at once. Checks raise `IllegalMove` and change nothing; `cast` and `answer` mutate.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from engines.cartagena import board as B
from engines.cartagena.data import TileData, symbol_of
from engines.cartagena.texts import fail
from engines.contract import Event, Move, Rng, State

FOLLOW_KINDS = ("pistol_take", "rum_deal", "lantern_keep")
#: spell symbol -> how many cards it takes
SPELL_CARDS = {"pistol": 1, "rum": 1, "lantern": 1, "parrot": 2, "hook": 2, "chest": 1}


def _place_tokens(state: State, tokens: list[str]) -> None:
    squares = [q for q in range(1, len(state["squares"])) if state["squares"][q] == "chest"]
    state["chests"] = {str(q): t for q, t in zip(squares, tokens, strict=False)}
    state["chests_aside"] = tokens[len(squares):]


def live_others(state: State, seat: int) -> list[int]:
    return [s for s in range(state["n"]) if s != seat and not state["resigned"][s]]


# ---- the spell -------------------------------------------------------------------------


def check_spell(state: State, seat: int, move: Move, location: Any) -> dict[str, Any]:
    """Every check of a `spell`, in §5.7's order; returns what `cast` needs."""
    if not state["options"]["witch"]:
        raise fail("variant_not_enabled", "Spells belong to the Caribbean Witch.")
    cards = move["cards"]
    if not isinstance(cards, list) or not cards or not all(isinstance(c, str) for c in cards):
        raise fail("malformed_move", "`cards` is a non-empty list of card ids.")
    hand = state["hands"][str(seat)]
    for c in cards:
        if c not in hand:
            raise fail("card_not_in_hand", c)
    if len(set(cards)) != len(cards):
        raise fail("duplicate_card")
    spell = symbol_of(cards[0])
    if len(cards) != SPELL_CARDS[spell]:
        raise fail("spell_card_count", f"The {spell} spell takes {SPELL_CARDS[spell]}.")
    out: dict[str, Any] = {"spell": spell, "cards": list(cards)}
    if spell == "parrot":
        if symbol_of(cards[1]) != "parrot":
            raise fail("spell_card_mismatch", "The parrot spell takes two parrots.")
        symbol = move.get("symbol")
        loc = location(state, move.get("from"))
        _own(state, seat, loc)
        if symbol == "parrot" or symbol not in B.data_of(state).symbols:
            raise fail("invalid_wild_symbol")
        out.update(loc=loc, dest=B.forward(state, seat, loc, symbol))
    elif spell == "hook":
        loc = location(state, move.get("from"))
        _own(state, seat, loc)
        if state["pirates"][str(seat)].get(B.loc_key(loc), 0) < 2:
            raise fail("hook_needs_two_pirates")
        out.update(loc=loc, dest=_forward_two(state, seat, loc, symbol_of(cards[1])))
    elif spell == "chest":
        loc = location(state, move.get("from"))
        _own(state, seat, loc)
        if not isinstance(loc, int) or str(loc) not in state["chests"]:
            raise fail("no_chest_here")
        out["loc"] = loc
    elif spell == "pistol":
        target = move.get("target")
        if not isinstance(target, int) or isinstance(target, bool):
            raise fail("malformed_move", "`target` is a seat number.")
        if target == seat or not 0 <= target < state["n"] or state["resigned"][target]:
            raise fail("pistol_bad_target")
        if not state["hands"][str(target)]:
            raise fail("pistol_target_empty")
        out["target"] = target
    return out


def _own(state: State, seat: int, loc: int | str) -> None:
    if not state["pirates"][str(seat)].get(B.loc_key(loc)):
        raise fail("no_pirate_there", repr(loc))


def _forward_two(state: State, seat: int, loc: int | str, symbol: str) -> int | str:
    """The hook's destination: Forward once, with room aboard for both pirates."""
    dest = B.forward(state, seat, loc, symbol)
    if dest == "ship" and B.aboard(state, seat) + 2 > 3:
        raise fail("ship_crew_limit")
    return dest


def cast(state: State, seat: int, spell: dict[str, Any], rng: Rng,
         events: list[Event]) -> bool:
    """Apply a checked spell; True when it opened a follow-up decision."""
    for c in spell["cards"]:
        state["hands"][str(seat)].remove(c)
        state["discard"].append(c)
    kind = spell["spell"]
    event: dict[str, Any] = {"type": "spell", "seat": seat, "spell": kind,
                             "cards": spell["cards"]}
    events.append(event)
    if kind in ("parrot", "hook"):
        movers = 2 if kind == "hook" else 1
        for _ in range(movers):
            B.move_pirate(state, seat, spell["loc"], spell["dest"])
        event.update({"from": spell["loc"], "to": spell["dest"]})
        return False
    if kind == "chest":
        _open_chest(state, seat, spell["loc"], rng, events)
        return False
    if kind == "pistol":
        event["target"] = spell["target"]
        state["follow"] = {"kind": "pistol_take", "target": spell["target"]}
    else:
        want = len(live_others(state, seat)) + 2 if kind == "rum" else 4
        drawn = _draw_aside(state, want, rng, events)
        event["drew"] = len(drawn)
        if not drawn:
            return False
        state["follow"] = {"kind": "rum_deal" if kind == "rum" else "lantern_keep",
                           "drawn": drawn}
    state["phase"] = state["follow"]["kind"]
    return True


def _draw_aside(state: State, k: int, rng: Rng, events: list[Event]) -> list[str]:
    """Draw k cards that stay out of the hand (the caster's eyes only, §5.5 rum, lantern)."""
    hand = state["hands"][str(state["active"])]
    before = list(hand)
    drawn = B.draw(state, state["active"], k, rng, events)
    hand[:] = before
    _note_known(state)
    return drawn


def _note_known(state: State) -> None:
    """Drop lantern knowledge of cards that have left the deck."""
    known = state.get("known_deck")
    if known:
        state["known_deck"] = [c for c in known if c in state["deck"]]


def _open_chest(state: State, seat: int, square: int, rng: Rng, events: list[Event]) -> None:
    token = state["chests"].pop(str(square))
    data = B.data_of(state)
    events.append({"type": "chest_opened", "seat": seat, "square": square, "token": token})
    if token != "snake":
        state["chests_opened"].append(token)
        B.draw(state, seat, data.chests.get(token, 0), rng, events)
        return
    dest = _snake_square(state, seat, square)
    if dest != square:
        B.move_pirate(state, seat, square, dest)
        events.append({"type": "snake", "seat": seat, "from": square, "to": dest})
    tokens = sorted(list(state["chests"].values()) + state["chests_aside"]
                    + state["chests_opened"] + [token], key=list(data.chests).index)
    order = rng.shuffle("chest-tokens-reshuffle", tokens, secret=True)
    _place_tokens(state, order)
    state["chests_opened"] = []
    events.append({"type": "chests_reshuffled"})


def _snake_square(state: State, seat: int, square: int) -> int | str:
    """Where the snake sends a pirate (decision 14): the nearest free rum square behind it in
    its part of the route, else that part's start; the jungle's start is the ship at Tortuga
    with room for the pirate's colour, and without it the pirate stays (nobody crosses the
    sea backwards, and the ship takes at most 3 of a colour)."""
    start, first, _last, _end = B.segment(state, B.part_of(state, square))
    squares, occ = state["squares"], state["occ"]
    for q in range(square - 1, first - 1, -1):
        if squares[q] == "rum" and occ[q] == 0:
            return q
    if start != "ship":
        return start
    return start if state["shore"] == "tortuga" and B.aboard(state, seat) < 3 else square


# ---- the follow-ups --------------------------------------------------------------------


def check_answer(state: State, seat: int, kind: str, move: Move) -> None:
    follow = state["follow"]
    if kind == "pistol_take":
        if move.get("card") not in state["hands"][str(follow["target"])]:
            raise fail("not_in_target_hand", repr(move.get("card")))
        return
    drawn = follow["drawn"]
    if kind == "lantern_keep":
        keep, back = move.get("keep"), move.get("return")
        if not isinstance(back, list):
            raise fail("malformed_move", "`return` is a list of card ids.")
        if keep not in drawn or any(c not in drawn for c in back):
            raise fail("not_a_drawn_card")
        if sorted([keep, *back]) != sorted(drawn):
            raise fail("lantern_bad_split")
        return
    keep, give = move.get("keep"), move.get("give")
    if not isinstance(keep, list) or not isinstance(give, list) or not all(
            isinstance(g, dict) and set(g) == {"seat", "card"} for g in give):
        raise fail("malformed_move", "`keep` is a list of cards, `give` of {seat, card}.")
    named = keep + [g["card"] for g in give]
    if any(c not in drawn for c in named):
        raise fail("not_a_drawn_card")
    others = live_others(state, seat)
    seats = [g["seat"] for g in give]
    if (len(set(named)) != len(named) or len(keep) != min(2, len(drawn))
            or len(give) != min(len(others), len(drawn) - len(keep))
            or len(set(seats)) != len(seats) or not set(seats) <= set(others)):
        raise fail("rum_bad_split")


def answer(state: State, seat: int, kind: str, move: Move, rng: Rng,
           events: list[Event]) -> None:
    follow = state.pop("follow")
    state["phase"] = "action"
    if kind == "pistol_take":
        target = follow["target"]
        state["hands"][str(target)].remove(move["card"])
        state["hands"][str(seat)].append(move["card"])
        events.append({"type": "pistol_took", "seat": seat, "target": target,
                       "card": move["card"]})
        B.draw(state, target, 1, rng, events)
        return
    if kind == "lantern_keep":
        state["hands"][str(seat)].append(move["keep"])
        state["deck"][:0] = list(move["return"])
        state["known_deck"] = list(move["return"])
        state["known_by"] = seat
        events.append({"type": "lantern_kept", "seat": seat, "keep": move["keep"],
                       "return": list(move["return"])})
        return
    state["hands"][str(seat)] += move["keep"]
    for g in move["give"]:
        state["hands"][str(g["seat"])].append(g["card"])
    left = [c for c in follow["drawn"] if c not in move["keep"]
            and c not in [g["card"] for g in move["give"]]]
    state["discard"] += left
    events.append({"type": "rum_dealt", "seat": seat, "keep": list(move["keep"]),
                   "give": [dict(g) for g in move["give"]], "discarded": left})


def drop_follow(state: State) -> None:
    """A resigned caster's open follow-up: its drawn cards go face up to the pile."""
    follow = state.pop("follow", None)
    if follow and follow.get("drawn"):
        state["discard"] += sorted(follow["drawn"])


# ---- listing and defaults --------------------------------------------------------------


def spells(state: State, seat: int, kinds: list[str], data: TileData,
           reach: dict[int | str, dict[str, int | str]]) -> list[Move]:
    """The castable spells, one per kind of card or pair of kinds (a dark card against a
    light one is a real choice under Rascals); `reach` is `board.forward_all` of every
    location of the seat's pirates."""
    out: list[Move] = []
    own = list(reach)
    for card in kinds:
        spell = symbol_of(card)
        if spell == "pistol":
            out += [{"type": "spell", "cards": [card], "target": t}
                    for t in live_others(state, seat) if state["hands"][str(t)]]
        elif spell in ("rum", "lantern"):
            out.append({"type": "spell", "cards": [card]})
        elif spell == "chest":
            out += [{"type": "spell", "cards": [card], "from": loc} for loc in own
                    if isinstance(loc, int) and str(loc) in state["chests"]]
    symbols = {symbol_of(card) for card in kinds}
    hand = state["hands"][str(seat)]
    if "parrot" in symbols:
        parrots = [c for c in hand if symbol_of(c) == "parrot"]
        out += _parrot_spells(_pairs(parrots, data), data, reach)
    if "hook" in symbols:
        out += _hook_spells(state, seat, _pairs(hand, data), reach)
    return out


def _pairs(cards: list[str], data: TileData) -> list[tuple[str, str]]:
    """Every pair of kinds among `cards` (a kind with itself where two are held), each card
    named by the lowest id of its kind, the lower first."""
    groups: dict[tuple[str, bool], list[str]] = {}
    for c in sorted(cards):
        groups.setdefault(data.kind[c], []).append(c)
    heads = [ids[0] for ids in groups.values()]
    out = [(ids[0], ids[1]) for ids in groups.values() if len(ids) > 1]
    out += [(a, b) for i, a in enumerate(heads) for b in heads[i + 1:]]
    return sorted(out)


def _parrot_spells(pairs: list[tuple[str, str]], data: TileData,
                   reach: dict[int | str, dict[str, int | str]]) -> list[Move]:
    """Two parrots as any other symbol, from every location that symbol leads on from."""
    return [{"type": "spell", "cards": list(pair), "symbol": s, "from": loc}
            for pair in pairs for loc in reach for s in data.symbols
            if s != "parrot" and s in reach[loc]]


def _hook_spells(state: State, seat: int, pairs: list[tuple[str, str]],
                 reach: dict[int | str, dict[str, int | str]]) -> list[Move]:
    """A hook and a second card (named first and second), for two pirates at one location."""
    own = state["pirates"][str(seat)]
    room = B.aboard(state, seat) + 2 <= 3
    out: list[Move] = []
    for pair in pairs:
        hook, second = pair if symbol_of(pair[0]) == "hook" else pair[::-1]
        if symbol_of(hook) != "hook":
            continue
        for loc in reach:
            dest = reach[loc].get(symbol_of(second))
            if own[B.loc_key(loc)] >= 2 and dest is not None and (dest != "ship" or room):
                out.append({"type": "spell", "cards": [hook, second], "from": loc})
    return out


def answers(state: State, seat: int) -> list[Move]:
    """The follow-up's answers, one per arrangement of kinds of card (two cards of one
    symbol and background are interchangeable, as in the listing of plays)."""
    follow = state["follow"]
    kind = B.data_of(state).kind
    if follow["kind"] == "pistol_take":
        hand = sorted(state["hands"][str(follow["target"])])
        return [{"type": "pistol_take", "card": c} for (c,) in _arrangements(hand, 1, kind)]
    drawn = sorted(follow["drawn"])
    out: list[Move] = []
    if follow["kind"] == "lantern_keep":
        for (keep,) in _arrangements(drawn, 1, kind):
            rest = [c for c in drawn if c != keep]
            out += [{"type": "lantern_keep", "keep": keep, "return": list(order)}
                    for order in _arrangements(rest, len(rest), kind)]
        return out
    # rum: with five seats a deal has up to 360 arrangements, more than anyone reads; the
    # listing gives every choice of the kept cards with the rest dealt in ascending order, and
    # the decision says the list is not complete (any other deal of the same cards is legal)
    others = live_others(state, seat)
    for keep in _arrangements(drawn, min(2, len(drawn)), kind, ordered=False):
        rest = [c for c in drawn if c not in keep]
        out.append({"type": "rum_deal", "keep": list(keep),
                    "give": [{"seat": s, "card": c} for s, c in zip(others, rest, strict=False)]})
    return out


def _arrangements(cards: list[str], size: int, kind: dict[str, tuple[str, bool]],
                  ordered: bool = True) -> Iterator[tuple[str, ...]]:
    """Picks of `size` of the sorted `cards`, one per sequence (`ordered`) or multiset of
    kinds, each kind taken by its lowest unused id: the permutations (or combinations), less
    the interchangeable ones."""
    if size == 0:
        yield ()
        return
    tried: set[tuple[str, bool]] = set()
    for i, card in enumerate(cards):
        if kind[card] in tried:
            continue
        tried.add(kind[card])
        rest = cards[:i] + cards[i + 1:] if ordered else cards[i + 1:]
        for tail in _arrangements(rest, size - 1, kind, ordered):
            yield (card, *tail)


def default_answer(state: State, seat: int) -> Move:
    """§5.9: the lowest ids are kept or taken; the rest go out in ascending order."""
    follow = state["follow"]
    if follow["kind"] == "pistol_take":
        return {"type": "pistol_take", "card": min(state["hands"][str(follow["target"])])}
    drawn = sorted(follow["drawn"])
    if follow["kind"] == "lantern_keep":
        return {"type": "lantern_keep", "keep": drawn[0], "return": drawn[1:]}
    keep = drawn[:2]
    others = live_others(state, seat)
    return {"type": "rum_deal", "keep": keep,
            "give": [{"seat": s, "card": c} for s, c in zip(others, drawn[2:], strict=False)]}
