/**
 * A stream's credential as the store has it now: the key it watches (an API key's guard, which
 * every change to what the key may do rewrites, or the session's record), and the judgement of
 * it, made at the stream's opening and again whenever that key moves.
 */
import { matchDigest } from "../../domain/api_key.ts";
import type { ApiKeyRecord } from "../../domain/api_key.ts";
import { keyAllows, keyLiveUntil, type StreamCredential } from "../../domain/live/stream_access.ts";
import type { SessionRecord } from "../users/sessions.ts";
import { apiKeys, sessions } from "../keyspace.ts";

/** A credential judged good: until when by the clock, and the versionstamp it was judged at. */
export interface Judged {
  until: number;
  /** The versionstamp of the credential's watched key when judged. */
  versionstamp: string | null;
}

/** The key whose change may end the stream. */
export function watchedKey(credential: StreamCredential): Deno.KvKey {
  return credential.via === "api_key"
    ? apiKeys.guard(credential.keyId)
    : sessions.record(credential.sessionId);
}

/** Judges `credential` as stored now; null when it no longer lets the stream go on. */
export async function judgeCredential(
  kv: Deno.Kv,
  credential: StreamCredential,
  now: number,
): Promise<Judged | null> {
  if (credential.via === "session") {
    const entry = await kv.get<SessionRecord>(sessions.record(credential.sessionId));
    const until = entry.value ? Date.parse(entry.value.expiresAt) : 0;
    return until > now ? { until, versionstamp: entry.versionstamp } : null;
  }
  // The guard with the record, in one snapshot: the versionstamp held to is the judged one's.
  const [guard, record] = await kv.getMany<[unknown, ApiKeyRecord]>([
    apiKeys.guard(credential.keyId),
    apiKeys.record(credential.userId, credential.keyId),
  ]);
  const match = record.value ? matchDigest(record.value, credential.digest) : null;
  if (!match || !keyAllows(match, credential, now)) return null;
  return { until: keyLiveUntil(match), versionstamp: guard.versionstamp };
}
