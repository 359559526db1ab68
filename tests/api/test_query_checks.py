"""Cursors the API never gave out are refused with their list's code, never a 500 (issue 59):
`str.isdigit` let 10**23, 2**63 and '²' through to Redis or `int`, which failed."""

from __future__ import annotations

import pytest

from tests.api.helpers import new_game

NOT_GIVEN = ["1" + "0" * 23, str(2**63), "1" + "0" * 18, "²", "٣", "-1", "1e3", " 5"]


def _refused(resp, code: str) -> None:
    assert resp.status_code == 422, (resp.status_code, resp.get_data(as_text=True))
    assert resp.mimetype == "application/problem+json" and resp.get_json()["code"] == code


@pytest.mark.parametrize("cursor", NOT_GIVEN)
def test_a_cursor_no_list_gave_is_refused_with_the_lists_code(client, config, cursor) -> None:
    config.WEBHOOK_ALLOW_PRIVATE = True
    gid, players = new_game(client, options={"army": "duel", "seat_order": "joined"})
    ann = players[0]
    hook = client.post(f"/v1/players/{ann.id}/webhooks", json={"url": "http://127.0.0.1:9/h"},
                       headers=ann.auth).get_json()["id"]
    deliveries = f"/v1/players/{ann.id}/webhooks/{hook}/deliveries"
    for name in ("cursor", "after"):
        _refused(client.get(f"{deliveries}?{name}={cursor}", headers=ann.auth), "bad_cursor")
        _refused(client.get(f"/v1/games/{gid}/events?{name}={cursor}"), "invalid_cursor")
    assert client.get(deliveries, headers=ann.auth).get_json() == {"deliveries": [],
                                                                  "next": None}
    assert client.get(f"/v1/games/{gid}/events?cursor=999999999999999999").status_code == 200
