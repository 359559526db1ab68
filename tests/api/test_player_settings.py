"""A player's settings: the time zone their mails show deadlines in (IANA names only)."""

from __future__ import annotations

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
    assert resp.get_json() == {"id": pid, "time_zone": "America/Sao_Paulo"}
    assert _stored(client, pid) == "America/Sao_Paulo"


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
