/**
 * The three atomics of a job's run, each one check on the job's own entry: claim it (move it to
 * the end of a lease), renew the lease while the handler runs, and finish (delete it, or move it
 * to its next due time). A failed check means another runner holds it: this one lets go.
 */
import { commit } from "../commit.ts";
import { jobs } from "../keyspace.ts";
import type { JobPayload, JobRecord } from "./types.ts";
import { jobWritten } from "./wake.ts";

/** A job as this runner holds it: its current key and versionstamp. */
export interface Held {
  key: Deno.KvKey;
  versionstamp: string;
  record: JobRecord;
}

/** Moves `entry` (a due job) under a lease until `until`; null when another runner got it first. */
export async function claimJob(
  kv: Deno.Kv,
  entry: Deno.KvEntry<JobRecord>,
  lease: { owner: string; until: number },
): Promise<Held | null> {
  const record: JobRecord = { ...entry.value, lease };
  const key = jobs.entry(lease.until, record.id);
  const result = await commit(kv.atomic().check(entry).delete(entry.key).set(key, record));
  return result.ok ? { key, versionstamp: result.versionstamp, record } : null;
}

/** Moves the lease of `held` to `until`; null when the lease was lost (it ran out). */
export async function renewLease(kv: Deno.Kv, held: Held, until: number): Promise<Held | null> {
  const record: JobRecord = { ...held.record, lease: { ...held.record.lease!, until } };
  const key = jobs.entry(until, record.id);
  const result = await commit(kv.atomic().check(held).delete(held.key).set(key, record));
  return result.ok ? { key, versionstamp: result.versionstamp, record } : null;
}

/**
 * Ends a run: deletes the job, or with `again` moves it to `again.at` (with a new payload, or a
 * failure noted) for another run. False when the lease was lost: the job is another runner's.
 */
export async function finishJob(
  kv: Deno.Kv,
  held: Held,
  again?: { at: number; payload?: JobPayload; error?: string },
): Promise<boolean> {
  const op = kv.atomic().check(held).delete(held.key);
  if (again) {
    const { lease: _, lastError: __, ...rest } = held.record;
    const record: JobRecord = {
      ...rest,
      payload: again.payload ?? rest.payload,
      scheduledAt: again.at,
      failures: again.error === undefined ? 0 : rest.failures + 1,
      ...(again.error === undefined ? {} : { lastError: again.error.slice(0, 500) }),
    };
    op.set(jobs.entry(again.at, record.id), record);
  }
  const ok = (await commit(op)).ok;
  if (ok && again) jobWritten(again.at);
  return ok;
}
