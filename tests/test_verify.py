"""The offline verifier: real finished games verify; every tampering is caught and named.

Games are played through the Flask test client with real Redis and burst workers, so the
bundles are exactly what the server publishes. A bundle is plain data that needs no server to
check, so each game is played once per session and its bundle reused by every test.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from parley_protocol import signing
from parley_protocol.verify import verify_bundle

from tests.api.helpers import new_game, play_solo_totohu, post_move, post_together, view
from tests.players import TestPlayer

DUEL = {"army": "duel"}
SETUP_0 = {"a1": "flag", "b1": "bomb", "a2": "bomb", "b2": "spy", "c1": "scout",
           "a3": "scout", "c2": "miner", "b3": "miner", "d1": "general", "a4": "marshal"}
SETUP_1 = {sq[0] + str(11 - int(sq[1:])): piece for sq, piece in SETUP_0.items()}

_played: dict[str, dict[str, Any]] = {}


def _cached(name: str, play: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """Play a game the first time a test asks for it; hand every test its own copy."""
    if name not in _played:
        _played[name] = play()
    return copy.deepcopy(_played[name])


def _get(client: Any, path: str) -> dict[str, Any]:
    resp = client.get(path)
    assert resp.status_code == 200, resp.get_json()
    return resp.get_json()


def _post(client: Any, gid: str, player: TestPlayer, seat: int, move: dict,
          step: int | None = None) -> dict[str, Any]:
    resp = post_move(client, gid, player, seat, move, step=step)
    assert resp.status_code == 202, resp.get_json()
    return resp.get_json()


def _both_setups(client: Any, run_jobs: Any, gid: str, players: dict) -> None:
    """The two secret setups, with a second setup of Red's (flag and bomb swapped: the very
    same setup again would be the same move, taken once): it is rejected when it is resolved
    (`setup_already_submitted`), an engine rejection recorded in the log."""
    _post(client, gid, players[0], 0, {"type": "setup", "placement": SETUP_0})
    other = {**SETUP_0, "a1": "bomb", "b1": "flag"}
    _post(client, gid, players[0], 0, {"type": "setup", "placement": other}, step=0)
    run_jobs()
    _post(client, gid, players[1], 1, {"type": "setup", "placement": SETUP_1})
    run_jobs()


def _play_random(client: Any, run_jobs: Any, gid: str, players: dict, seed: int) -> None:
    chooser = random.Random(seed)
    for _ in range(3000):
        summary = _get(client, f"/v1/games/{gid}")
        if summary["status"] == "finished":
            return
        seat = summary["to_act"][0]
        v = view(client, gid, players[seat])
        _post(client, gid, players[seat], seat, chooser.choice(v["legal_moves"]), v["step"])
        run_jobs()
    raise AssertionError("the game did not finish")


def _long_game(client: Any, run_jobs: Any) -> dict[str, Any]:
    """Duel with random seats: a rejected setup, a stale move, then random play to the end."""
    gid, players = new_game(client, options=DUEL)
    _both_setups(client, run_jobs, gid, players)
    step = view(client, gid, players[0])["step"]
    post_together(client, [players[0].envelope(gid, 0, step, {"type": "move", "from": "a4",
                                                              "to": to}) for to in ("a5", "b4")])
    run_jobs()
    _play_random(client, run_jobs, gid, players, seed=81)
    return {"audit": _get(client, f"/v1/games/{gid}/audit"),
            "record": _get(client, f"/v1/games/{gid}/record")}


def _short_game(client: Any, run_jobs: Any) -> dict[str, Any]:
    """A few moves, then a resign queued before a move: that move is rejected `game_over`."""
    gid, players = new_game(client, options=DUEL)
    _both_setups(client, run_jobs, gid, players)
    step = view(client, gid, players[0])["step"]
    receipt = _post(client, gid, players[0], 0, {"type": "move", "from": "a4", "to": "a5"},
                    step)["receipt"]
    run_jobs()
    step = view(client, gid, players[1])["step"]
    _post(client, gid, players[0], 0, {"type": "resign"}, step)
    _post(client, gid, players[1], 1, {"type": "move", "from": "a7", "to": "a6"}, step)
    run_jobs()
    # what a server that later rewrote entry `seq` would have handed out for it
    body = {**{k: receipt[k] for k in ("game", "seq", "accepted_at")}, "entry_hash": "0" * 64}
    server_key = client.application.extensions["parley_server_key"]
    rewritten = {**body, "signature": signing.sign_receipt(server_key, body)}
    return {"audit": _get(client, f"/v1/games/{gid}/audit"),
            "record": _get(client, f"/v1/games/{gid}/record"), "receipt": receipt,
            "rewritten_receipt": rewritten}


def _solo_totohu(client: Any, run_jobs: Any) -> dict[str, Any]:
    """Totohu for one seat: the dummy's ship is a die roll keyed by each move's nonce."""
    gid, _ = play_solo_totohu(client, run_jobs)
    return {"audit": _get(client, f"/v1/games/{gid}/audit")}


@pytest.fixture
def long_game(client: Any, run_jobs: Any) -> dict[str, Any]:
    return _cached("long", lambda: _long_game(client, run_jobs))


@pytest.fixture
def short_game(client: Any, run_jobs: Any) -> dict[str, Any]:
    return _cached("short", lambda: _short_game(client, run_jobs))


@pytest.fixture
def solo_game(client: Any, run_jobs: Any) -> dict[str, Any]:
    return _cached("solo", lambda: _solo_totohu(client, run_jobs))


def _failure(bundle: dict[str, Any], **kw: Any) -> str:
    report = verify_bundle(bundle, **kw)
    assert not report.ok, "a tampered bundle verified"
    assert report.failure is not None
    return report.failure


# ---- honest bundles ----------------------------------------------------------------------------


def test_finished_games_verify(long_game, short_game, solo_game) -> None:
    for game in (long_game, short_game, solo_game):
        report = verify_bundle(game["audit"])
        assert report.ok, report.failure
        assert report.complete and report.render().endswith("VERIFIED")
    audit = long_game["audit"]
    codes = [e.get("code") for e in audit["entries"]]
    assert "setup_already_submitted" in codes and "stale_step" in codes
    assert audit["draws"][0]["purpose"] == "seat-order"
    assert [e.get("code") for e in short_game["audit"]["entries"]][-1] == "game_over"
    assert any(d["seq"] > 0 for d in solo_game["audit"]["draws"])


def test_records_verify_with_their_events(long_game, short_game) -> None:
    for game in (long_game, short_game):
        record = game["record"]
        assert record["audit"] == game["audit"]
        report = verify_bundle(record)
        assert report.ok, report.failure
        assert any(line.startswith("events:") for line in report.passed)


def test_pinned_server_key_and_receipts(short_game) -> None:
    audit, receipt = short_game["audit"], short_game["receipt"]
    assert verify_bundle(audit, server_key=audit["server_key"], receipts=[receipt]).ok
    other = signing.public_key_b64(TestPlayer("x").key)
    assert "not the expected" in _failure(audit, server_key=other)
    assert "the log was rewritten" in _failure(
        audit, receipts=[short_game["rewritten_receipt"]])
    for forged in ({**receipt, "accepted_at": "2030-01-01T00:00:00Z"},
                   {**receipt, "seq": receipt["seq"] + 1}):
        assert "signature does not verify" in _failure(audit, receipts=[forged])


def test_running_game_is_only_partly_verifiable(client, run_jobs) -> None:
    gid, players = new_game(client, options=DUEL)
    _both_setups(client, run_jobs, gid, players)
    audit = _get(client, f"/v1/games/{gid}/audit")
    assert "not finished" in _failure(audit)
    report = verify_bundle(audit, partial=True)
    assert report.ok and not report.complete, report.failure
    audit["entries"][-1]["entry_hash"] = "0" * 64
    assert "the log was changed" in _failure(audit, partial=True)
    resp = client.get(f"/v1/games/{gid}/record")
    assert resp.status_code == 409 and resp.get_json()["code"] == "game_not_finished"
    assert client.get("/v1/games/g_nope/record").get_json()["code"] == "game_not_found"


# ---- named tamperings ----------------------------------------------------------------------


def _applied(audit: dict[str, Any], kind: str) -> dict[str, Any]:
    return next(e for e in audit["entries"] if e["status"] == "applied"
                and e["envelope"]["payload"]["move"]["type"] == kind)


def _drop(audit: dict[str, Any]) -> None:
    del audit["entries"][4]


def _swap(audit: dict[str, Any]) -> None:
    e = audit["entries"]
    e[4], e[5] = e[5], e[4]


def _renumber_after_drop(audit: dict[str, Any]) -> None:
    del audit["entries"][4]
    for i, entry in enumerate(audit["entries"]):
        entry["seq"] = i + 1


def _resign_instead(audit: dict[str, Any]) -> None:
    _applied(audit, "move")["envelope"]["payload"]["move"] = {"type": "resign"}


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    """A tampering that sets one value, addressed like `entries.3.status`."""

    def tamper(audit: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        node: Any = audit
        for part in parents:
            node = node[int(part)] if isinstance(node, list) else node[part]
        node[int(last) if isinstance(node, list) else last] = value

    return tamper


def _resign_winner(audit: dict[str, Any]) -> None:
    audit["result"]["winners"] = [1 - audit["result"]["winners"][0]]


def _other_move(audit: dict[str, Any]) -> None:
    move = _applied(audit, "move")["envelope"]["payload"]["move"]
    move["to"] = "j10" if move["to"] != "j10" else "a1"


def _other_signature(audit: dict[str, Any]) -> None:
    entries = [e for e in audit["entries"] if e["status"] == "applied"]
    entries[2]["envelope"]["signature"] = entries[3]["envelope"]["signature"]


def _stale_marked_applied(audit: dict[str, Any]) -> None:
    entry = next(e for e in audit["entries"] if e.get("code") == "stale_step")
    entry["status"] = "applied"
    del entry["code"]


def _engine_code(audit: dict[str, Any]) -> None:
    next(e for e in audit["entries"] if e.get("code") == "setup_already_submitted")[
        "code"] = "into_lake"


TAMPERINGS = [
    ("seat-order draw result", lambda a: a["draws"][0]["result"].reverse(),
     "draw 0 (seat-order, the start): result"),
    ("draw purpose", _set("draws.0.purpose", "boarding-dice"), "draw 0 (seat-order"),
    ("an envelope's move", _other_move, "the signature does not verify"),
    ("an envelope's signature", _other_signature, "the signature does not verify"),
    ("a move replaced by a resign", _resign_instead, "the signature does not verify"),
    ("the server seed", _set("server_seed", "00" * 32), "commitment: SHA-256"),
    ("the commitment", _set("commitment", "ab" * 32), "commitment: SHA-256"),
    # the seed its player signed tells first (docs/audit.md §18)
    ("a client seed", _set("client_seeds.0", "other"),
     "joins[0]: the client seed of seat 0 is \"other\", but its player signed"),
    ("a dropped move", _drop, "entries: entry #5 has seq 6"),
    ("a dropped move, renumbered", _renumber_after_drop, "entry 5: the entry hash"),
    ("two entries reordered", _swap, "entries: entry #5 has seq 6"),
    ("a digest", _set("entries.3.digest", "0" * 64), "entry 4: the digest"),
    ("an entry hash", _set("entries.3.entry_hash", "0" * 64), "entry 4: the entry hash"),
    ("a state hash", _set("state_hashes.3.hash", "0" * 64), "state hash of the state after"),
    ("the start state hash", _set("state_hashes.0.hash", "f" * 64),
     "state hash of the start"),
    ("a state hash's seq", _set("state_hashes.2.seq", 99), "state hashes[2]: names seq 99"),
    ("the result", _resign_winner, "result: the bundle says"),
    ("the result's reason", _set("result.reason", "resigned"), "result: the bundle says"),
    ("a stale entry marked applied", _stale_marked_applied, "the replay gives rejected"),
    ("an engine rejection's code", _engine_code, "rejected (setup_already_submitted)"),
    ("the game id", _set("game", "g_000000000000"), "signed for game"),
    ("the options", _set("options.army", "original"), "state hash of the start"),
    ("the seat order option", _set("platform.seat_order", "joined"),
     ("seats: the seat-order draw seats", "draw 0 (", "that the replay never makes")),
    ("a player's key", _set("players.0.keys", {}), "is not a key of player"),  # its join
    ("the seated players", lambda a: a["players"].reverse(), "players[0]: names seat 1"),
    ("an accepted_at", _set("entries.0.accepted_at", "2000-01-01T00:00:00Z"),
     "signature: the bundle signature does not verify"),
    ("the bundle signature", _set("signature", "A" * 86), "bundle signature does not verify"),
    ("the server key", _set("server_key", signing.public_key_b64(TestPlayer("x").key)),
     "bundle signature does not verify"),
    ("the status", _set("status", "active"), "not finished"),
    ("the format", _set("format", "parley-audit-v2"), "unknown format"),
    ("a removed field", lambda a: a.pop("draws"), "'draws' is missing"),
    ("an extra draw", lambda a: a["draws"].append(dict(a["draws"][0], index=1)),
     "the replay never makes"),
]


@pytest.mark.parametrize(("what", "tamper", "message"), TAMPERINGS,
                         ids=[t[0] for t in TAMPERINGS])
def test_each_tampering_is_named(long_game, what, tamper, message) -> None:
    audit = long_game["audit"]
    tamper(audit)
    failure = _failure(audit)
    expected = message if isinstance(message, tuple) else (message,)
    assert any(m in failure for m in expected), (what, failure)


def test_a_move_draw_is_rederived(solo_game) -> None:
    audit = solo_game["audit"]
    i, draw = next((i, d) for i, d in enumerate(audit["draws"]) if d["seq"] > 0)
    draw["result"] = draw["result"] % 6 + 1
    failure = _failure(audit)
    assert failure.startswith(f"draw {i} ({draw['purpose']}, entry {draw['seq']}): result is")


def test_a_tampered_event_fails_the_record(long_game) -> None:
    record = long_game["record"]
    record["events"][-2]["event"]["tampered"] = True
    assert _failure(record).startswith("events: event")
    record = copy.deepcopy(long_game["record"])
    record["events"].pop()
    assert "events:" in _failure(record)


# ---- every value, every byte ---------------------------------------------------------------


def _leaves(node: Any, path: tuple = ()) -> Iterator[tuple[tuple, Any]]:
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _leaves(v, (*path, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _leaves(v, (*path, i))
    yield path, node


def _changed(value: Any) -> list[Any]:
    """Values differing from `value` in one small way (a JSON type change too)."""
    if isinstance(value, bool):
        return [not value]
    if isinstance(value, int):
        return [value + 1, str(value)]
    if isinstance(value, str):
        flipped = value[:-1] + ("B" if value[-1:] != "B" else "C")
        return [flipped, value + " "]
    if value is None:
        return [0]
    if isinstance(value, list):
        return [value[:-1]] if value else [[0]]
    return [{**value, "x": 1}]


def _with(bundle: dict[str, Any], path: tuple, value: Any) -> dict[str, Any]:
    out = copy.deepcopy(bundle)
    node = out
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = value
    return out


def _renamed(bundle: dict[str, Any], path: tuple) -> dict[str, Any]:
    out = copy.deepcopy(bundle)
    node = out
    for part in path[:-1]:
        node = node[part]
    node[path[-1] + "_"] = node.pop(path[-1])
    return out


@pytest.mark.parametrize("kind", ["audit", "record"])
def test_every_changed_value_fails(short_game, kind) -> None:
    bundle = short_game[kind]
    assert verify_bundle(bundle).ok
    checked = 0
    for path, value in list(_leaves(bundle)):
        if not path:
            continue
        for new in _changed(value):
            assert not verify_bundle(_with(bundle, path, new)).ok, (path, value, new)
            checked += 1
        if isinstance(path[-1], str):
            assert not verify_bundle(_renamed(bundle, path)).ok, path
    assert checked > 300


def test_random_byte_changes_fail(short_game) -> None:
    text = json.dumps(short_game["audit"], separators=(",", ":"))
    chooser = random.Random(11)
    valid = 0
    for _ in range(600):
        i = chooser.randrange(len(text))
        new = chooser.choice("0123456789abcdefABCDEF_-\"{}[],:. ")
        if new == text[i]:
            continue
        try:
            bundle = signing.parse_json_strict((text[:i] + new + text[i + 1:]).encode())
        except ValueError:
            continue  # not JSON any more: refused before any check
        if bundle == short_game["audit"]:
            continue  # the same value (e.g. a space between tokens)
        valid += 1
        assert not verify_bundle(bundle).ok, (i, text[i], new)
    assert valid > 200


def test_garbage_is_a_failure_not_a_crash() -> None:
    for garbage in [None, [], "x", {}, {"format": "parley-audit-v1"},
                    {"format": "parley-record-v1", "audit": {}, "events": [], "game": "g"}]:
        assert not verify_bundle(garbage).ok


def test_parley_verify_exit_status(short_game, tmp_path, capsys) -> None:
    from service.cli import main

    good, bad = tmp_path / "bundle.json", tmp_path / "bad.json"
    good.write_text(json.dumps(short_game["record"]))
    assert main(["verify", str(good)]) == 0
    assert capsys.readouterr().out.rstrip().endswith("VERIFIED")
    short_game["record"]["audit"]["draws"][0]["result"].reverse()
    bad.write_text(json.dumps(short_game["record"]))
    assert main(["verify", str(bad)]) == 1
    assert "FAIL  draw 0 (seat-order, the start): result is" in capsys.readouterr().out
    bad.write_text("{not json")
    assert main(["verify", str(bad)]) == 1
    assert "is not valid JSON" in capsys.readouterr().err


@pytest.mark.slow
def test_the_protocol_package_alone_verifies_a_bundle(short_game, tmp_path) -> None:
    """`pip install ./protocol` into a fresh environment: `parley-verify` checks a record with
    neither the server nor its web, queue or Redis libraries installed."""
    import subprocess
    import venv
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    env_dir = tmp_path / "auditor"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    python = env_dir / "bin" / "python"
    # a copy of the sources, as an auditor's checkout would be (no editable link back here)
    install = subprocess.run([str(python), "-m", "pip", "install", "-q", str(root / "protocol")],
                             capture_output=True, text=True, timeout=600)
    assert install.returncode == 0, install.stdout + install.stderr
    loaded = subprocess.run(
        [str(python), "-c", "import importlib.util as u; print([m for m in ('flask', "
         "'marshmallow', 'redis', 'rq', 'granian', 'service') if u.find_spec(m)])"],
        capture_output=True, text=True, cwd=tmp_path, check=True)
    assert loaded.stdout.strip() == "[]"
    good, bad = tmp_path / "record.json", tmp_path / "bad.json"
    good.write_text(json.dumps(short_game["record"]))
    short_game["record"]["audit"]["draws"][0]["result"].reverse()
    bad.write_text(json.dumps(short_game["record"]))
    verify = env_dir / "bin" / "parley-verify"
    ok = subprocess.run([str(verify), str(good)], capture_output=True, text=True, cwd=tmp_path)
    assert ok.returncode == 0 and ok.stdout.rstrip().endswith("VERIFIED"), ok.stdout + ok.stderr
    failed = subprocess.run([str(verify), str(bad)], capture_output=True, text=True,
                            cwd=tmp_path)
    assert failed.returncode == 1 and "FAIL  draw 0" in failed.stdout
    # the engines' data files travel with them (maps, card lists, fleets)
    shipped = subprocess.run([str(python), "-m", "pip", "show", "-f", "parley-protocol"],
                             capture_output=True, text=True, check=True).stdout
    ours = {p.relative_to(root).as_posix() for p in (root / "engines").rglob("*.json")}
    assert ours and all(path in shipped for path in ours), ours - set(shipped.split())
