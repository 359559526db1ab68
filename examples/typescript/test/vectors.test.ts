/**
 * The move-signing vectors of the repository (docs/move-signing-vectors.json), reproduced byte
 * for byte by src/signing.ts: public key, canonical payload, signed message, signature.
 *
 * Run with `npm run test:vectors`. MOVE_SIGNING_VECTORS=path reads another vector file.
 */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, test } from "node:test";

import {
  b64urlDecode,
  b64urlEncode,
  canonicalJson,
  deriveNonce,
  isDerivedNonce,
  keyFromSeed,
  moveMessage,
  nonceMessage,
  publicKeyB64,
  signEnvelope,
  signPayload,
  verifyPayload,
  type Envelope,
  type Payload,
} from "../src/signing.js";

interface VectorCase {
  private_key_seed_hex: string;
  public_key: string;
  payload: Payload;
  canonical_payload_utf8: string;
  signed_message_hex: string;
  signature: string;
  envelope: Envelope;
}

// compiled to dist/test/, four levels below the repository root
const path =
  process.env.MOVE_SIGNING_VECTORS ??
  fileURLToPath(new URL("../../../../docs/move-signing-vectors.json", import.meta.url));
interface DerivedCase extends VectorCase {
  repeat: number;
  nonce_input: Record<string, unknown>;
  nonce_message_hex: string;
  nonce: string;
  roll_source_hex: string;
}

const file = JSON.parse(readFileSync(path, "utf8")) as { cases: VectorCase[]; derived_nonce_cases?: DerivedCase[] };
const cases = file.cases;
const derived = file.derived_nonce_cases ?? [];

describe(`move-signing vectors (${path})`, () => {
  test("the file has cases", () => {
    assert.ok(Array.isArray(cases) && cases.length > 0, "no vector cases found");
  });

  for (const c of cases) {
    test(`vector ${c.payload.game} (seat ${c.payload.seat}, step ${c.payload.step})`, () => {
      const key = keyFromSeed(Buffer.from(c.private_key_seed_hex, "hex"));
      assert.equal(publicKeyB64(key), c.public_key, "public key");
      assert.equal(canonicalJson(c.payload), c.canonical_payload_utf8, "canonical payload");
      assert.equal(moveMessage(c.payload).toString("hex"), c.signed_message_hex, "signed message");
      assert.equal(signPayload(key, c.payload), c.signature, "signature");
      assert.equal(c.envelope.signature, c.signature, "the vector's envelope carries the signature");
      assert.ok(verifyPayload(c.public_key, c.payload, c.signature), "signature verifies");
      const rebuilt = signEnvelope(key, c.envelope.key_id, {
        game: c.payload.game,
        seat: c.payload.seat,
        step: c.payload.step,
        move: c.payload.move,
        nonce: c.payload.nonce,
        issuedAt: c.payload.issued_at,
      });
      assert.deepEqual(rebuilt, c.envelope, "the whole envelope");
    });
  }

  test("a changed payload no longer verifies", () => {
    const c = cases[0];
    assert.ok(c);
    const changed: Payload = { ...c.payload, step: c.payload.step + 1 };
    assert.equal(verifyPayload(c.public_key, changed, c.signature), false);
  });
});

describe(`derived nonces (${path})`, () => {
  test("the file has derived-nonce cases", () => {
    assert.ok(derived.length > 0, "no derived_nonce_cases found");
  });

  for (const c of derived) {
    test(`derived nonce ${c.payload.game} (step ${c.payload.step}, repeat ${c.repeat})`, () => {
      const key = keyFromSeed(Buffer.from(c.private_key_seed_hex, "hex"));
      assert.equal(nonceMessage(c.payload, c.repeat).toString("hex"), c.nonce_message_hex, "nonce message");
      assert.equal(deriveNonce(key, c.payload, c.repeat), c.nonce, "nonce");
      assert.equal(b64urlDecode(c.nonce).toString("hex"), c.roll_source_hex, "the bytes that key the dice");
      assert.ok(isDerivedNonce(c.public_key, c.payload), "anyone can check it with the public key");
      const later = { ...c.payload, issued_at: "2027-01-01T00:00:00Z" };
      assert.ok(isDerivedNonce(c.public_key, later), "issued_at is not covered");
      assert.equal(isDerivedNonce(c.public_key, { ...c.payload, step: c.payload.step + 1 }), false);
      const rebuilt = signEnvelope(key, c.envelope.key_id, {
        game: c.payload.game,
        seat: c.payload.seat,
        step: c.payload.step,
        move: c.payload.move,
        repeat: c.repeat,
        issuedAt: c.payload.issued_at,
      });
      assert.deepEqual(rebuilt, c.envelope, "the whole envelope, its nonce derived by default");
    });
  }
});

describe("base64url and canonical JSON", () => {
  test("base64url is strict, without padding", () => {
    assert.deepEqual(b64urlDecode("AAECAw"), Buffer.from([0, 1, 2, 3]));
    assert.equal(b64urlEncode(Buffer.from([0xfb, 0xff])), "-_8");
    for (const bad of ["AAECAw==", "AA+/", "A", "AAECAx"]) {
      assert.throws(() => b64urlDecode(bad), Error, bad);
    }
  });

  test("keys sort by UTF-16 code units, numbers in their shortest form", () => {
    assert.equal(canonicalJson({ b: 1, a: [1.5, 1e21, -0], "\u00e9": "\u20ac", A: null }),
      '{"A":null,"a":[1.5,1e+21,0],"b":1,"\u00e9":"\u20ac"}');
  });

  test("values without a canonical form are refused", () => {
    assert.throws(() => canonicalJson({ x: Number.NaN }));
    assert.throws(() => canonicalJson({ x: "\ud800" }));
    assert.throws(() => canonicalJson(undefined));
  });
});
