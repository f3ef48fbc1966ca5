/** Sessions in KV: one record per issued token, expiring by itself, listed per user. */
import { commit } from "./commit.ts";
import { sessions } from "./keys.ts";

export interface SessionRecord {
  id: string;
  userId: string;
  expiresAt: string;
}

/** Stores a session that KV drops by itself once it has expired. */
export async function createSession(kv: Deno.Kv, session: SessionRecord, now: number) {
  const expireIn = Math.max(1, Date.parse(session.expiresAt) - now);
  await commit(
    kv.atomic()
      .set(sessions.record(session.id), session, { expireIn })
      .set(sessions.byUser(session.userId, session.id), true, { expireIn }),
  );
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

/** Ends one session. */
export async function deleteSession(kv: Deno.Kv, session: SessionRecord) {
  await commit(
    kv.atomic()
      .delete(sessions.record(session.id))
      .delete(sessions.byUser(session.userId, session.id)),
  );
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
    await commit(atomic);
  }
}
