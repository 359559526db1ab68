"""An SDK generated from `openapi/openapi.json` plays a whole Stratego Duel against a real server.

The client is generated at test time with openapi-python-client, as a developer would, so a
change to the document that breaks generated clients (names, shapes, content types) fails here.
Moves are signed with the players' own keys; the generated models carry them unchanged.
"""

from __future__ import annotations

import importlib
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.players import TestPlayer
from tests.waiting import wait_until

pytestmark = pytest.mark.slow

DOCUMENT = Path(__file__).resolve().parents[2] / "openapi" / "openapi.json"


@pytest.fixture
def sdk(tmp_path: Path) -> Iterator[Any]:
    """The generated package `parley_client`, imported from a temporary folder."""
    generator = Path(sys.executable).with_name("openapi-python-client")
    proc = subprocess.run([str(generator), "generate", "--path", str(DOCUMENT), "--meta", "none",
                           "--output-path", str(tmp_path / "parley_client")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    sys.path.insert(0, str(tmp_path))
    try:
        yield importlib.import_module("parley_client")
    finally:
        sys.path.remove(str(tmp_path))
        for name in [m for m in sys.modules if m.split(".")[0] == "parley_client"]:
            del sys.modules[name]


def _api(name: str) -> Any:
    return importlib.import_module(f"parley_client.api.{name}")


def test_a_generated_client_plays_a_whole_duel(server, sdk) -> None:
    from parley_client.models import Envelope, GameCreate, Join, PlayerCreate

    players = [TestPlayer(n) for n in ("ann", "bob")]
    anonymous = sdk.Client(base_url=server.url)
    clients = []
    for p in players:
        created = _api("players.register_player").sync(
            client=anonymous, body=PlayerCreate.from_dict(p.registration()))
        p.id, p.key_id, p.token = created.id, created.key_id, created.token
        clients.append(sdk.AuthenticatedClient(base_url=server.url, token=p.token))
    body = GameCreate.from_dict({"ruleset": "stratego", "players": 2,
                                 "options": {"army": "duel", "seat_order": "joined"}})
    game = _api("games.create_game").sync(client=clients[0], body=body)
    for seat, client in enumerate(clients):
        body = Join.from_dict(players[seat].join_body(game.id, seat=seat))
        joined = _api("games.join_game").sync(game.id, client=client, body=body)
        assert joined.seat == seat and joined.seat_final
    chooser = random.Random(5)
    summary = None
    for _ in range(3000):
        summary = _api("games.get_game").sync(game.id, client=anonymous)
        if summary.status == "finished":
            break
        for seat in summary.to_act:
            view = _api("games.get_view").sync(game.id, client=clients[seat])
            if view.step != summary.step or seat not in view.to_act:
                continue
            moves = [m.to_dict() for m in view.legal_moves]
            envelope = players[seat].envelope(game.id, seat, view.step, chooser.choice(moves))
            accepted = _api("moves.post_move").sync(game.id, client=clients[seat],
                                                    body=Envelope.from_dict(envelope))
            assert accepted.status in ("queued", "applied"), accepted
            _wait_applied(server, game.id, accepted.id)
    assert summary is not None and summary.status == "finished"
    assert summary.to_dict()["result"]["reason"]
    mine = _api("players.list_my_games").sync("me", client=clients[0])
    assert [g.id for g in mine.games] == [game.id]


def _wait_applied(server: Any, gid: str, seq: int) -> None:
    wait_until(lambda: server.get(f"/v1/games/{gid}/moves/{seq}").json()["status"] != "queued",
               10, f"move {seq} of {gid} was not resolved", interval=0.02)
