/**
 * Signed move envelopes, as the server checks them (README "Playing through the API", step 5).
 *
 * The signature is Ed25519 over the bytes `parley-move-v1\n` followed by the RFC 8785 (JCS)
 * canonical JSON of the payload. Keys, signatures and nonces are base64url without padding
 * (RFC 4648 section 5). Ed25519 is deterministic, so the same key and payload always give the
 * same signature: test/vectors.test.ts checks every case of docs/move-signing-vectors.json.
 * A move's nonce is derived the same way (`deriveNonce`, docs/audit.md §6).
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
/** A move's derived nonce signs this prefix + JCS({game, seat, step, move}) (docs/audit.md §6). */
export const NONCE_PREFIX = "parley-nonce-v1\n";
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

/** A join's statement signs this prefix + JCS(statement) (docs/audit.md §18). */
export const JOIN_PREFIX = "parley-join-v1\n";

/** The signed part of a join: `{game, player, client_seed, issued_at}` (a type, not an
 * interface, so that it fits the API's `statement`, an object of any members). */
export type JoinStatement = {
  game: string;
  player: string;
  client_seed: string;
  issued_at: string;
};

/**
 * The body of `POST /v1/games/{game}/join` without `seat`: the player takes the seat with a
 * client seed of its own choosing (16 fresh random bytes, base64url), mixed into the game's
 * dice, and signs that choice with its key so that the audit bundle shows it chose the seed.
 */
export function signJoin(privateKey: KeyObject, keyId: string, game: string, player: string,
                         clientSeed: string = b64urlEncode(randomBytes(16))):
    { statement: JoinStatement; key_id: string; signature: string } {
  const statement: JoinStatement = { game, player, client_seed: clientSeed, issued_at: utcNow() };
  const message = Buffer.concat([Buffer.from(JOIN_PREFIX, "utf8"), Buffer.from(canonicalJson(statement), "utf8")]);
  return { statement, key_id: keyId, signature: b64urlEncode(sign(null, message, privateKey)) };
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

/** The payload members a derived nonce covers. */
export interface NonceInput {
  game: string;
  seat: number;
  step: number;
  move: Move;
}

/**
 * The bytes signed for a move's derived nonce: the prefix + JCS of the game, seat, step and
 * move (never `issued_at`), and `repeat` when the very same move is made once more at one step.
 */
export function nonceMessage(input: NonceInput, repeat = 0): Buffer {
  const covered: Record<string, unknown> = { game: input.game, seat: input.seat, step: input.step, move: input.move };
  if (repeat) covered.repeat = repeat;
  return Buffer.concat([Buffer.from(NONCE_PREFIX, "utf8"), Buffer.from(canonicalJson(covered), "utf8")]);
}

/**
 * The move's derived nonce: base64url of the key's Ed25519 signature of `nonceMessage` (64 bytes,
 * 86 characters), then for a repeat (1 to 255) one more byte, its number. Ed25519 is
 * deterministic: the same move at the same step always gets the same nonce, and in a game with
 * `platform.nonces: "derived"` (every new one) the same dice, however often it is signed.
 */
export function deriveNonce(privateKey: KeyObject, input: NonceInput, repeat = 0): string {
  if (!Number.isInteger(repeat) || repeat < 0 || repeat > 255) throw new Error("a repeat is 0 to 255");
  const signature = sign(null, nonceMessage(input, repeat), privateKey);
  return b64urlEncode(repeat ? Buffer.concat([signature, Buffer.from([repeat])]) : signature);
}

/** True if the payload's nonce is its derived nonce with this public key (base64url). */
export function isDerivedNonce(publicKey: string, payload: Payload): boolean {
  try {
    const raw = b64urlDecode(payload.nonce);
    const repeat = raw.length === 65 ? (raw[64] ?? 0) : 0;
    if (raw.length !== 64 && (raw.length !== 65 || repeat < 1)) return false;
    const key = createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: publicKey }, format: "jwk" });
    return verify(null, nonceMessage(payload, repeat), key, raw.subarray(0, 64));
  } catch {
    return false;
  }
}

export interface EnvelopeFields {
  game: string;
  seat: number;
  step: number;
  move: Move;
  /** default: the derived nonce (`deriveNonce`), which every game made today requires */
  nonce?: string;
  /** the very same move made once more at this step: 1, 2, ... (default 0) */
  repeat?: number;
  /** default: now */
  issuedAt?: string;
}

/**
 * A signed envelope for `POST /v1/games/{game}/moves`. Sign a move once and post that very
 * envelope until an answer comes (`postMove` in api.ts): signing it again gives the same nonce,
 * which the server refuses as `duplicate_nonce` once it holds the first.
 */
export function signEnvelope(privateKey: KeyObject, keyId: string, fields: EnvelopeFields): Envelope {
  const payload: Payload = {
    game: fields.game,
    seat: fields.seat,
    step: fields.step,
    move: fields.move,
    nonce: fields.nonce ?? deriveNonce(privateKey, fields, fields.repeat ?? 0),
    issued_at: fields.issuedAt ?? utcNow(),
  };
  return { payload, key_id: keyId, signature: signPayload(privateKey, payload) };
}
