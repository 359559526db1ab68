"""`/v1/health` answers 503 with the reason when Redis or every worker is gone."""

from __future__ import annotations

from rq import Worker

from service.ops.ports import free_port
from tests.players import TestPlayer


def test_healthy_with_a_worker_unhealthy_without(app, client) -> None:
    queue = app.extensions["parley_queue"]
    resp = client.get("/v1/health")
    assert resp.status_code == 503
    assert resp.get_json() == {"status": "unavailable", "redis": True, "workers": 0,
                               "queue_depth": 0, "pending_games": 0,
                               "reason": "no worker is running"}
    worker = Worker([queue], connection=queue.connection)
    worker.register_birth()
    try:
        resp = client.get("/v1/health")
        assert resp.status_code == 200 and resp.get_json()["workers"] == 1
        assert resp.get_json()["status"] == "ok"
    finally:
        worker.register_death()
    assert client.get("/v1/health").status_code == 503


def test_unhealthy_when_redis_is_gone(config) -> None:
    from service.web.app import create_app

    config.REDIS_URL = config.STORE_URL = f"redis://127.0.0.1:{free_port()}/0"
    config.RATE_LIMIT_STORAGE = config.REDIS_URL
    client = create_app(config).test_client()
    resp = client.get("/v1/health")
    assert resp.status_code == 503
    body = resp.get_json()
    assert body["status"] == "unavailable" and body["redis"] is False
    assert body["reason"] == "game store Redis unreachable: ConnectionError"
    # every other request is a 503 problem, never a hang
    registration = TestPlayer("ann").registration()
    for resp in (client.get("/v1/games/g_x"), client.post("/v1/players", json=registration)):
        assert resp.status_code == 503 and resp.get_json()["code"] == "unavailable"
        assert resp.headers["Retry-After"] == "5"
