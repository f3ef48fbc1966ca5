/**
 * Live event keys: the per-account event log, its sequence, the store-wide change signals,
 * stream tickets and stream leases.
 */

export const live = {
  /**
   * An event raised and not yet given its place in the account's order, by its ULID; written in
   * the atomic of the change that raised it, moved into the log by the sequencer.
   */
  pending: (userId: string, ulid: string): Deno.KvKey => ["live_pending", userId, ulid],
  pendingPrefix: (userId: string): Deno.KvKey => ["live_pending", userId],
  /**
   * Rewritten (never checked) by every atomic that raises an event for the account: the key a
   * process watches or polls to learn that something was raised.
   */
  raised: (userId: string): Deno.KvKey => ["live_raised", userId],
  /**
   * One of a few store-wide marks (kv/live/signal.ts picks an account's), rewritten blind by
   * every atomic that raises an event for an account of its shard or changes one of its stream
   * credentials: what each process watches or polls, instead of a key per account.
   */
  signal: (shard: number): Deno.KvKey => ["live_signal", shard],
  /** The account's last sequence number given; checked by every sequencing atomic. */
  head: (userId: string): Deno.KvKey => ["live_heads", userId],
  /** The account's event log in the order streams send it. */
  log: (userId: string, seq: number): Deno.KvKey => ["live_log", userId, seq],
  logPrefix: (userId: string): Deno.KvKey => ["live_log", userId],
  /** An event's place in the log, by its ULID (resuming by `Last-Event-ID`). */
  seqOf: (userId: string, ulid: string): Deno.KvKey => ["live_log_ids", userId, ulid],
  /** A stream ticket, by the SHA-256 of its value. */
  ticket: (digest: string): Deno.KvKey => ["live_tickets", digest],
  /** One open stream's lease, renewed while it is open. */
  stream: (userId: string, streamId: string): Deno.KvKey => ["live_streams", userId, streamId],
  streamsPrefix: (userId: string): Deno.KvKey => ["live_streams", userId],
  /** Moved by every stream admission, so two admissions never both count the same streams. */
  streamsVersion: (userId: string): Deno.KvKey => ["live_streams_version", userId],
};
