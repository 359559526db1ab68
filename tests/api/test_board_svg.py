"""`GET /v1/games/{id}/board.svg`: the caller's picture of the board, its ETag and 304, and a
finished game's earlier positions replayed from its audit bundle."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET
from typing import Any

from parley_protocol import signing
from parley_protocol.verify import Replay

from engines.registry import get_engine
from engines.svg import board_picture
from tests.api.helpers import new_game, play_out, post_move, view
from tests.api.test_moves import BLUE_SETUP, DUEL, RED_SETUP
from tests.archive.helpers import finished_duel
from tests.players import TestPlayer
from workers.archiver import archive_game

SVG = "{http://www.w3.org/2000/svg}svg"


def _board(client: Any, gid: str, who: TestPlayer | None = None, query: str = "",
           etag: str | None = None) -> Any:
    headers = dict(who.auth) if who else {}
    if etag is not None:
        headers["If-None-Match"] = etag
    return client.get(f"/v1/games/{gid}/board.svg{query}", headers=headers)


def _picture(resp: Any) -> str:
    """The body of a picture answer, after checking what every picture carries."""
    assert resp.status_code == 200, resp.get_json()
    assert resp.headers["Content-Type"] == "image/svg+xml; charset=utf-8"
    assert resp.headers["Content-Security-Policy"] == \
        "default-src 'none'; style-src 'unsafe-inline'"
    assert resp.headers["X-Content-Type-Options"] == "nosniff"
    assert resp.headers["Vary"] == "Authorization"
    assert resp.headers["ETag"].startswith('"board-v1.')
    text = resp.get_data(as_text=True)
    assert ET.fromstring(text).tag == SVG
    return text


def _problem(resp: Any, status: int, code: str) -> None:
    assert resp.status_code == status, resp.get_data(as_text=True)
    assert resp.mimetype == "application/problem+json"
    assert resp.get_json()["code"] == code


def _expected(state: dict[str, Any], ruleset: str, seat: int | None, names: list[str]) -> str:
    engine = get_engine(ruleset)
    return board_picture(engine, engine.view(state, seat), names)


def _names(players: dict[int, TestPlayer]) -> list[str]:
    return [players[s].name for s in sorted(players)]


def _stored_state(app: Any, gid: str) -> dict[str, Any]:
    return app.extensions["parley_store"].state(gid)


def _replayed(audit: dict[str, Any]) -> dict[int, dict[str, Any]]:
    """Decision step -> the state when it opened, replayed from the bundle by the verifier's
    own replay (and read back from its stored form, as the server reads states)."""
    engine = get_engine(audit["ruleset"])
    replay = Replay(audit, engine, want_events=False)
    replay.start()
    opened: dict[int, dict[str, Any]] = {}
    for entry in [*audit["entries"], None]:
        step = engine.decision(replay.state)["step"]
        opened.setdefault(step, signing.load_json(signing.dump_state(replay.state)))
        if entry is not None:
            replay.entry(entry)
    return opened


def _first_move(client: Any, gid: str, player: TestPlayer) -> dict[str, Any]:
    moves = view(client, gid, player)["legal_moves"]
    return next(m for m in moves if m["type"] == "move")


def test_each_seat_sees_its_own_picture_and_the_tag_follows_the_game(app, client,
                                                                     run_jobs) -> None:
    gid, players = new_game(client, options=DUEL)
    red, blue = players[0], players[1]
    names = _names(players)
    setting_up = _picture(_board(client, gid, red)).encode()
    red_tag = _board(client, gid, red).headers["ETag"]

    # one seat's setup changes its own picture although the decision (step 0) stays open
    assert post_move(client, gid, red, 0, {"type": "setup", "placement": RED_SETUP}
                     ).status_code == 202
    run_jobs()
    assert view(client, gid, red)["step"] == 0
    after_setup = _board(client, gid, red, etag=red_tag)
    assert after_setup.headers["ETag"] != red_tag
    assert _picture(after_setup).encode() != setting_up
    assert post_move(client, gid, blue, 1, {"type": "setup", "placement": BLUE_SETUP}
                     ).status_code == 202
    run_jobs()

    state = _stored_state(app, gid)
    shown = {seat: _board(client, gid, who) for seat, who in ((0, red), (1, blue), (None, None))}
    pictures = {seat: _picture(resp) for seat, resp in shown.items()}
    for seat, picture in pictures.items():
        assert picture == _expected(state, "stratego", seat, names)
    assert len(set(pictures.values())) == 3
    assert shown[0].headers["Cache-Control"] == "private, no-cache"
    assert shown[None].headers["Cache-Control"] == "public, no-cache"
    assert len({r.headers["ETag"] for r in shown.values()}) == 3

    # Red's ranks are in no view but Red's, so in no picture but Red's: the others show "?"
    hidden = {seat: [t.text for t in ET.fromstring(p).iter("{http://www.w3.org/2000/svg}text")]
              .count("?") for seat, p in pictures.items()}
    assert hidden[0] >= len(BLUE_SETUP) and hidden[1] >= len(RED_SETUP)
    assert hidden[None] >= hidden[0] + hidden[1]  # a spectator knows neither army
    engine = get_engine("stratego")
    for seat in (1, None):
        board = engine.view(state, seat)["board"]
        assert [p for p in board.values() if p["owner"] == 0 and p["piece"] is not None] == []

    # nothing changes: the same tag, and 304 without a body (weak or listed tags match too)
    tag = shown[0].headers["ETag"]
    assert _board(client, gid, red).headers["ETag"] == tag
    for sent in (tag, f"W/{tag}", f'"other", {tag}', "*"):
        same = _board(client, gid, red, etag=sent)
        assert same.status_code == 304 and same.get_data() == b""
        assert same.headers["ETag"] == tag
        assert same.headers["Cache-Control"] == "private, no-cache"
    assert _board(client, gid, None, etag=tag).status_code == 200  # another viewer's tag

    # a move: a new tag, and the old one is answered with the new picture
    assert post_move(client, gid, red, 0, _first_move(client, gid, red)).status_code == 202
    run_jobs()
    moved = _board(client, gid, red, etag=tag)
    assert moved.headers["ETag"] != tag
    assert _picture(moved) == _expected(_stored_state(app, gid), "stratego", 0, names)
    assert _picture(moved) != pictures[0]

    # earlier positions wait for the end; no such game; a token nobody holds
    _problem(_board(client, gid, red, "?step=0"), 409, "game_not_finished")
    _problem(_board(client, gid, None, "?step=1"), 409, "game_not_finished")
    _problem(_board(client, "g_nosuchgame"), 404, "game_not_found")
    _problem(_board(client, "g_nosuchgame", red, "?step=1"), 404, "game_not_found")
    bad = client.get(f"/v1/games/{gid}/board.svg", headers={"Authorization": "Bearer nope"})
    _problem(bad, 401, "bad_token")
    _problem(_board(client, gid, red, "?step=-1"), 422, "invalid_request")
    _problem(_board(client, gid, red, "?steps=1"), 400, "unknown_parameter")


def test_no_picture_before_the_start(client) -> None:
    ann = TestPlayer("ann").register(client)
    gid = client.post("/v1/games", json={"ruleset": "stratego", "players": 2},
                      headers=ann.auth).get_json()["id"]
    _problem(_board(client, gid, ann), 409, "game_not_started")


def test_a_finished_games_earlier_positions_are_its_replay(app, client, run_jobs) -> None:
    gid, players = new_game(client, options=DUEL)
    red, blue = players[0], players[1]
    for seat, setup in ((0, RED_SETUP), (1, BLUE_SETUP)):
        assert post_move(client, gid, players[seat], seat,
                         {"type": "setup", "placement": setup}).status_code == 202
    run_jobs()
    for seat in (0, 1, 0, 1):
        move = _first_move(client, gid, players[seat])
        assert post_move(client, gid, players[seat], seat, move).status_code == 202
        run_jobs()
    assert post_move(client, gid, blue, 1, {"type": "resign"}).status_code == 202
    run_jobs()
    summary = client.get(f"/v1/games/{gid}").get_json()
    assert summary["status"] == "finished"
    last, names = summary["step"], _names(players)

    opened = _replayed(client.get(f"/v1/games/{gid}/audit").get_json())
    assert sorted(opened) == list(range(last + 1))
    for step, state in opened.items():
        for seat, who in ((0, red), (1, blue), (None, None)):
            resp = _board(client, gid, who, f"?step={step}")
            assert _picture(resp) == _expected(state, "stratego", seat, names), (step, seat)
            assert f".at{step}." in resp.headers["ETag"]
    # a replay at the start (nothing placed yet) differs from the end, which it reaches
    assert _picture(_board(client, gid, red, "?step=0")) != \
        _picture(_board(client, gid, red, f"?step={last}"))
    for who in (red, None):
        assert _picture(_board(client, gid, who, f"?step={last}")) == \
            _picture(_board(client, gid, who))

    public = _board(client, gid, None, "?step=2")
    assert public.headers["Cache-Control"] == "public, max-age=3600"
    assert _board(client, gid, None).headers["Cache-Control"] == "public, max-age=3600"
    assert _board(client, gid, red, "?step=2").headers["Cache-Control"] == "private, no-cache"
    again = _board(client, gid, None, "?step=2", etag=public.headers["ETag"])
    assert again.status_code == 304 and again.get_data() == b""
    _problem(_board(client, gid, red, f"?step={last + 1}"), 404, "step_not_found")


def test_replays_of_drawn_seats_and_refused_moves_survive_the_archive(app, client,
                                                                       run_jobs) -> None:
    """A Duel whose seats were drawn and with a move refused: its positions are the
    verifier's replay, and every picture keeps its bytes and tag once the game is archived."""
    game = finished_duel(client, run_jobs)
    gid, players, store = game.gid, game.players, app.extensions["parley_store"]
    audit = client.get(f"/v1/games/{gid}/audit").get_json()
    assert any(e["status"] == "rejected" for e in audit["entries"])
    opened = _replayed(audit)
    viewers = ((0, players[0]), (1, players[1]), (None, None))

    def every_picture() -> dict[tuple[int | None, int | None], tuple[str, str]]:
        out = {}
        for step in (None, *opened):
            for seat, who in viewers:
                resp = _board(client, gid, who, "" if step is None else f"?step={step}")
                picture = _picture(resp)
                out[(step, seat)] = (resp.headers["ETag"], picture)
        return out

    before = every_picture()
    for step, state in opened.items():
        for seat, _ in viewers:
            assert before[(step, seat)][1] == _expected(state, "stratego", seat,
                                                        _names(players))
    assert archive_game(store, gid) == "ok"
    assert store.meta(gid) == {"status": "finished", "archived": "1"}
    assert every_picture() == before


def test_a_ruleset_without_its_own_drawing_shows_its_text_board(app, client, run_jobs) -> None:
    """Cartagena draws no picture of its own: each seat gets its text board (its own hand in
    it) drawn as an SVG, and a finished game's replays too."""
    gid, players = new_game(client, "cartagena", {}, 2)
    names = _names(players)
    state = _stored_state(app, gid)
    pictures = {seat: _picture(_board(client, gid, who))
                for seat, who in ((0, players[0]), (1, players[1]), (None, None))}
    for seat, picture in pictures.items():
        assert picture == _expected(state, "cartagena", seat, names)
    assert len(set(pictures.values())) == 3

    play_out(client, run_jobs, gid, players, seed=2)
    summary = client.get(f"/v1/games/{gid}").get_json()
    opened = _replayed(client.get(f"/v1/games/{gid}/audit").get_json())
    assert max(opened) == summary["step"]
    chosen = sorted({0, 1, *random.Random(gid).sample(sorted(opened), 3), summary["step"]})
    for step in chosen:
        for seat, who in ((0, players[0]), (None, None)):
            picture = _picture(_board(client, gid, who, f"?step={step}"))
            assert picture == _expected(opened[step], "cartagena", seat, names), (step, seat)
    assert _picture(_board(client, gid, players[1])) == \
        _expected(_stored_state(app, gid), "cartagena", 1, names)
