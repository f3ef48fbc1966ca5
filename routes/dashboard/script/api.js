// @ts-check
/// <reference lib="dom" />
// The dashboard's API client and the session it carries. The session token lives in this
// module's memory only (never in storage or a cookie). The part that ends a session (session.js)
// comes later in the bundle and registers itself here, so this part imports none of it.

/**
 * A JSON value as the API answers it; its shapes are the OpenAPI document's (/openapi.json).
 * @typedef {any} Json
 */

/** @type {{ token: string | null, timer: ReturnType<typeof setTimeout> | undefined, profile: Json }} */
export const session = { token: null, timer: undefined, profile: null };

/** An error answer from the API: its problem+json body, plus Retry-After when sent. */
export class ApiProblem extends Error {
  /**
   * @param {number} status
   * @param {Json} body
   * @param {string | null} [retryAfter]
   */
  constructor(status, body, retryAfter = null) {
    super(body?.detail ?? `The server answered ${status}`);
    this.status = status;
    this.code = body?.code ?? "";
    /** @type {{ path: string, message: string }[]} */
    this.errors = Array.isArray(body?.errors) ? body.errors : [];
    this.retryAfter = retryAfter;
  }

  /** The detail, with when to retry for a rate limit. */
  get text() {
    const seconds = Number(this.retryAfter);
    if (this.status !== 429 || !(seconds > 0)) return this.message;
    const unit = seconds === 1 ? "second" : "seconds";
    return `${this.message.replace(/[.!?]?$/, ".")} Try again in ${seconds} ${unit}.`;
  }
}

const SESSION_ENDED = new Set(["TOKEN_INVALID", "TOKEN_MISSING"]);

/** What ends the session when the API says its token is no more; session.js sets it. */
/** @type {(notice: string) => void} */
let sessionEnder = () => {};

/**
 * Names what ends the session when the API refuses its token.
 * @param {(notice: string) => void} end
 */
export function onSessionEnded(end) {
  sessionEnder = end;
}

/**
 * Calls the API with the session token; answers the JSON body or throws an ApiProblem.
 * @param {string} method
 * @param {string} path
 * @param {unknown} [body]
 * @returns {Promise<Json>}
 */
export async function api(method, path, body) {
  /** @type {Record<string, string>} */
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (session.token) headers.Authorization = `Bearer ${session.token}`;
  let res;
  try {
    res = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: "omit",
      cache: "no-store",
    });
  } catch {
    throw new ApiProblem(0, { detail: "The service could not be reached. Check your connection." });
  }
  const text = await res.text();
  /** @type {Json} */
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  // A cursor-paged listing's next page travels in a header; the array carries it along.
  if (Array.isArray(data)) Object.assign(data, { nextCursor: res.headers.get("X-Next-Cursor") });
  if (res.ok) return data;
  const problem = new ApiProblem(res.status, data, res.headers.get("Retry-After"));
  if (session.token && res.status === 401 && SESSION_ENDED.has(problem.code)) {
    sessionEnder("Your session has ended. Sign in again to continue.");
  }
  throw problem;
}

/**
 * A view's status line and error line: `announce` says what was done, `report` what failed.
 * @param {HTMLElement} status
 * @param {HTMLElement} error
 */
export function statusLines(status, error) {
  return {
    /** @param {string} message */
    announce(message) {
      error.textContent = "";
      status.textContent = message;
    },
    /** @param {unknown} problem */
    report(problem) {
      if (!(problem instanceof ApiProblem)) throw problem;
      if (!session.token) return;
      status.textContent = "";
      error.textContent = problem.text;
    },
  };
}
