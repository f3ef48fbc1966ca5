/**
 * An API key's changes as pure transitions from the stored key to the key to write. kv runs one
 * inside its check-and-retry loop (changeApiKey) and again on the fresh key after a concurrent
 * change, so a partial edit is re-applied, never lost; a route builds one from the request and
 * passes it down: nothing in it calls back into routes.
 */
import { type ApiKeyRecord, type ApiKeyUpdate, rolled } from "./api_key.ts";

/** The key to write given the stored, live key. */
export type KeyTransition = (key: ApiKeyRecord) => ApiKeyRecord;

/** PATCH: the members given replace the key's; a null rate limit returns it to the default. */
export function editedKey(update: ApiKeyUpdate): KeyTransition {
  return (key) => ({
    ...key,
    name: update.name ?? key.name,
    ipWhitelist: update.ipWhitelist ?? key.ipWhitelist,
    rateLimitPerHour: update.rateLimitPerHour === undefined
      ? key.rateLimitPerHour ?? null
      : update.rateLimitPerHour,
  });
}

/** Regenerated to `next` at `now`, the current value kept for `graceMs` (see `rolled`). */
export function regeneratedKey(
  next: { digest: string; prefix: string; last4: string },
  grace: { graceMs: number; now: number },
): KeyTransition {
  return (key) => rolled(key, next, grace.graceMs, grace.now);
}

/** Revoked at `now`. */
export function revokedKey(now: number): KeyTransition {
  return (key) => ({ ...key, revokedAt: new Date(now).toISOString() });
}
