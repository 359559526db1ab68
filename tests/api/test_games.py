"""Games through the API: rulesets, creation, joining, seat order, views, events."""

from __future__ import annotations

import json

from tests.api.helpers import new_game, post_move, view
from tests.players import TestPlayer

DUEL = {"army": "duel"}


def test_rulesets_list_games_with_platform_options(client) -> None:
    body = client.get("/v1/rulesets").get_json()
    stratego = next(r for r in body if r["id"] == "stratego")
    assert stratego["min_players"] == stratego["max_players"] == 2
    assert stratego["options"]["seat_order"]["default"] == "random"
    assert stratego["options"]["army"]["choices"] == ["original", "duel"]
    assert {v["id"] for v in stratego["variants"]} == {"original", "duel"}


def test_one_ruleset_in_full_describes_moves_codes_and_notation(client) -> None:
    from jsonschema import Draft202012Validator

    for ruleset in [r["id"] for r in client.get("/v1/rulesets").get_json()]:
        body = client.get(f"/v1/rulesets/{ruleset}").get_json()
        assert body["id"] == ruleset and body["notation"]
        assert body["options"]["seat_order"]["default"] == "random"
        codes = {c["code"]: c["description"] for c in body["error_codes"]}
        assert "invalid_options" in codes and all(codes.values())
        Draft202012Validator(body["move_schema"]).validate({"type": "resign"})
    stratego = client.get("/v1/rulesets/stratego").get_json()
    assert {"into_lake", "not_your_turn"} <= {c["code"] for c in stratego["error_codes"]}
    Draft202012Validator(stratego["move_schema"]).validate(
        {"type": "move", "from": "a4", "to": "a5"})
    assert client.get("/v1/rulesets/totohu").get_json()["data_option"] == "fleet_data"
    resp = client.get("/v1/rulesets/chess")
    assert resp.status_code == 404 and resp.get_json()["code"] == "ruleset_not_found"


def test_create_needs_token_and_valid_options(client) -> None:
    ann = TestPlayer("ann").register(client)
    resp = client.post("/v1/games", json={"ruleset": "stratego", "players": 2})
    assert resp.status_code == 401
    cases = [
        ({"ruleset": "chess", "players": 2}, "unknown_ruleset"),
        ({"ruleset": "stratego", "players": 3}, "invalid_options"),
        ({"ruleset": "stratego", "players": 2, "options": {"army": "tiny"}}, "invalid_options"),
        ({"ruleset": "stratego", "players": 2,
          "options": {"red_player": "joined", "seat_order": "random"}}, "invalid_options"),
        ({"ruleset": "stratego", "players": "2"}, "invalid_request"),
    ]
    for body, code in cases:
        resp = client.post("/v1/games", json=body, headers=ann.auth)
        assert resp.status_code == 422, body
        assert resp.get_json()["code"] == code, body
    assert client.get("/v1/games", headers=ann.auth).get_json()["games"] == []


def test_create_commits_to_a_seed_and_seats_nobody(client) -> None:
    ann = TestPlayer("ann").register(client)
    resp = client.post("/v1/games", json={"ruleset": "stratego", "players": 2,
                                          "options": DUEL}, headers=ann.auth)
    game = resp.get_json()
    assert game["status"] == "open" and len(game["commitment"]) == 64
    assert game["players"] == [{"seat": 0, "player": None}, {"seat": 1, "player": None}]
    assert game["options"] == {"army": "duel", "seat_order": "random"}


def test_join_rules(client) -> None:
    ann, bob, cy = (TestPlayer(n).register(client) for n in ("ann", "bob", "cy"))
    gid = client.post("/v1/games", json={"ruleset": "stratego", "players": 2},
                      headers=ann.auth).get_json()["id"]
    first = client.post(f"/v1/games/{gid}/join", json=ann.join_body(gid, seat=1),
                        headers=ann.auth).get_json()
    assert (first["seat"], first["seat_final"]) == (1, False)  # random seating: drawn later
    signed = bob.join_body(gid)
    lone_surrogate = {**signed, "statement": {**signed["statement"], "client_seed": "a\ud800b"}}
    for who, body, code in [(ann, ann.join_body(gid), "already_seated"),
                            (bob, bob.join_body(gid, seat=1), "seat_taken"),
                            (bob, bob.join_body(gid, seat=5), "no_such_seat"),
                            (bob, lone_surrogate, "bad_join"), (bob, {}, "join_unsigned")]:
        resp = client.post(f"/v1/games/{gid}/join", json=body, headers=who.auth)
        assert resp.get_json()["code"] == code
    last = client.post(f"/v1/games/{gid}/join", json=bob.join_body(gid),
                       headers=bob.auth).get_json()
    seats = {p["player"]: p["seat"] for p in client.get(f"/v1/games/{gid}").get_json()["players"]}
    assert last == {"game": gid, "seat": seats[bob.id], "seat_final": True, "status": "active"}
    resp = client.post(f"/v1/games/{gid}/join", json=cy.join_body(gid), headers=cy.auth)
    assert resp.status_code == 409 and resp.get_json()["code"] == "game_not_open"


def test_seat_order_joined_keeps_seats_and_red_player_maps_onto_it(client) -> None:
    gid, players = new_game(client, options={"army": "duel", "red_player": "joined"})
    summary = client.get(f"/v1/games/{gid}").get_json()
    assert summary["options"]["seat_order"] == "joined"
    assert "red_player" not in summary["options"]
    assert players[0].name == "ann" and players[1].name == "bob"
    later = TestPlayer("cy").register(client)
    gid = client.post("/v1/games", json={"ruleset": "stratego", "players": 2, "options": {
        "army": "duel", "red_player": "joined"}}, headers=later.auth).get_json()["id"]
    joined = client.post(f"/v1/games/{gid}/join", json=later.join_body(gid, seat=1),
                         headers=later.auth)
    assert (joined.get_json()["seat"], joined.get_json()["seat_final"]) == (1, True)
    audit = client.get(f"/v1/games/{gid}/audit").get_json()
    assert [d["purpose"] for d in audit["draws"]] == []


def test_seat_order_random_is_an_audited_draw(client) -> None:
    names = set()
    for _ in range(8):
        gid, players = new_game(client, options=DUEL)
        audit = client.get(f"/v1/games/{gid}/audit").get_json()
        (draw,) = audit["draws"]
        assert draw["purpose"] == "seat-order" and draw["kind"] == "shuffle"
        assert draw["result"] == [players[0].id, players[1].id]
        names.add(players[0].name)
    assert names == {"ann", "bob"}  # 8 fair draws both ways: fails with chance 2/256


def test_views_say_which_seat_and_hide_the_other_setup(client, run_jobs) -> None:
    gid, players = new_game(client, options=DUEL)
    red, blue = players[0], players[1]
    v = view(client, gid, red)
    assert v["seat"] == 0 and v["step_kind"] == "setup" and v["to_act"] == [0, 1]
    assert v["legal_moves_complete"] is False and v["legal_moves"][0]["type"] == "setup"
    assert view(client, gid)["seat"] is None and view(client, gid)["legal_moves"] == []
    before = view(client, gid, blue)
    resp = post_move(client, gid, red, 0, v["legal_moves"][0])
    assert resp.status_code == 202
    run_jobs()
    after = view(client, gid, blue)
    assert after["to_act"] == [1] and after["step"] == before["step"]
    assert "placement" not in json.dumps(after["state"]) + after["text"]
    events = client.get(f"/v1/games/{gid}/events", headers=blue.auth).get_json()["events"]
    assert all("placement" not in e["event"] for e in events)
    audit = client.get(f"/v1/games/{gid}/audit").get_json()
    assert "envelope" not in audit["entries"][0] and len(audit["entries"][0]["digest"]) == 64
    assert audit["server_seed"] is None


def test_a_view_with_an_unknown_token_is_refused_before_the_game_is_looked_up(client) -> None:
    gid, _ = new_game(client, options=DUEL)
    bad = {"Authorization": "Bearer not-a-token"}
    for path in (f"/v1/games/{gid}/view", "/v1/games/g_nosuchgame/view"):
        resp = client.get(path, headers=bad)
        assert resp.status_code == 401 and resp.get_json()["code"] == "bad_token"
    assert client.get("/v1/games/g_nosuchgame/view").get_json()["code"] == "game_not_found"


def test_games_list_is_the_callers(client) -> None:
    gid, players = new_game(client, options=DUEL)
    for p in players.values():
        games = client.get("/v1/games", headers=p.auth).get_json()["games"]
        assert [g["id"] for g in games] == [gid]


def _blue_sees_after_red_setup(client, run_jobs, placement: dict) -> tuple[str, str]:
    gid, players = new_game(client, options={"army": "duel", "red_player": "joined"})
    assert post_move(client, gid, players[0], 0,
                     {"type": "setup", "placement": placement}).status_code == 202
    run_jobs()
    blue_view = view(client, gid, players[1])
    events = client.get(f"/v1/games/{gid}/events", headers=players[1].auth).get_json()
    spectator = view(client, gid)
    redact = [{k: v for k, v in e.items()} for e in events["events"]]
    for e in redact:  # the start event names the players, who differ between the two games
        e["event"].pop("players", None)
    return (json.dumps([blue_view["state"], blue_view["text"], redact], sort_keys=True),
            json.dumps([spectator["state"], spectator["text"]], sort_keys=True))


def test_non_interference_of_red_setup(client, run_jobs) -> None:
    """Two games differing only in Red's secret setup: Blue and spectators see the same bytes."""
    a = {"a1": "flag", "b1": "bomb", "c1": "bomb", "d1": "spy", "e1": "scout", "f1": "scout",
         "g1": "miner", "h1": "miner", "i1": "general", "j1": "marshal"}
    b = dict(zip(a, ["marshal", "general", "miner", "miner", "scout", "scout", "spy", "bomb",
                     "bomb", "flag"], strict=True))
    assert _blue_sees_after_red_setup(client, run_jobs, a) == \
        _blue_sees_after_red_setup(client, run_jobs, b)
