"""Contract v2 through the API: secret draws stay out of the audit during play (point 2), and
one seat moves several times at one step while the others see only that it is still acting
(point 1). Elfenland's race shuffles its travel deck secretly; its war game picks units one at
a time in answer to one decision."""

from __future__ import annotations

from typing import Any

from tests.api.helpers import new_game, post_move, view


def test_a_secret_draw_shows_neither_params_nor_result_during_play(client, run_jobs) -> None:
    gid, players = new_game(client, "elfenland", {}, 2)
    run_jobs()
    audit = client.get(f"/v1/games/{gid}/audit").get_json()
    deck = [d for d in audit["draws"] if d["purpose"] == "travel-deck"]
    assert deck, [d["purpose"] for d in audit["draws"]]
    for draw in deck:
        assert (draw["params"], draw["result"], draw["redacted"]) == (None, None, True)
    public = [d for d in audit["draws"] if not d.get("redacted")]
    assert all(d["params"] is not None and d["result"] is not None for d in public)


def _first_repeat(client: Any, run_jobs: Any, gid: str, players: dict
                  ) -> tuple[int, dict, dict]:
    """Play first legal moves until a move leaves its seat asked again at the same step:
    (that seat, the game's summary, the move)."""
    for _ in range(200):
        summary = client.get(f"/v1/games/{gid}").get_json()
        seat = summary["to_act"][0]
        v = view(client, gid, players[seat])
        resp = post_move(client, gid, players[seat], seat, v["legal_moves"][0], step=v["step"])
        assert resp.status_code == 202, resp.get_json()
        run_jobs()
        after = client.get(f"/v1/games/{gid}").get_json()
        if after["step"] == v["step"] and seat in after["to_act"]:
            return seat, after, v["legal_moves"][0]
    raise AssertionError("no decision took several moves")


def test_one_seat_moves_several_times_at_one_step(client, run_jobs) -> None:
    gid, players = new_game(client, "elfenland", {"mode": "war"}, 2)
    run_jobs()
    seat, summary, made = _first_repeat(client, run_jobs, gid, players)
    step = summary["step"]
    other = view(client, gid, players[1 - seat])
    assert (other["step"], other["to_act"], other["legal_moves"]) == (step, [seat], [])
    mine = view(client, gid, players[seat])
    assert mine["step"] == step and mine["legal_moves"]
    before = len(client.get(f"/v1/games/{gid}/audit").get_json()["entries"])
    move = mine["legal_moves"][0]  # the very same move again is its repeat 1 (audit.md §6)
    resp = post_move(client, gid, players[seat], seat, move, step=step, repeat=int(move == made))
    assert resp.status_code == 202, resp.get_json()
    run_jobs()
    entries = client.get(f"/v1/games/{gid}/audit").get_json()["entries"]
    assert len(entries) == before + 1
    assert entries[-1]["status"] == "applied"
    assert entries[-2]["status"] == "applied"
