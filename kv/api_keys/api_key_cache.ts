/**
 * API-key records cached in memory for the authentication path, so a key in use costs neither a
 * KV read nor a SHA-256 per request. Every change that matters to authentication (patch,
 * regenerate, revoke, account deletion) rewrites `apiKeys.changed()`, which every instance polls
 * to keep the cache fresh; what makes a change hold at once is the request's own check of the
 * key's guard (kv/api_keys/key_guard.ts).
 */
import { keyDigest, type KeyMatch } from "../../domain/api_key.ts";
import { findApiKeyByDigest, type KeyRef } from "./api_keys.ts";
import { apiKeys } from "../keyspace.ts";
import { PolledCache } from "../polled_cache.ts";

/**
 * Resolves a presented (well-formed) key value to its record, revoked or not, and to which of its
 * values it is. Entries are keyed by the value itself: hashing it was the largest cost of a
 * cached request. Values stay in this process's memory only, as the request headers that carry
 * them. A previous value's deadline is in the cached record and judged per request (`isLive`),
 * so it holds on every instance without any change marker moving.
 */
export type ApiKeyCache = PolledCache<CachedKey>;

/**
 * A key's record as read, with its guard's versionstamp read in the same snapshot (null while the
 * key never changed): a request acting for it confirms that.
 */
export type CachedKey = KeyMatch & { versionstamp: string | null };

/**
 * `onRef` hears the key's owner and id once its digest index is read, so that what the request
 * needs of them (the user, the key's rate-limit window) is read beside the key's record.
 */
export function newApiKeyCache(
  kv: Deno.Kv,
  now: () => number,
  onRef: (ref: KeyRef) => void = () => {},
): ApiKeyCache {
  return new PolledCache(
    kv,
    now,
    apiKeys.changed(),
    async (value) => findApiKeyByDigest(kv, await keyDigest(value), onRef),
  );
}
