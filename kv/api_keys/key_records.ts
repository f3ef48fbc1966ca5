/**
 * Where a key's record lives: among the account's keys while live (what key creation counts),
 * moved to `api_keys_revoked` when revoked and to `api_keys_expired` when it expires, each kept
 * 30 days and then dropped by KV's expiry. The moves and the reads that find either place.
 */
import {
  type ApiKeyRecord,
  EXPIRED_KEY_RETENTION_MS,
  REVOKED_KEY_RETENTION_MS,
} from "../../domain/api_key.ts";
import { apiKeys } from "../keyspace.ts";

const MIN_KEEP_MS = 60_000;

/**
 * Adds to `op` the move of a revoked record out of the account's keys (and out of the expired
 * ones), kept until `REVOKED_KEY_RETENTION_MS` after its revocation (at least a minute more).
 */
export function archiveRevoked(op: Deno.AtomicOperation, key: ApiKeyRecord, now: number) {
  const left = Date.parse(key.revokedAt!) + REVOKED_KEY_RETENTION_MS - now;
  op.delete(apiKeys.record(key.userId, key.id))
    .delete(apiKeys.expired(key.userId, key.id))
    .set(apiKeys.revoked(key.userId, key.id), key, { expireIn: Math.max(left, MIN_KEEP_MS) });
}

/**
 * How long KV keeps an expired record from now: until `EXPIRED_KEY_RETENTION_MS` after its
 * expiry by the wall clock, which KV expires by (a test's clock need not follow it).
 */
export function expiredKeep(key: ApiKeyRecord): number {
  return Math.max(Date.parse(key.expiresAt) + EXPIRED_KEY_RETENTION_MS - Date.now(), MIN_KEEP_MS);
}

/**
 * Adds to `op` the move of an expired record to the expired keys, its value's digest entry
 * expiring with it; a previous value's entry already expires.
 */
export function archiveExpired(op: Deno.AtomicOperation, key: ApiKeyRecord) {
  const expireIn = expiredKeep(key);
  op.delete(apiKeys.record(key.userId, key.id))
    .set(apiKeys.expired(key.userId, key.id), key, { expireIn })
    .set(apiKeys.byDigest(key.digest), { userId: key.userId, keyId: key.id }, { expireIn });
}

/** A key's record wherever it lives but the revoked keys, and whether it was moved as expired. */
export interface FoundKey {
  entry: Deno.KvEntryMaybe<ApiKeyRecord>;
  moved: boolean;
}

/** The key-record places a read looks in, live first. */
export function recordPlaces(userId: string, keyId: string): [Deno.KvKey, Deno.KvKey] {
  return [apiKeys.record(userId, keyId), apiKeys.expired(userId, keyId)];
}

/** Picks from the entries of `recordPlaces` (read together) the one holding the record. */
export function pickRecord(
  [live, expired]: [Deno.KvEntryMaybe<ApiKeyRecord>, Deno.KvEntryMaybe<ApiKeyRecord>],
): FoundKey {
  return live.value || !expired.value ? { entry: live, moved: false } : {
    entry: expired,
    moved: true,
  };
}

/** One read for a key's record, live or moved as expired. */
export async function findKeyRecord(
  kv: Deno.Kv,
  userId: string,
  keyId: string,
): Promise<FoundKey> {
  return pickRecord(await kv.getMany<[ApiKeyRecord, ApiKeyRecord]>(recordPlaces(userId, keyId)));
}

/** The account's expired keys still kept. */
export async function listExpired(kv: Deno.Kv, userId: string): Promise<ApiKeyRecord[]> {
  const keys: ApiKeyRecord[] = [];
  for await (const entry of kv.list<ApiKeyRecord>({ prefix: apiKeys.expiredPrefix(userId) })) {
    keys.push(entry.value);
  }
  return keys;
}
