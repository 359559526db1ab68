/**
 * The typed Parley client: openapi-fetch over the types openapi-typescript generates from
 * openapi/openapi.json (`npm run generate` writes src/generated/schema.d.ts).
 */

import createClient, { type Client } from "openapi-fetch";

import type { components, paths } from "./generated/schema.js";

export type Schemas = components["schemas"];
export type Problem = Schemas["Problem"];
export type ParleyClient = Client<paths>;

/** No single request may take longer than this. */
const REQUEST_TIMEOUT_MS = 15_000;
/**
 * 429 `rate_limited` and 503 `unavailable` (Redis or a store node away, the server starting or
 * stopping): wait as told by Retry-After (at most this long), this many times.
 */
const MAX_RETRY_AFTER_S = 10;
const MAX_RETRIES = 5;
/** The answers that changed nothing and ask for the same request again later. */
const RETRY_STATUSES = new Set([429, 503]);
/**
 * For a signed move (`resend`), also the answers after which nobody knows whether the server
 * kept the move: the very same envelope goes again, which is idempotent.
 */
const RESEND_STATUSES = new Set([429, 500, 502, 503, 504]);

/** A client for one identity: with `token`, every request carries `Authorization: Bearer`. */
export function parleyClient(baseUrl: string, token?: string): ParleyClient {
  return createClient<paths>({
    baseUrl,
    headers: token === undefined ? {} : { Authorization: `Bearer ${token}` },
    fetch: (request: Request) => fetch(request, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) }),
  });
}

/** A refused request: the HTTP status and the server's RFC 9457 problem (with its `code`). */
export class ApiError extends Error {
  constructor(
    readonly what: string,
    readonly status: number,
    readonly problem: Partial<Problem> | undefined,
  ) {
    const code = problem?.code ?? "no problem document";
    const detail = problem?.detail ? `: ${problem.detail}` : "";
    super(`${what} failed with HTTP ${status} (${code})${detail}`);
    this.name = "ApiError";
  }
}

/** What an openapi-fetch call resolves to (its success and error members). */
interface Answer<D> {
  data?: D;
  error?: unknown;
  response: Response;
}

/**
 * Send a request and return its typed body, or throw an ApiError with the server's problem.
 * A 429 or a 503 changed nothing on the server, so the same request is sent again after
 * Retry-After: `send` must repeat it as it was (a move's envelope signed once, outside `send`:
 * a re-post of the same envelope is idempotent). With `resend` (a signed move) a failed or
 * dropped connection, a timeout and any 5xx send it again too: never a newly signed envelope,
 * whose derived nonce would be the same (docs/audit.md §6: the server refuses it as
 * `duplicate_nonce` once it holds the first, and it would roll the same dice anyway).
 */
export async function call<D>(what: string, send: () => Promise<Answer<D>>, resend = false): Promise<D> {
  for (let attempt = 0; ; attempt++) {
    let answer: Answer<D>;
    try {
      answer = await send();
    } catch (err) {
      if (!resend || attempt >= MAX_RETRIES) throw err;
      console.log(`  (${what}: no answer (${String(err)}), sending the same request again in 1 s)`);
      await sleep(1000);
      continue;
    }
    const { data, error, response } = answer;
    if ((resend ? RESEND_STATUSES : RETRY_STATUSES).has(response.status) && attempt < MAX_RETRIES) {
      const seconds = Math.min(Number(response.headers.get("Retry-After")) || 1, MAX_RETRY_AFTER_S);
      const why = response.status === 429 ? "rate limited" : response.status === 503 ? "unavailable" : `HTTP ${response.status}`;
      console.log(`  (${what}: ${why}, retrying in ${seconds} s)`);
      await sleep(seconds * 1000);
      continue;
    }
    if (!response.ok || error !== undefined || data === undefined) {
      throw new ApiError(what, response.status, asProblem(error));
    }
    return data;
  }
}

function asProblem(error: unknown): Partial<Problem> | undefined {
  return typeof error === "object" && error !== null ? (error as Partial<Problem>) : undefined;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
