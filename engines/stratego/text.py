"""A compact plain-text picture of a Stratego view, for emails and the CLI.

It reads only the redacted view (`engines.stratego.view`), so it cannot leak. The board is
drawn from the viewer's side: the seat's own home rows at the bottom (Blue sees it turned
round); spectators see it from Red's side. A cell is the owner's letter (r, b) and the
piece's code, `?` where the piece id is hidden; `~` is a lake.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engines.contract import JSON

CODES: dict[str, str] = {
    "marshal": "M", "general": "9", "colonel": "8", "major": "7", "captain": "6",
    "lieutenant": "5", "sergeant": "4", "miner": "3", "scout": "2", "spy": "S",
    "bomb": "B", "flag": "F",
}
FILES = "abcdefghij"
LAKES = frozenset({"c5", "d5", "c6", "d6", "g5", "h5", "g6", "h6"})
COLOUR = ("Red", "Blue")
LEGEND = "M=marshal 9..2=general..scout S=spy B=bomb F=flag ?=unknown ~=lake"


def _code(piece: str | None) -> str:
    return "?" if piece is None else CODES.get(piece, "?")


def _status(view: Mapping[str, Any]) -> str:
    phase = view["phase"]
    if phase == "setup":
        waiting = ", ".join(COLOUR[s] for s in view["to_act"])
        return f"setup, waiting for {waiting}"
    if phase == "play":
        return f"ply {view['ply'] + 1}, {COLOUR[view['active']]} to move"
    result = view["result"] or {}
    winners = result.get("winners") or []
    who = " and ".join(COLOUR[w] for w in winners) + " wins" if winners else "draw"
    return f"game over: {who} ({result.get('reason')})"


def render_text(view: Mapping[str, JSON]) -> str:
    """The board from the viewer's side, the last ply, removed pieces and whose turn it is."""
    seat = view.get("seat")
    letters = ("r", "b")
    cells: dict[str, str] = {sq: letters[p["owner"]] + _code(p["piece"])
                             for sq, p in view["board"].items()}
    if view["phase"] == "setup" and seat is not None:
        own = view["setups"].get(str(seat)) or {}
        cells.update({sq: letters[seat] + _code(piece) for sq, piece in own.items()})
    ranks = range(1, 11) if seat == 1 else range(10, 0, -1)
    files = FILES[::-1] if seat == 1 else FILES
    header = "    " + " ".join(f"{f} " for f in files)
    lines = [
        f"Stratego ({view['options'].get('army', 'original')}) - {_status(view)}"
        + ("" if seat is None else f" - you are {COLOUR[seat]}"),
        header,
    ]
    for rank in ranks:
        row = []
        for f in files:
            sq = f"{f}{rank}"
            row.append("~~" if sq in LAKES else cells.get(sq, ". "))
        lines.append(f"{rank:>2}  " + " ".join(row))
    lines.append(header)
    last = view["last_ply"]
    if last is not None:
        text = f"Last: {last['uid']} {last['from']}-{last['to']}"
        battle = last["battle"]
        if battle is not None:
            text += (f" attacks {battle['defender']} ({_code(battle['attacker_piece'])} vs "
                     f"{_code(battle['defender_piece'])}): {battle['result']}")
        lines.append(text)
    removed = view["removed"]
    parts = []
    for s in ("0", "1"):
        gone = removed[s]
        shown = f"{gone}" if isinstance(gone, int) else " ".join(_code(p) for p in gone) or "-"
        parts.append(f"{COLOUR[int(s)]} {shown}")
    lines.append("Removed: " + "; ".join(parts))
    lines.append(LEGEND)
    return "\n".join(line.rstrip() for line in lines)
