"""`parley` prints players by name, never a seat by its number: the join, the games list, the
board (drawn on the player's machine with the names), whose turn, and the result in words."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.e2e.test_cli import new_duel

pytestmark = pytest.mark.slow

SEAT_NUMBER = re.compile(r"\bseats?\b\W{0,2}\d", re.IGNORECASE)


def test_the_client_names_players(server, tmp_path: Path) -> None:
    game, ann, bob = new_duel(server, tmp_path)
    printed = [ann.out("join", game), bob.out("join", game)]
    assert f"joined {game}: player 1 (first to move)" in printed[0]
    assert "you are player 2;" in printed[1]
    setup = ann.view(game)["legal_moves"][0]
    ann.out("move", game, json.dumps(setup))
    waiting = ann.out("view", game)
    printed.append(waiting)
    assert "setup, waiting for Bob (Blue)" in waiting and "you are Ann (Red)" in waiting
    assert "to act: Bob\n" in waiting and "\nwaiting for Bob\n" in waiting
    listing = bob.out("games")
    printed.append(listing)
    row = next(line for line in listing.splitlines() if line.startswith(game))
    assert row.split()[4:] == ["you", "Ann", "<-", "your", "turn"]
    bob.out("move", game, "resign")
    for cli, board, told in ((ann, "game over: you won", "result: You won: Bob resigned."),
                             (bob, "game over: Ann (Red) won", "result: Ann won: you resigned.")):
        finished = cli.out("view", game)
        printed.append(finished)
        assert board in finished and told in finished
    for text in printed:
        assert not SEAT_NUMBER.search(text), text
