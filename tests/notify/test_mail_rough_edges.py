"""Play by mail without rough edges, as players receive it (aiosmtpd on loopback, replies
through `parley mail-in`'s receiver): at the start one mail per seat, the thread's first,
carrying the reply address where the seat has a decision; the deadline and the time left in
the reader's own zone in turn mails, reminders and digests; links in the HTML part that end
where the sentence does."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from service.config import Config
from service.notify import digest
from service.notify.letter_parts import compose
from tests.notify.conftest import register, start_game
from tests.notify.test_mail_replies import _setup_line, _text, inbox, reply  # noqa: F401
from workers import notify

DUEL = {"army": "duel", "seat_order": "joined"}
#: a deadline 2 days 5 hours (and half a minute, for the time the mail takes) away
LONG = {"seconds_per_move": 2 * 86400 + 5 * 3600 + 30, "reminder_fraction": 0.5,
        "on_timeout": "forfeit"}


def _html(msg) -> str:
    return msg.get_body(preferencelist=("html",)).get_content()


def _due_by(client, gid: str, zone: str) -> str:
    """The game's deadline as a person in `zone` reads a calendar, computed here."""
    due = datetime.strptime(client.get(f"/v1/games/{gid}").get_json()["deadline"],
                            "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    at = due.astimezone(ZoneInfo(zone))
    return f"{at:%a} {at.day} {at:%b %Y}, {at:%H:%M} {at.tzname()}"


def test_a_seat_asked_to_act_at_the_start_gets_one_mail_with_the_reply_address(
        nclient, work, smtp, inbox) -> None:  # noqa: F811
    ann = register(nclient, "Ann", "ann@example.org")
    bob = register(nclient, "Bob", "bob@example.org")
    gid = start_game(nclient, [ann, bob], options=DUEL)  # both set up at once
    work()
    for me, other in ((ann, bob), (bob, ann)):
        mails = smtp.to(f"{me.name.lower()}@example.org")
        assert len(mails) == 1, [m["X-Parley-Event"] for m in mails]
        first = mails[0]
        assert first["Message-ID"] == f"<game-{gid}-{me.id}@parley>"  # the thread's root
        assert first["In-Reply-To"] is None and first["References"] is None
        assert re.fullmatch(r"move-[a-z2-7]{26}@localhost", first["Reply-To"])
        assert first["X-Parley-Event"] == "turn.started"
        text = _text(first)
        assert f"Your game of Stratego with {other.name} has started, and it is your turn." \
            in text
        assert "To play, reply to this mail" in text

    # the start mail's reply plays the setup
    first = smtp.to("ann@example.org")[0]
    inbox.send(reply(first, "ann@example.org", _setup_line(first)), first["Reply-To"])
    assert inbox.outcome()[0] == "played"
    work()
    assert nclient.get(f"/v1/games/{gid}").get_json()["to_act"] == [1]


def test_a_turn_over_before_its_mail_is_written_leaves_the_start_mail_alone(
        nclient, work, smtp) -> None:
    ann = register(nclient, "Ann", "ann@example.org")
    bob = register(nclient, "Bob", "bob@example.org")
    gid = start_game(nclient, [ann, bob], options=DUEL)
    view = nclient.get(f"/v1/games/{gid}/view", headers=ann.auth).get_json()
    resp = nclient.post(f"/v1/games/{gid}/moves", json=ann.envelope(
        gid, 0, view["step"], view["legal_moves"][0]))  # Ann sets up before any mail goes
    assert resp.status_code == 202
    work()
    (started,), (turn,) = smtp.to("ann@example.org"), smtp.to("bob@example.org")
    assert started["X-Parley-Event"] == "game.started" and started["Reply-To"] is None
    assert started["Message-ID"] == f"<game-{gid}-{ann.id}@parley>"
    assert "Your game of Stratego with Bob has started.\n" in _text(started)
    assert "Your legal moves" not in _text(started) and "To play" not in _text(started)
    assert turn["X-Parley-Event"] == "turn.started" and turn["Reply-To"]


def test_a_seat_with_nothing_to_decide_at_the_start_gets_the_start_alone(
        nclient, work, smtp) -> None:
    ann = register(nclient, "Ann", "ann@example.org")
    bob = register(nclient, "Bob", "bob@example.org")
    gid = start_game(nclient, [ann, bob], ruleset="cartagena")
    work()
    summary = nclient.get(f"/v1/games/{gid}").get_json()
    assert len(summary["to_act"]) == 1
    mover = next(p for p in (ann, bob) if nclient.get(
        f"/v1/games/{gid}/view", headers=p.auth).get_json()["seat"] == summary["to_act"][0])
    for player in (ann, bob):
        mails = smtp.to(f"{player.name.lower()}@example.org")
        assert len(mails) == 1
        assert mails[0]["Message-ID"] == f"<game-{gid}-{player.id}@parley>"
        if player is mover:
            assert mails[0]["X-Parley-Event"] == "turn.started"
            assert re.fullmatch(r"move-[a-z2-7]{26}@localhost", mails[0]["Reply-To"])
        else:
            assert mails[0]["X-Parley-Event"] == "game.started"
            assert mails[0]["Reply-To"] is None  # nothing to reply with yet
            assert "has started." in _text(mails[0])


def test_turn_mails_reminders_and_digests_say_when_in_the_readers_zone(
        nclient, napp, work, smtp, travel) -> None:
    ann = register(nclient, "Ann", "ann@example.org")
    bob = register(nclient, "Bob", "bob@example.org")  # no time zone set: UTC, said so
    resp = nclient.patch(f"/v1/players/{ann.id}", json={"time_zone": "Europe/Berlin"},
                         headers=ann.auth)
    assert resp.status_code == 200
    gid = start_game(nclient, [ann, bob], options=DUEL, time_control=LONG)
    work()
    berlin, utc = _due_by(nclient, gid, "Europe/Berlin"), _due_by(nclient, gid, "UTC")
    assert berlin.endswith((" CET", " CEST")) and utc.endswith(" UTC")
    ann_text, bob_text = (_text(smtp.to(a)[0]) for a in ("ann@example.org", "bob@example.org"))
    assert f"\nYour move is due by {berlin} (in 2 days 5 hours).\n" in ann_text
    assert "Times are in UTC" not in ann_text
    assert (f"\nYour move is due by {utc} (in 2 days 5 hours).\n"
            "(Times are in UTC: you have set no time zone.)\n") in bob_text

    assert notify.deadline_job(gid, 0, "reminder") == "early"  # at half the time
    travel(95415)
    assert notify.deadline_job(gid, 0, "reminder") == "reminded"
    work()
    reminder = smtp.to("ann@example.org")[-1]
    assert reminder["X-Parley-Event"] == "deadline.reminder"
    assert f"\nYour move is due by {berlin} (in 1 day 2 hours).\n" in _text(reminder)
    travel(-95415)

    store, key = napp.extensions["parley_store"], napp.extensions["parley_server_key"]
    assert digest.send_digest(store, Config(), key, ann.id, store.player(ann.id))
    daily = smtp.to("ann@example.org")[-1]
    assert daily["X-Parley-Event"] == "digest"
    assert f"\nYour move is due by {berlin} (in 2 days 5 hours).\n" in _text(daily)


def test_links_in_the_html_part_leave_the_sentences_punctuation_out(
        nclient, work, smtp) -> None:
    ann = register(nclient, "Ann", "ann@example.org")
    bob = register(nclient, "Bob", "bob@example.org")
    gid = start_game(nclient, [ann, bob], options=DUEL)
    work()
    mail = smtp.to("ann@example.org")[0]
    link = f"{Config().BASE_URL}/v1/games/{gid}/mail"
    assert f"PUT {link}." in _text(mail)  # the sentence ends with a full stop...
    assert f'PUT <a href="{link}">{link}</a>.' in _html(mail)  # ...outside the link

    html = compose("s", ["See http://x.test/a, (http://x.test/b) or <http://x.test/c?d=1&e=2>;",
                         "and http://x.test/f! http://x.test/g: http://x.test/h?"], 0).html
    for bare in ("a", "b", "f", "g", "h"):
        assert f'<a href="http://x.test/{bare}">http://x.test/{bare}</a>' in html
    assert ('&lt;<a href="http://x.test/c?d=1&amp;e=2">http://x.test/c?d=1&amp;e=2</a>&gt;;'
            in html)
