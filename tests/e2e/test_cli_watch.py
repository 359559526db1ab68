"""`parley watch` tells a game as the mails do: each event in the very sentence the server writes
for the player's seat (the events page's `text`, from service.notify.prose as the mails), players
by name and moves in the game's notation, whose turn it is, and the result in words; no JSON."""

from __future__ import annotations

import json
import re
import subprocess
import threading
from pathlib import Path

import pytest
import redis
import requests

from service.storage.keys import LIVE_PLAYERS_KEY
from tests.e2e.test_cli import Cli, new_duel
from tests.e2e.test_cli_names import SEAT_NUMBER
from tests.waiting import wait_until

pytestmark = pytest.mark.slow


def players(server, tmp_path: Path) -> tuple[str, Cli, Cli]:
    """Ann and Bob seated in a new Stratego Duel, Ann first to move."""
    game, ann, bob = new_duel(server, tmp_path)
    ann.out("join", game)
    bob.out("join", game)
    return game, ann, bob


def listening(server, cli: Cli) -> str:
    """Wait until the stream process has registered `cli`'s player as listening (from then on
    each commit writes their feed); their player id."""
    pid = json.loads(cli.config.read_text())["player"]
    live = redis.Redis.from_url(server.env["REDIS_URL"])
    wait_until(lambda: live.zscore(LIVE_PLAYERS_KEY, pid) is not None, 30, "watch connected")
    return pid


def test_watch_tells_the_game_in_the_mails_sentences(server, tmp_path: Path) -> None:
    server.start_stream()
    game, ann, bob = players(server, tmp_path)
    watch = subprocess.Popen([*ann.command, "watch", "--game", game], env=ann.env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines: list[str] = []

    def read() -> None:
        for line in watch.stdout:  # each as it comes: watch writes a line out at once
            lines.append(line)
    threading.Thread(target=read, daemon=True).start()
    try:
        listening(server, ann)
        for cli in (ann, bob):
            cli.out("move", game, json.dumps(cli.view(game)["legal_moves"][0]))
        for cli in (ann, bob):  # a move each in the game's notation, then Bob resigns
            cli.out("move", game, cli.view(game)["legal_moves_notation"][0])
        bob.out("move", game, "resign")
        wait_until(lambda: any(": finished." in line for line in lines), 30, "the end told")
    finally:
        watch.terminate()
        watch.wait(10)
    told = [line.rstrip("\n") for line in lines]

    token = json.loads(ann.config.read_text())["token"]
    events = requests.get(f"{server.url}/v1/games/{game}/events", timeout=10,
                          headers={"Authorization": f"Bearer {token}"}).json()["events"]
    finished = next(e for e in events if e["event"]["type"] == "game_finished")
    sentences = [f"{game} #{e['seq']}: {e['text']}" for e in events
                 if e["text"] and e is not finished]
    assert [line for line in told if " #" in line] == sentences
    assert told[-1] == f"{game}: finished. {finished['text']}" == \
        f"{game}: finished. You won: Bob resigned."
    assert re.fullmatch(rf"{game} #3: You moved [a-j]\d+-[a-j]\d+\.", sentences[3])
    assert re.fullmatch(rf"{game} #4: Bob moved [a-j]\d+-[a-j]\d+\.", sentences[4])
    turns = [line for line in told if " #" not in line][:-1]
    assert turns == [f"{game}: your turn (step 1)", f"{game}: waiting for Bob (step 2)",
                     f"{game}: your turn (step 3)"]  # Bob resigned in Ann's turn
    assert not any("{" in line or SEAT_NUMBER.search(line) for line in told), told
