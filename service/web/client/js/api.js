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

export const get = async (account, path) => (await call(account, "GET", path)).data;
export const post = async (account, path, body) => (await call(account, "POST", path, body)).data;

/** The raw answer of a GET (a picture, a file to save). */
export async function fetchBlob(account, path) {
  const headers = account ? { Authorization: "Bearer " + account.token } : {};
  const resp = await fetch(path, { headers });
  if (!resp.ok) throw new ApiError(resp.status, {});
  return resp;
}
