"""docs/audit-vectors.json: the implementation reproduces every vector, and so does a second,
independent implementation written from docs/audit.md with nothing but hashlib and hmac.

The vectors are produced by the real code (`engines.rng`, `parley_protocol.signing`, the Stratego
engine); regenerate them after a deliberate change with `python -m tests.test_audit_vectors`.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from parley_protocol import signing
from parley_protocol.verify import verify_bundle

from engines.registry import get_engine
from engines.rng import AuditedRng, game_seed, move_key, start_key
from service.domain.audit_bundle import bundle_draw

VECTORS = Path(__file__).resolve().parents[1] / "docs" / "audit-vectors.json"

SERVER_SEED = bytes(range(32))
GAME_ID = "g_0123456789ab"
CLIENT_SEEDS = ["ann's seed", "zoë 🎲"]
SIGNATURE = bytes(range(64, 128))
RANGES = [(1, 6), (1, 6), (0, 0), (0, 2**31), (-5, 5), (0, 2**31), (0, 2**32 - 1),
          (0, 2**31), (1, 100), (0, 2**31), (0, 2**31), (0, 51)]
SHUFFLE_ITEMS = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"]
TIME = "2026-11-22T12:00:00Z"


def _key(label: str) -> Ed25519PrivateKey:
    return Ed25519PrivateKey.from_private_bytes(hashlib.sha256(label.encode()).digest())


class _Recording(AuditedRng):
    """The audited stream, also remembering every 32-bit word it reads (rejected ones too)."""

    def __init__(self, key: bytes) -> None:
        super().__init__(key)
        self.words: list[int] = []

    def _word(self) -> int:
        w = super()._word()
        self.words.append(w)
        return w


# ---- the generator: the real code ----------------------------------------------------------


def _seeds() -> dict[str, Any]:
    seed = game_seed(SERVER_SEED, GAME_ID, CLIENT_SEEDS)
    return {
        "server_seed_hex": SERVER_SEED.hex(),
        "commitment": signing.sha256_hex(SERVER_SEED),
        "game_id": GAME_ID,
        "client_seeds": CLIENT_SEEDS,
        "game_seed_message_hex": (b"parley-dice-v1"
                                  + signing.canonical([GAME_ID, *CLIENT_SEEDS])).hex(),
        "game_seed_hex": seed.hex(),
        "start_key_hex": start_key(seed).hex(),
        "move_signature": signing.b64url_encode(SIGNATURE),
        "move_key_hex": move_key(seed, SIGNATURE).hex(),
    }


def _stream(key: bytes) -> dict[str, Any]:
    blocks = [hmac.new(key, i.to_bytes(8, "big"), hashlib.sha256).hexdigest() for i in range(3)]
    rng = _Recording(key)
    words = [rng._word() for _ in range(10)]
    return {"key_hex": key.hex(), "blocks_hex": blocks, "words": words}


def _randints(key: bytes) -> dict[str, Any]:
    rng = _Recording(key)
    draws = []
    for lo, hi in RANGES:
        before = len(rng.words)
        result = rng.randint("vector", lo, hi)
        draws.append({"lo": lo, "hi": hi, "result": result, "words": rng.words[before:]})
    assert any(len(d["words"]) > 1 for d in draws), "no rejection in the sequence"
    return {"key_hex": key.hex(), "draws": draws}


def _shuffle(key: bytes) -> dict[str, Any]:
    rng = _Recording(key)
    result = rng.shuffle("vector", SHUFFLE_ITEMS)
    return {"key_hex": key.hex(), "items": SHUFFLE_ITEMS, "result": result,
            "words": rng.words}


def _state_hash() -> dict[str, Any]:
    state = {"step": 3, "phase": "play", "board": {"a4": "r1", "j7": "b3"}, "to_act": [1],
             "name": "zoë", "result": None, "flags": [True, False]}
    return {"state": state, "canonical_utf8": signing.canonical(state).decode("utf-8"),
            "hash": signing.state_digest(state)}


def _envelope(key: Ed25519PrivateKey, key_id: str, seat: int, step: int, move: dict,
              n: int) -> dict[str, Any]:
    nonce = signing.b64url_encode(hashlib.sha256(f"nonce {n}".encode()).digest()[:16])
    payload = {"game": GAME_ID, "seat": seat, "step": step, "move": move, "nonce": nonce,
               "issued_at": TIME}
    return {"payload": payload, "key_id": key_id,
            "signature": signing.sign_payload(key, payload)}


def _chain_and_receipt() -> dict[str, Any]:
    ann = _key("vector player ann")
    envelopes = [_envelope(ann, "k_ann", 0, 5, {"type": "move", "from": "a4", "to": "a5"}, 1),
                 _envelope(ann, "k_ann", 0, 6, {"type": "resign"}, 2)]
    chain, entries = "", []
    for seq, env in enumerate(envelopes, 1):
        digest = signing.envelope_digest(env)
        chain = signing.chain_hash(chain, digest)
        entries.append({"seq": seq, "envelope": env,
                        "canonical_utf8": signing.canonical(env).decode("utf-8"),
                        "digest": digest, "entry_hash": chain})
    server = _key("vector server")
    body = {"game": GAME_ID, "seq": 2, "entry_hash": chain, "accepted_at": TIME}
    receipt = {"server_private_key_seed_hex": hashlib.sha256(b"vector server").hexdigest(),
               "server_public_key": signing.public_key_b64(server), "body": body,
               "signed_message_hex": (signing.RECEIPT_PREFIX + signing.canonical(body)).hex(),
               "signature": signing.sign_receipt(server, body)}
    return {"player_public_key": signing.public_key_b64(ann), "entries": entries,
            "receipt": receipt}


def _example_bundle() -> dict[str, Any]:
    """A whole, tiny finished game (Duel: two setups, one move, a resign), as the server
    publishes it; `parley verify` must accept it."""
    engine = get_engine("stratego")
    seed = game_seed(SERVER_SEED, GAME_ID, CLIENT_SEEDS)
    joined = ["p_ann", "p_bob"]
    keys = {"p_ann": ("k_ann", _key("vector player ann")),
            "p_bob": ("k_bob", _key("vector player bob"))}
    rng = AuditedRng(start_key(seed))
    players = rng.shuffle("seat-order", joined)
    options = {"army": "duel"}
    state = engine.setup(options, 2, rng)
    draws = [{"index": i, "step": 0, "seq": 0, **d} for i, d in enumerate(rng.draws)]
    hashes = [{"seq": 0, "hash": signing.state_digest(state)}]
    setup = {"a1": "flag", "b1": "bomb", "a2": "bomb", "b2": "spy", "c1": "scout",
             "a3": "scout", "c2": "miner", "b3": "miner", "d1": "general", "a4": "marshal"}
    mirrored = {sq[0] + str(11 - int(sq[1:])): piece for sq, piece in setup.items()}
    moves = [(0, {"type": "setup", "placement": setup}),
             (1, {"type": "setup", "placement": mirrored}),
             (0, {"type": "move", "from": "a4", "to": "a5"}), (1, {"type": "resign"})]
    entries, chain = [], ""
    for seq, (seat, move) in enumerate(moves, 1):
        key_id, key = keys[players[seat]]
        step = engine.decision(state)["step"]
        env = _envelope(key, key_id, seat, step, move, 100 + seq)
        rng = AuditedRng(move_key(seed, signing.b64url_decode(env["signature"])))
        state, _ = engine.apply(state, seat, move, rng)
        draws += [{"index": len(draws) + i, "step": step, "seq": seq, **d}
                  for i, d in enumerate(rng.draws)]
        hashes.append({"seq": seq, "hash": signing.state_digest(state)})
        digest = signing.envelope_digest(env)
        chain = signing.chain_hash(chain, digest)
        entries.append({"seq": seq, "accepted_at": TIME, "entry_hash": chain,
                        "digest": digest, "status": "applied", "envelope": env})
    for d in draws:
        d.pop("secret")
    server = _key("vector server")
    bundle = {
        "format": "parley-audit-v1", "game": GAME_ID, "ruleset": "stratego",
        "options": options, "platform": {"seat_order": "random"}, "seats": 2,
        "status": "finished",
        "players": [{"seat": s, "player": p,
                     "keys": {keys[p][0]: signing.public_key_b64(keys[p][1])}}
                    for s, p in enumerate(players)],
        "commitment": signing.sha256_hex(SERVER_SEED), "server_seed": SERVER_SEED.hex(),
        "client_seeds": CLIENT_SEEDS, "joined": joined, "entries": entries, "draws": draws,
        "state_hashes": hashes, "result": engine.result(state),
        "server_key": signing.public_key_b64(server),
        "joins": [_join(i, pid, keys[pid], seed)
                  for i, (pid, seed) in enumerate(zip(joined, CLIENT_SEEDS, strict=True))],
    }
    message = signing.BUNDLE_PREFIX + signing.canonical(bundle)
    bundle["signature"] = signing.b64url_encode(server.sign(message))
    return {"signed_message_sha256": hashlib.sha256(message).hexdigest(), "bundle": bundle}


def _join(seat: int, player: str, key: tuple[str, Ed25519PrivateKey], seed: str
          ) -> dict[str, Any]:
    """A player's signed join of provisional seat `seat` (docs/audit.md §18)."""
    statement = signing.join_statement(GAME_ID, player, seed, TIME)
    return {"seat": seat, "statement": statement, "key_id": key[0],
            "signature": signing.sign_join(key[1], statement)}


def build_vectors() -> dict[str, Any]:
    seeds = _seeds()
    start, moves = bytes.fromhex(seeds["start_key_hex"]), bytes.fromhex(seeds["move_key_hex"])
    return {
        "description": "Test vectors of docs/audit.md (Parley's audited randomness, envelope "
                       "chain, receipts, state hash and audit bundle), produced by the real "
                       "code. Byte strings are lowercase hex (*_hex) or base64url without "
                       "padding (keys, signatures); words are 32-bit unsigned integers.",
        "seeds": seeds,
        "stream": _stream(start),
        "randint": _randints(start),
        "shuffle": _shuffle(moves),
        "state_hash": _state_hash(),
        "chain": _chain_and_receipt(),
        "example_bundle": _example_bundle(),
        "secret_draw": _secret_draw(),
    }


def _secret_draw() -> dict[str, Any]:
    """A secret shuffle as drawn, as a running game's bundle shows it, and after the end."""
    rng = AuditedRng(bytes.fromhex(_seeds()["move_key_hex"]))
    rng.shuffle("hand-order", ["rum-01", "pistol-02", "hook-03"], secret=True)
    drawn = {"index": 0, "step": 3, "seq": 4, **rng.draws[0]}
    return {"as_drawn": dict(drawn),
            "during_play": bundle_draw(dict(drawn), finished=False),
            "after_the_end": bundle_draw(dict(drawn), finished=True)}


def write_vectors() -> None:
    VECTORS.write_text(json.dumps(build_vectors(), indent=2, ensure_ascii=False) + "\n",
                       encoding="utf-8")


# ---- a second implementation, from docs/audit.md alone -------------------------------------


def _jcs(value: Any) -> bytes:
    """RFC 8785 for these vectors' values (no floats; object keys are ASCII)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False).encode("utf-8")


def _hmac(key: bytes, msg: bytes) -> bytes:
    return hmac.new(key, msg, hashlib.sha256).digest()


class _SpecStream:
    def __init__(self, key: bytes) -> None:
        self.key, self.counter, self.words = key, 0, []

    def word(self) -> int:
        if not self.words:
            block = _hmac(self.key, self.counter.to_bytes(8, "big"))
            self.counter += 1
            self.words = [int.from_bytes(block[i:i + 4], "big") for i in range(0, 32, 4)]
        return self.words.pop(0)

    def below(self, n: int) -> int:
        if n == 1:
            return 0
        limit = 2**32 - 2**32 % n
        while (w := self.word()) >= limit:
            pass
        return w % n


@pytest.fixture(scope="module")
def vectors() -> dict[str, Any]:
    return json.loads(VECTORS.read_text(encoding="utf-8"))


def test_the_file_is_what_the_code_produces(vectors) -> None:
    assert vectors == build_vectors(), "run `python -m tests.test_audit_vectors` and review"


def test_seeds_and_keys_from_the_spec(vectors) -> None:
    v = vectors["seeds"]
    server_seed = bytes.fromhex(v["server_seed_hex"])
    assert hashlib.sha256(server_seed).hexdigest() == v["commitment"]
    message = b"parley-dice-v1" + _jcs([v["game_id"], *v["client_seeds"]])
    assert message.hex() == v["game_seed_message_hex"]
    seed = _hmac(server_seed, message)
    assert seed.hex() == v["game_seed_hex"]
    assert _hmac(seed, b"parley-start-v1\n").hex() == v["start_key_hex"]
    signature = signing.b64url_decode(v["move_signature"])
    assert _hmac(seed, b"parley-move-draws-v1\n" + signature).hex() == v["move_key_hex"]


def test_stream_randint_and_shuffle_from_the_spec(vectors) -> None:
    v = vectors["stream"]
    key = bytes.fromhex(v["key_hex"])
    assert [_hmac(key, i.to_bytes(8, "big")).hex() for i in range(3)] == v["blocks_hex"]
    s = _SpecStream(key)
    assert [s.word() for _ in v["words"]] == v["words"]
    s = _SpecStream(bytes.fromhex(vectors["randint"]["key_hex"]))
    for d in vectors["randint"]["draws"]:
        assert d["lo"] + s.below(d["hi"] - d["lo"] + 1) == d["result"], d
    v = vectors["shuffle"]
    s = _SpecStream(bytes.fromhex(v["key_hex"]))
    items = list(v["items"])
    for i in range(len(items) - 1, 0, -1):
        j = s.below(i + 1)
        items[i], items[j] = items[j], items[i]
    assert items == v["result"]


def test_rejection_sampling_is_exercised(vectors) -> None:
    draws = vectors["randint"]["draws"]
    rejected = [d for d in draws if len(d["words"]) > 1]
    assert rejected and all(w >= 2**32 - 2**32 % (d["hi"] - d["lo"] + 1)
                            for d in rejected for w in d["words"][:-1])
    assert next(d for d in draws if d["lo"] == d["hi"])["words"] == []


def test_chain_receipt_and_state_hash_from_the_spec(vectors) -> None:
    chain = ""
    for e in vectors["chain"]["entries"]:
        assert _jcs(e["envelope"]).decode() == e["canonical_utf8"]
        assert hashlib.sha256(_jcs(e["envelope"])).hexdigest() == e["digest"]
        chain = hashlib.sha256((chain + e["digest"]).encode()).hexdigest()
        assert chain == e["entry_hash"]
        public = signing.b64url_decode(vectors["chain"]["player_public_key"])
        assert signing.verify_payload(public, e["envelope"]["payload"],
                                      e["envelope"]["signature"])
    r = vectors["chain"]["receipt"]
    assert (b"parley-receipt-v1\n" + _jcs(r["body"])).hex() == r["signed_message_hex"]
    server = Ed25519PrivateKey.from_private_bytes(
        bytes.fromhex(r["server_private_key_seed_hex"]))
    assert signing.public_key_b64(server) == r["server_public_key"]
    assert signing.b64url_encode(server.sign(bytes.fromhex(r["signed_message_hex"]))) == \
        r["signature"]
    v = vectors["state_hash"]
    assert _jcs(v["state"]).decode() == v["canonical_utf8"]
    assert hashlib.sha256(_jcs(v["state"])).hexdigest() == v["hash"]


def test_example_bundle_verifies(vectors) -> None:
    example = vectors["example_bundle"]
    bundle = example["bundle"]
    unsigned = {k: v for k, v in bundle.items() if k != "signature"}
    assert hashlib.sha256(b"parley-audit-v1\n" + _jcs(unsigned)).hexdigest() == \
        example["signed_message_sha256"]
    report = verify_bundle(bundle)
    assert report.ok, report.failure
    assert report.joins_signed is True
    join = bundle["joins"][1]  # the message a join signs, from the spec (§18)
    listed = {key_id: key for p in bundle["players"] for key_id, key in p["keys"].items()}
    public = signing.b64url_decode(listed[join["key_id"]])
    assert signing.ed25519_verify(public, signing.b64url_decode(join["signature"]),
                                  b"parley-join-v1\n" + _jcs(join["statement"]))
    bundle["entries"][2]["envelope"]["payload"]["move"]["to"] = "b4"
    assert not verify_bundle(bundle).ok


def test_a_secret_draw_is_redacted_in_full_during_play(vectors) -> None:
    secret = vectors["secret_draw"]
    assert secret["as_drawn"]["secret"] is True and secret["as_drawn"]["params"]["items"]
    assert secret["during_play"] == {"index": 0, "step": 3, "seq": 4, "purpose": "hand-order",
                                     "kind": "shuffle", "params": None, "result": None,
                                     "redacted": True}
    after = secret["after_the_end"]
    assert "secret" not in after and "redacted" not in after
    assert sorted(after["result"]) == sorted(after["params"]["items"])


if __name__ == "__main__":
    write_vectors()
    sys.stdout.write(f"wrote {VECTORS}\n")

