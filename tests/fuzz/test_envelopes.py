"""Malformed move envelopes posted to POST /v1/games/{id}/moves: each gets problem JSON with a
string `code`, and nothing changes (the game's meta, state, move stream, nonces, events and
draws are compared before and after every example).

Bodies that are not JSON at all, duplicate keys, deep nesting, oversize bodies; valid envelopes
with one member replaced by a value of the wrong type, a huge integer or odd unicode (lone
surrogates, NUL, right-to-left marks); and such moves signed properly by the seat to act, so
that they get past the signature into the rules' dry run. Through the Flask test client (fast);
PARLEY_FUZZ_EXAMPLES sets the examples per property.
"""

from __future__ import annotations

import contextlib
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from parley_protocol import signing

from service.storage.keys import game_key
from tests.api.helpers import new_game, post_move, view
from tests.fuzz.conftest import EXAMPLES
from tests.players import TestPlayer

#: a move the rules would accept never appears here, so every answer must be an error
ERROR_STATUSES = {400, 401, 403, 404, 409, 413, 422, 429}

ODD_TEXT = st.sampled_from([
    "", "\x00", "a\x00b", "\ud800", "\udfff", "x\ud83d", "\u202e", "\u202egpj.exe", "\u200f",
    "\ufeff", "\uffff", "e\u0301", "\U0001f600", "\u0000\u202e\ud800", "Ω" * 300, " ", "\n",
    "../../etc/passwd", "%s%n", "{\"a\":1}", "null",
])
HUGE = st.sampled_from([2**53, 2**63, -(2**63) - 1, 2**64, 10**30, -(10**100), 10**400])
ODD_VALUES = st.one_of(
    st.none(), st.booleans(), HUGE, st.integers(), st.floats(allow_nan=False),
    ODD_TEXT, st.text(max_size=20), st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=3),
    st.integers(min_value=1, max_value=60).map(lambda n: _nest(n)),
)


def _nest(depth: int) -> Any:
    value: Any = 0
    for i in range(depth):
        value = [value] if i % 2 else {"k": value}
    return value


SETTINGS = settings(max_examples=EXAMPLES, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow, HealthCheck.data_too_large])


@pytest.fixture
def duel(app, client, run_jobs) -> tuple[str, dict[int, TestPlayer], Any]:
    """A Stratego Duel in play (both setups applied); -> (game, players by seat, store)."""
    gid, players = new_game(client, "stratego", {"army": "duel", "seat_order": "joined"})
    run_jobs()
    for seat, player in players.items():
        v = view(client, gid, player)
        assert post_move(client, gid, player, seat, v["legal_moves"][0],
                         step=v["step"]).status_code == 202
    run_jobs()
    assert view(client, gid)["step_kind"] == "play"
    return gid, players, app.extensions["parley_store"]


def _snapshot(store: Any, gid: str) -> dict[str, Any]:
    r = store.r
    return {"meta": r.hgetall(game_key(gid, "meta")), "state": r.get(game_key(gid, "state")),
            "moves": r.xrange(game_key(gid, "moves")),
            "nonces": r.hgetall(game_key(gid, "nonces")),
            "events": r.hget(game_key(gid, "meta"), "events"),
            "draws": r.llen(game_key(gid, "draws")), "pending": store.pending_games()}


def _refused(client: Any, store: Any, gid: str, body: bytes) -> dict[str, Any]:
    """Post raw bytes; assert a problem JSON answer and an unchanged game; -> the problem."""
    before = _snapshot(store, gid)
    resp = client.post(f"/v1/games/{gid}/moves", data=body,
                       headers={"Content-Type": "application/json"})
    assert resp.status_code in ERROR_STATUSES, (resp.status_code, resp.get_data()[:300])
    assert resp.mimetype == "application/problem+json", resp.mimetype
    problem = json.loads(resp.get_data())
    assert isinstance(problem["code"], str) and problem["code"], problem
    assert problem["status"] == resp.status_code
    assert _snapshot(store, gid) == before, f"{problem['code']}: the game changed"
    event(f"{resp.status_code} {problem['code']}")  # --hypothesis-show-statistics lists them
    return problem


def _to_act(client: Any, gid: str, players: dict[int, TestPlayer]
            ) -> tuple[int, TestPlayer, dict[str, Any]]:
    seat = view(client, gid)["to_act"][0]
    v = view(client, gid, players[seat])
    return seat, players[seat], v


def _dumps(value: Any) -> bytes:
    """JSON text as a client might send it: lone surrogates escaped, huge integers verbatim."""
    return json.dumps(value).encode("utf-8")


# ---- bodies that are not an envelope at all -------------------------------------------------

def _duplicate_keys(env: dict[str, Any], where: str) -> bytes:
    text = _dumps(env).decode()
    if where == "top":
        return (text[:-1] + ', "key_id": "k_other"}').encode()
    if where == "payload":
        return text.replace('"payload": {', '"payload": {"seat": 1, ', 1).encode()
    return text.replace('"move": {', '"move": {"to": "a1", ', 1).encode()


RAW_BODIES = st.one_of(
    st.binary(max_size=200),
    st.sampled_from([b"", b"null", b"1", b'"x"', b"[]", b"{}", b"[{}]", b"\xff\xfe{", b"{\"a\":",
                     b"NaN", b'{"payload": NaN}', b'{"payload": Infinity}', b"\xed\xa0\x80",
                     b'{"payload": 1e999}', b"\x00" * 10, "{\"\u202e\": 1}".encode()]),
    st.integers(min_value=1, max_value=200_000).map(lambda n: b"[" * n + b"]" * n),
    st.integers(min_value=1, max_value=200_000).map(lambda n: b'{"a":' * n + b"1" + b"}" * n),
)


@SETTINGS
@given(body=RAW_BODIES)
def test_bodies_that_are_not_envelopes(duel, client, body: bytes) -> None:
    gid, _players, store = duel
    _refused(client, store, gid, body)


@SETTINGS
@given(where=st.sampled_from(["top", "payload", "move"]))
def test_duplicate_keys_anywhere(duel, client, where: str) -> None:
    gid, players, store = duel
    seat, player, v = _to_act(client, gid, players)
    env = player.envelope(gid, seat, v["step"], v["legal_moves"][0])
    assert _refused(client, store, gid, _duplicate_keys(env, where))["code"] == "malformed_move"


@SETTINGS
@given(extra=st.integers(min_value=1, max_value=200_000))
def test_oversize_bodies(duel, client, app, extra: int) -> None:
    gid, players, store = duel
    seat, player, v = _to_act(client, gid, players)
    env = player.envelope(gid, seat, v["step"], v["legal_moves"][0])
    limit = app.config["MAX_CONTENT_LENGTH"]
    env["padding"] = "x" * (limit + extra)
    assert _refused(client, store, gid, _dumps(env))["code"] == "payload_too_large"


# ---- envelopes with one member replaced -----------------------------------------------------

PATHS = [("payload",), ("key_id",), ("signature",), ("payload", "game"), ("payload", "seat"),
         ("payload", "step"), ("payload", "move"), ("payload", "nonce"),
         ("payload", "issued_at"), ("payload", "move", "type"), ("payload", "move", "from"),
         ("payload", "move", "to")]


def _replace(env: dict[str, Any], path: tuple[str, ...], value: Any) -> dict[str, Any]:
    env = json.loads(json.dumps(env))
    target = env
    for name in path[:-1]:
        target = target[name]
    if value is _DELETE:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return env


_DELETE = object()


@SETTINGS
@given(path=st.sampled_from(PATHS), value=st.one_of(ODD_VALUES, st.just(_DELETE)),
       unknown=st.one_of(st.none(), ODD_TEXT))
def test_envelopes_with_a_bad_member(duel, client, path, value, unknown) -> None:
    """Unsigned changes: the schema, the canonical form or the signature refuses them."""
    gid, players, store = duel
    seat, player, v = _to_act(client, gid, players)
    env = player.envelope(gid, seat, v["step"], v["legal_moves"][0])
    bad = _replace(env, path, value)
    if unknown is not None:
        bad[unknown or "extra"] = 1
    if bad == env:
        return
    _refused(client, store, gid, _dumps(bad))


#: members of a move and of the payload that must have one JSON type: a value of another type
#: can never make a legal move, whatever the rules
TYPED = {("payload", "game"): str, ("payload", "seat"): int, ("payload", "step"): int,
         ("payload", "nonce"): str, ("payload", "move", "type"): str,
         ("payload", "move", "from"): str, ("payload", "move", "to"): str}


@SETTINGS
@given(path=st.sampled_from(sorted(TYPED)), value=ODD_VALUES)
def test_signed_moves_with_a_bad_member(duel, client, path, value) -> None:
    """Properly signed by the seat to act, so they reach the rules' dry run."""
    gid, players, store = duel
    seat, player, v = _to_act(client, gid, players)
    kind = TYPED[path]
    if isinstance(value, kind) and not isinstance(value, bool):
        if kind is str and value not in ("", "\x00"):
            value = value + "\x00"  # a string, but no square, game or nonce has a NUL
        elif kind is int:
            value = value + 2**53  # beyond any seat or step
    env = _replace(player.envelope(gid, seat, v["step"], v["legal_moves"][0]), path, value)
    # no canonical form to sign a lone surrogate or a huge integer: the old signature stays
    with contextlib.suppress(Exception):
        env["signature"] = signing.sign_payload(player.key, env["payload"])
    _refused(client, store, gid, _dumps(env))
