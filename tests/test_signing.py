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
DERIVED_DESCRIPTION = (
    " derived_nonce_cases: the same keys and moves with derived nonces (docs/audit.md section "
    "6): nonce = base64url(Ed25519(key, 'parley-nonce-v1\\n' + JCS(nonce_input))), where "
    "nonce_input is the payload's game, seat, step and move, and also repeat when the very "
    "same move is made once more at one step (its number then follows the 64 signature bytes "
    "as one more byte); roll_source_hex is the bytes that key the move's dice in a game whose "
    "platform has nonces 'derived'. Written by `python -m tests.test_signing`.")


def derived_cases() -> list[dict[str, Any]]:
    """The file's `derived_nonce_cases` as the code makes them: each case of `cases` with its
    derived nonce, then the first one's move made once more at its step (repeat 1)."""
    out = []
    for case, repeat in ((CASES[0], 0), (CASES[1], 0), (CASES[0], 1)):
        key = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(case["private_key_seed_hex"]))
        payload = dict(case["payload"])
        nonce_input = {name: payload[name] for name in signing.NONCE_MEMBERS}
        if repeat:
            nonce_input["repeat"] = repeat
        payload["nonce"] = signing.derive_nonce(key, payload, repeat)
        signature = signing.sign_payload(key, payload)
        out.append({
            "private_key_seed_hex": case["private_key_seed_hex"],
            "public_key": case["public_key"], "repeat": repeat, "nonce_input": nonce_input,
            "nonce_message_hex": signing.nonce_message(payload, repeat).hex(),
            "nonce": payload["nonce"],
            "roll_source_hex": signing.b64url_decode(payload["nonce"]).hex(),
            "payload": payload, "canonical_payload_utf8": signing.canonical(payload).decode(),
            "signed_message_hex": signing.move_message(payload).hex(), "signature": signature,
            "envelope": {"payload": payload, "key_id": case["envelope"]["key_id"],
                         "signature": signature}})
    return out


def write_vectors() -> None:
    """Rewrite the file's derived-nonce cases from the code (the other cases stay)."""
    data = json.loads(VECTORS.read_text())
    data["description"] = data["description"].split(" derived_nonce_cases:")[0] + \
        DERIVED_DESCRIPTION
    data["derived_nonce_cases"] = derived_cases()
    VECTORS.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def test_the_derived_nonce_cases_are_what_the_code_produces() -> None:
    data = json.loads(VECTORS.read_text())
    assert data["derived_nonce_cases"] == derived_cases()
    assert data["description"].endswith(DERIVED_DESCRIPTION)


@pytest.mark.parametrize("case", json.loads(VECTORS.read_text()).get("derived_nonce_cases", []),
                         ids=lambda c: f"{c['payload']['game']}-repeat{c['repeat']}")
def test_derived_nonce_vector_from_the_spec(case: dict) -> None:
    """Each derived nonce rebuilt from the spec's words alone: JCS of the covered members,
    the prefix, an Ed25519 signature, the repeat byte, base64url."""
    key = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(case["private_key_seed_hex"]))
    covered = {k: case["payload"][k] for k in ("game", "seat", "step", "move")}
    if case["repeat"]:
        covered["repeat"] = case["repeat"]
    assert covered == case["nonce_input"]
    message = b"parley-nonce-v1\n" + rfc8785.dumps(covered)
    assert message.hex() == case["nonce_message_hex"]
    raw = key.sign(message) + (bytes([case["repeat"]]) if case["repeat"] else b"")
    assert signing.b64url_encode(raw) == case["nonce"] == case["payload"]["nonce"]
    assert raw.hex() == case["roll_source_hex"]
    assert signing.roll_source(case["envelope"], {"nonces": "derived"}).hex() == \
        case["roll_source_hex"]
    public = signing.b64url_decode(case["public_key"])
    assert signing.is_derived_nonce(public, case["payload"])
    assert signing.verify_payload(public, case["payload"], case["signature"])
    assert key.sign(b"parley-move-v1\n" + rfc8785.dumps(case["payload"])) == \
        signing.b64url_decode(case["signature"])


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


if __name__ == "__main__":
    write_vectors()
