"""A mail about a game written after the game moved to the archive (a late retry, a
redelivery) says what it said before: letters read a finished game where `reads_of` says."""

from __future__ import annotations

import mailbox

from service.notify import dispatch
from tests.api.helpers import view
from tests.notify.conftest import register, start_game
from workers.archiver import archive_game


def _ended_mails(config) -> list[str]:
    """The plain text of every mail about the game's end in the Maildir outbox."""
    box = mailbox.Maildir(config.DATA_DIR / "outbox", create=False)
    return [_text(msg) for msg in box if msg["X-Parley-Event"] == "game.finished"]


def _text(msg) -> str:
    for part in msg.walk():
        if part.get_content_type() == "text/plain":
            return part.get_payload(decode=True).decode()
    raise AssertionError("no plain text part")


def test_a_mail_written_after_the_move_says_the_same(app, client, run_jobs, config) -> None:
    store, queue = app.extensions["parley_store"], app.extensions["parley_queue"]
    ann = register(client, "ann", "ann@example.org")
    bob = register(client, "bob")
    gid = start_game(client, [ann, bob], options={"army": "duel", "seat_order": "joined"})
    run_jobs()
    v = view(client, gid, ann)
    env = ann.envelope(gid, v["seat"], v["step"], {"type": "resign"})
    assert client.post(f"/v1/games/{gid}/moves", json=env).status_code == 202
    run_jobs()
    summary = client.get(f"/v1/games/{gid}").get_json()
    assert summary["status"] == "finished"
    [first] = _ended_mails(config)
    assert archive_game(store, gid) == "ok"
    notice = {"type": "game.finished", "seat": v["seat"], "step": summary["step"]}
    dispatch.redeliver(store, queue, dispatch.delivery_id(gid, notice, "mail"))
    run_jobs()
    assert _ended_mails(config) == [first, first]
