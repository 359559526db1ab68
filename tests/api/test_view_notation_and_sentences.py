"""What a person reads in the API (issue 62, docs/client.md): each legal move in the game's
notation beside the move, the board's text and the events' sentences with the players' names,
and a typed move read by `POST /v1/rulesets/{id}/notation`."""

from __future__ import annotations

from typing import Any

import pytest

from engines.registry import available, get_engine
from tests.api.conftest import duel
from tests.api.helpers import new_game, view


def test_every_game_lists_its_moves_in_its_notation(client) -> None:
    """For every ruleset, the seat to act gets one notation per legal move, in order, which
    the game's own `parse_move` reads back as that very move."""
    for ruleset in available():
        engine = get_engine(ruleset)
        gid, players = new_game(client, ruleset, seats=engine.min_players)
        summary = client.get(f"/v1/games/{gid}").get_json()
        seat = summary["to_act"][0]
        v = view(client, gid, players[seat])
        assert v["legal_moves"], ruleset
        assert len(v["legal_moves_notation"]) == len(v["legal_moves"]), ruleset
        for move, text in zip(v["legal_moves"], v["legal_moves_notation"], strict=True):
            # the same move (the JSON answer sorts a setup's squares, the text is in the
            # game's own order)
            assert engine.parse_move(text) == move, (ruleset, text)
        others = [p for s, p in players.items() if s not in summary["to_act"]]
        for p in [*others, None]:  # not asked, or a spectator: nothing to list
            assert view(client, gid, p)["legal_moves_notation"] == []


def test_a_duel_view_names_the_players(client, run_jobs) -> None:
    gid, ann, bob = duel(client, run_jobs, ("Ann", "Bob"))
    mine = view(client, gid, ann)
    assert mine["legal_moves_notation"][0] == "a4-a5"
    assert "you are Ann" in mine["text"] and "Bob" in mine["text"]
    assert "Player 1" not in mine["text"] and "Player 2" not in mine["text"]
    public = view(client, gid)
    assert "Ann" in public["text"] and "Bob" in public["text"] and "you" not in public["text"]


def test_fast_path_and_app_answer_the_same_view(apps, game) -> None:
    gid, ann, _ = game
    fast, slow = (a.test_client().get(f"/v1/games/{gid}/view", headers=ann.auth)
                  for a in apps)
    assert fast.data == slow.data
    assert fast.get_json()["legal_moves_notation"]


def test_a_view_batch_names_the_players_too(client, run_jobs) -> None:
    gid, ann, _ = duel(client, run_jobs, ("Ann", "Bob"))
    other, _ = new_game(client, "totohu", seats=1, names=("Cy",))
    resp = client.get(f"/v1/views?game={gid}&game={other}&game=g_nosuchgame",
                      headers=ann.auth)
    assert resp.status_code == 200, resp.get_json()
    views = resp.get_json()["views"]
    assert views[0] == view(client, gid, ann)
    assert "Cy" in views[1]["text"] and views[1]["legal_moves_notation"] == []
    assert views[2]["problem"]["code"] == "game_not_found"


def _texts(client: Any, gid: str, who: Any) -> list[str]:
    events = client.get(f"/v1/games/{gid}/events",
                        headers=who.auth if who else {}).get_json()["events"]
    assert all(isinstance(e["text"], str) for e in events)
    return [e["text"] for e in events if e["text"]]


def test_events_read_as_sentences_from_each_seat(client, run_jobs) -> None:
    gid, ann, bob = duel(client, run_jobs, ("Ann", "Bob"))
    assert _texts(client, gid, ann) == [
        "You submitted a setup.", "Bob submitted a setup.", "Both setups are in; you move first."]
    assert _texts(client, gid, bob)[0] == "Ann submitted a setup."
    started = client.get(f"/v1/games/{gid}/events").get_json()["events"][0]
    assert started["event"]["type"] == "game_started" and started["text"] == ""
    step = view(client, gid, ann)["step"]
    for p, seat, move in ((ann, 0, {"type": "move", "from": "a4", "to": "a5"}),
                          (bob, 1, {"type": "resign"})):
        env = p.envelope(gid, seat, step, move)
        assert client.post(f"/v1/games/{gid}/moves", json=env).status_code == 202
        run_jobs()
        step += 1
    assert _texts(client, gid, ann)[-3:] == ["You moved a4-a5.", "Bob resigned.",
                                             "You won: Bob resigned."]
    assert _texts(client, gid, bob)[-1] == "Ann won: you resigned."
    assert _texts(client, gid, None)[-1] == "Ann won: Bob resigned."


def test_a_hidden_choice_stays_hidden_in_the_sentences(client, run_jobs) -> None:
    """Totohu's ship is secret until the reveal: the sentence is told from what the reader's
    redacted event shows, so another seat's sentence cannot name it."""
    gid, players = new_game(client, "totohu", {"seat_order": "joined"}, 2, ("Ann", "Bob"))
    step = view(client, gid, players[0])["step"]
    env = players[0].envelope(gid, 0, step, {"type": "play", "ship": "p3"})
    assert client.post(f"/v1/games/{gid}/moves", json=env).status_code == 202
    run_jobs()
    theirs = _texts(client, gid, players[1])
    assert theirs and not any("p3" in t for t in theirs), theirs


@pytest.mark.parametrize(("text", "move"), [
    ("a4-a5", {"type": "move", "from": "a4", "to": "a5"}),
    ("  A4-A5 ", {"type": "move", "from": "a4", "to": "a5"}),
    ("resign", {"type": "resign"}),
])
def test_a_typed_move_is_read_in_the_games_notation(client, text: str, move: dict) -> None:
    resp = client.post("/v1/rulesets/stratego/notation", json={"text": text})
    assert resp.status_code == 200, resp.get_json()
    assert resp.get_json() == {"move": move, "notation": get_engine("stratego").format_move(move)}


def test_a_typed_setup_outside_the_examples_is_read(client) -> None:
    """Where the listing offers only examples (a setup), any setup can still be typed."""
    engine = get_engine("stratego")
    setup = {"type": "setup", "placement": {"a1": "flag", "b1": "bomb", "c1": "spy"}}
    resp = client.post("/v1/rulesets/stratego/notation",
                       json={"text": engine.format_move(setup)})
    assert resp.get_json()["move"] == setup


def test_unreadable_text_and_unknown_games_are_refused(client) -> None:
    bad = client.post("/v1/rulesets/stratego/notation", json={"text": "fly to the moon"})
    assert bad.status_code == 422 and bad.get_json()["code"] == "bad_notation"
    assert bad.mimetype == "application/problem+json"
    for body in ({"text": ""}, {"text": "x" * 5000}, {}, {"text": 3}):
        resp = client.post("/v1/rulesets/stratego/notation", json=body)
        assert resp.status_code == 422 and resp.get_json()["code"] == "invalid_request", body
    nowhere = client.post("/v1/rulesets/chess/notation", json={"text": "e2-e4"})
    assert nowhere.status_code == 404 and nowhere.get_json()["code"] == "ruleset_not_found"
