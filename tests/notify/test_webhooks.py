"""Webhooks to a real HTTP receiver on loopback, verified with the `standardwebhooks` library."""

from __future__ import annotations

import pytest
from standardwebhooks import Webhook

from service.notify import webhooks
from tests.notify.conftest import register, start_game

DUEL = {"army": "duel", "seat_order": "joined"}


def _hook(client, player, url, types=None):
    body = {"url": url} if types is None else {"url": url, "types": types}
    resp = client.post(f"/v1/players/{player.id}/webhooks", json=body, headers=player.auth)
    assert resp.status_code == 201, resp.get_json()
    return resp.get_json()


def _deliveries(client, player, wid):
    resp = client.get(f"/v1/players/{player.id}/webhooks/{wid}/deliveries", headers=player.auth)
    assert resp.status_code == 200, resp.get_json()
    return resp.get_json()["deliveries"]


def test_deliveries_are_signed_and_carry_only_the_seats_own_view(nclient, work,
                                                                 receiver) -> None:
    ann, bob = register(nclient, "ann"), register(nclient, "bob")
    hook = _hook(nclient, bob, receiver.url, ["turn.started", "game.started"])
    assert hook["secret"].startswith("whsec_") and hook["enabled"] is True
    listed = nclient.get(f"/v1/players/{bob.id}/webhooks", headers=bob.auth).get_json()
    assert listed["webhooks"][0]["id"] == hook["id"] and "secret" not in listed["webhooks"][0]
    gid = start_game(nclient, [ann, bob], options=DUEL)
    work()
    bob_view = nclient.get(f"/v1/games/{gid}/view", headers=bob.auth).get_json()
    setup = nclient.get(f"/v1/games/{gid}/view", headers=ann.auth).get_json()["legal_moves"][0]
    assert nclient.post(f"/v1/games/{gid}/moves",
                        json=ann.envelope(gid, 0, 0, setup)).status_code == 202
    work()  # Red's setup opens no new decision: nothing more for Bob
    assert [b["type"] for b in receiver.bodies()] == ["game.started", "turn.started"]
    verifier = Webhook(hook["secret"])
    for req in receiver.requests:
        verified = verifier.verify(req["body"], req["headers"])
        assert verified["data"]["game"] == gid and verified["data"]["seat"] == 1
        assert req["headers"]["webhook-id"].startswith("msg_")
        with pytest.raises(Exception, match="signature"):
            Webhook(webhooks.new_secret()).verify(req["body"], req["headers"])
    turn = receiver.bodies("turn.started")[0]["data"]
    assert turn["view"] == bob_view["state"]  # the seat's own view, as the API shows it
    assert turn["links"]["view"].endswith(f"/v1/games/{gid}/view")
    assert len(_deliveries(nclient, bob, hook["id"])) == 2


def test_a_failing_receiver_is_retried_with_backoff_and_every_attempt_logged(
        nclient, work, receiver) -> None:
    ann, bob = register(nclient, "ann"), register(nclient, "bob")
    hook = _hook(nclient, ann, receiver.url, ["game.started"])
    receiver.plan = [503, 503]  # fails twice, then succeeds
    start_game(nclient, [ann, bob], options=DUEL)
    work(wait=5)
    assert len(receiver.requests) == 3
    assert len({r["headers"]["webhook-id"] for r in receiver.requests}) == 1
    assert len({r["body"] for r in receiver.requests}) == 1  # the same bytes every time
    [delivery] = _deliveries(nclient, ann, hook["id"])
    assert delivery["status"] == "delivered"
    assert [a["status"] for a in delivery["attempts"]] == [503, 503, 200]
    assert all(a["latency_ms"] >= 0 for a in delivery["attempts"])


@pytest.mark.parametrize(("plan", "attempts", "status"), [
    ([404], [404], "failed"),          # a 4xx other than 408/429 is not retried
    ([429, 408], [429, 408, 200], "delivered"),
])
def test_which_answers_are_retried(nclient, work, receiver, plan, attempts, status) -> None:
    ann, bob = register(nclient, "ann"), register(nclient, "bob")
    hook = _hook(nclient, ann, receiver.url, ["game.started"])
    receiver.plan = list(plan)
    start_game(nclient, [ann, bob], options=DUEL)
    work(wait=5)
    [delivery] = _deliveries(nclient, ann, hook["id"])
    assert [a["status"] for a in delivery["attempts"]] == attempts
    assert delivery["status"] == status


def test_an_unreachable_receiver_is_retried_then_disabled_and_the_owner_told(
        nclient, work, smtp, monkeypatch) -> None:
    monkeypatch.setenv("PARLEY_WEBHOOK_DISABLE_AFTER", "0")
    from workers import context

    context.config.cache_clear()
    ann = register(nclient, "ann", "ann@example.org")
    bob = register(nclient, "bob")
    from service.ops.ports import free_port

    dead = f"http://127.0.0.1:{free_port()}/nobody-listens"
    hook = _hook(nclient, ann, dead, ["game.started"])
    start_game(nclient, [ann, bob], options=DUEL)
    work(wait=8)
    [delivery] = _deliveries(nclient, ann, hook["id"])
    assert len(delivery["attempts"]) == 4 and delivery["status"] == "failed"
    assert all(a["status"] is None and "Connection" in a["error"] for a in delivery["attempts"])
    got = nclient.get(f"/v1/players/{ann.id}/webhooks/{hook['id']}", headers=ann.auth).get_json()
    assert got["enabled"] is False and "failed since" in got["disabled_reason"]
    told = [m for m in smtp.to("ann@example.org") if "webhook was disabled" in m["Subject"]]
    assert len(told) == 1 and hook["id"] in told[0].get_content()
    resp = nclient.patch(f"/v1/players/{ann.id}/webhooks/{hook['id']}", json={"enabled": True},
                         headers=ann.auth)
    assert resp.status_code == 200 and resp.get_json()["enabled"] is True
    assert resp.get_json()["disabled_reason"] is None


def test_a_delivery_can_be_redelivered_with_the_same_id_and_body(nclient, work,
                                                                 receiver) -> None:
    ann, bob = register(nclient, "ann"), register(nclient, "bob")
    hook = _hook(nclient, ann, receiver.url, ["game.started"])
    start_game(nclient, [ann, bob], options=DUEL)
    work()
    [delivery] = _deliveries(nclient, ann, hook["id"])
    path = f"/v1/players/{ann.id}/webhooks/{hook['id']}/deliveries/{delivery['id']}/redeliver"
    assert nclient.post(path, headers=bob.auth).status_code == 403
    resp = nclient.post(path, headers=ann.auth)
    assert resp.status_code == 202 and resp.get_json()["attempt"] == 2
    work()
    assert len(receiver.requests) == 2
    first, second = receiver.requests
    assert first["headers"]["webhook-id"] == second["headers"]["webhook-id"] == delivery["id"]
    assert first["body"] == second["body"]
    [again] = _deliveries(nclient, ann, hook["id"])
    assert [a["attempt"] for a in again["attempts"]] == [1, 2]
    missing = path.replace(delivery["id"], "msg_000")
    assert nclient.post(missing, headers=ann.auth).get_json()["code"] == "delivery_not_found"


def test_registration_checks_owner_url_types_and_cap(nclient, monkeypatch) -> None:
    ann, bob = register(nclient, "ann"), register(nclient, "bob")
    url = f"/v1/players/{ann.id}/webhooks"
    assert nclient.post(url, json={"url": "http://example.org/"}).status_code == 401
    assert nclient.post(url, json={"url": "http://example.org/"},
                        headers=bob.auth).get_json()["code"] == "not_owner"
    resp = nclient.post(url, json={"url": "http://127.0.0.1:9/x", "types": ["game.won"]},
                        headers=ann.auth)
    assert resp.status_code == 422
    assert nclient.post(url, json={"url": "ftp://example.org/"},
                        headers=ann.auth).get_json()["code"] == "unsafe_url"
    monkeypatch.setenv("PARLEY_MAX_WEBHOOKS", "2")
    from service.config import Config
    from service.web.app import create_app

    strict = create_app(Config()).test_client()
    for _ in range(2):
        assert strict.post(url, json={"url": "http://127.0.0.1:9/x"},
                           headers=ann.auth).status_code == 201
    resp = strict.post(url, json={"url": "http://127.0.0.1:9/x"}, headers=ann.auth)
    assert resp.status_code == 409 and resp.get_json()["code"] == "too_many_webhooks"


@pytest.mark.parametrize("url", [
    "http://127.0.0.1/hook", "http://localhost:8080/", "http://10.1.2.3/", "http://192.168.0.9/",
    "http://169.254.169.254/latest/meta-data", "http://[::1]/", "http://224.0.0.1/",
    "http://0.0.0.0/", "http://[fe80::1]/",
    # carrier-grade NAT (where some clouds keep their metadata service), benchmarking,
    # IETF protocol assignments, documentation
    "http://100.64.0.1/", "http://198.18.0.1/", "http://192.0.0.1/", "http://192.0.2.1/",
    # IPv6 forms that wrap a private IPv4 address: 6to4, mapped, NAT64 (both prefixes), Teredo
    "http://[2002:7f00:1::]/", "http://[2002:a00:1::]/", "http://[::ffff:10.0.0.1]/",
    "http://[64:ff9b::7f00:1]/", "http://[64:ff9b:1::a00:1]/",
    "http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/",
])
def test_private_addresses_are_refused_unless_allowed(client, url) -> None:
    ann = register(client, "ann")
    resp = client.post(f"/v1/players/{ann.id}/webhooks", json={"url": url}, headers=ann.auth)
    assert resp.status_code == 422 and resp.get_json()["code"] == "unsafe_url"
    with pytest.raises(webhooks.UnsafeUrl):
        webhooks.check_url(url, allow_private=False)
    webhooks.check_url(url, allow_private=True)


def test_a_move_refused_at_resolution_is_reported_to_its_signer(nclient, work,
                                                                receiver) -> None:
    ann, bob = register(nclient, "ann"), register(nclient, "bob")
    hook = _hook(nclient, ann, receiver.url, ["move.rejected"])
    gid = start_game(nclient, [ann, bob], options=DUEL)
    work()
    for seat, p in enumerate((ann, bob)):
        v = nclient.get(f"/v1/games/{gid}/view", headers=p.auth).get_json()
        nclient.post(f"/v1/games/{gid}/moves", json=p.envelope(gid, seat, v["step"],
                                                               v["legal_moves"][0]))
    work()
    v = nclient.get(f"/v1/games/{gid}/view", headers=ann.auth).get_json()
    first, second = v["legal_moves"][:2]  # both legal now; only one can be this step's move
    for move in (first, second):
        resp = nclient.post(f"/v1/games/{gid}/moves", json=ann.envelope(gid, 0, v["step"], move))
        assert resp.status_code == 202
    work()
    [body] = receiver.bodies("move.rejected")
    assert Webhook(hook["secret"]).verify(receiver.requests[0]["body"],
                                          receiver.requests[0]["headers"])
    assert body["data"]["code"] == "stale_step" and body["data"]["seat"] == 0
    assert body["data"]["seq"] == resp.get_json()["id"]


@pytest.mark.parametrize("url", ["http://8.8.8.8/hook", "https://[2606:4700::1111]/x",
                                 "http://[2002:808:808::]/"])
def test_globally_routable_addresses_pass_the_check(url) -> None:
    assert webhooks.check_url(url, allow_private=False)


def test_a_delivery_connects_to_the_address_that_was_checked(receiver) -> None:
    """DNS rebinding: the POST goes to the vetted address, never to a second resolution of
    the host name (here a name that resolves nowhere), which keeps the Host header."""
    port = receiver.url.rsplit(":", 1)[1].split("/")[0]
    url = f"http://rebound.invalid:{port}/hook"
    outcome = webhooks.post(url, ["127.0.0.1"], webhooks.new_secret(), "msg_1", '{"a":1}', 5)
    assert outcome["status"] == 200 and outcome["error"] is None
    assert receiver.requests[-1]["headers"]["host"] == f"rebound.invalid:{port}"
    assert receiver.requests[-1]["path"] == "/hook"
    with pytest.raises(webhooks.UnsafeUrl):  # resolving it again would not even work
        webhooks.check_url(url, allow_private=True)
