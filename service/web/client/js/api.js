// The API over fetch, from the same origin; the bearer token goes in a header, never a URL.
export class ApiError extends Error {
  constructor(status, problem) {
    super(problem.detail || problem.title || `HTTP ${status}`);
    this.status = status;
    this.problem = problem;
  }
}

export async function call(account, method, path, body) {
  const headers = {};
  if (account && account.token) headers.Authorization = "Bearer " + account.token;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const resp = await fetch(path, { method, headers,
                                   body: body === undefined ? undefined : JSON.stringify(body) });
  const type = resp.headers.get("Content-Type") || "";
  const data = type.includes("json") ? await resp.json() : await resp.text();
  if (!resp.ok) throw new ApiError(resp.status, typeof data === "object" ? data : {});
  return { data, headers: resp.headers, status: resp.status };
}

/** POST a signed move until an answer comes: a failed or dropped connection, or a 5xx, sends
 * the very same envelope again (a re-post is idempotent), never a newly signed one, whose
 * derived nonce would be the same anyway (docs/audit.md §6). */
export async function postMove(account, path, env, tries = 5) {
  for (let attempt = 0; ; attempt++) {
    try {
      return await call(account, "POST", path, env);
    } catch (err) {
      const answered = err instanceof ApiError && ![500, 502, 503, 504].includes(err.status);
      if (answered || attempt >= tries) throw err;
      await new Promise((r) => setTimeout(r, 1000 * (attempt + 1)));
    }
  }
}

export const get = async (account, path) => (await call(account, "GET", path)).data;
export const post = async (account, path, body) => (await call(account, "POST", path, body)).data;

/** The raw answer of a GET (a picture, a file to save). */
export async function fetchBlob(account, path) {
  const headers = account ? { Authorization: "Bearer " + account.token } : {};
  const resp = await fetch(path, { headers });
  if (!resp.ok) throw new ApiError(resp.status, {});
  return resp;
}
