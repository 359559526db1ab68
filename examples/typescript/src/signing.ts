/**
 * Signed move envelopes, as the server checks them (README "Playing through the API", step 5).
 *
 * The signature is Ed25519 over the bytes `parley-move-v1\n` followed by the RFC 8785 (JCS)
 * canonical JSON of the payload. Keys, signatures and nonces are base64url without padding
 * (RFC 4648 section 5). Ed25519 is deterministic, so the same key and payload always give the
 * same signature: test/vectors.test.ts checks every case of docs/move-signing-vectors.json.
 *
 * Only Node's built-in `crypto` and the `canonicalize` package (RFC 8785) are used.
 */

import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  randomBytes,
  sign,
  verify,
  type KeyObject,
} from "node:crypto";
import canonicalize from "canonicalize";

import type { components } from "./generated/schema.js";

export type Payload = components["schemas"]["Payload"];
export type Envelope = components["schemas"]["Envelope"];
export type Move = Payload["move"];

export const MOVE_PREFIX = "parley-move-v1\n";
/** A key's proof of possession signs this prefix + JCS({name | player, public_key}). */
export const KEY_PREFIX = "parley-key-v1\n";

/** base64url without padding. */
export function b64urlEncode(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString("base64url");
}

/** Strict base64url without padding (Buffer.from alone would accept almost anything). */
export function b64urlDecode(text: string): Buffer {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) {
    throw new Error("not base64url without padding");
  }
  const raw = Buffer.from(text, "base64url");
  if (b64urlEncode(raw) !== text) {
    throw new Error("not canonical base64url");
  }
  return raw;
}

/** RFC 8785 canonical JSON text. Throws on what has no canonical form (NaN, lone surrogates). */
export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) {
    throw new Error("this value has no JSON form");
  }
  return text;
}

/** The exact bytes a player signs for a move. */
export function moveMessage(payload: Payload): Buffer {
  return Buffer.concat([Buffer.from(MOVE_PREFIX, "utf8"), Buffer.from(canonicalJson(payload), "utf8")]);
}

/** A new Ed25519 private key. */
export function generateKey(): KeyObject {
  return generateKeyPairSync("ed25519").privateKey;
}

/** The PKCS#8 DER header of an Ed25519 private key; the 32-byte seed follows it (RFC 8410). */
const PKCS8_ED25519_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");

/** The private key whose 32-byte seed is given (as in the test vectors). */
export function keyFromSeed(seed: Uint8Array): KeyObject {
  if (seed.length !== 32) {
    throw new Error(`an Ed25519 seed has 32 bytes, not ${seed.length}`);
  }
  return createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: "der", type: "pkcs8" });
}

/** The public key as the server registers it: base64url of the raw 32 bytes. */
export function publicKeyB64(privateKey: KeyObject): string {
  const jwk = createPublicKey(privateKey).export({ format: "jwk" });
  if (jwk.kty !== "OKP" || jwk.crv !== "Ed25519" || typeof jwk.x !== "string") {
    throw new Error("not an Ed25519 key");
  }
  return jwk.x; // a JWK's `x` is exactly the raw public key in base64url without padding
}

/**
 * Proof that whoever registers a public key holds its private half: the key's signature over
 * `parley-key-v1\n` + JCS of the claim, `{name, public_key}` for a new player or
 * `{player, public_key}` for a key added to a player.
 */
export function signKeyClaim(privateKey: KeyObject, claim: Record<string, string>): string {
  const message = Buffer.concat([Buffer.from(KEY_PREFIX, "utf8"), Buffer.from(canonicalJson(claim), "utf8")]);
  return b64urlEncode(sign(null, message, privateKey));
}

/** The signature of a payload, base64url. */
export function signPayload(privateKey: KeyObject, payload: Payload): string {
  return b64urlEncode(sign(null, moveMessage(payload), privateKey));
}

/** True if `signature` is a valid signature of `payload` by the public key (base64url). */
export function verifyPayload(publicKey: string, payload: Payload, signature: string): boolean {
  try {
    const key = createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: publicKey }, format: "jwk" });
    return verify(null, moveMessage(payload), key, b64urlDecode(signature));
  } catch {
    return false;
  }
}

/** The current UTC time to the second, as the reference client writes `issued_at`. */
export function utcNow(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
}

export interface EnvelopeFields {
  game: string;
  seat: number;
  step: number;
  move: Move;
  /** default: 16 fresh random bytes (the server requires at least 16 and never reuses one) */
  nonce?: string;
  /** default: now */
  issuedAt?: string;
}

/** A signed envelope for `POST /v1/games/{game}/moves`. */
export function signEnvelope(privateKey: KeyObject, keyId: string, fields: EnvelopeFields): Envelope {
  const payload: Payload = {
    game: fields.game,
    seat: fields.seat,
    step: fields.step,
    move: fields.move,
    nonce: fields.nonce ?? b64urlEncode(randomBytes(16)),
    issued_at: fields.issuedAt ?? utcNow(),
  };
  return { payload, key_id: keyId, signature: signPayload(privateKey, payload) };
}
