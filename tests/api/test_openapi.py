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


def test_every_operation_has_a_short_unique_operation_id_and_a_tag() -> None:
    """Generated SDKs name their methods after operationIds (`createGame`, not
    `post_v1_games`): each is short, camelCase, unique, and each operation has a tag."""
    import json
    import re

    doc = json.loads(COMMITTED.read_text())
    ids = []
    for path, ops in doc["paths"].items():
        for method, op in ops.items():
            if method not in {"get", "post", "put", "patch", "delete"}:
                continue
            assert op.get("tags"), f"{method.upper()} {path} has no tag"
            op_id = op.get("operationId", "")
            assert re.fullmatch(r"[a-z][A-Za-z]{2,24}", op_id), f"{method} {path}: {op_id!r}"
            ids.append(op_id)
    assert len(ids) == len(set(ids))
