/** Sessions: POST /auth/token issues a session JWT for email and password, /auth/logout ends it. */
import { sign } from "hono/jwt";
import { AppError } from "../../domain/errors.ts";
import { hashPassword, verifyPassword } from "../../domain/users/password.ts";
import { sessionClaims } from "../../domain/users/session.ts";
import { addressGroup } from "../../domain/ip.ts";
import { Login, SessionToken } from "../../domain/users/user.ts";
import { findUserByEmail } from "../../kv/users/users.ts";
import { createSession, deleteSession } from "../../kv/users/sessions.ts";
import { logSecurity } from "../../kv/security_log.ts";
import { originOf } from "../http/request_origin.ts";
import { principalOf } from "../http/authenticate.ts";
import { defineRoute, jsonBody, jsonContent, Message, problems } from "../router/define.ts";
import type { AppEnv } from "../router/env.ts";
import { holdLoginAttempt } from "../http/login_limits.ts";
import { drawPasswordHash } from "../http/rate_limit.ts";
import type { OpenAPIHono } from "@hono/zod-openapi";

const tokenRoute = defineRoute("public", {
  method: "post",
  path: "/auth/token",
  tags: ["Sessions"],
  summary: "Log in: exchange email and password for a session token",
  request: { body: jsonBody(Login) },
  responses: {
    200: jsonContent(SessionToken, "A session token"),
    ...problems(400, 401, 413, 415, 429),
  },
});

const logoutRoute = defineRoute("session", {
  method: "post",
  path: "/auth/logout",
  tags: ["Sessions"],
  summary: "End the session whose token is sent",
  responses: { 200: jsonContent(Message, "Session ended"), ...problems(401, 403) },
});

// A hash to verify against when the email is unknown, made with the same iteration count as
// real ones, so the time a login takes does not reveal whether the account exists.
const decoys = new Map<number, Promise<string>>();
function decoyHash(iterations: number): Promise<string> {
  let decoy = decoys.get(iterations);
  if (!decoy) {
    decoy = hashPassword(crypto.randomUUID(), iterations);
    decoys.set(iterations, decoy);
  }
  return decoy;
}

export function registerSessions(api: OpenAPIHono<AppEnv>) {
  api.openapi(tokenRoute, async (c) => {
    const { kv, settings, jwtSecret, now } = c.get("deps");
    const { email, password } = c.req.valid("json");
    await drawPasswordHash(c, c.get("deps"));
    const user = await findUserByEmail(kv, email);
    const network = addressGroup(c.get("clientIp"));
    // Failures are counted whether an account has the email or not, and a limited attempt is
    // refused before the password is looked at: the answer says nothing about the account. The
    // attempt is counted before the check (exactly, across instances), so attempts in flight
    // count too and concurrent ones never pass the limit; a right password gives its units back.
    const attempt = await holdLoginAttempt(kv, {
      email,
      userId: user?.id ?? null,
      network,
      now: now(),
    });
    const ok = await verifyPassword(
      password,
      user?.passwordHash ?? await decoyHash(settings.PASSWORD_HASH_ITERATIONS),
    );
    if (!user || !ok) {
      if (user) {
        await logSecurity(kv, user.id, {
          type: "session.sign_in_failed",
          origin: originOf(c),
          now: now(),
        });
      }
      throw new AppError("INVALID_CREDENTIALS", "The email or password is not correct");
    }
    await attempt.release();
    const sessionId = crypto.randomUUID();
    const claims = sessionClaims(
      { userId: user.id, sessionId },
      now(),
      settings.SESSION_TTL_HOURS,
    );
    const expiresAt = new Date(claims.exp * 1000).toISOString();
    const session = { id: sessionId, userId: user.id, expiresAt };
    // False when the account was deleted while the password was being checked.
    if (!await createSession(kv, { session, now: now(), network, origin: originOf(c) })) {
      throw new AppError("INVALID_CREDENTIALS", "The email or password is not correct");
    }
    const token = await sign(claims, jwtSecret, "HS256");
    c.header("Cache-Control", "no-store"); // a secret, sent without a credential
    return c.json({ token, tokenType: "Bearer" as const, expiresAt }, 200);
  });

  api.openapi(logoutRoute, async (c) => {
    const principal = principalOf(c);
    await deleteSession(c.get("deps").kv, {
      id: principal.sessionId!,
      userId: principal.userId,
      expiresAt: "",
    }, { now: c.get("deps").now(), origin: originOf(c) });
    return c.json({ message: "Logged out" }, 200);
  });
}
