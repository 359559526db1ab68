"""Every operation that takes a JSON body refuses a body nested too deeply as the move routes
do: 400 problem JSON `invalid_json`, nothing changed (never a 500 from the parser's recursion
limit)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.players import TestPlayer

DEEP = [b"[" * 30_000 + b"]" * 30_000, b'{"a":' * 5_000 + b"1" + b"}" * 5_000,
        b'{"name": ' + b"[" * 3_000 + b"]" * 3_000 + b"}"]


@pytest.fixture
def ids(client: Any, run_jobs: Any) -> dict[str, Any]:
    ann = TestPlayer("ann").register(client)
    gid = client.post("/v1/games", json={"ruleset": "stratego", "players": 2,
                                         "options": {"army": "duel"}},
                      headers=ann.auth).get_json()["id"]
    hook = client.post(f"/v1/players/{ann.id}/webhooks", json={"url": "http://8.8.8.8/h"},
                       headers=ann.auth).get_json()["id"]
    return {"player": ann.id, "game": gid, "webhook": hook, "ruleset": "stratego",
            "token": "a" * 26, "code": "c" * 43, "auth": ann.auth}


def _json_operations(client: Any) -> list[tuple[str, str]]:
    spec = client.get("/openapi.json").get_json()
    return [(method.upper(), path) for path, ops in spec["paths"].items()
            for method, op in ops.items() if isinstance(op, dict) and "requestBody" in op]


def test_every_json_route_refuses_deep_nesting_with_400(client, ids, config) -> None:
    operations = _json_operations(client)
    assert len(operations) >= 11
    store = client.application.extensions["parley_store"]
    before = sorted(store.r.keys("*"))
    for method, path in operations:
        url = path.format(**{k: ids[k] for k in ("player", "game", "webhook", "ruleset", "token",
                                                 "code")})
        for body in DEEP:
            resp = client.open(url, method=method, data=body, headers={
                **ids["auth"], "Content-Type": "application/json"})
            assert resp.status_code == 400, (method, path, resp.status_code, resp.get_json())
            assert resp.mimetype == "application/problem+json"
            assert resp.get_json()["code"] == "invalid_json", (method, path)
    # nothing changed but the rate limits and the metrics, which count every request
    counters = ("LIMITS:", "parley:metrics")
    after = sorted(k for k in store.r.keys("*") if not k.startswith(counters))
    assert after == [k for k in before if not k.startswith(counters)], set(after) ^ set(before)
