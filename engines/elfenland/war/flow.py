"""The war game's course: decisions, turns, rounds, income, checks and the end (§4.3, §8.2).

docs/rules/elfenland-war.md "Course of a round", "Victory". Everything here runs between moves
and needs no input: it advances the state to the next decision (`ask`), closing the current
step each time (contract v2 point 1), and runs the eliminations and victory checks after every
resolved action and round-end step (§8.2).
"""

from __future__ import annotations

from engines.contract import Event, Rng, State, close_decision
from engines.elfenland.board import RAFT
from engines.elfenland.cards import add, expand
from engines.elfenland.war.conditions import condition_set, holds
from engines.elfenland.war.geo import war_map

# decision kinds (§4.3) and the two of this implementation (§4.4: the unit picks)
PLACE_INITIAL = "war_place_initial"
CAPITAL = "war_capital"
PLACE_REST = "war_place_rest"
OPENING = "war_opening"
TURN = "war_turn"
PICK = "war_pick"
PICK_MORE = "war_pick_more"
CASUALTIES = "war_casualties"
ATTACK_AGAIN = "war_attack_again"
CONVERT = "war_convert"
GAME_OVER = "game_over"
SIMULTANEOUS = (PLACE_INITIAL, PLACE_REST)
UNIT_LIMIT = 20


def ask(state: State, kind: str, to_act: list[int]) -> None:
    """Open the next decision: the current one closes, the step advances."""
    close_decision(state)
    state["phase"] = kind
    state["to_act"] = to_act


def alive(state: State) -> list[int]:
    """The seats not eliminated, ascending."""
    return [s for s in range(state["seats"]) if not state["eliminated"][s]]


def rotation(state: State, first: int) -> list[int]:
    """Every seat in turn order from `first`, eliminated ones left out."""
    n = state["seats"]
    return [(first + i) % n for i in range(n) if not state["eliminated"][(first + i) % n]]


def owner(state: State, town: str) -> int | None:
    """The seat with units in `town`, or None if it is empty."""
    g = state["garrison"].get(town)
    return None if g is None else g["seat"]


def towns_of(state: State, seat: int) -> list[str]:
    """The towns `seat` controls, in the order of the garrison map."""
    return [t for t, g in state["garrison"].items() if g["seat"] == seat]


def hand_size(state: State, seat: int) -> int:
    return sum(state["hands"][seat].values())


# --------------------------------------------------------------------------- cards


def draw_cards(state: State, seat: int, count: int, rng: Rng, events: list[Event]) -> int:
    """Draw up to `count` victory cards for `seat`, top first; an empty deck is refilled by
    shuffling `war_discard` (`war-victory-reshuffle`, indices, secret). Returns the number drawn
    (§4.3 "Drawing from the victory deck")."""
    drawn = 0
    hand = state["hands"][seat]
    for _ in range(count):
        if not state["deck"]:
            pile = expand(state["war_discard"])  # canonical order, whatever the dict's
            if not pile:
                break
            order = rng.shuffle("war-victory-reshuffle", list(range(len(pile))), secret=True)
            state["deck"] = [pile[i] for i in order]
            state["war_discard"] = {}
            events.append({"type": "victory_deck_reshuffled", "size": len(pile)})
        add(hand, state["deck"].pop(0))
        drawn += 1
    return drawn


# --------------------------------------------------------------------------- checks


def units_present(state: State) -> list[dict[str, int]]:
    """Per seat: its units on the board by type (empty dict: none)."""
    out: list[dict[str, int]] = [{} for _ in range(state["seats"])]
    for g in state["garrison"].values():
        mine = out[g["seat"]]
        for t, n in g["units"].items():
            mine[t] = mine.get(t, 0) + n
    return out


def capital_goal(state: State) -> int:
    """Trophies needed to win: 1 with 2-3 seats at setup, 2 with 4-6 (§8.2)."""
    return 1 if state["seats"] <= 3 else 2


def run_checks(state: State, events: list[Event]) -> bool:
    """Eliminations, then the victory checks of §8.2; True if the game ended."""
    if state["phase"] == GAME_OVER:
        return True
    if state["live"]:
        for s in range(state["seats"]):
            if not state["eliminated"][s] and state["units_on_board"][s] == 0:
                state["eliminated"][s] = True
                events.append({"type": "eliminated", "seat": s})
    living = alive(state)
    active = state["active"]
    if state["live"]:
        if state["options"]["war-victory"] == "capitals":
            goal = capital_goal(state)
            won = [s for s in living if len(state["trophies"][s]) >= goal]
            if won:
                return finish(state, _priority(won, active), "capitals_captured", events)
        else:
            cards = condition_set(state["options"]["war-conditions"])
            owners = {t: g["seat"] for t, g in state["garrison"].items()}
            present = units_present(state)
            won = [s for s in living
                   if holds(cards.card(state["conditions"][s]), s, owners, state["colours"],
                            present, state["seats"])]
            if won:
                return finish(state, _priority(won, active), "condition_fulfilled", events)
    if len(living) == 1:
        return finish(state, living, "last_army_standing", events)
    if not living:
        return finish(state, [], "last_army_standing", events)
    return False


def _priority(won: list[int], active: int | None) -> list[int]:
    """The active seat wins alone if it qualifies; otherwise all who qualify share (§8.2)."""
    return [active] if active in won else won


def scores(state: State) -> dict[str, int]:
    """Towns controlled per seat (§8.2 "Result")."""
    out = {str(s): 0 for s in range(state["seats"])}
    for g in state["garrison"].values():
        out[str(g["seat"])] += 1
    return out


def finish(state: State, winners: list[int], reason: str, events: list[Event]) -> bool:
    """End the game with this result; every decision closes."""
    result = {"winners": sorted(winners), "scores": scores(state), "reason": reason}
    state["result"] = result
    state["pending"] = None
    state["fight"] = None
    ask(state, GAME_OVER, [])
    events.append({"type": "game_ended", **result,
                   "conditions": None if state["conditions"] is None
                   else list(state["conditions"])})
    return True


def round_limit(state: State, events: list[Event]) -> None:
    """After the last round: most towns, then most units; otherwise shared (§8.2 point 5)."""
    sc = scores(state)
    living = alive(state)
    key = {s: (sc[str(s)], state["units_on_board"][s]) for s in living}
    best = max(key.values(), default=(0, 0))
    finish(state, [s for s in living if key[s] == best], "round_limit", events)


# --------------------------------------------------------------------------- turns and rounds


def begin_round(state: State, events: list[Event]) -> None:
    """Round `round` starts: one turn per living seat from `start` (§4.3)."""
    state["order"] = rotation(state, state["start"])
    state["turn"] = 0
    events.append({"type": "round_started", "round": state["round"], "start": state["start"]})
    begin_turn(state)


def begin_turn(state: State) -> None:
    seat = state["order"][state["turn"]]
    state["active"] = seat
    state["pending"] = None
    state["fight"] = None
    ask(state, TURN, [seat])


def end_turn(state: State, rng: Rng, events: list[Event]) -> None:
    """The active seat's turn is over: the checks, then the next living seat or round end."""
    state["pending"] = None
    state["fight"] = None
    if run_checks(state, events):
        return
    order = state["order"]
    i = state["turn"] + 1
    while i < len(order) and state["eliminated"][order[i]]:
        i += 1
    if i < len(order):
        state["turn"] = i
        begin_turn(state)
        return
    round_end(state, rng, events)


def round_end(state: State, rng: Rng, events: list[Event]) -> None:
    """Raft reshuffle, income, then conversion in turn order from `start` (§4.3)."""
    state["active"] = None
    played = state["rafts_played"]
    if played:
        cards = state["deck"] + [RAFT] * played
        order = rng.shuffle("war-raft-reshuffle", list(range(len(cards))), secret=True)
        state["deck"] = [cards[i] for i in order]
        state["rafts_played"] = 0
        events.append({"type": "rafts_reshuffled", "rafts": played, "deck": len(cards)})
    seats = rotation(state, state["start"])
    home = war_map(state["options"]["map_data"]).board.start
    for s in seats:
        owned = 0
        elvenhold = False
        for t, g in state["garrison"].items():
            if g["seat"] == s:
                owned += 1
                elvenhold = elvenhold or t == home
        due = owned // 3 + (1 if elvenhold else 0)
        if due:
            got = draw_cards(state, s, due, rng, events)
            events.append({"type": "income", "seat": s, "due": due, "drawn": got})
    state["convert"] = seats
    next_convert(state, rng, events)


def next_convert(state: State, rng: Rng, events: list[Event]) -> None:
    """Ask the next seat holding 3 or more cards to convert; then the next round (§4.3)."""
    queue = state["convert"]
    while queue:
        s = queue.pop(0)
        if not state["eliminated"][s] and hand_size(state, s) >= 3:
            state["active"] = s
            ask(state, CONVERT, [s])
            return
    state["active"] = None
    living = alive(state)
    n = state["seats"]
    nxt = state["start"]
    for i in range(1, n + 1):
        cand = (state["start"] + i) % n
        if cand in living:
            nxt = cand
            break
    state["start"] = nxt
    state["round"] += 1
    if state["round"] > state["options"]["war-max-rounds"]:
        state["round"] -= 1
        round_limit(state, events)
        return
    begin_round(state, events)


# --------------------------------------------------------------------------- the opening


def next_opening(state: State, events: list[Event]) -> None:
    """Ask the next seat of the opening rotation; a seat with no support counter passes
    automatically; n passes in a row end it and round 1 begins (§3.3 step 10)."""
    n = state["seats"]
    while True:
        living = alive(state)
        if state["passes_in_row"] >= len(living):
            state["round"] = 1
            events.append({"type": "opening_ended"})
            begin_round(state, events)
            return
        s = state["opener"]
        if state["eliminated"][s]:
            state["opener"] = (s + 1) % n
            continue
        if sum(state["support"][s].values()) == 0:
            state["passes_in_row"] += 1
            state["opener"] = (s + 1) % n
            events.append({"type": "opening_passed", "seat": s, "automatic": True})
            continue
        state["active"] = s
        ask(state, OPENING, [s])
        return


def place_units(state: State, seat: int, town: str, units: dict[str, int]) -> None:
    """Put units of `seat` into `town` (own or empty) and count them on the board."""
    g = state["garrison"].get(town)
    if g is None:
        g = state["garrison"][town] = {"seat": seat, "units": {}}
    for t, k in units.items():
        add(g["units"], t, k)
        state["units_on_board"][seat] += k


def remove_units(state: State, town: str, units: dict[str, int], to_supply: bool) -> None:
    """Take units out of `town` (to the supply when they die); an emptied town is unoccupied."""
    g = state["garrison"][town]
    mine = g["units"]
    for t, k in units.items():
        left = mine[t] - k
        if left:
            mine[t] = left
        else:
            del mine[t]
        state["units_on_board"][g["seat"]] -= k
        if to_supply:
            add(state["supply"], t, k)
    if not mine:
        del state["garrison"][town]


def capture_capital(state: State, seat: int, town: str, events: list[Event]) -> None:
    """If `town` is another seat's uncaptured capital, `seat` takes its boot (§8.2 point 2)."""
    for s, cap in enumerate(state["capital"]):
        if cap == town and s != seat:
            state["capital"][s] = None
            state["trophies"][seat].append(s)
            events.append({"type": "capital_captured", "seat": seat, "owner": s, "town": town})
