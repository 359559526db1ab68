// Registering and importing: the key pair is made here, the proof of possession signed here.
import { post } from "./api.js";
import { consent, importKey, newKey, saveAccount, signClaim } from "./keys.js";

/** Register `name` with a new key; the account is saved, the PEM backup returned once. */
export async function register(name, email) {
  const key = await newKey();
  const claim = { public_key: key.publicKey, name };
  const body = { name, public_key: key.publicKey, proof: await signClaim(key.privateKey, claim) };
  if (email) body.email = email;
  const made = await post(null, "/v1/players", body);
  const account = { id: made.id, name, key_id: made.key_id, token: made.token,
                    privateKey: key.privateKey, publicKey: key.publicKey };
  await saveAccount(account);
  // with an address, replies to turn mails make moves: the player's own signed statement says so
  if (email) await post(account, `/v1/players/${made.id}/consents`, await consent(account, true));
  return { account, backup: key.backup };
}

/** The CLI's config file for this account (docs/cli.md): `parley --config config.json ...`
 * with the key backup saved as `key.pem` beside it. */
export function cliConfig(account) {
  return JSON.stringify({ server: location.origin, player: account.id, key_id: account.key_id,
                          token: account.token, name: account.name }, null, 2) + "\n";
}

/** An account from the CLI's files: its key (PEM) and its config (player, key id, token). */
export async function importAccount(pemText, configText) {
  const config = JSON.parse(configText);
  if (!config.player || !config.token || !config.key_id) {
    throw new Error("the config file names no player, key id or token");
  }
  const key = await importKey(pemText);
  const account = { id: config.player, name: config.name || config.player,
                    key_id: config.key_id, token: config.token,
                    privateKey: key.privateKey, publicKey: key.publicKey };
  await saveAccount(account);
  return account;
}
