"""A compact plain-text picture of a Stratego view, for emails and the CLI.

It reads only the redacted view (`engines.stratego.view`), so it cannot leak. The board is
drawn from the viewer's side: the seat's own home rows at the bottom (Blue sees it turned
round); spectators see it from Red's side. A cell is the owner's letter (r, b) and the
piece's code, `?` where the piece id is hidden; `~` is a lake. Sides are their colours, with
the players' names beside them where the caller gives them ("Bob (Blue) to move"); the result
says who won, and leaves why to the platform's result sentence (`event_text.describe_result`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engines.contract import JSON, Namer
from engines.sentences import YOU, outcome, player_names

CODES: dict[str, str] = {
    "marshal": "M", "general": "9", "colonel": "8", "major": "7", "captain": "6",
    "lieutenant": "5", "sergeant": "4", "miner": "3", "scout": "2", "spy": "S",
    "bomb": "B", "flag": "F",
}
FILES = "abcdefghij"
LAKES = frozenset({"c5", "d5", "c6", "d6", "g5", "h5", "g6", "h6"})
COLOUR = ("Red", "Blue")
LEGEND = "M=marshal 9..2=general..scout S=spy B=bomb F=flag ?=unknown ~=lake"
#: a battle's outcome in words
_BATTLE = {"attacker_wins": "the attacker won", "defender_wins": "the defender won",
           "both_removed": "both were removed"}


def _code(piece: str | None) -> str:
    return "?" if piece is None else CODES.get(piece, "?")


def _sides(names: Sequence[str] | None) -> tuple[str, ...]:
    """Each side as the text names it: "Red", or "Ann (Red)" where the names are known."""
    if not names:
        return COLOUR
    return tuple(f"{n} ({c})" for n, c in zip(player_names(2, names), COLOUR, strict=True))


def _status(view: Mapping[str, Any], sides: tuple[str, ...]) -> str:
    phase = view["phase"]
    if phase == "setup":
        waiting = ", ".join(sides[s] for s in view["to_act"])
        return f"setup, waiting for {waiting}"
    if phase == "play":
        return f"ply {view['ply'] + 1}, {sides[view['active']]} to move"
    seat = view.get("seat")

    def name(s: int) -> str:
        return YOU if s == seat else sides[s]
    return f"game over: {_won(view['result'] or {}, name)}"


def _won(result: Mapping[str, Any], name: Namer) -> str:
    return outcome(result, name) if result.get("winners") else "a draw"


#: a piece's cell, by (owner, piece id or None)
_CELLS: dict[tuple[int, str | None], str] = {
    (owner, piece): letter + _code(piece)
    for owner, letter in enumerate("rb") for piece in (*CODES, None)}
#: every square's cell on an empty board: `. `, or `~~` for a lake
_EMPTY: dict[str, str] = {f"{f}{rank}": "~~" if f"{f}{rank}" in LAKES else ". "
                          for f in FILES for rank in range(1, 11)}
#: the board's rows as drawn for each side: (rank, squares left to right)
_ROWS: dict[bool, tuple[tuple[int, tuple[str, ...]], ...]] = {
    blue: tuple((rank, tuple(f"{f}{rank}" for f in (FILES[::-1] if blue else FILES)))
                for rank in (range(1, 11) if blue else range(10, 0, -1)))
    for blue in (False, True)}
_HEADERS = {blue: "    " + " ".join(f"{f} " for f in (FILES[::-1] if blue else FILES))
            for blue in (False, True)}


def _cell(owner: int, piece: str | None) -> str:
    return _CELLS.get((owner, piece)) or "rb"[owner] + "?"


def render_text(view: Mapping[str, JSON], names: Sequence[str] | None = None) -> str:
    """The board from the viewer's side, the last ply, removed pieces and whose turn it is;
    `names`: the players' names by seat, shown beside the colours."""
    seat = view.get("seat")
    sides = _sides(names)
    known = _CELLS.get
    cells = dict(_EMPTY)
    cells.update({sq: known((p["owner"], p["piece"])) or _cell(p["owner"], p["piece"])
                  for sq, p in view["board"].items()})
    if view["phase"] == "setup" and seat is not None:
        own = view["setups"].get(str(seat)) or {}
        cells.update({sq: _cell(seat, piece) for sq, piece in own.items()})
    blue = seat == 1
    header = _HEADERS[blue]
    lines = [
        f"Stratego ({view['options'].get('army', 'original')}) - {_status(view, sides)}"
        + ("" if seat is None else f" - you are {sides[seat]}"),
        header,
    ]
    lines += [f"{rank:>2}  " + " ".join(map(cells.__getitem__, squares))
              for rank, squares in _ROWS[blue]]
    lines.append(header)
    last = view["last_ply"]
    if last is not None:
        text = f"Last: {last['uid']} {last['from']}-{last['to']}"
        battle = last["battle"]
        if battle is not None:
            text += (f" attacks {battle['defender']} ({_code(battle['attacker_piece'])} vs "
                     f"{_code(battle['defender_piece'])}): "
                     f"{_BATTLE.get(battle['result'], battle['result'])}")
        lines.append(text)
    removed = view["removed"]
    parts = []
    for s in ("0", "1"):
        gone = removed[s]
        shown = f"{gone}" if isinstance(gone, int) else " ".join(_code(p) for p in gone) or "-"
        parts.append(f"{sides[int(s)]} {shown}")
    lines.append("Removed: " + "; ".join(parts))
    lines.append(LEGEND)
    return "\n".join(line.rstrip() for line in lines)
