"""The move-signing vectors of docs/move-signing-vectors.json, reproduced exactly; and
the fast canonical JSON path, byte for byte against rfc8785."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest
import rfc8785
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import given, settings
from hypothesis import strategies as st
from parley_protocol import signing

VECTORS = Path(__file__).resolve().parents[1] / "docs" / "move-signing-vectors.json"
CASES = json.loads(VECTORS.read_text())["cases"]


@pytest.mark.parametrize("case", CASES, ids=[c["payload"]["game"] for c in CASES])
def test_vector_reproduced(case: dict) -> None:
    key = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(case["private_key_seed_hex"]))
    assert signing.public_key_b64(key) == case["public_key"]
    assert signing.canonical(case["payload"]).decode("utf-8") == case["canonical_payload_utf8"]
    assert signing.move_message(case["payload"]).hex() == case["signed_message_hex"]
    assert signing.sign_payload(key, case["payload"]) == case["signature"]
    assert case["envelope"]["signature"] == case["signature"]
    public = signing.b64url_decode(case["public_key"])
    assert signing.verify_payload(public, case["payload"], case["signature"])


def test_changed_payload_fails_verification() -> None:
    case = CASES[0]
    payload = json.loads(json.dumps(case["payload"]))
    payload["step"] += 1
    public = signing.b64url_decode(case["public_key"])
    assert not signing.verify_payload(public, payload, case["signature"])


def test_b64url_is_strict() -> None:
    assert signing.b64url_decode("AAECAw") == b"\x00\x01\x02\x03"
    for bad in ["AAECAw==", "AA+/", "A", "AAECAx"]:
        with pytest.raises(ValueError):
            signing.b64url_decode(bad)


def test_duplicate_keys_are_refused() -> None:
    with pytest.raises(signing.DuplicateKey):
        signing.parse_json_strict(b'{"a": 1, "a": 2}')
    with pytest.raises(ValueError):
        signing.parse_json_strict(b'{"a": NaN}')


_json_values = st.recursive(
    st.none() | st.booleans() | st.text()
    | st.integers(min_value=-2**60, max_value=2**60) | st.floats(allow_nan=False),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.text(max_size=4), children, max_size=4),
    max_leaves=20,
)


def _outcome(dump: Any, value: Any) -> bytes | str:
    try:
        return dump(value)
    except Exception as err:  # noqa: BLE001 - the error's kind is the outcome compared
        return type(err).__name__


@settings(max_examples=600, deadline=None)
@given(_json_values)
def test_canonical_fast_path_equals_rfc8785(value: Any) -> None:
    """`canonical` writes what rfc8785 writes, byte for byte, or fails as it fails."""
    assert _outcome(signing.canonical, value) == _outcome(rfc8785.dumps, value)


@pytest.mark.parametrize("value", [
    {"k": "".join(map(chr, range(0x80))) + "\u2028\u2029\ue000\U0001f600\x7f"},
    {"b": 1, "a": [True, None, -(2**53 - 1), 2**53 - 1], "": {"z": "", "Z": []}},
    [2**53], {"\U0001f600": 1, "\ue000": 2}, {"s": "\ud800"}, {"f": 1.0}, [[[[]]]],
])
def test_canonical_edge_cases(value: Any) -> None:
    assert _outcome(signing.canonical, value) == _outcome(rfc8785.dumps, value)


def _strict_outcome(parse: Any, body: bytes) -> Any:
    try:
        return ("value", parse(body))
    except Exception as err:  # noqa: BLE001 - the error's kind is the outcome compared
        return ("error", type(err).__name__)


def _bodies(value: Any) -> list[bytes]:
    """`value` written compactly (orjson), with spaces and escapes (json), and with its first
    object's first key repeated."""
    compact = orjson.dumps(value)
    out = [compact, json.dumps(value).encode()]
    i = compact.find(b"{")
    if i >= 0 and compact[i + 1:i + 2] != b"}":
        out.append(compact[:i + 1] + b'"k":0,"k":1,' + compact[i + 1:])
    return out


@settings(max_examples=400, deadline=None)
@given(_json_values)
def test_strict_parse_fast_path_equals_the_checked_parse(value: Any) -> None:
    """`parse_json_strict` takes compact bodies from orjson: it returns what the checked
    parse returns (json with its duplicate and constant checks), or fails as it fails."""
    for body in _bodies(value):
        fast = _strict_outcome(signing.parse_json_strict, body)
        checked = _strict_outcome(signing._parse_json_checked, body)
        assert repr(fast) == repr(checked), body


@pytest.mark.parametrize("body", [
    b'{"a":1,"a":2}', b'{"a":{"b":1,"b":1}}', b'[{"x":null,"x":null}]', b'{"a":NaN}',
    b'{"a":Infinity}', b"[1e400]", b"123456789012345678901234567890", b'{"s":"\\ud800"}',
    b'{"a":1} ', "{\"é\":1}".encode(), b"\xef\xbb\xbf{}", b"",
])
def test_strict_parse_edge_cases(body: bytes) -> None:
    assert repr(_strict_outcome(signing.parse_json_strict, body)) == repr(
        _strict_outcome(signing._parse_json_checked, body))
    if body.count(b'"a":') + body.count(b'"b":') + body.count(b'"x":') > 1:
        with pytest.raises(signing.DuplicateKey):
            signing.parse_json_strict(body)
