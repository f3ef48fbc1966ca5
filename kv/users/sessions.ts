/** Sessions in KV: one record per issued token, expiring by itself, listed per user. */
import type { Origin } from "../../domain/security_log.ts";
import { atomically, commit } from "../commit.ts";
import { sessions } from "../keyspace.ts";
import { rememberLoginNetwork } from "../rate_limit/login_networks.ts";
import { recordSecurity } from "../security_log.ts";
import { liveUserEntry } from "./users.ts";
import { signalAccount } from "../live/signal.ts";

export interface SessionRecord {
  id: string;
  userId: string;
  expiresAt: string;
}

/**
 * Stores a session that KV drops by itself once it has expired, for a live account only: the
 * account's record is checked in the same atomic, so a login that verified the password before
 * the account was deleted cannot write its session after. False when the account is not live.
 * The login's network is remembered (kv/rate_limit/login_networks.ts) and, when its origin is given, the
 * sign-in is written to the security log, both in the same atomic.
 */
export function createSession(
  kv: Deno.Kv,
  login: {
    session: SessionRecord;
    now: number;
    /** The client network logged in from (an address group). */
    network: string;
    origin?: Origin;
  },
): Promise<boolean> {
  const { session, now, network, origin } = login;
  const expireIn = Math.max(1, Date.parse(session.expiresAt) - now);
  return atomically("The account changed too often to log in; try again", async () => {
    const user = await liveUserEntry(kv, session.userId);
    if (!user) return { value: false };
    const op = kv.atomic()
      .check(user)
      .set(sessions.record(session.id), session, { expireIn })
      .set(sessions.byUser(session.userId, session.id), true, { expireIn });
    if (origin) recordSecurity(op, session.userId, { type: "session.signed_in", origin, now });
    return { value: true, op: rememberLoginNetwork(op, session.userId, network, now) };
  });
}

/** A session that exists and has not expired, or null. */
export async function getSession(
  kv: Deno.Kv,
  sessionId: string,
  now: number,
): Promise<SessionRecord | null> {
  const entry = await kv.get<SessionRecord>(sessions.record(sessionId));
  if (!entry.value || Date.parse(entry.value.expiresAt) <= now) return null;
  return entry.value;
}

/** Ends one session, with the sign-out's security log entry when its origin is given. */
export async function deleteSession(
  kv: Deno.Kv,
  session: SessionRecord,
  signOut?: { now: number; origin: Origin },
) {
  const op = kv.atomic()
    .delete(sessions.record(session.id))
    .delete(sessions.byUser(session.userId, session.id));
  // The session's open streams end at once, wherever they are (kv/live/signal.ts).
  signalAccount(op, session.userId);
  if (signOut) recordSecurity(op, session.userId, { type: "session.signed_out", ...signOut });
  await commit(op);
}

/** Ends every session of a user (account deletion). */
export async function deleteUserSessions(kv: Deno.Kv, userId: string) {
  const ops: Deno.KvKey[] = [];
  for await (const entry of kv.list({ prefix: sessions.byUserPrefix(userId) })) {
    const sessionId = entry.key[entry.key.length - 1] as string;
    ops.push(sessions.record(sessionId), entry.key);
  }
  for (let i = 0; i < ops.length; i += 500) {
    const atomic = kv.atomic();
    for (const key of ops.slice(i, i + 500)) atomic.delete(key);
    signalAccount(atomic, userId);
    await commit(atomic);
  }
}
