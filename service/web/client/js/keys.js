// The player's Ed25519 key: made, kept and used only in this browser (docs/client.md).
// The key is generated extractable once, so that its backup (PKCS#8 PEM, the CLI's key file)
// can be offered; what IndexedDB keeps is a non-extractable re-import of it, which page code
// can sign with but never read out again.
import { canonical } from "./jcs.js";

const ALG = { name: "Ed25519" };
const DB = "parley", STORE = "account";

export function b64url(bytes) {
  let text = "";
  for (const b of new Uint8Array(bytes)) text += String.fromCharCode(b);
  return btoa(text).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

export function randomB64url(n) {
  return b64url(crypto.getRandomValues(new Uint8Array(n)));
}

const enc = (text) => new TextEncoder().encode(text);

function pem(der) {
  const body = b64url(der).replaceAll("-", "+").replaceAll("_", "/");
  const padded = body + "=".repeat((4 - (body.length % 4)) % 4);
  return "-----BEGIN PRIVATE KEY-----\n" + padded.match(/.{1,64}/g).join("\n")
    + "\n-----END PRIVATE KEY-----\n";
}

function unpem(text) {
  const m = /-----BEGIN PRIVATE KEY-----([\s\S]+?)-----END PRIVATE KEY-----/.exec(text);
  if (!m) throw new Error("not a PEM private key (PKCS#8)");
  return Uint8Array.from(atob(m[1].replace(/\s+/g, "")), (c) => c.charCodeAt(0));
}

/** A new key: the non-extractable signing key, its public half, and the PEM backup. */
export async function newKey() {
  const pair = await crypto.subtle.generateKey(ALG, true, ["sign", "verify"]);
  const der = await crypto.subtle.exportKey("pkcs8", pair.privateKey);
  const publicKey = b64url(await crypto.subtle.exportKey("raw", pair.publicKey));
  const privateKey = await crypto.subtle.importKey("pkcs8", der, ALG, false, ["sign"]);
  return { privateKey, publicKey, backup: pem(der) };
}

/** A backup PEM imported as a non-extractable key, with its public half. */
export async function importKey(text) {
  const der = unpem(text);
  const extractable = await crypto.subtle.importKey("pkcs8", der, ALG, true, ["sign"]);
  const jwk = await crypto.subtle.exportKey("jwk", extractable);  // its `x` is the public key
  const privateKey = await crypto.subtle.importKey("pkcs8", der, ALG, false, ["sign"]);
  return { privateKey, publicKey: jwk.x };
}

async function sign(privateKey, prefix, value) {
  const sig = await crypto.subtle.sign(ALG, privateKey, enc(prefix + canonical(value)));
  return b64url(sig);
}

/** The proof of possession: `parley-key-v1\n` + JCS(claim) (docs/audit.md). */
export const signClaim = (privateKey, claim) => sign(privateKey, "parley-key-v1\n", claim);

/** A consent to moves by mail (docs/audit.md §16): `parley-consent-v1\n` + JCS(statement). */
export async function consent(account, mailMoves) {
  const statement = { player: account.id, scope: "all_games", mail_moves: mailMoves,
                      issued_at: new Date().toISOString().replace(/\.\d{3}Z$/, "Z") };
  return { statement, key_id: account.key_id,
           signature: await sign(account.privateKey, "parley-consent-v1\n", statement) };
}

/** A signed join (docs/audit.md §18): `parley-join-v1\n` + JCS(statement), the statement
 * naming the game, the player and the client seed chosen here (mixed into the dice). */
export async function signedJoin(account, game, clientSeed) {
  const statement = { game, player: account.id, client_seed: clientSeed,
                      issued_at: new Date().toISOString().replace(/\.\d+Z$/, "Z") };
  return { statement, key_id: account.key_id,
           signature: await sign(account.privateKey, "parley-join-v1\n", statement) };
}

/** A move's derived nonce (docs/audit.md §6): the key's Ed25519 signature of
 * `parley-nonce-v1\n` + JCS({game, seat, step, move}), base64url; the very same move made once
 * more at one step adds `repeat` (1 to 255) to what is signed, and its number as a 65th byte.
 * Ed25519 is deterministic: signing the move again gives the same nonce, hence the same dice. */
export async function deriveNonce(privateKey, game, seat, step, move, repeat = 0) {
  const covered = repeat ? { game, seat, step, move, repeat } : { game, seat, step, move };
  const sig = new Uint8Array(await crypto.subtle.sign(
    ALG, privateKey, enc("parley-nonce-v1\n" + canonical(covered))));
  if (!repeat) return b64url(sig);
  const raw = new Uint8Array(65);
  raw.set(sig);
  raw[64] = repeat;
  return b64url(raw);
}

/** A signed move envelope: `parley-move-v1\n` + JCS(payload), its nonce derived. */
export async function envelope(account, game, seat, step, move, repeat = 0) {
  const nonce = await deriveNonce(account.privateKey, game, seat, step, move, repeat);
  const payload = { game, seat, step, move, nonce,
                    issued_at: new Date().toISOString().replace(/\.\d+Z$/, "Z") };
  return { payload, key_id: account.key_id,
           signature: await sign(account.privateKey, "parley-move-v1\n", payload) };
}

function db() {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(DB, 1);
    req.onupgradeneeded = () => req.result.createObjectStore(STORE);
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

async function tx(mode, act) {
  const conn = await db();
  return new Promise((resolve, reject) => {
    const req = act(conn.transaction(STORE, mode).objectStore(STORE));
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

/** The account kept in IndexedDB (player id, key id, token, CryptoKey), or undefined. */
export const loadAccount = () => tx("readonly", (s) => s.get("me"));
export const saveAccount = (account) => tx("readwrite", (s) => s.put(account, "me"));
export const forgetAccount = () => tx("readwrite", (s) => s.delete("me"));
