"""Derived nonces (docs/audit.md §6): a move's nonce is its signer's Ed25519 signature of the
game, seat, step and move, and in a game that requires them (`platform.nonces: "derived"`,
every new game) a player's move rolls from its nonce, not its signature. So a server that
learns a roll and answers "try again" gets the same roll from a move signed again: the
nonce is the same, and a second envelope with it is refused as `duplicate_nonce`."""

from __future__ import annotations

import copy
import json
import random
import time
from collections import Counter
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from parley_protocol import signing
from parley_protocol.verify import verify_bundle

from engines.registry import get_engine
from engines.rng import AuditedRng, move_key
from service.domain import accept
from service.domain.foresight import NO_DRAWS, WouldDraw
from service.domain.game import load_game, seed_of
from service.storage.keys import game_key
from tests.api.conftest import duel, make_app
from tests.api.helpers import new_game, play_solo_totohu, post_move, view
from tests.api.test_foresight import _foresight, _live_drainer, _two_moves
from tests.api.test_hotpaths import _post
from tests.players import TestPlayer, random_nonce

SEED = bytes(range(32))
PAYLOAD = {"game": "g_8f3k2", "seat": 1, "step": 14,
           "move": {"type": "move", "from": "e4", "to": "e5"},
           "nonce": "", "issued_at": "2026-11-21T10:00:00Z"}


def _ago(seconds: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - seconds))


def _problem(resp: Any, status: int, code: str) -> None:
    assert resp.status_code == status, resp.get_json()
    assert resp.get_json()["code"] == code


# ---- the nonce itself ---------------------------------------------------------------------

def test_the_nonce_is_deterministic_and_anyone_can_check_it() -> None:
    key = Ed25519PrivateKey.from_private_bytes(SEED)
    public = signing.b64url_decode(signing.public_key_b64(key))
    nonce = signing.derive_nonce(key, PAYLOAD)
    assert nonce == signing.derive_nonce(key, {**PAYLOAD, "issued_at": "2026-11-22T08:00:00Z"})
    assert len(nonce) == 86 and len(signing.b64url_decode(nonce)) == 64
    assert signing.nonce_message(PAYLOAD) == (
        b'parley-nonce-v1\n{"game":"g_8f3k2","move":{"from":"e4","to":"e5","type":"move"},'
        b'"seat":1,"step":14}')
    assert signing.ed25519_verify(public, signing.b64url_decode(nonce),
                                  signing.nonce_message(PAYLOAD))
    signed = {**PAYLOAD, "nonce": nonce}
    assert signing.is_derived_nonce(public, signed)
    assert signing.is_derived_nonce(public, {**signed, "issued_at": "2027-01-01T00:00:00Z"})
    for other in ({"step": 15}, {"seat": 0}, {"game": "g_other"},
                  {"move": {"type": "move", "from": "e4", "to": "e6"}},
                  {"nonce": random_nonce()}, {"nonce": nonce[:-2] + "AA"}):
        assert not signing.is_derived_nonce(public, {**signed, **other}), other
    stranger = signing.b64url_decode(signing.public_key_b64(Ed25519PrivateKey.generate()))
    assert not signing.is_derived_nonce(stranger, signed)
    # the very same move once more at one step names its repeat in a 65th byte
    again = signing.derive_nonce(key, PAYLOAD, 1)
    assert len(again) == 87 and again != nonce and signing.nonce_repeat(again) == 1
    assert signing.is_derived_nonce(public, {**PAYLOAD, "nonce": again})
    assert signing.nonce_repeat(nonce) == 0 and signing.nonce_repeat(random_nonce()) is None
    assert signing.nonce_repeat(signing.b64url_encode(bytes(64) + b"\x00")) is None
    with pytest.raises(ValueError):
        signing.derive_nonce(key, PAYLOAD, signing.MAX_REPEAT + 1)


def test_the_roll_follows_a_players_nonce_only_where_the_game_derives_them() -> None:
    key = Ed25519PrivateKey.from_private_bytes(SEED)
    payload = {**PAYLOAD, "nonce": signing.derive_nonce(key, PAYLOAD)}
    env = {"payload": payload, "key_id": "k_1", "signature": signing.sign_payload(key, payload)}
    derived = {"seat_order": "random", "nonces": "derived"}
    nonce, signature = (signing.b64url_decode(payload["nonce"]),
                        signing.b64url_decode(env["signature"]))
    assert signing.roll_source(env, derived) == nonce
    assert signing.roll_source(env, {"seat_order": "random"}) == signature  # an old game
    for server in (signing.SERVER_KEY_ID, signing.MAIL_KEY_ID):  # the server's own entries
        assert signing.roll_source({**env, "key_id": server}, derived) == signature
    # signed again later: another signature, the same nonce, the same roll
    later = {**payload, "issued_at": "2026-11-21T10:05:00Z"}
    env2 = {**env, "payload": later, "signature": signing.sign_payload(key, later)}
    assert env2["signature"] != env["signature"]
    assert signing.roll_source(env2, derived) == signing.roll_source(env, derived)


# ---- the server refuses a nonce that is not derived, on every path -------------------------

def test_new_games_require_derived_nonces(client: Any, run_jobs: Any) -> None:
    gid, _ = new_game(client, options={"army": "duel"})
    assert client.get(f"/v1/games/{gid}/audit").get_json()["platform"]["nonces"] == "derived"
    assert "nonces" not in client.get(f"/v1/games/{gid}").get_json()["options"]
    resp = client.post("/v1/games", json={"ruleset": "stratego", "players": 2,
                                          "options": {"nonces": "random"}},
                       headers=TestPlayer("eve").register(client).auth)
    assert resp.status_code == 422  # not an option a creator can choose


def test_a_random_nonce_is_refused_one_by_one_and_in_a_batch(app, client, run_jobs) -> None:
    gid, ann, _ = duel(client, run_jobs)
    store = app.extensions["parley_store"]
    before = store.meta(gid)
    move = {"type": "move", "from": "a4", "to": "a5"}
    _problem(client.post(f"/v1/games/{gid}/moves",
                         json=ann.envelope(gid, 0, 1, move, nonce=random_nonce())),
             422, "nonce_not_derived")
    other = TestPlayer("eve")  # a derived nonce, but with another key than the signer's
    wrong = ann.envelope(gid, 0, 1, move, nonce=other.envelope(gid, 0, 1, move)["payload"]
                         ["nonce"])
    _problem(client.post(f"/v1/games/{gid}/moves", json=wrong), 422, "nonce_not_derived")
    assert store.meta(gid) == before  # nothing stored
    good = ann.envelope(gid, 0, 1, move)
    resp = client.post("/v1/moves", json={"envelopes": [
        ann.envelope(gid, 0, 1, {"type": "move", "from": "a4", "to": "b4"},
                     nonce=random_nonce()), good]})
    results = resp.get_json()["results"]
    assert results[0]["problem"]["code"] == "nonce_not_derived"
    assert results[1]["status"] == "queued"
    assert store.meta(gid)["head"] == str(int(before["head"]) + 1)


@pytest.fixture
def apps(config: Any) -> tuple[Any, Any]:
    """A web app with the hot paths (and its foresight), and one without."""
    return make_app(config, hot=True), make_app(config, hot=False)


def test_a_random_nonce_is_refused_on_the_foreseen_path(apps, run_jobs, monkeypatch) -> None:
    fast, slow = apps
    gid, ann, bob = duel(slow.test_client(), run_jobs)
    _two_moves(fast, gid, ann, bob, _live_drainer(fast))
    assert _foresight(fast)._games.get(gid) is not None  # Ann's next move is foreseen
    tried = []
    foreseen = accept._append_foreseen

    def spy(*args: Any) -> Any:
        tried.append(outcome := foreseen(*args))
        return outcome

    monkeypatch.setattr(accept, "_append_foreseen", spy)
    store = fast.extensions["parley_store"]
    head = store.meta(gid)["head"]
    env = ann.envelope(gid, 0, 3, {"type": "move", "from": "a5", "to": "a4"},
                       nonce=random_nonce())
    _problem(_post(fast, gid, env), 422, "nonce_not_derived")
    assert tried == [None]  # the foreseen state refused it; the usual path answered
    assert store.meta(gid)["head"] == head


# ---- signing the same move again rolls the same -------------------------------------------

def _drawing_move(app: Any, client: Any, run_jobs: Any, gid: str, player: TestPlayer
                  ) -> tuple[int, dict[str, Any], dict[str, Any]]:
    """Play a solo Totohu game on until a legal move draws: (its step, the move, the state
    it meets)."""
    store = app.extensions["parley_store"]
    engine = get_engine("totohu")
    chooser = random.Random(1)
    for _ in range(200):
        v = view(client, gid, player)
        state = store.state(gid)
        for move in v["legal_moves"]:
            try:
                engine.apply(copy.deepcopy(state), 0, move, NO_DRAWS)
            except WouldDraw:
                return v["step"], move, state
        assert post_move(client, gid, player, 0, chooser.choice(v["legal_moves"]),
                         step=v["step"]).status_code == 202
        run_jobs()
    raise AssertionError("no move draws")


def test_a_move_signed_again_rolls_what_the_first_signing_would_have(app, client,
                                                                     run_jobs) -> None:
    """The server drops the first envelope of a move that draws; the player signs the move
    again (another `issued_at`, another signature): the draws recorded for it are those the
    first envelope would have made, and a third signing is a duplicate."""
    gid, players = new_game(client, "totohu", {}, 1)
    ann = players[0]
    step, move, state = _drawing_move(app, client, run_jobs, gid, ann)
    first = ann.envelope(gid, 0, step, move, issued_at=_ago(120))  # never reaches the log
    second = ann.envelope(gid, 0, step, move)
    assert first["signature"] != second["signature"]
    assert first["payload"]["nonce"] == second["payload"]["nonce"]
    store = app.extensions["parley_store"]
    game = load_game(store, gid)
    seed = seed_of(store, game)

    def draws(source: bytes) -> list[dict[str, Any]]:
        rng = AuditedRng(move_key(seed, source))
        get_engine("totohu").apply(copy.deepcopy(state), 0, move, rng)
        return [{k: d[k] for k in ("purpose", "kind", "params", "result")} for d in rng.draws]

    # before derived nonces the two signings keyed two different rolls
    assert move_key(seed, signing.b64url_decode(first["signature"])) != \
        move_key(seed, signing.b64url_decode(second["signature"]))
    would = draws(signing.roll_source(first, game.platform))
    assert would and would == draws(signing.roll_source(second, game.platform))
    resp = client.post(f"/v1/games/{gid}/moves", json=second)
    assert resp.status_code == 202, resp.get_json()
    seq = resp.get_json()["id"]
    assert client.post(f"/v1/games/{gid}/moves", json=second).get_json()["id"] == seq
    third = ann.envelope(gid, 0, step, move, issued_at=_ago(60))
    _problem(client.post(f"/v1/games/{gid}/moves", json=third), 409, "duplicate_nonce")
    _problem(client.post(f"/v1/games/{gid}/moves", json=first), 409, "duplicate_nonce")
    run_jobs()
    recorded = [{k: d[k] for k in ("purpose", "kind", "params", "result")}
                for d in store.draws(gid) if d["seq"] == seq]
    assert recorded == would


# ---- repeats of the very same move at one step -------------------------------------------

def test_a_repeat_must_follow_its_previous_repeat(client, run_jobs) -> None:
    gid, ann, _ = duel(client, run_jobs)
    move = {"type": "move", "from": "a4", "to": "a5"}
    _problem(post_move(client, gid, ann, 0, move, step=1, repeat=1), 409, "early_repeat")


def test_picking_the_same_unit_twice_at_one_step_names_the_repeat(client, run_jobs) -> None:
    """Battle for Elfland's unit picks stay at one step while a seat picks (contract v2 point
    1), so a seat may pick a unit of one kind twice: the second pick's nonce names repeat 1.
    Without it the move is the first one again (`duplicate_nonce`); skipping one is refused
    (`early_repeat`); the finished game's bundle verifies. Whether a deal offers a kind twice
    is the dice's to say (the server's seed): games are played until one does."""
    for seed in range(10):
        gid, repeated = _war_game_picking_again(client, run_jobs, seed)
        report = verify_bundle(client.get(f"/v1/games/{gid}/audit").get_json())
        assert report.ok, report.failure
        if repeated:
            return
    raise AssertionError("no game of ten offered a seat the same unit twice at one step")


def _war_game_picking_again(client: Any, run_jobs: Any, seed: int) -> tuple[str, int]:
    """A Battle for Elfland played to its end, picking a unit again wherever the same pick is
    legal again at its step; the game and how many repeats it made."""
    gid, players = new_game(client, "elfenland", {"mode": "war", "war-max-rounds": 5}, 2,
                            names=(f"ann{seed}", f"bob{seed}"))
    chooser = random.Random(5 + seed)
    made: Counter[bytes] = Counter()
    repeated = 0
    for _ in range(3000):
        summary = client.get(f"/v1/games/{gid}").get_json()
        if summary["status"] == "finished":
            break
        for seat in list(summary["to_act"]):
            v = view(client, gid, players[seat])
            if seat not in v["to_act"]:
                continue
            legal = v["legal_moves"]  # moving units, picked one by one, as often as can be
            picks = [m for m in legal if m["type"] == "pick_unit"]
            again = [m for m in picks if made[signing.canonical([seat, v["step"], m])]]
            starts = [m for m in legal if m["type"] == "war_move"]
            move = (again[0] if again else chooser.choice(picks) if picks
                    else chooser.choice(starts) if starts and chooser.random() < 0.7
                    else chooser.choice(legal))
            key = signing.canonical([seat, v["step"], move])
            if made[key] and repeated < 3:
                old = players[seat].envelope(gid, seat, v["step"], move, issued_at=_ago(60))
                _problem(client.post(f"/v1/games/{gid}/moves", json=old), 409,
                         "duplicate_nonce")
                _problem(post_move(client, gid, players[seat], seat, move, step=v["step"],
                                   repeat=made[key] + 1), 409, "early_repeat")
            repeated += made[key] > 0
            resp = post_move(client, gid, players[seat], seat, move, step=v["step"],
                             repeat=made[key])
            assert resp.status_code == 202, resp.get_json()
            made[key] += 1
            run_jobs()
    assert summary["status"] == "finished"
    return gid, repeated


# ---- the verifier ------------------------------------------------------------------------

@pytest.fixture
def solo(app: Any, client: Any, run_jobs: Any) -> tuple[dict[str, Any], TestPlayer]:
    """A finished solo Totohu game of derived nonces (every move draws the dummy's ship):
    its audit bundle and its player."""
    gid, player = play_solo_totohu(client, run_jobs)
    return client.get(f"/v1/games/{gid}/audit").get_json(), player


def _rewritten(bundle: dict[str, Any], app: Any, seq: int, player: TestPlayer,
               **payload: Any) -> dict[str, Any]:
    """The bundle with entry `seq`'s payload changed and signed again by its player, the
    digests and the chain recomputed and the bundle signed again by the server: what a
    dishonest server holding the player's key could publish."""
    out = copy.deepcopy(bundle)
    entry = out["entries"][seq - 1]
    env = entry["envelope"]
    env["payload"].update(payload)
    env["signature"] = signing.sign_payload(player.key, env["payload"])
    chain = ""
    for e in out["entries"]:
        e["digest"] = signing.envelope_digest(e["envelope"])
        chain = e["entry_hash"] = signing.chain_hash(chain, e["digest"])
    unsigned = {k: v for k, v in out.items() if k != "signature"}
    key = app.extensions["parley_server_key"]
    out["signature"] = signing.b64url_encode(
        key.sign(signing.BUNDLE_PREFIX + signing.canonical(unsigned)))
    return out


def test_the_verifier_checks_derived_nonces_and_rolls_from_them(app, solo) -> None:
    bundle, ann = solo
    assert bundle["platform"]["nonces"] == "derived" and bundle["status"] == "finished"
    assert verify_bundle(bundle).ok, verify_bundle(bundle).failure
    seq = next(e["seq"] for e in bundle["entries"]
               if any(d["seq"] == e["seq"] for d in bundle["draws"]))
    key_id = bundle["entries"][seq - 1]["envelope"]["key_id"]
    assert verify_bundle(_rewritten(bundle, app, seq, ann)).ok  # the rewriting itself is sound
    report = verify_bundle(_rewritten(bundle, app, seq, ann, nonce=random_nonce()))
    assert report.failure == (f"entry {seq}: the nonce is not the derived nonce of its payload "
                              f"with key {key_id} (the game requires derived nonces: platform "
                              f"nonces 'derived')")
    payload = bundle["entries"][seq - 1]["envelope"]["payload"]
    report = verify_bundle(_rewritten(bundle, app, seq, ann,
                                      nonce=signing.derive_nonce(ann.key, payload, 1)))
    assert report.failure == (f"entry {seq}: the nonce names repeat 1 of a move that seat 0 "
                              f"had not made 1 times before at step {payload['step']}")
    # the same log read as an old game's rolls from the signatures: the dice differ
    old = _rewritten({**bundle, "platform": {k: v for k, v in bundle["platform"].items()
                                             if k != "nonces"}}, app, seq, ann)
    assert verify_bundle(old).failure.startswith("draw ")
    odd = _rewritten({**bundle, "platform": {**bundle["platform"], "nonces": "random"}},
                     app, seq, ann)
    assert verify_bundle(odd).failure == ("bundle: unknown platform nonces \"random\" (absent "
                                          "or 'derived')")


def test_old_games_take_random_nonces_and_roll_from_signatures(app, client, run_jobs) -> None:
    """A game made before derived nonces (no `platform.nonces`) keeps today's rules."""
    gid, players = new_game(client, "totohu", {}, 1)
    store = app.extensions["parley_store"]
    platform = json.loads(store.meta(gid)["platform"])
    del platform["nonces"]
    store.r.hset(game_key(gid, "meta"), "platform", json.dumps(platform))
    chooser = random.Random(3)
    for _ in range(500):
        v = view(client, gid, players[0])
        if v["status"] == "finished":
            break
        env = players[0].envelope(gid, 0, v["step"], chooser.choice(v["legal_moves"]),
                                  nonce=random_nonce())
        assert client.post(f"/v1/games/{gid}/moves", json=env).status_code == 202
        run_jobs()
    bundle = client.get(f"/v1/games/{gid}/audit").get_json()
    assert "nonces" not in bundle["platform"] and bundle["status"] == "finished"
    assert any(d["seq"] > 0 for d in bundle["draws"])
    report = verify_bundle(bundle)
    assert report.ok, report.failure
