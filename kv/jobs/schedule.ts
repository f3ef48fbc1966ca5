/**
 * Writing a job: into the atomic of the change that causes it (the outbox), so the job exists
 * exactly when its cause committed. The commit wakes this process's runners.
 */
import { afterCommit } from "../commit.ts";
import { jobs } from "../keyspace.ts";
import type { JobPayload, JobRecord } from "./types.ts";
import { jobWritten } from "./wake.ts";

/** Adds `payload` to `op` as a job due at `at` (default 0: at once). Returns the job's id. */
export function addJob(op: Deno.AtomicOperation, payload: JobPayload, at = 0): string {
  const record: JobRecord = { id: crypto.randomUUID(), payload, scheduledAt: at, failures: 0 };
  op.set(jobs.entry(at, record.id), record);
  afterCommit(op, () => jobWritten(at));
  return record.id;
}
