"""What each seat may see (spec §7), the events as each audience sees them, and a text picture.

A view is built from an allow-list: public facts for everyone, the seat's own hand and its own
face-down pirates for the seat. Other seats' pirates show as `{"face_down": true}`, or with
their value once revealed at a boarding or counter-attack (public memory). The deck order, the
hidden harbour ships and the removed ships appear nowhere, not even as ids.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engines.contract import JSON, Event, Namer, State
from engines.sentences import (
    board_namer,
    join,
    outcome,
    player_names,
    plural,
    possessive,
    words,
)
from engines.stortebeker.data import CardData
from engines.stortebeker.state import data_of, game_round, score, track, visible_harbour

_CONTEXT = {"play_cards": (), "cannon_take": ("ship", "die", "loot_kind", "candidates"),
            "board": ("eligible",), "counter_attack": ("ship", "best", "missing")}


def view(state: State, seat: int | None) -> dict[str, JSON]:
    data = data_of(state)
    n = state["n"]
    dec = state["dec"]
    decision: dict[str, Any] = {"kind": dec["kind"], "seat": dec["seat"]}
    for name in _CONTEXT.get(dec["kind"], ()):
        decision[name] = dec[name]
    play = state["play"]
    if play is not None:
        decision.update(k=play["k"], u=play["u"], discarded=list(play["D"]),
                        taken=list(play["taken"]), exchanged=play["exchanged"])
    scores = {}
    for s in range(n):
        base, bonus = score(data, state, s)
        scores[str(s)] = {"points": base + bonus, "bonus": bonus, "track": track(base + bonus),
                          "ships": list(state["captured"][str(s)])}
    out: dict[str, JSON] = {
        "seat": seat, "seats": n, "options": dict(state["options"]), "turn": state["turn"],
        "round": game_round(state), "active": state["active"], "decision": decision,
        "sea": [None if ship is None else _ship(data, state, ship, seat)
                for ship in state["slots"]],
        "harbour": {"count": len(state["harbour"]), "visible": visible_harbour(state)},
        "removed": len(state["removed"]),
        "hand_counts": {str(s): len(state["hands"][str(s)]) for s in range(n)},
        "exchange_areas": {s: list(a) for s, a in state["areas"].items()},
        "deck": len(state["deck"]), "discard": list(state["discard"]),
        "scores": scores, "resigned": list(state["resigned"]),
        "end": {"armed": state["armed"], "final_capture": state["final_capture"],
                "stall_end": state["stall_end"]},
        "result": state["result"],
    }
    if seat is not None:
        out["hand"] = sorted(state["hands"][str(seat)])
    return out


def _ship(data: CardData, state: State, ship: str, viewer: int | None) -> dict[str, JSON]:
    info = data.ships[ship]
    sides = {}
    for owner, own in sorted(state["sides"].get(ship, {}).items()):
        if not own["prov"] and not own["pir"]:
            continue
        pirates: list[dict[str, JSON]] = []
        for c in own["pir"]:
            value = data.cards[c].value
            if viewer is not None and int(owner) == viewer:
                pirates.append({"id": c, "value": value, "revealed": c in own["rev"]})
            elif c in own["rev"]:
                pirates.append({"face_down": True, "value": value, "revealed": True})
            else:
                pirates.append({"face_down": True})
        sides[owner] = {"provisions": list(own["prov"]), "pirates": pirates}
    return {"id": ship, "colour": info.colour, "points": info.points, "defence": info.defence,
            "requires": dict(info.requires), "sides": sides}


def view_event(event: Event, seat: int | None) -> Event | None:
    """Pirate placements and draws are told to others without the cards (§7)."""
    kind = event["type"]
    if kind == "placed" and event["card"].startswith("pirate") and seat != event["seat"]:
        return {"type": "placed", "seat": event["seat"], "ship": event["ship"], "pirate": True}
    if kind == "drew" and seat != event["seat"]:
        return {"type": "drew", "seat": event["seat"], "count": len(event["cards"])}
    return event


#: what each decision asks for, in words
_ASKED = {"play_cards": "play cards", "cannon_take": "take a card the cannon hit",
          "board": "board a ship or end boarding", "counter_attack": "counter-attack or decline"}


def render_text(view: Mapping[str, Any], names: Sequence[str] | None = None) -> str:
    """The sea, your hand, the points and what is asked, in a few lines; `names`: the players'
    names by seat ("Player 1", ... without them)."""
    seat = view["seat"]
    name = board_namer(view["seats"], names, seat)
    full = player_names(view["seats"], names)
    lines = [f"Störtebeker - turn {view['turn']} (round {view['round']}), "
             f"{possessive(name(view['active']))} turn"
             + ("" if seat is None else f" - you are {full[seat]}")]
    lines.append("At sea:")
    for ship in view["sea"]:
        lines += _ship_lines(ship, name)
    harbour = view["harbour"]
    lines.append(f"Harbour: {plural(harbour['count'], 'ship')}, next "
                 f"{', '.join(harbour['visible']) or '-'}; deck {view['deck']}; discard "
                 f"{len(view['discard'])}")
    lines.append("Points: " + ", ".join(f"{name(int(s))} {v['points']}"
                                        for s, v in view["scores"].items()))
    if "hand" in view:
        lines.append("Your hand: " + (" ".join(view["hand"]) or "-"))
    dec = view["decision"]
    if view["result"]:
        lines.append(f"Game over: {outcome(view['result'], name)}.")
    elif dec["seat"] is not None:
        extra = f" ({dec['u']} of {plural(dec['k'], 'card')} used)" if "k" in dec else ""
        asked = _ASKED.get(dec["kind"], words(dec["kind"]))
        lines.append(f"Now: {possessive(name(dec['seat']))} turn to {asked}{extra}")
    return "\n".join(lines)


def _ship_lines(ship: Mapping[str, Any] | None, name: Namer) -> list[str]:
    """A ship at sea, what it needs, and each player's cards at it."""
    if ship is None:
        return ["  (an empty place)"]
    needs = join(f"{c} {k}" if c > 1 else k for k, c in ship["requires"].items())
    lines = [f"  {ship['id']} ({ship['points']} points, defence {ship['defence']}) needs "
             f"{needs}"]
    for owner, side in ship["sides"].items():
        pirates = _pirates(side["pirates"])
        lines.append(f"      {name(int(owner))}: {' '.join(side['provisions']) or '-'}"
                     + (f"; pirates {pirates}" if pirates else ""))
    return lines


def _pirates(pirates: list[Mapping[str, Any]]) -> str:
    """One's own pirates by id, another's revealed ones by value, the rest counted."""
    shown = [p.get("id") or f"{p['value']} (revealed)" for p in pirates
             if "id" in p or "value" in p]
    hidden = sum(1 for p in pirates if "id" not in p and "value" not in p)
    if hidden:
        shown.append(f"{hidden} face down")
    return ", ".join(shown)
