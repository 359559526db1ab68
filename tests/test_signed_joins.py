"""Signed joins (docs/audit.md §18): a player takes a seat with a statement signed by their own
key naming the game, themselves and the client seed they chose; the server keeps it with the
seat and puts it into the audit bundle (`joins`), and the verifier requires one behind every
client seed but a mail-only player's. Each refusal changes nothing; a server that changes a
seed, or seats a player without a signed join, is caught; `parley verify GAME --me` finds
the player's own join and moves in the bundle."""

# ruff: noqa: F811  # the fixtures of tests/notify, imported below, are the tests' arguments

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from parley_protocol import signing
from parley_protocol.verify import verify_bundle

from service.client.journal import check_mine
from tests.e2e.conftest import Server, running_server
from tests.e2e.test_cli import new_duel
from tests.notify.conftest import (  # noqa: F401  # the fixtures
    napp,
    nclient,
    notify_env,
    register,
    smtp,
    work,
)
from tests.notify.test_invitations import _invitation, _invite, _token
from tests.players import TestPlayer

DUEL = {"army": "duel", "seat_order": "joined"}
SIGNED = ("statement", "key_id", "signature")


def _open(client: Any, host: TestPlayer) -> str:
    resp = client.post("/v1/games", json={"ruleset": "stratego", "players": 2,
                                          "options": DUEL}, headers=host.auth)
    assert resp.status_code == 201, resp.get_json()
    return resp.get_json()["id"]


def _join(client: Any, gid: str, who: TestPlayer, body: dict[str, Any]) -> Any:
    return client.post(f"/v1/games/{gid}/join", json=body, headers=who.auth)


def _finished(client: Any, run_jobs: Any) -> tuple[str, TestPlayer, TestPlayer, dict]:
    """A Duel Ann and Bob joined with seeds of their own, ended by Ann's resignation."""
    ann, bob = (TestPlayer(n).register(client) for n in ("ann", "bob"))
    gid = _open(client, ann)
    for who, seed in ((ann, "ann's own"), (bob, "zoë 🎲")):
        assert _join(client, gid, who, who.join_body(gid, seed)).status_code == 200
    resign = client.post(f"/v1/games/{gid}/moves",
                         json=ann.envelope(gid, 0, 0, {"type": "resign"}))
    assert resign.status_code == 202, resign.get_json()
    run_jobs()
    audit = client.get(f"/v1/games/{gid}/audit").get_json()
    assert audit["status"] == "finished"
    return gid, ann, bob, audit


def _signed_again(bundle: dict[str, Any], app: Any) -> dict[str, Any]:
    """The bundle signed again with the server's key: what a dishonest server could publish."""
    unsigned = {k: v for k, v in bundle.items() if k != "signature"}
    key = app.extensions["parley_server_key"]
    return {**unsigned, "signature": signing.b64url_encode(
        key.sign(signing.BUNDLE_PREFIX + signing.canonical(unsigned)))}


# ---- the server ------------------------------------------------------------------------------


def test_a_signed_join_seats_the_player_with_the_seed_it_signed(client, app) -> None:
    ann = TestPlayer("ann").register(client)
    gid = _open(client, ann)
    body = ann.join_body(gid, "zoë 🎲\u0000", seat=1)
    resp = _join(client, gid, ann, body)
    assert resp.status_code == 200, resp.get_json()
    assert resp.get_json()["seat"] == 1
    meta = app.extensions["parley_store"].meta(gid)
    assert (meta["join:1"], meta["client_seed:1"]) == (ann.id, "zoë 🎲\u0000")
    assert json.loads(meta["join_statement:1"]) == {k: body[k] for k in SIGNED}
    audit = client.get(f"/v1/games/{gid}/audit").get_json()
    assert audit["client_seeds"] == [None, "zoë 🎲\u0000"]
    assert audit["joins"] == [None, {"seat": 1, **{k: body[k] for k in SIGNED}}]
    report = verify_bundle(audit, partial=True)
    assert report.ok, report.failure
    assert "joins: 1 client seed signed by the player who chose it" in report.render()


def _refusals(gid: str, ann: TestPlayer, bob: TestPlayer) -> list[tuple[str, Any, str]]:
    """(what, body Ann posts, the code it is refused with)."""
    mine = ann.join_body(gid, "seed")
    statement = mine["statement"]
    by_bob = signing.sign_join(bob.key, statement)
    return [
        ("no statement", {}, "join_unsigned"),
        ("a bare client seed", {"client_seed": "seed"}, "join_unsigned"),
        ("no signature", {"statement": statement, "key_id": ann.key_id}, "join_unsigned"),
        ("another game", ann.join_body("g_000000000000"), "bad_join"),
        ("another player's statement", bob.join_body(gid), "bad_join"),
        ("an extra member", {**mine, "statement": {**statement, "seat": "0"}}, "bad_join"),
        ("a seed that is no string", {**mine, "statement": {**statement, "client_seed": 7}},
         "bad_join"),
        ("an empty seed", ann.join_body(gid, ""), "bad_join"),
        ("a seed of 129 characters", ann.join_body(gid, "x" * 129), "bad_join"),
        ("a week old", ann.join_body(gid, issued_at="2020-01-01T00:00:00Z"), "bad_join"),
        ("no moment", ann.join_body(gid, issued_at="yesterday"), "bad_join"),
        ("another player's key", {**mine, "key_id": bob.key_id, "signature": by_bob},
         "bad_signature"),
        ("a signature by another key", {**mine, "signature": by_bob}, "bad_signature"),
        ("a signature of another statement",
         {**mine, "signature": ann.join_body(gid, "other")["signature"]}, "bad_signature"),
        ("an unknown key", {**mine, "key_id": "k_nosuchkey"}, "bad_signature"),
    ]


def test_each_refusal_is_422_with_its_code_and_seats_nobody(client, app) -> None:
    ann, bob = (TestPlayer(n).register(client) for n in ("ann", "bob"))
    gid = _open(client, ann)
    store = app.extensions["parley_store"]
    before = store.meta(gid)
    for what, body, code in _refusals(gid, ann, bob):
        resp = _join(client, gid, ann, body)
        assert (resp.status_code, resp.get_json()["code"]) == (422, code), (what, resp.get_json())
        assert store.meta(gid) == before, what
    summary = client.get(f"/v1/games/{gid}").get_json()
    assert [p["player"] for p in summary["players"]] == [None, None]
    assert _join(client, gid, ann, ann.join_body(gid)).status_code == 200  # and then it works


def test_an_unknown_game_is_404_whatever_the_statement(client) -> None:
    ann = TestPlayer("ann").register(client)
    resp = _join(client, "g_000000000000", ann, {})
    assert (resp.status_code, resp.get_json()["code"]) == (404, "game_not_found")


# ---- the bundle and the verifier ---------------------------------------------------------


def test_the_bundle_carries_every_join_and_verifies(client, run_jobs) -> None:
    gid, ann, bob, audit = _finished(client, run_jobs)
    assert audit["joined"] == [ann.id, bob.id]
    assert [j["statement"] for j in audit["joins"]] == [
        signing.join_statement(gid, p.id, seed, j["statement"]["issued_at"])
        for p, seed, j in zip((ann, bob), ("ann's own", "zoë 🎲"), audit["joins"], strict=True)]
    assert [j["key_id"] for j in audit["joins"]] == [ann.key_id, bob.key_id]
    report = verify_bundle(audit)
    assert report.ok, report.failure
    assert report.joins_signed is True
    assert "  ok    joins: 2 client seeds signed by the players who chose them" in \
        report.render()


def test_a_seed_the_server_changed_fails_naming_the_seat(client, app, run_jobs) -> None:
    _, _, _, audit = _finished(client, run_jobs)
    changed = copy.deepcopy(audit)
    changed["client_seeds"][1] = "the server's choice"
    report = verify_bundle(_signed_again(changed, app))
    assert report.failure == ("joins[1]: the client seed of seat 1 is \"the server's choice\", "
                              "but its player signed \"zoë 🎲\"")
    # the statement changed to match: the player's signature no longer verifies
    changed["joins"][1]["statement"]["client_seed"] = "the server's choice"
    report = verify_bundle(_signed_again(changed, app))
    assert report.failure.startswith("joins[1]: the join of seat 1 does not verify with key ")


def test_a_join_not_signed_fails(client, app, run_jobs) -> None:
    _, ann, bob, audit = _finished(client, run_jobs)
    unsigned = copy.deepcopy(audit)
    unsigned["joins"][0] = None  # as if the server had made Ann's seed up
    report = verify_bundle(_signed_again(unsigned, app))
    assert report.failure == (f"joins[0]: the client seed of seat 0 (player {ann.id}) has no "
                              f"signed join: nothing shows that its player chose it")
    swapped = copy.deepcopy(audit)  # Bob's join put on Ann's seat
    swapped["joins"][0] = {**swapped["joins"][1], "seat": 0}
    report = verify_bundle(_signed_again(swapped, app))
    assert report.failure == (f"joins[0]: the join of seat 0 is signed for player "
                              f"\"{bob.id}\", but {ann.id} took the seat")
    other_key = copy.deepcopy(audit)  # Ann's join named with Bob's key
    other_key["joins"][0]["key_id"] = bob.key_id
    report = verify_bundle(_signed_again(other_key, app))
    assert report.failure == (f"joins[0]: key {bob.key_id} is not a key of player {ann.id}, "
                              f"who took seat 0")
    extra = copy.deepcopy(audit)
    extra["joins"][0]["note"] = "x"
    assert "joins[0]: a join must have exactly" in verify_bundle(_signed_again(extra, app)).failure


def test_a_bundle_made_before_signed_joins_is_reported_so(client, app, run_jobs) -> None:
    _, _, _, audit = _finished(client, run_jobs)
    del audit["joins"]
    report = verify_bundle(_signed_again(audit, app))
    assert report.ok, report.failure
    assert report.joins_signed is False
    assert "  ok    joins: not signed (bundle made before signed joins)" in report.render()


def test_a_mail_only_seat_verifies_without_a_join(nclient, napp, work, smtp) -> None:
    ann = register(nclient, "Ann", "ann@example.org")
    gid = _open(nclient, ann)
    assert _join(nclient, gid, ann, ann.join_body(gid)).status_code == 200
    assert _invite(nclient, ann, gid, "cid@example.org").status_code == 202
    work()
    taken = nclient.post(f"/v1/invitations/{_token(_invitation(smtp, 'cid@example.org'))}",
                         headers={"Accept": "application/json"})
    assert taken.get_json()["mail_only"] is True, taken.get_json()
    resign = nclient.post(f"/v1/games/{gid}/moves",
                          json=ann.envelope(gid, 0, 0, {"type": "resign"}))
    assert resign.status_code == 202
    work()
    audit = nclient.get(f"/v1/games/{gid}/audit").get_json()
    assert audit["status"] == "finished" and audit["players"][1]["mail_only"] is True
    assert audit["joins"][0]["statement"]["player"] == ann.id and audit["joins"][1] is None
    assert isinstance(audit["client_seeds"][1], str)  # the one seed the server makes
    report = verify_bundle(audit)
    assert report.ok, report.failure
    assert "joins: 1 client seed signed by the player who chose it; seat 1 mail-only, its " \
           "seed made by the server" in report.render()


# ---- the player's own check ---------------------------------------------------------------


def test_the_players_own_check_finds_its_join_and_moves(client, run_jobs) -> None:
    gid, ann, _, audit = _finished(client, run_jobs)
    resign = audit["entries"][0]["envelope"]
    kept = {"join": {k: audit["joins"][0][k] for k in SIGNED},
            "envelopes": [signing.envelope_digest(resign)]}
    assert all(passed for passed, _ in check_mine(audit, ann.id, kept))
    dropped = {**audit, "entries": []}
    (join, moves) = check_mine(dropped, ann.id, kept)
    assert join[0] and not moves[0]
    assert moves[1].startswith("moves: 1 of the 1 envelopes this client posted is not in the")
    changed = copy.deepcopy(audit)
    changed["client_seeds"][0] = "other"
    (join, _) = check_mine(changed, ann.id, kept)
    assert not join[0] and "this client sent \"ann's own\"" in join[1].replace("'ann", "\"ann")


@pytest.fixture
def site(redis_url: str, tmp_path: Path) -> Iterator[Server]:
    """`parley web` and a worker (tests/e2e's), on a flushed Redis."""
    redis.Redis.from_url(redis_url).flushall()
    with running_server(redis_url, tmp_path / "server") as srv:
        yield srv


@pytest.mark.slow
def test_parley_verify_me_on_an_honest_game_and_a_missing_move(site: Server,
                                                               tmp_path: Path) -> None:
    game, ann, bob = new_duel(site, tmp_path)
    joined = ann.out("join", game)
    seed = re.search(r"client seed (\S+)\)", joined).group(1)
    bob.out("join", game)
    journal = ann.config.parent / "journal" / f"{game}.json"
    kept = json.loads(journal.read_text())
    assert kept["join"]["statement"]["client_seed"] == seed and kept["envelopes"] == []
    running = ann.run("verify", game, "--me")
    assert running.returncode == 0, running.stdout + running.stderr
    assert "PARTLY VERIFIED" in running.stdout
    ann.out("move", game, "resign")
    kept = json.loads(journal.read_text())
    assert len(kept["envelopes"]) == 1

    honest = ann.run("verify", game, "--me")
    assert honest.returncode == 0, honest.stdout + honest.stderr
    assert "  ok    joins: 2 client seeds signed by the players who chose them" in honest.stdout
    assert f"  ok    join: seat 0 holds your signed join with the client seed this client " \
           f"sent ('{seed}')" in honest.stdout
    assert "  ok    moves: all 1 envelopes this client posted are in the log" in honest.stdout
    assert honest.stdout.rstrip().endswith("YOUR JOIN AND MOVES ARE IN THE BUNDLE")

    # a move the server accepted from this client, missing from the log it publishes
    kept["envelopes"].append("ab" * 32)
    journal.write_text(json.dumps(kept))
    missing = ann.run("verify", game, "--me", ok=False)
    assert missing.returncode == 1, missing.stdout + missing.stderr
    assert "  FAIL  moves: 1 of the 2 envelopes this client posted is not in the log (digest " \
           "abababababababab...)" in missing.stdout
    assert missing.stdout.rstrip().endswith("NOT VERIFIED")
