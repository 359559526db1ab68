/**
 * Two players, Ann and Bob, play one whole Stratego Duel against a running Parley server through
 * the typed client generated from openapi/openapi.json; each picks a random legal move and signs
 * it with its own Ed25519 key.
 *
 *   PARLEY_URL            the server (default http://127.0.0.1:8000)
 *   PLAY_TIMEOUT_SECONDS  give up after this long (default 300); exit status 124
 *   PLAY_SEED             the seed of the random move choices (default: a random one, printed)
 *
 * Exit status: 0 when the game finished and its audit bundle checks out, 1 on any failure.
 */

import { randomInt, type KeyObject } from "node:crypto";

import { ApiError, call, parleyClient, sleep, type ParleyClient, type Schemas } from "./api.js";
import {
  generateKey, isDerivedNonce, publicKeyB64, signEnvelope, signJoin, signKeyClaim, verifyPayload,
  type Envelope, type Move,
} from "./signing.js";

const BASE_URL = (process.env.PARLEY_URL ?? "http://127.0.0.1:8000").replace(/\/+$/, "");
const TIMEOUT_SECONDS = envNumber("PLAY_TIMEOUT_SECONDS", 300);
const SEED = envNumber("PLAY_SEED", randomInt(2 ** 31));
/** how long one move may stay `queued` before the worker resolves it */
const MOVE_WAIT_MS = 60_000;

const GAME = { ruleset: "stratego", players: 2, options: { army: "duel", seat_order: "joined" } };
const COLOURS = ["Red", "Blue"] as const;
/** board codes of the pieces, as the game's text notation writes them */
const CODES: Record<string, string> = {
  marshal: "M", general: "9", colonel: "8", major: "7", captain: "6", lieutenant: "5",
  sergeant: "4", miner: "3", scout: "2", spy: "S", bomb: "B", flag: "F",
};

interface Player {
  name: string;
  key: KeyObject;
  publicKey: string;
  id: string;
  keyId: string;
  client: ParleyClient;
}

/** The parts of a Stratego seat view this example prints (the API types `state` as an object). */
interface StrategoState {
  ply?: number;
  last_ply?: {
    from: string;
    to: string;
    battle: { attacker_piece: string | null; defender_piece: string | null; result: string } | null;
  } | null;
}

function envNumber(name: string, fallback: number): number {
  const text = process.env[name];
  if (text === undefined || text === "") return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a number, not ${text}`);
  return value;
}

/** mulberry32: a small seeded generator, so that PLAY_SEED replays the same choices. */
function seededRandom(seed: number): (n: number) => number {
  let a = seed >>> 0;
  return (n) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
}

function notation(move: Move): string {
  if (move.type === "setup" && typeof move.placement === "object" && move.placement !== null) {
    const squares = Object.entries(move.placement as Record<string, string>);
    return "setup " + squares.map(([square, piece]) => `${square}=${CODES[piece] ?? piece}`).join(" ");
  }
  if (move.type === "move") return `${String(move.from)}-${String(move.to)}`;
  return JSON.stringify(move);
}

function battleText(state: StrategoState | null | undefined): string {
  const battle = state?.last_ply?.battle;
  if (!battle) return "";
  const code = (piece: string | null) => (piece === null ? "?" : CODES[piece] ?? piece);
  return `  attacks: ${code(battle.attacker_piece)} vs ${code(battle.defender_piece)}, ${battle.result}`;
}

async function register(anonymous: ParleyClient, name: string): Promise<Player> {
  const key = generateKey();
  const publicKey = publicKeyB64(key);
  const created = await call("registerPlayer", () =>
    anonymous.POST("/v1/players", {
      body: { name, public_key: publicKey, proof: signKeyClaim(key, { name, public_key: publicKey }) },
    }));
  return { name, key, publicKey, id: created.id, keyId: created.key_id, client: parleyClient(BASE_URL, created.token) };
}

/** Poll the move's status (GET .../moves/{id}, where `Location` points) until it is resolved. */
async function waitResolved(anonymous: ParleyClient, game: string, id: number): Promise<Schemas["MoveStatus"]> {
  const deadline = Date.now() + MOVE_WAIT_MS;
  let pause = 20;
  for (;;) {
    const status = await call("getMove", () =>
      anonymous.GET("/v1/games/{game}/moves/{move}", { params: { path: { game, move: id } } }));
    if (status.status !== "queued") return status;
    if (Date.now() > deadline) throw new Error(`move ${id} of ${game} is still queued after ${MOVE_WAIT_MS / 1000} s`);
    await sleep(pause);
    pause = Math.min(pause * 1.5, 250);
  }
}

async function main(): Promise<number> {
  const started = performance.now();
  const choose = seededRandom(SEED);
  const anonymous = parleyClient(BASE_URL);

  const health = await anonymous.GET("/v1/health");
  if (!health.data || health.response.status !== 200) {
    const reason = health.data?.reason ?? (health.error as { reason?: string } | undefined)?.reason;
    throw new Error(`${BASE_URL} is not healthy (HTTP ${health.response.status}${reason ? `: ${reason}` : ""})`);
  }
  console.log(`Parley at ${BASE_URL}: ${health.data.status}, ${health.data.workers ?? "?"} worker(s)`);

  const players = [await register(anonymous, "ann"), await register(anonymous, "bob")];
  for (const p of players) console.log(`registered ${p.name}: player ${p.id}, key ${p.keyId} (${p.publicKey})`);

  const ann = players[0] as Player;
  const created = await call("createGame", () => ann.client.POST("/v1/games", { body: GAME }));
  const game = created.id;
  console.log(`created ${game}: ${created.ruleset} ${JSON.stringify(created.options)}, dice commitment ${created.commitment}`);
  for (const [seat, p] of players.entries()) {
    const joined = await call("joinGame", () =>
      p.client.POST("/v1/games/{game}/join", {
        params: { path: { game } }, body: { seat, ...signJoin(p.key, p.keyId, game, p.id) },
      }));
    if (joined.seat !== seat || !joined.seat_final) {
      throw new Error(`${p.name} asked for seat ${seat} and got ${joined.seat} (final: ${joined.seat_final})`);
    }
    console.log(`${p.name} sits at seat ${seat} (${COLOURS[seat]}); the game is ${joined.status}`);
  }
  console.log(`move choices: PLAY_SEED=${SEED} repeats them`);

  let moves = 0;
  let setups = 0;
  let summary: Schemas["GameSummary"];
  for (;;) {
    summary = await call("getGame", () => anonymous.GET("/v1/games/{game}", { params: { path: { game } } }));
    if (summary.status === "finished") break;
    if (summary.status !== "active") throw new Error(`the game is ${summary.status}, not active`);
    const toAct = summary.to_act ?? [];
    if (toAct.length === 0) throw new Error(`the game is active at step ${summary.step} with nobody to act`);
    for (const seat of toAct) {
      const player = players[seat];
      if (player === undefined) throw new Error(`seat ${seat} is to act, but nobody here holds it`);
      const view = await call("getView", () =>
        player.client.GET("/v1/games/{game}/view", { params: { path: { game } } }));
      if (view.step !== summary.step || !(view.to_act ?? []).includes(seat)) continue; // moved on
      const legal = view.legal_moves ?? [];
      const move = legal[choose(legal.length)];
      if (move === undefined) throw new Error(`${player.name} is to act at step ${view.step} without legal moves`);
      const envelope: Envelope = signEnvelope(player.key, player.keyId, { game, seat, step: view.step, move });
      // signed once: until an answer comes, this very envelope goes again (never a new one)
      const accepted = await call("postMove", () =>
        player.client.POST("/v1/games/{game}/moves", { params: { path: { game } }, body: envelope }), true);
      const outcome = accepted.status === "queued" ? await waitResolved(anonymous, game, accepted.id) : accepted;
      if (outcome.status !== "applied") {
        const why = "code" in outcome ? `${outcome.code}: ${outcome.detail}` : outcome.status;
        throw new Error(`move ${accepted.id} (${notation(move)}) by ${player.name} was ${outcome.status} (${why})`);
      }
      moves += 1;
      let battle = "";
      if (move.type === "setup") {
        setups += 1;
      } else {
        const after = await call("getView", () =>
          player.client.GET("/v1/games/{game}/view", { params: { path: { game } } }));
        battle = battleText(after.state as StrategoState | null | undefined);
      }
      const who = `${COLOURS[seat] ?? seat} ${player.name}`.padEnd(9);
      console.log(`${String(moves).padStart(4)}  step ${String(view.step).padStart(3)}  ${who} ${notation(move)}${battle}`);
    }
  }

  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const result = (summary.result ?? {}) as { winners?: number[]; reason?: string; scores?: Record<string, number> };
  const winners = (result.winners ?? []).map((s) => `${COLOURS[s]} (${players[s]?.name})`);
  const scores = Object.entries(result.scores ?? {}).map(([s, n]) => `${COLOURS[Number(s)]} ${n}`).join(", ");
  console.log("");
  const final = await call("getView", () => ann.client.GET("/v1/games/{game}/view", { params: { path: { game } } }));
  if (final.text) console.log(final.text + "\n");
  console.log(`game ${game} finished at step ${summary.step} after ${moves} moves (${setups} setups, ` +
    `${moves - setups} plies) in ${seconds} s`);
  console.log(`result: ${winners.length ? winners.join(" and ") + " wins" : "a draw"} ` +
    `(${result.reason ?? "no reason given"}); enemy pieces removed: ${scores || "-"}`);
  if (!result.reason) throw new Error(`the finished game has no result reason: ${JSON.stringify(summary.result)}`);

  // Every envelope the players signed is in the audit bundle: check each signature here.
  const audit = await call("getAudit", () => anonymous.GET("/v1/games/{game}/audit", { params: { path: { game } } }));
  const keys = new Map(players.map((p) => [p.keyId, p.publicKey]));
  let checked = 0;
  for (const entry of audit.entries ?? []) {
    const env = entry.envelope as Envelope | undefined;
    const publicKey = env && keys.get(env.key_id);
    if (!env || !publicKey) continue;
    if (!verifyPayload(publicKey, env.payload, env.signature)) {
      throw new Error(`audit entry ${entry.seq}: the signature does not verify`);
    }
    if (!isDerivedNonce(publicKey, env.payload)) {
      throw new Error(`audit entry ${entry.seq}: the nonce is not the derived nonce of its move`);
    }
    checked += 1;
  }
  if (checked !== moves) throw new Error(`the audit bundle holds ${checked} of our ${moves} envelopes`);
  console.log(`audit bundle (${audit.status}): all ${checked} envelopes signed by ann and bob verify, ` +
    "each nonce derived from its move");

  const mine = await call("listMyGames", () =>
    ann.client.GET("/v1/players/{player}/games", { params: { path: { player: "me" }, query: { status: "finished" } } }));
  if (!(mine.games ?? []).some((g) => g.id === game)) throw new Error(`${game} is not among ann's finished games`);
  return 0;
}

const timer = setTimeout(() => {
  console.error(`play: no result after ${TIMEOUT_SECONDS} s (PLAY_TIMEOUT_SECONDS); giving up`);
  process.exit(124);
}, TIMEOUT_SECONDS * 1000);
timer.unref();

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    if (err instanceof ApiError) {
      console.error(`play: ${err.message}`);
    } else if (err instanceof Error && err.name === "TimeoutError") {
      console.error(`play: a request to ${BASE_URL} got no answer in time`);
    } else if (err instanceof TypeError && err.message === "fetch failed") {
      console.error(`play: cannot reach ${BASE_URL}: ${String((err as { cause?: unknown }).cause ?? err)}`);
    } else {
      console.error(`play: ${err instanceof Error ? err.message : String(err)}`);
    }
    process.exitCode = 1;
  },
);
