/** API key keys: records, their digests and versions, usage counts and expiry notices. */

export const apiKeys = {
  record: (userId: string, keyId: string): Deno.KvKey => ["api_keys", userId, keyId],
  byUserPrefix: (userId: string): Deno.KvKey => ["api_keys", userId],
  byDigest: (digest: string): Deno.KvKey => ["api_keys_by_digest", digest],
  /**
   * A revoked key's record, moved out of the account's keys (which the hot paths list) and kept
   * `REVOKED_KEY_RETENTION_MS`, then dropped by KV's expiry.
   */
  revoked: (userId: string, keyId: string): Deno.KvKey => ["api_keys_revoked", userId, keyId],
  /**
   * An expired key's record (not revoked), moved out of the account's keys by its expiry job and
   * kept `EXPIRED_KEY_RETENTION_MS` after its expiry, then dropped by KV's expiry.
   */
  expired: (userId: string, keyId: string): Deno.KvKey => ["api_keys_expired", userId, keyId],
  expiredPrefix: (userId: string): Deno.KvKey => ["api_keys_expired", userId],
  /** Bumped on every change to an account's keys: serializes creation, invalidates caches. */
  version: (userId: string): Deno.KvKey => ["api_keys_version", userId],
  /** Rewritten by every change that matters to authentication; instances poll it (key cache). */
  changed: (): Deno.KvKey => ["api_keys_changed"],
  /**
   * One key's guard: rewritten by every change to what the key may do (in the change's atomic),
   * never by its last-use writes, and absent until its first change. A request acting for a
   * cached key reads it beside its first read and every commit checks its versionstamp.
   */
  guard: (keyId: string): Deno.KvKey => ["api_key_guards", keyId],
};

/**
 * Per-key request counts: one Deno.KvU64 per key, bucket unit, bucket start (epoch ms, UTC hour or
 * day) and outcome, so a range of a key's buckets is one contiguous `kv.list`.
 */
export const apiKeyUsage = {
  bucket: (keyId: string, unit: string, start: number, outcome: string): Deno.KvKey => [
    "api_key_usage",
    keyId,
    unit,
    start,
    outcome,
  ],
  from: (keyId: string, unit: string, start: number): Deno.KvKey => [
    "api_key_usage",
    keyId,
    unit,
    start,
  ],
  prefix: (keyId: string): Deno.KvKey => ["api_key_usage", keyId],
};

export const keyNotices = {
  /** Set once a key's expiry notice (expiring_7d, expiring_1d, expired) was raised. */
  sent: (keyId: string, notice: string): Deno.KvKey => ["api_key_notices", keyId, notice],
};
