"""`parley invite`: a player invites an address from the terminal; the invitation mail (in
the server's Maildir outbox) seats its owner, who has no key, by its link."""

from __future__ import annotations

import mailbox
import re
import time
from pathlib import Path

import pytest

from tests import confirming
from tests.e2e.test_cli import Cli

pytestmark = pytest.mark.slow


def _invitation_link(outbox: Path, address: str) -> str:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:  # the worker mails it
        for msg in mailbox.Maildir(outbox, factory=confirming.read_message, create=True):
            if msg["X-Parley-Event"] == "game.invitation" and msg["To"] == address:
                text = msg.get_body(preferencelist=("plain",)).get_content()
                return re.search(r"http\S+/v1/invitations/[a-z2-7]{26}", text)[0]
        time.sleep(0.1)
    raise AssertionError(f"no invitation mailed to {address}")


def test_parley_invite_mails_an_invitation_that_seats_a_mail_only_player(server,
                                                                       tmp_path: Path) -> None:
    ann = Cli(tmp_path, "ann")
    ann.out("keygen")
    ann.out("register", "Ann", "--server", server.url, "--email", "ann@example.org")
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
    link = _invitation_link(outbox, "cid@example.org")
    taken = server.http.post(link, headers={"Accept": "application/json"}).json()
    assert taken["game"] == game and taken["mail_only"] is True and taken["status"] == "active"

    refused = ann.run("invite", game, "dan@example.org", ok=False)
    assert refused.returncode != 0 and "game_not_open" in refused.stdout + refused.stderr
