"""Moves made by clicking on the board picture (docs/client.md, "Clicking on the board"):
Elfenland roads (a counter placed, a journey), Cartagena (a card then a pirate, a pirate moved
back), a Stratego setup arranged piece by piece. The other player, and the moves around the
clicks, go through the API with the players' own keys; every outcome is read back from the API,
and no page logs a console error (a CSP violation is one)."""

from __future__ import annotations

import time
from pathlib import Path

import requests
from cryptography.hazmat.primitives import serialization
from parley_protocol import signing

from engines.elfenland.board import board
from engines.elfenland.map_svg import MAP_Y, shapes
from tests.browser.helpers import (
    click_picture,
    click_square,
    create_game,
    game_state,
    register,
    wait_step_above,
)
from tests.waiting import wait_until


class Api:
    """One player on the API, with the key and config the browser let them save."""

    def __init__(self, url: str, files: dict) -> None:
        self.url = url
        self.config = files["config"]
        self.key = serialization.load_pem_private_key(Path(files["pem"]).read_bytes(), None)
        self.http = requests.Session()
        self.http.headers["Authorization"] = f"Bearer {self.config['token']}"

    def view(self, gid: str) -> dict:
        resp = self.http.get(f"{self.url}/v1/games/{gid}/view", timeout=10)
        resp.raise_for_status()
        return resp.json()

    def move(self, gid: str, move: dict) -> None:
        """Sign and send `move` for the current step; wait until it is applied."""
        view = self.view(gid)
        payload = {"game": gid, "seat": view["seat"], "step": view["step"], "move": move,
                   "nonce": "", "issued_at": signing.issued_now()}
        payload["nonce"] = signing.derive_nonce(self.key, payload)  # docs/audit.md §6
        env = {"payload": payload, "key_id": self.config["key_id"],
               "signature": signing.sign_payload(self.key, payload)}
        resp = self.http.post(f"{self.url}/v1/games/{gid}/moves", json=env, timeout=10)
        assert resp.status_code in (200, 201, 202), resp.text
        where = self.url + resp.headers["Location"]
        wait_until(lambda: self.http.get(where, timeout=10).json()["status"] != "queued", 15,
                   "the move applied")
        assert self.http.get(where, timeout=10).json()["status"] == "applied", move


def _active(p) -> None:
    p.page.wait_for_function("() => document.querySelector('#game-status')?.dataset.status"
                             " === 'active'")


def _page_at(p, step: int) -> None:
    """Until the page shows the game at `step` (the live stream brings moves made elsewhere)."""
    p.page.wait_for_function(
        f"() => Number(document.querySelector('#game-status')?.dataset.step) === {step}")


def _listed(p, view: dict) -> list[dict]:
    """The legal moves the page's list shows now."""
    indexes = p.page.locator("button.move").evaluate_all("bs => bs.map(b => +b.dataset.index)")
    return [view["legal_moves"][i] for i in indexes]


def _click_pick(p, key: str) -> None:
    """Click the middle of what the picture marks as `key` (a card, a place on the route)."""
    shape = p.page.locator(f".picks .hits [data-pick='{key}']").first
    shape.scroll_into_view_if_needed()
    box = shape.bounding_box()
    p.page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


def _players(player, tmp_path, ruleset: str, **options: str):
    ann, bob = player(), player()
    (tmp_path / "ann").mkdir()
    (tmp_path / "bob").mkdir()
    ann_files = register(ann, "ann", tmp_path / "ann")
    link = create_game(ann, ruleset, **options)
    bob_files = register(bob, "bob", tmp_path / "bob", url=link)
    for p in (ann, bob):
        _active(p)
    return ann, bob, ann_files, bob_files, link.rsplit("/", 1)[1]


# ---- Elfenland ------------------------------------------------------------------------------


def _click_road(p, road: int) -> None:
    """Click the middle of a road on the map (where its counter lies: the click goes through
    the counter to the road)."""
    x, y = shapes("elfenland-map-1")[road].at(0.5)
    click_picture(p, x, y + MAP_Y)


def _until(apis: dict, gid: str, done, choose) -> dict:
    """Play `choose(legal moves)` for whoever is to act, through the API, until `done(view)`
    holds for the view of the seat that is to act; returns that view."""
    for _ in range(200):
        for api in apis.values():
            view = api.view(gid)
            if view["seat"] in view["to_act"]:
                break
        if done(view):
            return view
        api.move(gid, choose(view["legal_moves"]))
    raise AssertionError("never reached")


def _road_of(view: dict, road: int) -> dict:
    return next((r for r in view["state"]["roads"] if r["road"] == road), {})


def test_elfenland_a_counter_and_a_journey_by_clicking_roads(player, tmp_path, live_server
                                                            ) -> None:
    ann, bob, ann_files, bob_files, gid = _players(player, tmp_path, "elfenland")
    apis = {"ann": Api(live_server.url, ann_files), "bob": Api(live_server.url, bob_files)}
    me = apis["ann"].view(gid)["seat"]
    first = {"take_counter": 0, "draw_counter": 1}

    def draft(moves):
        return min(moves, key=lambda m: first.get(m["type"], 2))

    view = _until(apis, gid, lambda v: v["seat"] == me and v["state"]["phase"] == "plan", draft)
    # ann places a counter on a road out of Elvenhold by clicking it
    places = [m for m in view["legal_moves"] if m["type"] == "place_counter"]
    road = next(r for r in (2, 1, 0) if any(m["road"] == r for m in places))
    _page_at(ann, view["step"])
    _click_road(ann, road)
    on_road = [m for m in places if m["road"] == road]
    if len(on_road) > 1:  # several counters fit: the list offers those moves only
        ann.page.wait_for_function("() => document.querySelector('#hint').textContent"
                                   ".includes('moves use')")
        listed = _listed(ann, view)
        assert listed and all(m.get("road") == road for m in listed), listed
        ann.page.locator("button.move").first.click()
    wait_until(lambda: _road_of(apis["ann"].view(gid), road).get("counter"), 15,
               "the counter on the road")
    counter = _road_of(apis["ann"].view(gid), road)["counter"]
    assert any(m["counter"] == counter for m in on_road)

    # everybody passes; bob ends his move if he travels first (and discards what he must)
    def passing(moves):
        return next((m for m in moves if m["type"] in ("pass", "end_move")), moves[0])

    view = _until(apis, gid, lambda v: v["seat"] == me and v["state"]["phase"] == "move",
                  passing)
    journeys = [m for m in view["legal_moves"] if m["type"] == "travel"
                and m["steps"][0]["road"] == road]
    assert journeys, view["legal_moves"]
    _page_at(ann, view["step"])
    _click_road(ann, road)
    if len(journeys) > 1:  # cards or a caravan: choose among them in the list
        ann.page.wait_for_function("() => document.querySelector('#hint').textContent"
                                   ".includes('moves use')")
        listed = _listed(ann, view)
        assert sorted(map(str, listed)) == sorted(map(str, journeys)), listed
        paid = next((i for i, m in enumerate(listed) if "cards" in m["steps"][0]), 0)
        ann.page.locator("button.move").nth(paid).click()
    for _ in range(5):  # a caravan: its cards picked one at a time, from the list
        wait_until(lambda v=view: apis["ann"].view(gid)["step"] > v["step"], 15, "the move in")
        now = apis["ann"].view(gid)
        if now["state"]["decision"].get("kind") != "pick":
            break
        _page_at(ann, now["step"])
        ann.page.locator("button.move").first.click()
        view = now
    the_road = board("elfenland-map-1").roads[road]
    boot = next(p for p in apis["ann"].view(gid)["state"]["players"] if p["seat"] == me)["boot"]
    assert boot == ({the_road.a, the_road.b} - {"elvenhold"}).pop()
    assert not ann.errors and not bob.errors, ann.errors + bob.errors


# ---- Cartagena ------------------------------------------------------------------------------


def test_cartagena_a_card_then_a_pirate_and_a_pirate_back(player, tmp_path, live_server
                                                           ) -> None:
    ann, bob, ann_files, bob_files, gid = _players(player, tmp_path, "cartagena")
    apis = [Api(live_server.url, f) for f in (ann_files, bob_files)]
    api, page = next((a, p) for a, p in zip(apis, (ann, bob), strict=True)
                     if a.view(gid)["seat"] == 0)  # seat 0 starts
    for action in range(2):  # two pirates out of the prison: a card, then the pirate
        view = api.view(gid)
        play = next(m for m in view["legal_moves"]
                    if m["type"] == "play" and m["from"] == "prison")
        _page_at(page, view["step"])
        _click_pick(page, f"card:{play['card']}")
        page.page.wait_for_function("() => document.querySelector('#hint').textContent"
                                    ".includes('selected: click a pirate')")
        listed = _listed(page, view)
        assert listed and all(m.get("card") == play["card"] for m in listed), listed
        assert page.page.locator(".picks .marks .mark").count() >= 1  # the card is outlined
        _click_pick(page, f"loc:{play['from']}")
        wait_until(lambda v=view: api.view(gid)["step"] > v["step"], 15, "the play in")
        state = api.view(gid)["state"]
        assert state["pirates"]["0"]["prison"] == 6 - action - 1
        assert play["card"] not in state["hand"]
    view = api.view(gid)
    back = next(m for m in view["legal_moves"] if m["type"] == "back")
    before = view["state"]
    _page_at(page, view["step"])
    _click_pick(page, f"loc:{back['from']}")  # no card chosen: the pirate moves back
    wait_until(lambda: api.view(gid)["step"] > view["step"], 15, "the move back in")
    after = api.view(gid)["state"]
    frm = str(back["from"])
    assert after["pirates"]["0"].get(frm, 0) == before["pirates"]["0"][frm] - 1
    assert after["hand_sizes"]["0"] > before["hand_sizes"]["0"]  # moving back draws cards
    assert not ann.errors and not bob.errors, ann.errors + bob.errors


# ---- Stratego: a setup piece by piece -------------------------------------------------------


def test_stratego_a_setup_arranged_piece_by_piece(player, tmp_path, live_server) -> None:
    ann, bob, ann_files, _, gid = _players(player, tmp_path, "stratego", army="duel")
    bob.page.locator("button.move").first.click()  # bob takes a suggested setup
    seat = int(game_state(ann)["seat"])
    back, front = (1, 2) if seat == 0 else (10, 9)
    page = ann.page
    page.locator("#arrange").wait_for()

    def choose(piece: str) -> None:
        page.locator(f"#arrange button.piece[data-piece='{piece}']").click()

    choose("flag")
    click_square(ann, f"a{back}", seat)
    choose("bomb")  # two bombs: the piece stays chosen for the second
    click_square(ann, f"b{back}", seat)
    click_square(ann, f"c{back}", seat)
    choose("marshal")
    click_square(ann, f"d{front}", seat)
    click_square(ann, f"d{front}", seat)  # taken up again...
    click_square(ann, f"e{front}", seat)  # ...and put on another square
    click_square(ann, "e5", seat)  # not a home square: refused
    assert "not one of your home squares" in page.locator("#arrange-note").inner_text()
    assert page.locator(".picks .marks .piece").count() == 4  # drawn over the picture
    # the spy by keyboard: its palette button, then the grid's arrow keys
    page.locator("#arrange button.piece[data-piece='spy']").focus()
    page.keyboard.press("Enter")
    page.locator("#arrange button.home[tabindex='0']").focus()
    for _ in range(9):
        page.keyboard.press("ArrowRight")
    page.keyboard.press("Enter")
    spy = "j4" if seat == 0 else "a7"
    assert page.locator(f"#arrange button.home[data-square='{spy}']").inner_text() == "S"
    assert page.locator("#arrange-submit").is_disabled()
    page.locator("#arrange-random").click()
    assert page.locator(".picks .marks .piece").count() == 10
    page.locator("#arrange-submit").click()
    wait_step_above(ann, 0)
    placed = Api(live_server.url, ann_files).view(gid)["state"]["setups"][str(seat)]
    assert {sq: placed[sq] for sq in (f"a{back}", f"b{back}", f"c{back}", f"e{front}", spy)} == {
        f"a{back}": "flag", f"b{back}": "bomb", f"c{back}": "bomb", f"e{front}": "marshal",
        spy: "spy"}
    assert len(placed) == 10 and placed.get(f"d{front}") != "marshal"  # moved from there
    ranks = range(1, 5) if seat == 0 else range(7, 11)
    assert all(int(sq[1:]) in ranks for sq in placed)
    page.wait_for_function("() => !document.querySelector('#arrange')")  # gone once sent
    time.sleep(0.2)
    assert not ann.errors and not bob.errors, ann.errors + bob.errors
