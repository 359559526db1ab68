"""A player's settings: the time zone their mails show deadlines in (IANA names only), moves
by mail reply, and the daily digest."""

from __future__ import annotations

from tests.notify.conftest import confirm
from tests.players import TestPlayer


def _stored(client, pid: str) -> str | None:
    store = client.application.extensions["parley_store"]
    return (store.player(pid) or {}).get("time_zone")


def test_the_time_zone_is_set_at_registration_or_later(client) -> None:
    ann = TestPlayer("ann")
    resp = client.post("/v1/players", json=ann.registration(time_zone="Europe/Berlin"))
    assert resp.status_code == 201, resp.get_json()
    pid, token = resp.get_json()["id"], resp.get_json()["token"]
    assert _stored(client, pid) == "Europe/Berlin"
    resp = client.patch(f"/v1/players/{pid}", json={"time_zone": "America/Sao_Paulo"},
                        headers={"Authorization": f"Bearer {token}"})
    assert resp.status_code == 200
    assert resp.get_json() == {"id": pid, "time_zone": "America/Sao_Paulo", "mail_moves": False,
                               "reply_receipts": True, "mail_digest": "off",
                               "digest_hour": 8}  # no email: no moves
    assert _stored(client, pid) == "America/Sao_Paulo"


def test_mail_moves_and_the_digest_are_settings_of_their_own(client) -> None:
    ann = TestPlayer("ann")
    reg = client.post("/v1/players", json=ann.registration(email="ann@example.org")).get_json()
    ann.id, ann.key_id, ann.token = reg["id"], reg["key_id"], reg["token"]
    pid, auth = ann.id, ann.auth
    store = client.application.extensions["parley_store"]
    resp = client.patch(f"/v1/players/{pid}", json={"time_zone": "UTC"}, headers=auth)
    assert resp.get_json()["mail_moves"] is False  # not before the address is confirmed
    confirm(client, "ann@example.org")
    resp = client.patch(f"/v1/players/{pid}", json={"time_zone": "UTC"}, headers=auth)
    assert resp.get_json()["mail_moves"] is False  # not before the player's signed consent
    assert client.post(f"/v1/players/{pid}/consents", json=ann.consent(),
                       headers=auth).status_code == 201
    resp = client.patch(f"/v1/players/{pid}", json={"mail_digest": "daily", "digest_hour": 7},
                        headers=auth)
    assert resp.get_json() == {"id": pid, "time_zone": "UTC", "mail_moves": True,
                               "reply_receipts": True, "mail_digest": "daily", "digest_hour": 7}
    due = store.r.zscore("parley:digests", pid)
    assert due is not None and due % 86400 == 7 * 3600  # 07:00 UTC
    resp = client.patch(f"/v1/players/{pid}", json={"mail_moves": False, "mail_digest": "off"},
                        headers=auth)
    assert resp.get_json()["mail_moves"] is False and resp.get_json()["mail_digest"] == "off"
    assert store.r.zscore("parley:digests", pid) is None
    for bad in ({}, {"digest_hour": 24}, {"digest_hour": "7"}, {"mail_digest": "weekly"},
                {"mail_moves": "yes"}, {"reply_receipts": "no"}):
        resp = client.patch(f"/v1/players/{pid}", json=bad, headers=auth)
        assert resp.status_code == 422 and resp.get_json()["code"] == "invalid_request", bad
    assert store.player(pid)["mail_moves"] == "0"


def test_unknown_time_zones_and_other_players_are_refused(client) -> None:
    bob = TestPlayer("bob").register(client)
    eve = TestPlayer("eve").register(client)
    for name in ("Mars/Olympus", "CET ", "../etc/passwd", "", "localtime"):
        resp = client.patch(f"/v1/players/{bob.id}", json={"time_zone": name},
                            headers=bob.auth)
        assert resp.status_code == 422 and resp.get_json()["code"] == "invalid_request", name
        assert "time_zone" in resp.get_json()["errors"]["json"]
    resp = client.post("/v1/players",
                       json=TestPlayer("cy").registration(time_zone="Mars/Olympus"))
    assert resp.status_code == 422 and "time_zone" in resp.get_json()["errors"]["json"]
    resp = client.patch(f"/v1/players/{bob.id}", json={"time_zone": "UTC"}, headers=eve.auth)
    assert resp.status_code == 403 and resp.get_json()["code"] == "not_owner"
    resp = client.patch(f"/v1/players/{bob.id}", json={"time_zone": "UTC"})
    assert resp.status_code == 401
    assert _stored(client, bob.id) is None  # unset: mails use UTC
