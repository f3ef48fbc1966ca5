/**
 * The security log in KV: one entry per event of an account, newest first by ULID, written in
 * the atomic of the change it records and expiring by itself after 90 days.
 */
import {
  SECURITY_LOG_RETENTION_MS,
  type SecurityDraft,
  securityEntry,
  type SecurityLogEntry,
} from "../domain/security_log.ts";
import { monotonicFactory } from "ulid";
import { commit } from "./commit.ts";
import { readNewestFirst } from "./cursor.ts";
import { securityLog } from "./keyspace.ts";

const nextUlid = monotonicFactory();

/** Adds the entry of `draft`, made at `now`, to `op`. */
export function recordSecurity(
  op: Deno.AtomicOperation,
  userId: string,
  draft: SecurityDraft & { now: number },
): Deno.AtomicOperation {
  const id = nextUlid(draft.now);
  const entry = securityEntry(draft, id, new Date(draft.now).toISOString());
  return op.set(securityLog.entry(userId, id), entry, { expireIn: SECURITY_LOG_RETENTION_MS });
}

/** Writes one entry on its own, for events that change nothing else (a failed sign-in). */
export async function logSecurity(
  kv: Deno.Kv,
  userId: string,
  draft: SecurityDraft & { now: number },
) {
  await commit(recordSecurity(kv.atomic(), userId, draft));
}

/** A page of an account's log, newest first, and the ULID to continue before. */
export async function listSecurityLog(
  kv: Deno.Kv,
  userId: string,
  page: { limit: number; before?: string },
): Promise<{ entries: SecurityLogEntry[]; next: string | null }> {
  const read = await readNewestFirst<SecurityLogEntry>(kv, {
    prefix: securityLog.prefix(userId),
    limit: page.limit,
    before: page.before,
  });
  return { entries: read.entries.map((e) => e.value), next: read.next };
}
