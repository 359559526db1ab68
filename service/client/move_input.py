"""How `parley move` reads a move: a number from the last view, the game's notation, or JSON.

`parley view` numbers the legal moves it prints and remembers that list (with its step) beside
the config file, so `parley move GAME 3` plays exactly the move the player saw as number 3;
if the game has moved on since, the number is refused rather than guessed. A text such as
`e4-e5` is read with the game's own notation (contract v2: every engine formats and parses its
moves), so the CLI needs no per-game code.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from engines.contract import Engine, IllegalMove
from engines.registry import RULESETS, get_engine

_NUMBER = re.compile(r"\d{1,4}")


class MoveError(Exception):
    """A move argument the client cannot turn into a move (reported in one line)."""


def engine_for(ruleset: str) -> Engine | None:
    """The local engine of a ruleset (for its notation), or None if this client lacks it."""
    return get_engine(ruleset) if ruleset in RULESETS else None


def label(engine: Engine | None, move: dict[str, Any]) -> str:
    """A legal move as the list shows it: its notation, or compact JSON without an engine."""
    if engine is not None:
        try:
            return engine.format_move(move)
        except (KeyError, TypeError, ValueError):
            pass
    return json.dumps(move, separators=(",", ":"), ensure_ascii=False)


class LastViews:
    """The legal moves of each game as `parley view` last showed them (one file per game)."""

    def __init__(self, config_path: Path) -> None:
        self.folder = config_path.parent / "views"

    def _path(self, game: str) -> Path:
        if not re.fullmatch(r"[A-Za-z0-9_-]{1,64}", game):
            raise MoveError(f"{game!r} is not a game id")
        return self.folder / f"{game}.json"

    def remember(self, view: dict[str, Any]) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        self._path(view["game"]).write_text(json.dumps(
            {"step": view["step"], "legal_moves": view.get("legal_moves") or []}), "utf-8")

    def recall(self, game: str) -> dict[str, Any] | None:
        path = self._path(game)
        return json.loads(path.read_text("utf-8")) if path.exists() else None


def read_move(text: str, game: str, view: dict[str, Any], ruleset: Callable[[], str],
              views: LastViews) -> dict[str, Any]:
    """The move a `parley move` argument names, given the player's current view; `ruleset`
    is asked only for a move in notation (it costs a request)."""
    if text == "-" or text.startswith("@") or text.lstrip().startswith("{"):
        return _json_move(text)
    if _NUMBER.fullmatch(text):
        return _numbered(int(text), game, view, views)
    engine = engine_for(ruleset())
    if engine is None:
        raise MoveError("this client does not know the game's notation; give the move as JSON")
    try:
        return engine.parse_move(text)
    except IllegalMove as err:
        raise MoveError(f"{err.message} The notation: {engine.notation}") from err


def _numbered(number: int, game: str, view: dict[str, Any], views: LastViews
              ) -> dict[str, Any]:
    seen = views.recall(game)
    if seen is None:
        raise MoveError(f"numbers refer to the list `parley view {game}` shows: look first")
    if seen["step"] != view["step"]:
        raise MoveError(f"the game moved on since your last view (step {seen['step']}, now "
                        f"{view['step']}): `parley view {game}` and choose again")
    moves = seen["legal_moves"]
    if not 0 <= number < len(moves):
        raise MoveError(f"no move number {number}: your last view listed 0 to "
                        f"{len(moves) - 1}" if moves else "your last view listed no moves")
    move: dict[str, Any] = moves[number]
    return move


def _json_move(text: str) -> dict[str, Any]:
    """JSON, `@file` or `-` (stdin)."""
    if text == "-":
        text = sys.stdin.read()
    elif text.startswith("@"):
        text = Path(text[1:]).read_text(encoding="utf-8")
    try:
        move = json.loads(text)
    except ValueError as err:
        raise MoveError(f"the move is not JSON: {err}") from err
    if not isinstance(move, dict):
        raise MoveError("a move is a JSON object, e.g. '{\"type\": \"resign\"}'")
    return move
