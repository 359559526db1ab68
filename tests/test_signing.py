"""The move-signing vectors of ../shared/vectors/move-signing.json, reproduced exactly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from service import signing

VECTORS = Path(__file__).resolve().parents[1].parent / "shared" / "vectors" / "move-signing.json"
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
