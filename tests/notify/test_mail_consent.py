"""A mail-authorised entry needs its player's signed consent in force (docs/audit.md §16):
without one a reply makes no move, and a bundle whose mail entry has none, or one given after
it, or an entry stamped with fractions of a second, fails the verifier."""

from __future__ import annotations

import copy
from typing import Any

from parley_protocol import signing
from parley_protocol.verify import verify_bundle

from tests.notify.conftest import register, start_game
from tests.notify.test_mail_replies import _turn_mail, reply
from tests.notify.test_mail_whole_turns import inbox  # noqa: F401  # the fixture
from tests.players import TestPlayer

DUEL = {"army": "duel", "seat_order": "joined"}
ANN = "ann@example.org"


def _signed_move(client: Any, player: TestPlayer, gid: str) -> None:
    view = client.get(f"/v1/games/{gid}/view", headers=player.auth).get_json()
    resp = client.post(f"/v1/games/{gid}/moves", json=player.envelope(
        gid, view["seat"], view["step"], view["legal_moves"][0]))
    assert resp.status_code == 202, resp.get_json()


def _resigned_by_mail(nclient, work, smtp, inbox  # noqa: F811
                      ) -> tuple[dict, Any, TestPlayer]:
    """A Duel Ann resigns by mail after both setups were signed: (audit, server key, Ann)."""
    ann, bob = register(nclient, "Ann", ANN), register(nclient, "Bob", "bob@example.org")
    gid = start_game(nclient, [ann, bob], options=DUEL)
    _signed_move(nclient, ann, gid)
    _signed_move(nclient, bob, gid)
    work()
    turn = _turn_mail(smtp, ANN)
    inbox.send(reply(turn, ANN, "resign"), turn["Reply-To"])
    assert inbox.outcome()[0] == "played"
    work()
    audit = nclient.get(f"/v1/games/{gid}/audit").get_json()
    assert audit["status"] == "finished"
    return audit, nclient.application.extensions["parley_server_key"], ann


def _resigned(bundle: dict, server_key: Any) -> dict:
    """The bundle signed again by the server: what a dishonest server could publish."""
    unsigned = {k: v for k, v in bundle.items() if k != "signature"}
    return {**unsigned, "signature": signing.b64url_encode(server_key.sign(
        signing.BUNDLE_PREFIX + signing.canonical(unsigned)))}


def test_a_mail_entry_verifies_only_with_its_players_consent_in_force(
        nclient, work, smtp, inbox) -> None:  # noqa: F811
    audit, key, _ = _resigned_by_mail(nclient, work, smtp, inbox)
    report = verify_bundle(audit)
    assert report.ok, report.failure
    assert report.mail_authorised == [3] and len(audit["consents"]) == 2
    assert "consents: 2 signed statements about moves by mail verified" in report.render()

    for changed in ({**audit, "consents": [c for c in audit["consents"] if c["seat"] != 0]},
                    {k: v for k, v in audit.items() if k != "consents"}):
        report = verify_bundle(_resigned(changed, key))
        assert not report.ok and "entry 3: a mail-authorised move for seat 0" in report.failure
    later = copy.deepcopy(audit)  # the consent's statement changed: its signature fails
    later["consents"][0]["statement"]["issued_at"] = "2099-01-01T00:00:00Z"
    report = verify_bundle(_resigned(later, key))
    assert not report.ok and "does not verify" in report.failure

    fraction = copy.deepcopy(audit)  # a server grinding the entry's signature by microseconds
    payload = fraction["entries"][2]["envelope"]["payload"]
    payload["issued_at"] = payload["issued_at"].replace("Z", ".123456Z")
    report = verify_bundle(_resigned(fraction, key))
    assert not report.ok and "whole seconds" in report.failure


def test_without_consent_a_reply_makes_no_move(nclient, work, smtp, inbox) -> None:  # noqa: F811
    ann, bob = register(nclient, "Ann", ANN), register(nclient, "Bob", "bob@example.org")
    withdrawn = nclient.post(f"/v1/players/{ann.id}/consents", json=ann.consent(False),
                             headers=ann.auth)
    assert withdrawn.status_code == 201
    gid = start_game(nclient, [ann, bob], options=DUEL)
    work()
    turn = [m for m in smtp.to(ANN) if m["X-Parley-Event"] == "turn.started"][-1]
    assert turn["Reply-To"] is None  # no reply address without consent
    assert nclient.get(f"/v1/games/{gid}").get_json()["step"] == 0
    settings = nclient.patch(f"/v1/players/{ann.id}", json={"time_zone": "UTC"},
                             headers=ann.auth).get_json()
    assert settings["mail_moves"] is False


def test_a_consent_backdated_before_a_move_by_mail_is_refused(nclient, work, smtp,
                                                              inbox) -> None:  # noqa: F811
    audit, _, ann = _resigned_by_mail(nclient, work, smtp, inbox)
    entry_at = audit["entries"][2]["envelope"]["payload"]["issued_at"]
    backdated = nclient.post(f"/v1/players/{ann.id}/consents",
                             json=ann.consent(False, issued_at=entry_at), headers=ann.auth)
    assert (backdated.status_code, backdated.get_json()["code"]) == (409, "consent_too_old")
    assert len(nclient.get(f"/v1/players/{ann.id}/consents",
                           headers=ann.auth).get_json()["consents"]) == 1
