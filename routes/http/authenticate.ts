/**
 * The authentication middleware: resolves the credential and applies the checks of docs/contract.md
 * section 2 in their fixed order, the first failure answering.
 */
import type { Context, MiddlewareHandler } from "hono";
import { verify } from "hono/jwt";
import {
  expiredAt,
  isLive,
  isWellFormedKey,
  KEY_PREFIX,
  keyDigest,
  type KeyMatch,
  matchDigest,
} from "../../domain/api_key.ts";
import { KeyGuard } from "../../kv/api_keys/key_guard.ts";
import { commitsAfter } from "../../kv/api_keys/guarded_store.ts";
import { type Access, hasScope, type Principal } from "../../domain/auth.ts";
import { AppError } from "../../domain/errors.ts";
import { addressAllowed } from "../../domain/ip.ts";
import { getSession } from "../../kv/users/sessions.ts";
import type { AppEnv, Deps } from "../router/env.ts";
import {
  budgetInHand,
  drawRequest,
  enforceRequestBudget,
  giveBudgetHeaders,
} from "./rate_limit.ts";
import { HOW_TO_SEND, missingCredential, readCredential } from "./credentials.ts";

const malformedKey = () =>
  new AppError(
    "API_KEY_INVALID",
    `The API key is malformed: a key is ${KEY_PREFIX} and 64 lowercase hex digits, as created; ` +
      "check it was copied whole",
  );
// One answer for unknown and revoked keys alike, so a value's history cannot be probed.
const invalidKey = () => new AppError("API_KEY_INVALID", "The API key is unknown or revoked");
const invalidToken = () =>
  new AppError("TOKEN_INVALID", "The session token is invalid, expired or logged out");

/** The checks of a key value's record, in the contract's order: live (401), then the address (403). */
function checkKey(match: KeyMatch | null, now: number, clientIp: string): KeyMatch {
  if (!match) throw invalidKey();
  if (!isLive(match, now)) {
    const at = expiredAt(match, now);
    if (!at) throw invalidKey();
    throw new AppError("API_KEY_INVALID", `The API key expired at ${at}; create a new one`, {
      expiredAt: at,
    });
  }
  const whitelist = match.key.ipWhitelist;
  if (whitelist.length > 0 && !addressAllowed(clientIp, whitelist)) {
    throw new AppError("IP_NOT_ALLOWED", `Requests from ${clientIp} are not allowed for this key`);
  }
  return match;
}

function checkScope(principal: Principal, access: Access) {
  if (typeof access === "object" && !hasScope(principal, access.scope)) {
    throw new AppError(
      "SCOPE_INSUFFICIENT",
      `This API key lacks the scope ${access.scope}`,
      { scope: access.scope },
    );
  }
}

async function apiKeyPrincipal(deps: Deps, value: string, clientIp: string) {
  if (!isWellFormedKey(value)) throw malformedKey();
  // Held in memory on a warm instance: answered without waiting for a promise.
  const held = deps.apiKeyCache.peek(value);
  const { value: cached, loaded } = held === undefined
    ? await deps.apiKeyCache.lookup(value)
    : { value: held, loaded: false };
  const { key } = checkKey(cached, deps.now(), clientIp);
  // A deleted account's keys are revoked by its deletion before it answers (and the key guard
  // sees that); a key read while the deletion runs is refused by the live-user cache.
  if (!(deps.userCache.peek(key.userId) ?? await deps.userCache.find(key.userId))) {
    throw invalidKey();
  }
  deps.lastUsed.note(key, clientIp, deps.now());
  const principal: Principal = {
    userId: key.userId,
    via: "api_key",
    scopes: key.scopes,
    keyId: key.id,
    rateLimitPerHour: key.rateLimitPerHour ?? undefined,
  };
  return { principal, versionstamp: cached!.versionstamp, loaded };
}

/**
 * The request's view of the store under its key (kv/api_keys/key_guard.ts): when the key changed
 * since it was cached, its record is judged again as it is now, by the same checks in the same
 * order.
 */
function guardKey(
  c: Context<AppEnv>,
  access: Access,
  key: KeyInUse,
  admitted: Promise<unknown>,
): KeyGuard {
  const deps = c.get("deps");
  const value = key.value;
  return new KeyGuard(deps.kv, {
    userId: key.principal.userId,
    keyId: key.principal.keyId!,
    versionstamp: key.versionstamp,
    fresh: key.loaded,
    admitted,
    rejudge: async (entry, versionstamp) => {
      const match = entry.value ? matchDigest(entry.value, await keyDigest(value)) : null;
      // The newer read replaces the cached one: a change that still allows the key (a new name,
      // a wider whitelist) costs the next request nothing.
      deps.apiKeyCache.renew(value, match && { ...match, versionstamp });
      const { key: record } = checkKey(match, deps.now(), c.get("clientIp"));
      checkScope({ ...key.principal, scopes: record.scopes }, access);
    },
  });
}

interface KeyInUse {
  value: string;
  principal: Principal;
  versionstamp: string | null;
  loaded: boolean;
}

async function sessionPrincipal(deps: Deps, token: string): Promise<Principal> {
  if (!token) throw invalidToken();
  let sessionId: unknown;
  let expiry: unknown;
  try {
    // Expiry is judged by the service's clock (deps.now), not the library's, so both agree.
    const payload = await verify(token, deps.jwtSecret, {
      alg: "HS256",
      exp: false,
      iat: false,
      nbf: false,
    });
    sessionId = payload.sid;
    expiry = payload.exp;
  } catch {
    throw invalidToken();
  }
  if (typeof sessionId !== "string") throw invalidToken();
  if (typeof expiry !== "number" || expiry * 1000 <= deps.now()) throw invalidToken();
  const session = await getSession(deps.kv, sessionId, deps.now());
  // A session outliving its account's deletion (written by a racing login) still dies here.
  if (!session || !await deps.userCache.find(session.userId)) throw invalidToken();
  return { userId: session.userId, via: "session", scopes: [], sessionId };
}

/**
 * An anonymous request: when its address's budget waits for a grant (its first request on this
 * instance, or a lease ended), the handler reads while the grant reads and commits; its commits
 * and any password hash wait for the grant, and so does its answer, which a refusal replaces.
 */
async function anonymousAhead(c: Context<AppEnv>, next: () => Promise<void>) {
  const deps = c.get("deps");
  if (budgetInHand(c, deps, null)) {
    await enforceRequestBudget(c, deps, null);
    return await next();
  }
  const draw = drawRequest(c, deps, null);
  const admitted = countedBy(c, draw);
  c.set("deps", { ...deps, kv: commitsAfter(deps.kv, admitted) });
  try {
    await next();
  } catch (error) {
    giveBudgetHeaders(c, await draw); // a 429 comes first
    throw error;
  }
  // On the finished answer: set while the handler ran, they could miss an answer built meanwhile.
  giveBudgetHeaders(c, await draw);
}

/**
 * A request run ahead of its draw: `admitted` settles when it is counted (rejects with its 429),
 * for what must wait for that (commits, a password hash).
 */
function countedBy(c: Context<AppEnv>, draw: Promise<unknown>): Promise<void> {
  const admitted = draw.then(() => {});
  admitted.catch(() => {}); // awaited on every path by the one who drew
  c.set("admitted", admitted);
  return admitted;
}

/** Builds the middleware for one endpoint's access rule. */
export function authenticate(access: Access): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const deps = c.get("deps");
    const credential = readCredential(c.req.raw.headers);
    if (!credential) {
      if (access !== "public") throw missingCredential(c.req.raw.headers);
      return await anonymousAhead(c, next);
    }
    let principal: Principal;
    let key: KeyInUse | null = null;
    try {
      if (credential.kind === "refused") {
        throw credential.error;
      } else if (credential.kind === "api_key") {
        key = {
          value: credential.value,
          ...await apiKeyPrincipal(deps, credential.value, c.get("clientIp")),
        };
        principal = key.principal;
      } else {
        principal = await sessionPrincipal(deps, credential.token);
      }
    } catch (refused) {
      // A credential that fails gets its caller no budget of its own, so it draws from the
      // address's, as a request without one does: made-up keys and tokens are bounded work too.
      // Only a spent address budget turns its 401 into a 429.
      await enforceRequestBudget(c, deps, null);
      throw refused;
    }
    if (principal.keyId) c.set("keyInUse", principal.keyId);
    // A key whose budget waits for a grant (its first request on this instance, or a lease ended)
    // lets the handler read while the grant commits: no write commits and no answer leaves before
    // the request is counted, and a refusal replaces the answer (docs/rate-limits.md).
    const ahead = key !== null && !budgetInHand(c, deps, principal);
    const draw = drawRequest(c, deps, principal);
    draw.catch(() => {}); // awaited below, on every path
    try {
      if (!ahead) giveBudgetHeaders(c, await draw);
      checkScope(principal, access);
      if (access === "session" && principal.via !== "session") {
        throw new AppError(
          "SESSION_REQUIRED",
          "This endpoint needs a session token, not an API key",
        );
      }
    } catch (refused) {
      giveBudgetHeaders(c, await draw); // a spent budget answers 429 before any other refusal
      throw refused;
    }
    c.set("principal", principal);
    if (!key) return await next();
    // The key was judged from this instance's cache: the handler's first read carries its record
    // and its commits check it, and no answer leaves before the key is confirmed as it is now.
    const guard = guardKey(c, access, key, ahead ? countedBy(c, draw) : draw);
    c.set("deps", { ...deps, kv: guard.kv });
    try {
      await next();
    } catch (error) {
      if (ahead) giveBudgetHeaders(c, await draw); // a 429 still comes first
      throw error;
    }
    try {
      // On the finished answer: set while the handler ran, they could miss an answer built then.
      if (ahead) giveBudgetHeaders(c, await draw);
      await guard.confirm();
    } catch (refused) {
      await c.res.body?.cancel();
      throw refused;
    }
  };
}

/** The caller of an endpoint that demanded a credential; the middleware guarantees it is set. */
export function principalOf(c: { get(key: "principal"): Principal | null }): Principal {
  const principal = c.get("principal");
  if (!principal) throw new AppError("TOKEN_MISSING", `No credential: ${HOW_TO_SEND}`);
  return principal;
}
