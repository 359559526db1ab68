"""Consent to moves by mail, signed by the player (docs/audit.md §16): given and listed through
the API, required before moves by mail can be turned on, refused with a reason when it is not
the player's own fresh statement (tests/notify/test_mail_consent.py: the audit and the
verifier)."""

from __future__ import annotations

import copy
import time

from tests.players import TestPlayer


def _ann(client) -> TestPlayer:
    return TestPlayer("ann").register(client)


def test_a_consent_is_given_listed_and_turns_mail_moves_on(client) -> None:
    ann = _ann(client)
    refused = client.patch(f"/v1/players/{ann.id}", json={"mail_moves": True}, headers=ann.auth)
    assert (refused.status_code, refused.get_json()["code"]) == (409, "consent_required")
    body = ann.consent()
    given = client.post(f"/v1/players/{ann.id}/consents", json=body, headers=ann.auth)
    assert given.status_code == 201 and given.get_json() == body
    off = ann.consent(False)
    assert client.post(f"/v1/players/{ann.id}/consents", json=off,
                       headers=ann.auth).status_code == 201
    listed = client.get(f"/v1/players/{ann.id}/consents", headers=ann.auth).get_json()
    assert listed == {"consents": [body, off]}
    store = client.application.extensions["parley_store"]
    assert store.player(ann.id)["mail_consent"] == "0"  # the last is in force


def test_a_bad_consent_is_refused_and_nothing_is_kept(client) -> None:
    ann = _ann(client)
    bob = TestPlayer("bob").register(client)
    old = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 3600))
    ahead = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + 3600))
    good = ann.consent()
    forged = {**good, "signature": bob.consent()["signature"]}
    other_key = {**good, "key_id": bob.key_id}
    wrong_player = copy.deepcopy(good)
    wrong_player["statement"]["player"] = bob.id
    extra = copy.deepcopy(good)
    extra["statement"]["games"] = ["g_1"]
    not_bool = copy.deepcopy(good)
    not_bool["statement"]["mail_moves"] = "yes"
    cases = [(ann.consent(issued_at=old), 422, "bad_consent"),
             (ann.consent(issued_at=ahead), 422, "bad_consent"),
             (forged, 422, "bad_signature"), (other_key, 422, "bad_signature"),
             (wrong_player, 422, "bad_consent"), (extra, 422, "bad_consent"),
             (not_bool, 422, "bad_consent")]
    for body, status, code in cases:
        resp = client.post(f"/v1/players/{ann.id}/consents", json=body, headers=ann.auth)
        assert (resp.status_code, resp.get_json()["code"]) == (status, code), body
    other = client.post(f"/v1/players/{bob.id}/consents", json=good, headers=ann.auth)
    assert other.status_code == 403
    assert client.get(f"/v1/players/{ann.id}/consents",
                      headers=ann.auth).get_json() == {"consents": []}


def test_a_consent_issued_before_the_one_in_force_is_refused(client) -> None:
    """The server holds the last statement given in force, a verifier the latest by
    issued_at: a statement older than the one before would make them disagree."""
    ann = _ann(client)
    now = time.time()
    at = [time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now - ago)) for ago in (10, 20)]
    assert client.post(f"/v1/players/{ann.id}/consents", json=ann.consent(False, at[0]),
                       headers=ann.auth).status_code == 201
    older = client.post(f"/v1/players/{ann.id}/consents", json=ann.consent(True, at[1]),
                        headers=ann.auth)
    assert (older.status_code, older.get_json()["code"]) == (409, "consent_too_old")
    store = client.application.extensions["parley_store"]
    assert store.player(ann.id)["mail_consent"] == "0"
