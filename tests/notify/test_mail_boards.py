"""The board as a picture in the mail, read from the real SMTP server: the HTML part of turn
mails, reminders, the end mail and the digest shows the reader's view as an inline PNG (drawn
from the SVG `GET /v1/games/{game}/board.svg` serves), the plain part keeps the text board, and
no mail weighs 200 KB or more."""

from __future__ import annotations

import logging
import re
import struct

import pytest

from engines.registry import get_engine
from service.config import Config
from service.notify import digest
from service.notify.board_image import MAX_WIDTH, board_png
from tests.notify.conftest import Mailbox, register, start_game
from workers import notify

DUEL = {"army": "duel", "seat_order": "joined"}
SLOW = {"seconds_per_move": 3600, "reminder_fraction": 0.25, "on_timeout": "forfeit"}
LIMIT = 200_000
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_IMG = re.compile(r'<img src="cid:([^"]+)" alt="([^"]+)" width="(\d+)" height="(\d+)"')


def _text(msg) -> str:
    return msg.get_body(preferencelist=("plain",)).get_content().replace("\r\n", "\n")


def _html(msg) -> str:
    return msg.get_body(preferencelist=("html",)).get_content()


def _png_size(png: bytes) -> tuple[int, int]:
    """Width and height from the PNG's IHDR chunk, which must come first."""
    assert png[:8] == PNG_SIGNATURE
    length, kind = struct.unpack(">I4s", png[8:16])
    assert kind == b"IHDR" and length == 13
    return struct.unpack(">II", png[16:24])


def _pictures(msg, smtp: Mailbox) -> dict[str, tuple[str, bytes]]:
    """The mail's pictures by Content-ID (alt text, PNG bytes), after checking its structure:
    text/plain, then the HTML in multipart/related with each picture it shows, inline, and
    nothing else; and its size as received."""
    assert smtp.size_of(msg) < LIMIT
    assert msg.get_content_type() == "multipart/alternative"
    plain, related = msg.iter_parts()
    assert plain.get_content_type() == "text/plain"
    assert related.get_content_type() == "multipart/related"
    page, *images = related.iter_parts()
    assert page.get_content_type() == "text/html" and images
    shown = {cid: (alt, int(w), int(h)) for cid, alt, w, h in _IMG.findall(_html(msg))}
    out = {}
    for image in images:
        assert image.get_content_type() == "image/png"
        assert image["Content-Disposition"] == 'inline; filename="board.png"'
        cid = image["Content-ID"].strip("<>")
        assert re.fullmatch(r"board-\S+@parley", cid) and cid in shown
        png = image.get_content()
        alt, width, height = shown[cid]
        assert _png_size(png) == (width, height) and 300 <= width <= MAX_WIDTH
        out[cid] = (alt, png)
    assert len(out) == len(images) == len(shown)  # every picture shown, each once
    return out


def _drawn(client, gid: str, player) -> bytes:
    """The PNG of the picture the API serves this player now."""
    resp = client.get(f"/v1/games/{gid}/board.svg", headers=player.auth)
    assert resp.status_code == 200
    return board_png(resp.get_data(as_text=True))


def _board(client, gid: str, player, names=("ann", "bob")) -> str:
    view = client.get(f"/v1/games/{gid}/view", headers=player.auth).get_json()
    return get_engine("stratego").render_text(view["state"], list(names)).rstrip()


def _mail(smtp: Mailbox, address: str, kind: str):
    return [m for m in smtp.to(address) if m["X-Parley-Event"] == kind][-1]


def test_a_turn_mail_shows_the_readers_board_as_an_inline_png(nclient, work, smtp) -> None:
    ann = register(nclient, "ann", "ann@example.org")
    bob = register(nclient, "bob", "bob@example.org")
    gid = start_game(nclient, [ann, bob], options=DUEL)
    work()
    turn = _mail(smtp, "bob@example.org", "turn.started")
    pictures = _pictures(turn, smtp)
    assert list(pictures) == [f"board-{gid}-0-1-turn.started@parley"]
    alt, png = pictures[f"board-{gid}-0-1-turn.started@parley"]
    assert png == _drawn(nclient, gid, bob)  # Bob's own view, from the API's very SVG
    assert png != _drawn(nclient, gid, ann)
    assert alt.startswith("Stratego (Duel): ann (Red) against bob (Blue). The 10 by 10 board "
                          "seen by bob (Blue)")
    board = _board(nclient, gid, bob)
    assert board in _text(turn)  # the plain part keeps the text board
    html = _html(turn)
    assert board.splitlines()[2] not in html  # the HTML shows the picture instead
    assert "To move: you and ann." in html
    assert f'href="http://127.0.0.1:8000/v1/games/{gid}/view"' in html


def test_a_reminder_and_the_end_mail_carry_the_picture(nclient, work, smtp, travel) -> None:
    ann = register(nclient, "ann", "ann@example.org")
    bob = register(nclient, "bob", "bob@example.org")
    gid = start_game(nclient, [ann, bob], options=DUEL, time_control=SLOW)
    work()
    travel(2700)  # a quarter of the hour left
    assert notify.deadline_job(gid, 0, "reminder") == "reminded"
    work()
    reminder = _mail(smtp, "ann@example.org", "deadline.reminder")
    (alt, png), = _pictures(reminder, smtp).values()
    assert png == _drawn(nclient, gid, ann) and "seen by ann (Red)" in alt
    assert _board(nclient, gid, ann) in _text(reminder)

    resp = nclient.post(f"/v1/games/{gid}/moves",
                        json=bob.envelope(gid, 1, 0, {"type": "resign"}))
    assert resp.status_code == 202
    work()
    for seat, player in enumerate((ann, bob)):
        end = _mail(smtp, f"{player.name}@example.org", "game.finished")
        pictures = _pictures(end, smtp)
        assert list(pictures) == [f"board-{gid}-1-{seat}-game.finished@parley"]  # the end: step 1
        (alt, png), = pictures.values()
        assert png == _drawn(nclient, gid, player)
        assert "has ended" in _text(end) and _board(nclient, gid, player) in _text(end)


@pytest.mark.parametrize("ruleset", ["totohu", "elfenland", "cartagena", "stortebeker"])
def test_every_game_mails_its_board_within_the_limit(nclient, work, smtp, ruleset) -> None:
    ann = register(nclient, "ann", "ann@example.org")
    bob = register(nclient, "bob", "bob@example.org")
    gid = start_game(nclient, [ann, bob], ruleset=ruleset, options={"seat_order": "joined"})
    work()
    for player, address in ((ann, "ann@example.org"), (bob, "bob@example.org")):
        started = smtp.to(address)[0]  # the start (with the first turn, where it is theirs)
        (_, png), = _pictures(started, smtp).values()
        assert png == _drawn(nclient, gid, player)


def test_a_board_that_cannot_be_drawn_leaves_the_mail_as_text(nclient, work, smtp, caplog,
                                                              monkeypatch) -> None:
    def broken(self, view, names=None):
        raise RuntimeError("the engine cannot draw this")

    # the worker runs in this process (conftest `work`): the engine it uses draws badly
    monkeypatch.setattr(type(get_engine("stratego")), "render_svg", broken)
    ann = register(nclient, "ann", "ann@example.org")
    bob = register(nclient, "bob", "bob@example.org")
    gid = start_game(nclient, [ann, bob], options=DUEL)
    with caplog.at_level(logging.ERROR, logger="service.notify.letters"):
        work()
    turn = _mail(smtp, "bob@example.org", "turn.started")
    assert [p.get_content_type() for p in turn.iter_parts()] == ["text/plain", "text/html"]
    board = _board(nclient, gid, bob)
    assert board in _text(turn) and "<img" not in _html(turn)
    assert board.splitlines()[2] in _html(turn)  # the HTML keeps the text board instead
    failed = [r for r in caplog.records if "could not be drawn" in r.getMessage()]
    assert failed and "the engine cannot draw this" in failed[0].exc_text


def test_a_digest_of_many_games_shows_pictures_while_it_stays_under_the_limit(
        nclient, napp, work, smtp) -> None:
    ann = register(nclient, "ann", "ann@example.org")
    bob = register(nclient, "bob", "bob@example.org")
    assert nclient.patch(f"/v1/players/{ann.id}", json={"mail_digest": "daily"},
                         headers=ann.auth).status_code == 200
    games = [start_game(nclient, [ann, bob], options={"seat_order": "joined"})
             for _ in range(10)]
    work()
    store, key = napp.extensions["parley_store"], napp.extensions["parley_server_key"]
    assert digest.send_digest(store, Config(), key, ann.id, store.player(ann.id))
    mail = _mail(smtp, "ann@example.org", "digest")
    pictures = _pictures(mail, smtp)
    # one picture per game, in the games' order, until the next would pass the limit
    order = re.findall(r"== \d+\. Stratego with bob \(game (\S+)\) ==", _text(mail))
    assert sorted(order) == sorted(games)
    shown = [f"board-{gid}-0-0-digest@parley" for gid in order[:len(pictures)]]
    assert list(pictures) == shown and 2 <= len(shown) < len(games)
    html = _html(mail)
    assert html.count("The picture of this board is left out") == len(games) - len(shown)
    assert html.index(shown[-1]) < html.index("The picture of this board is left out")
    for cid in shown:
        gid = cid.split("-")[1]
        assert pictures[cid][1] == _drawn(nclient, gid, ann)
    largest = max(len(png) for _, png in pictures.values())
    assert smtp.size_of(mail) > LIMIT - 4_000 - 2 * largest  # not cut short either
    text = _text(mail)
    assert all(_board(nclient, gid, ann) in text for gid in games)  # every text board
