"""Play by mail: a Stratego Duel through the API, and the mails the players really receive
(aiosmtpd on loopback): one thread per game and player, a stable subject, and bodies a person
can act on (names, what happened in words, the board, the deadline in the player's own time
zone, numbered legal moves, the result in words)."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from engines.registry import get_engine
from tests.notify.conftest import register, start_game

DUEL = {"army": "duel", "seat_order": "joined"}
SLOW = {"seconds_per_move": 86400, "reminder_fraction": 0.5, "on_timeout": "forfeit"}
STRATEGO = get_engine("stratego")


def _view(client, gid, player):
    resp = client.get(f"/v1/games/{gid}/view", headers=player.auth)
    assert resp.status_code == 200
    return resp.get_json()


def _play(client, gid, player, move) -> None:
    v = _view(client, gid, player)
    resp = client.post(f"/v1/games/{gid}/moves",
                       json=player.envelope(gid, v["seat"], v["step"], move))
    assert resp.status_code == 202, resp.get_json()


def _text(msg) -> str:
    return msg.get_body(preferencelist=("plain",)).get_content().replace("\r\n", "\n")


def _above_footer(msg) -> str:
    return _text(msg).split("\n-- \n")[0]


def _deadline(client, gid, zone: str) -> str:
    """The game's deadline as a person in `zone` reads it, computed here independently."""
    due = datetime.strptime(client.get(f"/v1/games/{gid}").get_json()["deadline"],
                            "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    local = due.astimezone(ZoneInfo(zone))
    return local.strftime(f"%a {local.day} %b %Y, %H:%M {local.tzname()}")


def _quiet_move(view) -> dict:
    """A legal move onto an empty square (no battle), so its sentence is known."""
    board = view["state"]["board"]
    return next(m for m in view["legal_moves"] if m["type"] == "move" and m["to"] not in board)


def test_a_duel_by_mail_is_one_readable_thread_per_player(nclient, work, smtp) -> None:
    ann = register(nclient, "Ann", "ann@example.org")
    bob = register(nclient, "Bob", "bob@example.org")
    for player, zone in ((ann, "Europe/Berlin"), (bob, "Asia/Tokyo")):
        resp = nclient.patch(f"/v1/players/{player.id}", json={"time_zone": zone},
                             headers=player.auth)
        assert resp.status_code == 200 and resp.get_json()["time_zone"] == zone
    gid = start_game(nclient, [ann, bob], options=DUEL, time_control=SLOW)
    work()
    start = {p.name: (_deadline(nclient, gid, z), smtp.to(f"{p.name.lower()}@example.org"))
             for p, z in ((ann, "Europe/Berlin"), (bob, "Asia/Tokyo"))}
    for due, mails in start.values():
        assert len(mails) == 1  # the start and the setup turn: one mail
        assert f"Your move is due by {due} (in " in _text(mails[0])  # in their zone
    assert " CET" in start["Ann"][0] or " CEST" in start["Ann"][0]
    assert start["Bob"][0].endswith(" JST")

    _play(nclient, gid, ann, _view(nclient, gid, ann)["legal_moves"][0])  # both setups
    _play(nclient, gid, bob, _view(nclient, gid, bob)["legal_moves"][0])
    work()

    # Red's first turn: the setups told in words, the legal moves numbered as `parley view`
    view = _view(nclient, gid, ann)
    turn = smtp.to("ann@example.org")[-1]
    assert turn["X-Parley-Event"] == "turn.started"
    text, story = _text(turn), _above_footer(turn)
    assert "Hello Ann," in text and "It is your turn in Stratego with Bob." in text
    assert "- You submitted a setup." in text and "- Bob submitted a setup." in text
    assert "\nYour move.\n" in text
    assert f"Your move is due by {_deadline(nclient, gid, 'Europe/Berlin')} (in " in text
    assert STRATEGO.render_text(view["state"], ["Ann", "Bob"]).rstrip() in text
    assert "Ann (Red) to move - you are Ann (Red)" in text
    assert 0 < len(view["legal_moves"]) <= 40
    listed = [f"  {i:>3}  {STRATEGO.format_move(m)}" for i, m in enumerate(view["legal_moves"])]
    assert "\n".join(["Your legal moves:", *listed]) in text
    assert f"  {len(listed):>3}  " not in text  # nothing beyond the view's list
    assert "seat " not in story and "step " not in story  # ids only in the footer
    assert "seat " not in text  # players by name, not by seat number, footer included
    assert f"{gid} (stratego), step 1, turn.started" in text.split("\n-- \n")[1]

    # a few plies, each told to the other player in a sentence
    played = []
    for mover, other in ((ann, bob), (bob, ann), (ann, bob), (bob, ann)):
        move = _quiet_move(_view(nclient, gid, mover))
        _play(nclient, gid, mover, move)
        work()
        played.append((mover, move))
        told = _text(smtp.to(f"{other.name.lower()}@example.org")[-1])
        assert f"- {mover.name} moved {move['from']}-{move['to']}." in told
        if len(played) > 1:  # and the reader's own move since their last turn mail
            own = played[-2][1]
            assert f"- You moved {own['from']}-{own['to']}." in told
    _play(nclient, gid, bob, {"type": "resign"})
    work()

    for me, other, turns in ((ann, bob, 4), (bob, ann, 3)):
        mails = smtp.to(f"{me.name.lower()}@example.org")
        kinds = [m["X-Parley-Event"] for m in mails]
        assert kinds[0] == "turn.started" and kinds[-1] == "game.finished"  # start + setup
        assert kinds.count("turn.started") == turns  # the setup, then every turn of play
        # one thread: the first mail is its root, every later one answers it
        root = f"<game-{gid}-{me.id}@parley>"
        assert mails[0]["Message-ID"] == root and mails[0]["In-Reply-To"] is None
        assert all(m["In-Reply-To"] == root and m["References"] == root for m in mails[1:])
        assert len({m["Message-ID"] for m in mails}) == len(mails)
        assert {m["Subject"] for m in mails} == {f"Parley: Stratego with {other.name}"}
        for m in mails:  # plain text first, the same text as HTML (with the board's picture)
            assert m.get_content_type() == "multipart/alternative"
            parts = [p.get_content_type() for p in m.iter_parts()]
            assert parts == ["text/plain", "multipart/related"]
            assert "<pre" in m.get_body(preferencelist=("html",)).get_content()
            assert m["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"

    ann_end = _text(smtp.to("ann@example.org")[-1])
    bob_end = _text(smtp.to("bob@example.org")[-1])
    assert "Your game of Stratego with Bob has ended." in ann_end
    assert "You won: Bob resigned." in ann_end
    assert "Since your last turn:\n- Bob resigned.\n" in ann_end
    assert "Ann won: you resigned." in bob_end
    last_bob = played[-1][1]  # Bob's last move, made after his last turn mail
    assert (f"Since your last turn:\n- You moved {last_bob['from']}-{last_bob['to']}.\n"
            "- You resigned.\n") in bob_end
    assert "Your legal moves:" not in ann_end and "is due by" not in ann_end


def test_a_retried_turn_mail_tells_the_same_story(nclient, napp, work, smtp) -> None:
    """What a mail tells is frozen at its first attempt: a retry after the thread moved on
    (here: its cursor pushed past every event) still tells the same events."""
    from service.notify import dispatch
    from service.storage import notify_records as records

    ann = register(nclient, "Ann", "ann@example.org")
    bob = register(nclient, "Bob", "bob@example.org")
    gid = start_game(nclient, [ann, bob], options=DUEL)
    work()
    _play(nclient, gid, ann, _view(nclient, gid, ann)["legal_moves"][0])
    _play(nclient, gid, bob, _view(nclient, gid, bob)["legal_moves"][0])
    work()
    store, queue = napp.extensions["parley_store"], napp.extensions["parley_queue"]
    first = _text(smtp.to("ann@example.org")[-1])
    assert "- Bob submitted a setup." in first
    did = next(d for d in (k.split(":")[1] for k in store.r.keys("delivery:msg_*")
                           if k.count(":") == 1)
               if store.r.hget(f"delivery:{d}", "player") == ann.id
               and store.r.hget(f"delivery:{d}", "step") == "1")
    records.mark_told(store, ann.id, gid, 10**9)
    assert dispatch.deliver(store, queue, napp.config["PARLEY"], napp.extensions[
        "parley_server_key"], did, 2) == "delivered"
    again = smtp.to("ann@example.org")[-1]
    assert _text(again).split("\n-- \n")[0] == first.split("\n-- \n")[0]
    assert again["In-Reply-To"] == f"<game-{gid}-{ann.id}@parley>"
