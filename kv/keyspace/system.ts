/** The store's own keys: configuration, health probe, layout and migration marks, and the background jobs' schedule. */

export const config = {
  jwtSecret: (): Deno.KvKey => ["config", "jwt_secret"],
};

export const health = {
  probe: (): Deno.KvKey => ["health", "probe"],
};

export const meta = {
  /** The task index layout the store's index entries and counters were written in. */
  indexLayout: (): Deno.KvKey => ["meta", "index_layout"],
  /** In a target store only while `deno task kv:copy` into it is unfinished: where to resume. */
  copyProgress: (): Deno.KvKey => ["meta", "kv_copy"],
  /** When this version first listened for the KV queue messages an older one left (kv/jobs). */
  legacyQueueDrain: (): Deno.KvKey => ["meta", "legacy_queue_drain"],
};

/**
 * Background jobs (kv/jobs/), ordered by when each is due: its schedule, or while a runner holds
 * it, the end of that runner's lease. So one range lists everything due by a time.
 */
export const jobs = {
  entry: (due: number, jobId: string): Deno.KvKey => ["jobs", due, jobId],
  start: (): Deno.KvKey => ["jobs"],
  /** Past every job due before `at`. */
  dueBefore: (at: number): Deno.KvKey => ["jobs", at],
};
