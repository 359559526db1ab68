"""The OpenAPI document's `webhooks` section describes every body a receiver really gets."""

from __future__ import annotations

import json
from pathlib import Path

from jsonschema import Draft202012Validator

from service.domain.notices import EVENT_TYPES
from tests.notify.conftest import register, start_game

DOCUMENT = json.loads((Path(__file__).resolve().parents[2] / "openapi" / "openapi.json")
                      .read_text("utf-8"))


def _validator(kind: str) -> Draft202012Validator:
    """The body schema of one webhook, its `$ref`s resolved inside the whole document."""
    pointer = f"#/webhooks/{kind}/post/requestBody/content/application~1json/schema"
    return Draft202012Validator({**DOCUMENT, "$ref": pointer})


def test_every_event_type_is_a_documented_webhook() -> None:
    assert sorted(DOCUMENT["webhooks"]) == sorted(EVENT_TYPES)
    ids = [w["post"]["operationId"] for w in DOCUMENT["webhooks"].values()]
    assert len(set(ids)) == len(ids) and all(i.startswith("on") for i in ids)


def test_received_bodies_match_the_documented_schemas(nclient, work, receiver) -> None:
    ann, bob = register(nclient, "ann"), register(nclient, "bob")
    resp = nclient.post(f"/v1/players/{ann.id}/webhooks", json={"url": receiver.url},
                        headers=ann.auth)
    assert resp.status_code == 201, resp.get_json()
    gid = start_game(nclient, [ann, bob], options={"army": "duel", "seat_order": "joined"})
    work()
    v = nclient.get(f"/v1/games/{gid}/view", headers=ann.auth).get_json()
    # two setups queued for one decision (the second is refused when resolved), then a resign
    for move in (*v["legal_moves"][:2], {"type": "resign"}):
        resp = nclient.post(f"/v1/games/{gid}/moves", json=ann.envelope(gid, 0, v["step"], move))
        assert resp.status_code == 202, resp.get_json()
    work()
    bodies = receiver.bodies()
    kinds = {b["type"] for b in bodies}
    assert {"game.started", "turn.started", "game.finished", "move.rejected"} <= kinds, kinds
    for body in bodies:
        errors = list(_validator(body["type"]).iter_errors(body))
        assert not errors, (body["type"], errors[0].message)
        wrong = {**body, "type": "game.started" if body["type"] != "game.started"
                 else "turn.started"}
        assert list(_validator(body["type"]).iter_errors(wrong)), "the type is not pinned"
