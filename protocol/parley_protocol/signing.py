"""Signed envelopes: canonical bytes, Ed25519 signatures, digests, receipts.

DESIGN.md "Signed moves": the signature is over b"parley-move-v1\\n" + JCS(payload) (RFC 8785);
keys, signatures and nonces are base64url without padding (RFC 4648 §5).
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
import re
import time
from datetime import datetime
from typing import Any

import nacl.bindings
import nacl.exceptions
import nacl.signing
import orjson
import rfc8785
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

MOVE_PREFIX = b"parley-move-v1\n"
RECEIPT_PREFIX = b"parley-receipt-v1\n"
BUNDLE_PREFIX = b"parley-audit-v1\n"
#: a key's proof of possession: the key signs who it is for (docs/audit.md §2)
KEY_PREFIX = b"parley-key-v1\n"
#: a player's statement allowing (or no longer allowing) moves by mail reply (docs/audit.md §16)
CONSENT_PREFIX = b"parley-consent-v1\n"
#: the only scope a consent has: every game of the player
CONSENT_SCOPE = "all_games"
#: a player's statement taking a seat with the client seed they chose (docs/audit.md §18)
JOIN_PREFIX = b"parley-join-v1\n"
#: the most code points a client seed may have (and the fewest: 1)
MAX_CLIENT_SEED = 128
#: the `key_id` of envelopes the server signs itself: a late seat's timeout action
SERVER_KEY_ID = "server"
#: the `key_id` of a move the server signs on a player's behalf from their mail reply
#: (docs/audit.md §15): its nonce is the digest of the reply token that authorised it
MAIL_KEY_ID = "mail"
#: a move's derived nonce is the player's signature of this prefix + JCS of the payload's
#: game, seat, step and move (docs/audit.md §6)
NONCE_PREFIX = b"parley-nonce-v1\n"
#: the payload members a derived nonce covers
NONCE_MEMBERS = ("game", "seat", "step", "move")
#: `platform.nonces` of a game whose players' nonces must be derived, and whose player-signed
#: moves roll from their nonce rather than their signature (docs/audit.md §3, §6, §9)
DERIVED_NONCES = "derived"
#: the most times one seat can make the very same move at one step, beyond the first
MAX_REPEAT = 255


#: `issued_at` as RFC 3339 writes a moment: date, time, optional fraction, a zone
RFC3339 = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,9})?"
                     r"([Zz]|[+-][0-9]{2}:[0-9]{2})")


def issued_now() -> str:
    """The current moment as a payload's `issued_at` (UTC, to the second)."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def parse_issued_at(text: Any) -> float | None:
    """An RFC 3339 `issued_at` as Unix seconds; None if it is not one."""
    if not isinstance(text, str) or not RFC3339.fullmatch(text):
        return None
    try:
        return datetime.fromisoformat(text.upper().replace("Z", "+00:00")).timestamp()
    except ValueError:  # 2026-02-30 and the like
        return None


def b64url_encode(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64url_decode(text: str) -> bytes:
    """Strict base64url without padding; ValueError on anything else."""
    if not isinstance(text, str) or "=" in text or not text.isascii():
        raise ValueError("not base64url without padding")
    raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    if b64url_encode(raw) != text:
        raise ValueError("not canonical base64url")
    return raw


#: the largest integer RFC 8785 accepts (IEEE 754 doubles hold every integer up to it)
MAX_SAFE_INTEGER = 2**53 - 1


def canonical(value: Any) -> bytes:
    """RFC 8785 canonical JSON bytes (raises rfc8785 errors on out-of-range numbers).

    Envelopes, payloads and receipts hold only dicts with ASCII keys, lists, strings, safe
    integers, booleans and null. For those, orjson with sorted keys writes exactly the RFC 8785
    bytes (same escapes, same key order, integers as digits), about nine times faster than the
    pure-Python `rfc8785`; everything else (floats, big integers, non-ASCII keys, lone
    surrogates, other types) goes to `rfc8785`. tests/test_signing.py checks the two agree on
    arbitrary JSON values."""
    if _plain_json(value):
        try:
            return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
        except orjson.JSONEncodeError:  # a lone surrogate, or nesting deeper than orjson's
            pass
    return rfc8785.dumps(value)


def _plain_json(value: Any) -> bool:
    """True if `value` holds only what orjson writes in RFC 8785 form (see `canonical`)."""
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is str or kind is bool or item is None:
            continue
        if kind is int:
            if not -MAX_SAFE_INTEGER <= item <= MAX_SAFE_INTEGER:
                return False
        elif kind is dict:
            for key in item:
                if type(key) is not str or not key.isascii():
                    return False
            stack.extend(item.values())
        elif kind is list:
            stack.extend(item)
        else:
            return False
    return True


def move_message(payload: dict[str, Any]) -> bytes:
    """The exact bytes a player signs for a move."""
    return MOVE_PREFIX + canonical(payload)


def sign_payload(private_key: Ed25519PrivateKey, payload: dict[str, Any]) -> str:
    return b64url_encode(ed25519_sign(private_key, move_message(payload)))


# Ed25519 through libsodium (PyNaCl): verification in about half the time of OpenSSL's
# (54 against 105-138 µs on the project's 2-core machine), signing in about half (20 against
# 42 µs); every move costs one verification and one signature (its receipt). Keys stay
# `cryptography` objects everywhere else (PEM files, generation). Ed25519 signatures are
# deterministic, so both libraries sign the same bytes; libsodium also refuses small-order
# keys and non-canonical encodings, so what it accepts OpenSSL accepts too.


def ed25519_sign(private_key: Ed25519PrivateKey, message: bytes) -> bytes:
    return _signing_key(private_key.private_bytes_raw()).sign(message).signature


def ed25519_verify(public_key: bytes, signature: bytes, message: bytes) -> bool:
    """True if `signature` is `public_key`'s Ed25519 signature of `message`."""
    if len(public_key) != 32 or len(signature) != 64:
        return False
    try:
        nacl.bindings.crypto_sign_open(signature + message, public_key)
    except (nacl.exceptions.CryptoError, ValueError, TypeError):
        return False
    return True


@functools.lru_cache(maxsize=16)
def _signing_key(seed: bytes) -> nacl.signing.SigningKey:
    return nacl.signing.SigningKey(seed)


def key_claim(public_key: str, *, name: str | None = None, player: str | None = None
              ) -> dict[str, str]:
    """What a key signs to prove it is held by whoever registers it: for a new player its
    name, for a key added to a player that player's id, and the public key itself."""
    claim = {"public_key": public_key}
    if name is not None:
        claim["name"] = name
    if player is not None:
        claim["player"] = player
    return claim


def sign_key_claim(private_key: Ed25519PrivateKey, claim: dict[str, str]) -> str:
    return b64url_encode(ed25519_sign(private_key, KEY_PREFIX + canonical(claim)))


def verify_key_claim(claim: dict[str, str], proof: str) -> bool:
    """The proof is the claim's public key's signature over the claim."""
    try:
        return ed25519_verify(b64url_decode(claim["public_key"]), b64url_decode(proof),
                              KEY_PREFIX + canonical(claim))
    except ValueError:
        return False


def consent_statement(player: str, mail_moves: bool, issued_at: str) -> dict[str, Any]:
    """What a player signs to allow (or stop) moves made from their mail replies."""
    return {"player": player, "scope": CONSENT_SCOPE, "mail_moves": mail_moves,
            "issued_at": issued_at}


def sign_consent(private_key: Ed25519PrivateKey, statement: dict[str, Any]) -> str:
    return b64url_encode(ed25519_sign(private_key, CONSENT_PREFIX + canonical(statement)))


def verify_consent(public_key: bytes, statement: dict[str, Any], signature: str) -> bool:
    try:
        return ed25519_verify(public_key, b64url_decode(signature),
                              CONSENT_PREFIX + canonical(statement))
    except ValueError:
        return False


def join_statement(game: str, player: str, client_seed: str, issued_at: str) -> dict[str, str]:
    """What a player signs to take a seat in `game` with the client seed they chose."""
    return {"game": game, "player": player, "client_seed": client_seed,
            "issued_at": issued_at}


def sign_join(private_key: Ed25519PrivateKey, statement: dict[str, Any]) -> str:
    return b64url_encode(ed25519_sign(private_key, JOIN_PREFIX + canonical(statement)))


def verify_join(public_key: bytes, statement: dict[str, Any], signature: str) -> bool:
    try:
        return ed25519_verify(public_key, b64url_decode(signature),
                              JOIN_PREFIX + canonical(statement))
    except (ValueError, TypeError, UnicodeEncodeError):
        return False


def client_seed_ok(seed: Any) -> bool:
    """A client seed: a string of 1 to MAX_CLIENT_SEED code points that is Unicode text (no
    unpaired surrogate, which has no UTF-8 bytes to enter the dice with)."""
    if not isinstance(seed, str) or not 1 <= len(seed) <= MAX_CLIENT_SEED:
        return False
    try:
        seed.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def whole_seconds(issued_at: Any) -> bool:
    """An RFC 3339 moment without a fraction of a second (what the server stamps on a
    mail-authorised entry, so it cannot grind the entry's signature by the microsecond)."""
    return parse_issued_at(issued_at) is not None and "." not in issued_at


def verify_payload(public_key: bytes, payload: dict[str, Any], signature: str) -> bool:
    """True if `signature` (base64url) is a valid Ed25519 signature of the payload."""
    try:
        return ed25519_verify(public_key, b64url_decode(signature), move_message(payload))
    except ValueError:
        return False


def nonce_message(payload: dict[str, Any], repeat: int = 0) -> bytes:
    """The bytes a player signs to derive a move's nonce: the payload's game, seat, step and
    move, nothing else (not the nonce, not `issued_at`); a repeat of the very same move at
    the same step (repeat >= 1, docs/audit.md §6) adds its number as `repeat`."""
    covered = {name: payload[name] for name in NONCE_MEMBERS}
    if repeat:
        covered["repeat"] = repeat
    return NONCE_PREFIX + canonical(covered)


def derive_nonce(private_key: Ed25519PrivateKey, payload: dict[str, Any],
                 repeat: int = 0) -> str:
    """The move's derived nonce: base64url of the Ed25519 signature of `nonce_message` (64
    bytes, 86 characters), followed for a repeat by one byte, its number (65 bytes). Ed25519
    is deterministic, so signing the same move at the same step again gives the same nonce."""
    if not 0 <= repeat <= MAX_REPEAT:
        raise ValueError(f"a repeat is 0 to {MAX_REPEAT}")
    raw = ed25519_sign(private_key, nonce_message(payload, repeat))
    return b64url_encode(raw + (bytes([repeat]) if repeat else b""))


def nonce_repeat(nonce: Any) -> int | None:
    """The repeat a derived nonce names by its length: 0 for 64 bytes, the last byte (1 to
    255) for 65; None for a nonce that cannot be a derived one."""
    try:
        raw = b64url_decode(nonce)
    except ValueError:
        return None
    if len(raw) == 64:
        return 0
    if len(raw) == 65 and raw[64] >= 1:
        return raw[64]
    return None


def is_derived_nonce(public_key: bytes, payload: dict[str, Any]) -> bool:
    """True if the payload's nonce is its derived nonce with this (raw) public key."""
    nonce = payload.get("nonce")
    repeat = nonce_repeat(nonce)
    if repeat is None:
        return False
    try:
        return ed25519_verify(public_key, b64url_decode(nonce)[:64],
                              nonce_message(payload, repeat))
    except (KeyError, TypeError, ValueError):  # a member missing, a value without JCS
        return False


def derives_nonces(platform: Any) -> bool:
    """Whether a game (its platform options) requires derived nonces of its players."""
    return isinstance(platform, dict) and platform.get("nonces") == DERIVED_NONCES


def player_signed(envelope: dict[str, Any]) -> bool:
    """Signed by a player's key, not by the server (a timeout action, a mail-authorised move)."""
    return envelope["key_id"] not in (SERVER_KEY_ID, MAIL_KEY_ID)


def roll_source(envelope: dict[str, Any], platform: Any) -> bytes:
    """The bytes a move's draw key is made from (`engines.rng.move_key`, docs/audit.md §3),
    for the server's resolve and the verifier's replay alike: in a game that requires derived
    nonces, a player-signed envelope's nonce, decoded (every signing of the same move at the
    same step has it, so a re-signed move rolls the same); else, and for the server's own
    entries in every game, the envelope's signature, decoded (64 bytes)."""
    if derives_nonces(platform) and player_signed(envelope):
        return b64url_decode(envelope["payload"]["nonce"])
    return b64url_decode(envelope["signature"])


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def envelope_digest(envelope: dict[str, Any]) -> str:
    """SHA-256 (hex) of the envelope's canonical JSON: how secret moves appear during play."""
    return sha256_hex(canonical(envelope))


def chain_hash(previous: str, digest: str) -> str:
    """entry_hash(n) = SHA-256(entry_hash(n-1) as hex || envelope digest as hex); entry 0 is ''."""
    return sha256_hex((previous + digest).encode("ascii"))


def state_digest(state: Any) -> str:
    """SHA-256 (hex) of the canonical JSON of an engine state.

    Engine states hold only str-keyed dicts, lists, str, int, bool and None, with ASCII keys; for
    those, sorted-key compact `json.dumps` (UTF-8) is byte-identical to RFC 8785 and much faster.
    """
    return sha256_hex(dump_state(state).encode("utf-8"))


def dump_state(state: Any) -> str:
    """The stored form of a state: canonical compact JSON (see `state_digest`).

    orjson with sorted keys gives the same bytes as `json.dumps(state, sort_keys=True,
    separators=(",", ":"), ensure_ascii=False)` for what engine states may hold (tested over
    random playouts of every engine), about eight times faster."""
    return orjson.dumps(state, option=orjson.OPT_SORT_KEYS).decode("utf-8")


def load_json(text: str | bytes) -> Any:
    """Parse JSON the server wrote itself (states, stored envelopes): orjson, ~2x `json`.
    Untrusted request bodies go through `parse_json_strict` instead."""
    return orjson.loads(text)


def public_key_b64(private_key: Ed25519PrivateKey) -> str:
    from cryptography.hazmat.primitives import serialization

    raw = private_key.public_key().public_bytes(
        serialization.Encoding.Raw, serialization.PublicFormat.Raw
    )
    return b64url_encode(raw)


def sign_receipt(private_key: Ed25519PrivateKey, receipt: dict[str, Any]) -> str:
    """The server's signature of a receipt {game, seq, entry_hash, accepted_at}."""
    return b64url_encode(ed25519_sign(private_key, RECEIPT_PREFIX + canonical(receipt)))


def parse_json_strict(body: bytes) -> Any:
    """Parse JSON, rejecting duplicate object keys and non-finite numbers (ValueError).

    A body that orjson writes back byte for byte (compact JSON, as clients serialize with
    orjson or `separators=(",", ":")`) is taken from orjson, about five times faster: orjson
    writes each key of an object once and no NaN, so such a body repeats no key and holds no
    constant. Anything else (whitespace, escapes, floats written otherwise, numbers past 64
    bits, duplicates) is parsed by `json` with the checks below."""
    try:
        value = orjson.loads(body)
    except orjson.JSONDecodeError:
        pass
    else:
        try:
            if orjson.dumps(value) == body:
                return value
        except orjson.JSONEncodeError:  # nesting orjson reads but does not write
            pass
    return _parse_json_checked(body)


def _parse_json_checked(body: bytes) -> Any:
    def no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in pairs:
            if key in out:
                raise DuplicateKey(key)
            out[key] = value
        return out

    def no_constant(name: str) -> Any:
        raise ValueError(f"{name} is not JSON")

    return json.loads(body, object_pairs_hook=no_duplicates, parse_constant=no_constant)


class DuplicateKey(ValueError):
    """A JSON object repeats a key: ambiguous, so the envelope is refused (`malformed_move`)."""
