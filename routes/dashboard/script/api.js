// The dashboard's API client and the session it carries. The session token lives in this
// module's memory only (never in storage or a cookie). The page's one script module is this file
// and the parts after it joined in order (see register.tsx), so later parts use these names.
// Its names are used by the later parts, which the linter, reading one file, cannot see.
// deno-lint-ignore-file no-unused-vars

const $ = (selector, root = document) => root.querySelector(selector);
const $$ = (selector, root = document) => [...root.querySelectorAll(selector)];

const session = { token: null, timer: 0, profile: null };

/** An error answer from the API: its problem+json body, plus Retry-After when sent. */
class ApiProblem extends Error {
  constructor(status, body, retryAfter) {
    super(body?.detail ?? `The server answered ${status}`);
    this.status = status;
    this.code = body?.code ?? "";
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

/** Calls the API with the session token; answers the JSON body or throws an ApiProblem. */
async function api(method, path, body) {
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
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  // A cursor-paged listing's next page travels in a header; the array carries it along.
  if (Array.isArray(data)) data.nextCursor = res.headers.get("X-Next-Cursor");
  if (res.ok) return data;
  const problem = new ApiProblem(res.status, data, res.headers.get("Retry-After"));
  if (session.token && res.status === 401 && SESSION_ENDED.has(problem.code)) {
    endSession("Your session has ended. Sign in again to continue.");
  }
  throw problem;
}

/** A view's status line and error line: `announce` says what was done, `report` what failed. */
function statusLines(status, error) {
  return {
    announce(message) {
      error.textContent = "";
      status.textContent = message;
    },
    report(problem) {
      if (!(problem instanceof ApiProblem)) throw problem;
      if (!session.token) return;
      status.textContent = "";
      error.textContent = problem.text;
    },
  };
}
