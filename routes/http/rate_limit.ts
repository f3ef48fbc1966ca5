/**
 * Rate limits in HTTP terms: which budget a caller draws from, the headers of docs/contract.md section 10,
 * and the 429 answer with `Retry-After`.
 */
import type { Context, MiddlewareHandler } from "hono";
import type { Principal } from "../../domain/auth.ts";
import { AppError } from "../../domain/errors.ts";
import { addressGroup } from "../../domain/ip.ts";
import type { WindowDecision } from "../../domain/rate_limit/rate_window.ts";
import type { Settings } from "../../domain/settings.ts";
import type { LimitPolicy } from "../../kv/rate_limit/rate_limit_rules.ts";
import type { AppEnv, Deps } from "../router/env.ts";

/** The service-root pages that draw from the anonymous budget (a path or a `/*` prefix). */
export const BUDGETED_PAGES = ["/docs", "/dashboard/*"] as const;

const HOUR_MS = 3_600_000;

type RequestPolicies = Record<"apiKey" | "session" | "anonymous" | "passwordHash", LimitPolicy>;
const policiesBySettings = new WeakMap<Settings, RequestPolicies>();

/** The hourly request budgets: per API key, per account for sessions, per address otherwise. */
export function requestPolicies(settings: Settings): RequestPolicies {
  let policies = policiesBySettings.get(settings);
  if (policies) return policies;
  policies = {
    apiKey: { name: "api_key", limit: settings.RATE_LIMIT_PER_HOUR, windowMs: HOUR_MS },
    session: { name: "session", limit: settings.RATE_LIMIT_PER_HOUR, windowMs: HOUR_MS },
    anonymous: { name: "anon", limit: settings.ANON_RATE_LIMIT_PER_HOUR, windowMs: HOUR_MS },
    passwordHash: { name: "pw_hash", limit: settings.PASSWORD_HASHES_PER_HOUR, windowMs: HOUR_MS },
  };
  policiesBySettings.set(settings, policies);
  return policies;
}

/**
 * An API key's budget under its own hourly limit, never above the service's (which a restart may
 * have lowered since the key's was set). Same policy name, so same counters: a limit changed by
 * PATCH applies to the requests the key already made in the window.
 */
function ownLimit(policy: LimitPolicy, limit: number | undefined): LimitPolicy {
  return limit === undefined || limit >= policy.limit ? policy : { ...policy, limit };
}

/** Key creations per account per minute (exact). */
export function keyCreationPolicy(settings: Settings): LimitPolicy {
  return { name: "key_creation", limit: settings.KEY_CREATION_PER_MINUTE, windowMs: 60_000 };
}

/** Messages per sender per minute, across conversations (exact). */
export function messagePolicy(settings: Settings): LimitPolicy {
  return { name: "messages", limit: settings.MESSAGES_PER_MINUTE, windowMs: 60_000 };
}

/** Failed logins per email and client network: 10 per sliding 15 minutes (docs/security.md). */
export const LOGIN_FAILURES_PER_NETWORK: LimitPolicy = {
  name: "login_failures_net",
  limit: 10,
  windowMs: 15 * 60_000,
};

/** Failed logins per email from networks the account has not logged in from: 100 per 15 min. */
export const LOGIN_FAILURES_PER_EMAIL: LimitPolicy = {
  name: "login_failures",
  limit: 100,
  windowMs: 15 * 60_000,
};

/** The five rate-limit headers of docs/contract.md section 10 for one decision of the default policy. */
export function rateLimitHeaders(
  decision: WindowDecision,
  windowMs: number,
): Record<string, string> {
  return {
    "RateLimit-Policy": `"default";q=${decision.limit};w=${Math.round(windowMs / 1000)}`,
    "RateLimit": `"default";r=${decision.remaining};t=${decision.resetSeconds}`,
    "X-RateLimit-Limit": String(decision.limit),
    "X-RateLimit-Remaining": String(decision.remaining),
    // The instant itself, not now + t: consecutive answers agree while the oldest unit is the same.
    "X-RateLimit-Reset": String(Math.ceil(decision.resetAt / 1000)),
  };
}

/** The 429 for a refused decision; `headers` are sent with it. */
export function rateLimited(
  decision: WindowDecision,
  detail: string,
  headers: Record<string, string> = {},
): AppError {
  return new AppError("RATE_LIMITED", detail, {
    headers: { ...headers, "Retry-After": String(decision.resetSeconds) },
  });
}

/**
 * Draws one password hash (a sign-up or a login, the costliest work a caller without a credential
 * can cause) from the client address's hourly allowance; throws 429 when it is spent. Its
 * `Retry-After` is its own; the `RateLimit` headers keep describing the request budget.
 */
export async function drawPasswordHash(c: Context<AppEnv>, deps: Deps) {
  // A request run ahead of its grant hashes nothing before it is counted.
  await c.get("admitted");
  const policy = requestPolicies(deps.settings).passwordHash;
  const decision = await deps.rateLimiter.take(policy, addressGroup(c.get("clientIp")));
  if (!decision.allowed) {
    throw rateLimited(decision, "Too many sign-ups and logins from this address; retry later");
  }
}

/** The budget a caller draws from: per key, per account for sessions, per address otherwise. */
function budgetOf(c: Context<AppEnv>, deps: Deps, principal: Principal | null) {
  const policies = requestPolicies(deps.settings);
  return principal === null
    ? { policy: policies.anonymous, subject: addressGroup(c.get("clientIp")) }
    : principal.via === "api_key"
    ? { policy: ownLimit(policies.apiKey, principal.rateLimitPerHour), subject: principal.keyId! }
    : { policy: policies.session, subject: principal.userId };
}

/** True when the caller's budget decides from memory, without waiting for a grant from KV. */
export function budgetInHand(c: Context<AppEnv>, deps: Deps, principal: Principal | null) {
  const { policy, subject } = budgetOf(c, deps, principal);
  return deps.rateLimiter.inHand(policy, subject);
}

/**
 * Draws one request from the caller's hourly budget (step 4 of docs/contract.md section 2) and
 * answers the rate-limit headers its answer carries; throws 429 RATE_LIMITED when it is spent.
 */
export async function drawRequest(
  c: Context<AppEnv>,
  deps: Deps,
  principal: Principal | null,
): Promise<Record<string, string>> {
  const { policy, subject } = budgetOf(c, deps, principal);
  const decision = await deps.rateLimiter.take(policy, subject);
  const headers = rateLimitHeaders(decision, policy.windowMs);
  if (!decision.allowed) {
    throw rateLimited(decision, "The request budget is spent; retry later", headers);
  }
  return headers;
}

/**
 * Puts a drawn request's headers on its answer: among the headers the request lifecycle puts on
 * whichever answer the request gets (routes/http/middleware.ts). Without that lifecycle, on the
 * finished answer itself once it is set, or among the headers every answer built from now on
 * starts with; never between the two: an answer built but not yet set would leave without them.
 */
export function giveBudgetHeaders(c: Context<AppEnv>, headers: Record<string, string>) {
  const answerHeaders = c.get("answerHeaders");
  if (answerHeaders) {
    for (const name in headers) answerHeaders[name] = headers[name];
    return;
  }
  // The finished answer's own headers, not `c.header`, which would rebuild it around a stream.
  if (c.finalized) {
    const finished = c.res.headers;
    for (const name in headers) finished.set(name, headers[name]);
  } else {
    for (const name in headers) c.header(name, headers[name]);
  }
}

/** Draws one request before the handler runs, which then answers with its headers. */
export async function enforceRequestBudget(
  c: Context<AppEnv>,
  deps: Deps,
  principal: Principal | null,
) {
  giveBudgetHeaders(c, await drawRequest(c, deps, principal));
}

/**
 * For pages and answers that take no credential but still cost work (the dashboard, /docs,
 * unknown routes): one request from the client address's anonymous budget.
 */
export function anonymousBudget(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await enforceRequestBudget(c, c.get("deps"), null);
    await next();
  };
}
