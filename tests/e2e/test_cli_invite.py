"""`parley invite`: a player invites an address from the terminal; the invitation mail (in
the server's Maildir outbox) seats its owner, who has no key, by its link; `parley claim`
adds a key to that mail-only player later."""

from __future__ import annotations

import json
import mailbox
import re
import time
from pathlib import Path

import pytest

from tests import confirming
from tests.e2e.test_cli import Cli

pytestmark = pytest.mark.slow


def _mailed(outbox: Path, event: str, address: str, pattern: str) -> str:
    """What `pattern` finds in the mail of `event` to `address`, once the worker sent it."""
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        for msg in mailbox.Maildir(outbox, factory=confirming.read_message, create=True):
            if msg["X-Parley-Event"] == event and msg["To"] == address:
                text = msg.get_body(preferencelist=("plain",)).get_content()
                return re.search(pattern, text)[1]
        time.sleep(0.1)
    raise AssertionError(f"no {event} mailed to {address}")


def test_invite_seats_a_mail_only_player_who_claims_a_key_later(server,
                                                                       tmp_path: Path) -> None:
    ann = Cli(tmp_path, "ann")
    ann.out("keygen")
    registered = ann.out("register", "Ann", "--server", server.url, "--email", "ann@example.org")
    assert "moves by mail allowed: a statement signed with your key" in registered
    outbox = tmp_path / "outbox"
    deadline = time.monotonic() + 20
    while (msg := confirming.take_from_maildir(outbox, "ann@example.org")) is None:
        assert time.monotonic() < deadline, "no confirmation mail"
        time.sleep(0.1)
    confirming.follow(server.http, confirming.link_of(msg))
    created = ann.out("new", "stratego", "--option", "army=duel", "--option",
                      "seat_order=joined", "--join")
    game = re.search(r"created (g_\w+)", created)[1]

    said = ann.out("invite", game, "cid@example.org")
    assert f"invitation to {game} mailed to cid@example.org" in said
    link = _mailed(outbox, "game.invitation", "cid@example.org",
                   r"(http\S+/v1/invitations/[a-z2-7]{26})")
    taken = server.http.post(link, headers={"Accept": "application/json"}).json()
    assert taken["game"] == game and taken["mail_only"] is True and taken["status"] == "active"

    assert "moves by mail stopped" in ann.out("mail-moves", "off")
    refused = ann.run("invite", game, "dan@example.org", ok=False)
    assert refused.returncode != 0 and "game_not_open" in refused.stdout + refused.stderr

    # the mail-only player adds a key with `parley claim` and plays with the program
    assert server.post("/v1/key-claims", json={"email": "cid@example.org"}).status_code == 202
    code = _mailed(outbox, "player.key_claim", "cid@example.org", r"parley claim (\S+) ")
    cid = Cli(tmp_path, "cid")
    cid.out("keygen")
    claimed = cid.out("claim", code, "--server", server.url)
    assert f"to cid ({taken['player']})" in claimed and "moves by mail stay allowed" in claimed
    assert cid.view(game)["seat"] == 1
    token = json.loads(cid.config.read_text())["token"]
    profile = server.get(f"/v1/players/{taken['player']}",
                         headers={"Authorization": f"Bearer {token}"}).json()
    assert profile["mail_moves"] is True  # still plays by mail, now on their own consent
