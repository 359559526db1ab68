"""The committed OpenAPI document equals what the app generates."""

from __future__ import annotations

from pathlib import Path

from service.cli import dump_openapi

COMMITTED = Path(__file__).resolve().parents[2] / "openapi" / "openapi.json"


def test_openapi_document_is_current() -> None:
    assert COMMITTED.read_text() == dump_openapi(), (
        "openapi/openapi.json is stale: run `make openapi` and commit it")


def test_served_document_is_the_same(client) -> None:
    import json

    served = client.get("/openapi.json").get_json()
    assert served == json.loads(COMMITTED.read_text())
