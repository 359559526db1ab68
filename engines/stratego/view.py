"""What each audience may see of a Stratego game: seat views, spectator views, events.

`rules/stratego.md` §7. Every view is built fresh from an allow-list of public fields plus what
that audience may see; nothing is copied and then deleted. At `game_over` everything is public.

- Public: options, phase, to_act, active, who has submitted a setup; each piece's uid, owner,
  square, `moved` and `revealed` flags; the number of plies and the latest ply (uid, from, to)
  with a battle's result code and removed uids; removed counts; the result. Every earlier ply
  is public too, as the `ply` events of the game's event stream (`view_event`): the view does
  not repeat the whole history, so it and the state stay the same size all game long.
- A seat also sees its own setup and piece ids, the piece ids in battle records and in
  `removed`, and the piece id of each opponent piece with `revealed: true`.
- Spectators see no piece ids until the end.
"""

from __future__ import annotations

from typing import Any

from engines.contract import JSON, Event, State


def _battle(battle: dict[str, Any] | None, ids: bool) -> dict[str, Any] | None:
    """A §5.3 battle record; without `ids` the piece ids are null (§7 "Spectators")."""
    if battle is None:
        return None
    return {
        "attacker": battle["attacker"],
        "defender": battle["defender"],
        "attacker_piece": battle["attacker_piece"] if ids else None,
        "defender_piece": battle["defender_piece"] if ids else None,
        "result": battle["result"],
        "removed": list(battle["removed"]),
    }


def _ply(ply: dict[str, Any] | None, ids: bool) -> dict[str, Any] | None:
    if ply is None:
        return None
    return {"uid": ply["uid"], "from": ply["from"], "to": ply["to"],
            "battle": _battle(ply["battle"], ids)}


def _result(result: dict[str, Any] | None) -> dict[str, Any] | None:
    if result is None:
        return None
    return {"winners": list(result["winners"]), "scores": dict(result["scores"]),
            "reason": result["reason"]}


def view(state: State, seat: int | None) -> dict[str, JSON]:
    """The view of `seat` (0 Red, 1 Blue) or of a spectator (None), §7."""
    over = state["phase"] == "game_over"
    ids = over or seat is not None
    pieces = state["pieces"]
    board: dict[str, dict[str, Any]] = {}
    for uid in sorted(pieces):
        piece = pieces[uid]
        if piece["square"] is None:
            continue
        shown = over or piece["owner"] == seat or (seat is not None and piece["revealed"])
        board[piece["square"]] = {
            "uid": uid,
            "owner": piece["owner"],
            "piece": piece["piece"] if shown else None,
            "revealed": piece["revealed"],
            "moved": piece["moved"],
        }
    setups = state["setups"]
    visible = ["0", "1"] if over else [] if seat is None else [str(seat)]
    removed = state["removed"]
    return {
        "ruleset": "stratego",
        "seat": seat,
        "options": dict(state["options"]),
        "step": state["step"],
        "phase": state["phase"],
        "active": state["active"],
        "to_act": list(state["to_act"]),
        "submitted": {s: setups[s] is not None for s in ("0", "1")},
        "setups": {s: None if setups[s] is None else dict(setups[s]) for s in visible},
        "board": board,
        "ply": state["ply"],
        "last_ply": _ply(state["last_ply"], ids),
        "plies_without_battle": state["quiet"],
        "removed": {
            s: [pieces[u]["piece"] for u in removed[s]] if ids else len(removed[s])
            for s in ("0", "1")
        },
        "result": _result(state["result"]),
    }


def view_event(event: Event, seat: int | None) -> Event | None:
    """The version of `event` that a seat (or a spectator, None) may see while the game runs.

    A setup event never holds a placement; a ply's battle piece ids are for seats only.
    Unknown event types are shown to nobody.
    """
    kind = event.get("type")
    if kind in ("setup_submitted", "resigned"):
        return {"type": kind, "seat": event["seat"]}
    if kind == "play_started":
        return {"type": kind, "active": event["active"]}
    if kind == "ply":
        return {"type": kind, "ply": event["ply"], "seat": event["seat"], "uid": event["uid"],
                "from": event["from"], "to": event["to"],
                "battle": _battle(event["battle"], seat is not None)}
    if kind == "game_over":
        return {"type": kind, "result": _result(event["result"])}
    return None
