"""The daily digest: one mail a day listing every game where it is the player's turn, each
with its board, its moves and its own reply address (real SMTP out, `parley mail-in` in)."""

from __future__ import annotations

import re

import pytest

from service.config import Config
from service.notify import digest, mail
from service.storage import mail_replies as records
from tests.notify.conftest import register, start_game
from tests.notify.test_mail_replies import DUEL, _setup_line, _text, inbox, reply  # noqa: F401


def test_a_digest_replaces_turn_mails_and_takes_replies(nclient, napp, work, smtp,
                                                        inbox) -> None:  # noqa: F811
    ann = register(nclient, "Ann", "ann@example.org")
    bob = register(nclient, "Bob", "bob@example.org")
    resp = nclient.patch(f"/v1/players/{ann.id}", json={"mail_digest": "daily",
                                                        "time_zone": "Europe/Prague"},
                         headers=ann.auth)
    assert resp.get_json()["mail_digest"] == "daily"
    first = start_game(nclient, [ann, bob], options=DUEL)
    second = start_game(nclient, [ann, bob], options=DUEL)
    work()
    kinds = [m["X-Parley-Event"] for m in smtp.to("ann@example.org")]
    assert kinds == ["game.started", "game.started"]  # no turn mails: they wait for the digest
    assert "turn.started" in [m["X-Parley-Event"] for m in smtp.to("bob@example.org")]

    store, key = napp.extensions["parley_store"], napp.extensions["parley_server_key"]
    due = store.r.zscore("parley:digests", ann.id)
    assert digest.send_due(store, Config(), key, now=due - 60) == 0  # not yet
    assert digest.send_due(store, Config(), key, now=due + 1) == 1
    assert digest.send_due(store, Config(), key, now=due + 2) == 0  # sent once a day
    assert store.r.zscore("parley:digests", ann.id) == due + 86400
    mail = smtp.to("ann@example.org")[-1]
    assert mail["X-Parley-Event"] == "digest" and mail["Subject"] == "Parley: your move in 2 games"
    assert mail["Reply-To"] is None  # two games: each section has its own address
    text = _text(mail)
    sections = re.findall(r"== \d\. Stratego with Bob \(game (\S+)\) ==", text)
    assert sorted(sections) == sorted([first, second])
    addresses = re.findall(r"write to (move-[a-z2-7]{26}@localhost)", text)
    assert len(addresses) == 2 and f'href="mailto:{addresses[1]}"' in \
        mail.get_body(preferencelist=("html",)).get_content()
    example = re.search(r"For example: '(setup [^']+)'", text.replace("\n", " "))[1]
    mail["Reply-To"] = addresses[1]  # the player writes to the second game's address
    inbox.send(reply(mail, "ann@example.org", example), addresses[1])
    assert inbox.outcome()[0] == "played"
    work()
    assert nclient.get(f"/v1/games/{sections[1]}").get_json()["to_act"] == [1]
    assert nclient.get(f"/v1/games/{sections[0]}").get_json()["to_act"] == [0, 1]


def _digest_player(nclient, work) -> str:
    """Ann, on the daily digest, with a game waiting for her -> her id."""
    ann = register(nclient, "Ann", "ann@example.org")
    bob = register(nclient, "Bob", "bob@example.org")
    nclient.patch(f"/v1/players/{ann.id}", json={"mail_digest": "daily"}, headers=ann.auth)
    start_game(nclient, [ann, bob], options=DUEL)
    work()
    return ann.id


def _digests(smtp) -> int:
    return sum(m["X-Parley-Event"] == "digest" for m in smtp.to("ann@example.org"))


def test_a_worker_dying_between_claim_and_send_does_not_lose_the_digest(
        nclient, napp, work, smtp, monkeypatch) -> None:
    """The worker dies (SystemExit: nothing of it runs on) after it claimed Ann's digest and
    before the mail left: the claim is a lease, and once it runs out the next sweep sends the
    digest, once, and schedules the next day's."""
    pid = _digest_player(nclient, work)
    store, key = napp.extensions["parley_store"], napp.extensions["parley_server_key"]
    due = store.r.zscore("parley:digests", pid)

    def die(*_args, **_kwargs):
        raise SystemExit(137)

    with monkeypatch.context() as patch:
        patch.setattr(mail, "send", die)
        with pytest.raises(SystemExit):
            digest.send_due(store, Config(), key, now=due + 1)
    assert _digests(smtp) == 0
    assert digest.send_due(store, Config(), key, now=due + 2) == 0  # the lease holds
    retry = due + 1 + digest.LEASE_SECONDS
    assert digest.send_due(store, Config(), key, now=retry) == 1
    assert _digests(smtp) == 1
    assert digest.send_due(store, Config(), key, now=retry + 1) == 0  # sent once
    assert store.r.zscore("parley:digests", pid) == due + 86400
    assert digest.send_due(store, Config(), key, now=due + 86400 + 1) == 1  # the next day's


def test_two_workers_sweeping_at_once_send_one_digest(nclient, napp, work, smtp) -> None:
    """Claims made a moment apart: the second finds the digest leased, not due."""
    pid = _digest_player(nclient, work)
    store, key = napp.extensions["parley_store"], napp.extensions["parley_server_key"]
    due = store.r.zscore("parley:digests", pid)
    assert records.claim_digest(store, pid, due + 1, due + 1 + digest.LEASE_SECONDS)
    assert not records.claim_digest(store, pid, due + 1.5, due + 1.5 + digest.LEASE_SECONDS)
    assert digest.send_due(store, Config(), key, now=due + 2) == 0
    assert _digests(smtp) == 0


def test_a_failed_send_is_tried_again_for_an_hour_then_given_up(
        nclient, napp, work, smtp, monkeypatch) -> None:
    pid = _digest_player(nclient, work)
    store, key = napp.extensions["parley_store"], napp.extensions["parley_server_key"]
    due = store.r.zscore("parley:digests", pid)

    def refused(*_args, **_kwargs):
        raise ConnectionRefusedError("the mail server is away")

    monkeypatch.setattr(mail, "send", refused)
    assert digest.send_due(store, Config(), key, now=due + 1) == 0
    assert store.r.zscore("parley:digests", pid) == due + 1 + digest.LEASE_SECONDS  # retried
    late = due + digest.RETRY_SECONDS + 1
    assert digest.send_due(store, Config(), key, now=late) == 0
    assert store.r.zscore("parley:digests", pid) == due + 86400  # given up for the day
