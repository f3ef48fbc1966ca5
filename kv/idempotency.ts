/**
 * Idempotency-Key records: the first response to a POST, kept per user for 24 hours. A key is
 * claimed in the same atomic that performs the operation, so two requests racing with one key
 * cannot both act.
 */
import { sha256Hex } from "../domain/bytes.ts";
import { canonicalJson } from "../domain/canonical_json.ts";
import { idempotencyKeys } from "./keyspace.ts";

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** What is kept for a key: which request made it and what was answered. */
export interface IdempotencyRecord<R> {
  fingerprint: string;
  createdAt: string;
  response: R;
}

/** A key as found: its record while still valid, and the versionstamp to claim it against. */
export interface IdempotencySlot<R> {
  key: Deno.KvKey;
  versionstamp: string | null;
  record: IdempotencyRecord<R> | null;
}

/** Digest of a request body, equal for bodies that mean the same thing. */
export function requestFingerprint(body: unknown): Promise<string> {
  return sha256Hex(canonicalJson(body));
}

/** Which slot: a user's key for one operation (`scope`), judged at `now`. */
export interface IdempotencySlotRef {
  userId: string;
  scope: string;
  key: string;
  now: number;
}

/** The KV key of a slot, for a caller that reads it together with other entries. */
export function idempotencySlotKey(slot: IdempotencySlotRef): Deno.KvKey {
  return idempotencyKeys.record(slot.userId, slot.scope, slot.key);
}

/** The slot as read in `entry` (its key's entry); expired records count as absent. */
export function idempotencySlot<R>(
  entry: Deno.KvEntryMaybe<unknown>,
  now: number,
): IdempotencySlot<R> {
  const value = entry.value as IdempotencyRecord<R> | null;
  const fresh = value && now - Date.parse(value.createdAt) < IDEMPOTENCY_TTL_MS;
  return { key: entry.key, versionstamp: entry.versionstamp, record: fresh ? value : null };
}

/** Adds to `op` the claim of a slot: it commits only if nobody wrote the slot since it was read. */
export function claimIdempotencySlot<R>(
  op: Deno.AtomicOperation,
  slot: IdempotencySlot<R>,
  record: IdempotencyRecord<R>,
): Deno.AtomicOperation {
  return op.check({ key: slot.key, versionstamp: slot.versionstamp })
    .set(slot.key, record, { expireIn: IDEMPOTENCY_TTL_MS });
}
