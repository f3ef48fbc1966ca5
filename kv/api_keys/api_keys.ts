/**
 * API keys in KV: records per account, a digest index for authentication, and a per-account
 * version key that every change bumps, which serializes creations so the 10-key limit is exact.
 * A change takes the key it writes as domain's pure transition from the key it reads inside its
 * check-and-retry loop (domain/api_key_changes.ts), and what it raises as domain's rule: data
 * built by the caller, never a callback into it.
 */
import {
  type ApiKeyRecord,
  isActive,
  type KeyMatch,
  matchDigest,
  MAX_ACTIVE_KEYS,
} from "../../domain/api_key.ts";
import { accountGone, AppError } from "../../domain/errors.ts";
import { type KeyTransition, revokedKey } from "../../domain/api_key_changes.ts";
import { deleteUsage } from "./api_key_usage.ts";
import { atomically, commit } from "../commit.ts";
import type { Effects } from "../../domain/effects.ts";
import { addEffects, applyRule, type RuledEffects } from "../effects.ts";
import { scheduleKeyNotices } from "./key_notices.ts";
import { apiKeys } from "../keyspace.ts";
import { liveUserEntry } from "../users/users.ts";
import { signalAccount } from "../live/signal.ts";
import {
  archiveExpired,
  archiveRevoked,
  expiredKeep,
  findKeyRecord,
  listExpired,
  pickRecord,
} from "./key_records.ts";

const CONFLICT = "The account's keys changed too often to complete; try again";

/** Revoked and long-expired records still among an account's keys moved per creation. */
const MOVED_PER_CREATION = 100;

// An expired record is moved by its expiry job; one still among the account's keys a day after
// its expiry (stored before the job moved records, or whose notice ran before) is moved by the
// next key creation. The job reads both places, so a move of either kind never loses a notice.
const SWEPT_AFTER_EXPIRY_MS = 86_400_000;

/**
 * Every key record among the account's keys: the live and expired ones, and revoked ones stored
 * before revocation moved them out.
 */
async function listAll(kv: Deno.Kv, userId: string): Promise<ApiKeyRecord[]> {
  const keys: ApiKeyRecord[] = [];
  for await (const entry of kv.list<ApiKeyRecord>({ prefix: apiKeys.byUserPrefix(userId) })) {
    keys.push(entry.value);
  }
  return keys;
}

/**
 * Stores a new key unless the account already has 10 active ones. The count is read and the
 * version key checked and bumped in one atomic, so concurrent creations cannot pass the limit.
 * The same atomic raises `effects` and queues the key's expiry notices.
 */
export function createApiKey(
  kv: Deno.Kv,
  key: ApiKeyRecord,
  options: { now: number; effects?: Effects },
): Promise<void> {
  const { now } = options;
  return atomically(CONFLICT, async () => {
    // Checked in the atomic: a key cannot be created for an account deleted meanwhile.
    const owner = await liveUserEntry(kv, key.userId);
    if (!owner) throw accountGone();
    const version = await kv.get(apiKeys.version(key.userId));
    const all = await listAll(kv, key.userId);
    const active = all.filter((k) => isActive(k, now));
    if (active.length >= MAX_ACTIVE_KEYS) {
      throw new AppError(
        "KEY_LIMIT_REACHED",
        `An account may have at most ${MAX_ACTIVE_KEYS} active API keys; revoke one first`,
      );
    }
    const op = kv.atomic()
      .check(owner, version)
      .check({ key: apiKeys.byDigest(key.digest), versionstamp: null })
      .set(apiKeys.record(key.userId, key.id), key)
      .set(apiKeys.byDigest(key.digest), { userId: key.userId, keyId: key.id })
      .set(apiKeys.version(key.userId), crypto.randomUUID());
    // Revoked and expired records left by an older version leave the hot path here, a bounded
    // batch a time.
    const stale = all.filter((k) =>
      k.revokedAt !== null || Date.parse(k.expiresAt) + SWEPT_AFTER_EXPIRY_MS <= now
    ).slice(0, MOVED_PER_CREATION);
    for (const old of stale) {
      if (old.revokedAt !== null) archiveRevoked(op, old, now);
      else archiveExpired(op, old);
    }
    scheduleKeyNotices(op, key, now);
    if (options.effects) {
      await addEffects(kv, op, { ...options.effects, userId: key.userId, now });
    }
    return { value: undefined, op };
  });
}

/** The account's keys that are not revoked, the expired ones still kept included, newest first. */
export async function listApiKeys(kv: Deno.Kv, userId: string): Promise<ApiKeyRecord[]> {
  const [live, expired] = await Promise.all([listAll(kv, userId), listExpired(kv, userId)]);
  return [...live.filter((k) => k.revokedAt === null), ...expired]
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id));
}

/** One key of an account that is not revoked, or null. */
export async function getApiKey(
  kv: Deno.Kv,
  userId: string,
  keyId: string,
): Promise<ApiKeyRecord | null> {
  const { entry } = await findKeyRecord(kv, userId, keyId);
  return entry.value && entry.value.revokedAt === null ? entry.value : null;
}

/** What a digest index entry names. */
export interface KeyRef {
  userId: string;
  keyId: string;
}

/**
 * Resolves a presented key by its digest to its record (revoked or not), its guard's versionstamp
 * (what a request acting for it checks; null while the key never changed), and which of its
 * values it is; null when unknown.
 */
export async function findApiKeyByDigest(
  kv: Deno.Kv,
  digest: string,
  onRef: (ref: KeyRef) => void = () => {},
): Promise<(KeyMatch & { versionstamp: string | null }) | null> {
  const ref = await kv.get<KeyRef>(apiKeys.byDigest(digest));
  if (!ref.value) return null;
  // What else the request will need of the key's owner and budget can be read beside its record.
  onRef(ref.value);
  // The record (live or moved as expired) and its guard in one read: the guard's versionstamp
  // is that of this record.
  const [live, guard, expired] = await kv.getMany<[ApiKeyRecord, unknown, ApiKeyRecord]>([
    apiKeys.record(ref.value.userId, ref.value.keyId),
    apiKeys.guard(ref.value.keyId),
    apiKeys.expired(ref.value.userId, ref.value.keyId),
  ]);
  const { entry } = pickRecord([live, expired]);
  const match = entry.value ? matchDigest(entry.value, digest) : null;
  return match && { ...match, versionstamp: guard.versionstamp };
}

// A previous value's index entry outlives its deadline by this much before KV drops it: expiry
// is only its garbage collection (authentication judges the record's own deadline), and KV
// expires by the wall clock, which a test's clock may not follow.
const PREVIOUS_INDEX_SLACK_MS = 3_600_000;

/** The digests a record needs indexed: none once revoked, else its value and its previous one. */
function indexedDigests(key: ApiKeyRecord): string[] {
  if (key.revokedAt !== null) return [];
  return key.previousDigest ? [key.digest, key.previousDigest] : [key.digest];
}

/**
 * Adds to `op` the digest index changes from `before` to `after`: entries no longer needed are
 * deleted, a new value is indexed (checked unused), and a value that just became the previous
 * one is re-indexed with an expiry after its deadline.
 */
function moveDigestIndex(
  op: Deno.AtomicOperation,
  change: { before: ApiKeyRecord; after: ApiKeyRecord; expireIn?: number },
) {
  const { before, after } = change;
  const ref = { userId: after.userId, keyId: after.id };
  const kept = indexedDigests(after);
  for (const digest of indexedDigests(before)) {
    if (!kept.includes(digest)) op.delete(apiKeys.byDigest(digest));
  }
  if (kept.includes(after.digest) && after.digest !== before.digest) {
    op.check({ key: apiKeys.byDigest(after.digest), versionstamp: null })
      .set(apiKeys.byDigest(after.digest), ref, { expireIn: change.expireIn });
  }
  const previous = after.previousDigest;
  if (previous && kept.includes(previous) && previous !== (before.previousDigest ?? null)) {
    const left = Date.parse(after.previousExpiresAt!) - Date.now(); // KV's clock, the wall
    op.set(apiKeys.byDigest(previous), ref, {
      expireIn: Math.max(left, 0) + PREVIOUS_INDEX_SLACK_MS,
    });
  }
}

/**
 * Rewrites a live key under versionstamp checks, moving its digest index entries (its value and
 * its previous one) in the same atomic when they change, bumps the account version so every
 * cached copy of the key is dropped, and rewrites the key's guard so that no request in flight
 * or yet to start acts on what the change removed (kv/api_keys/key_guard.ts).
 * Returns null when the key does not exist or is revoked.
 */
export function updateApiKey(
  kv: Deno.Kv,
  ref: { userId: string; keyId: string },
  change: KeyTransition,
): Promise<ApiKeyRecord | null> {
  return changeApiKey(kv, { ...ref, change });
}

/**
 * A change of one key: domain's transition from the stored key (domain/api_key_changes.ts), run
 * again on the fresh key each round, and what it raises (event, security log entry): domain's
 * rule over the stored key and the key after, with the data the caller read for it.
 */
export interface ApiKeyChange<C> {
  userId: string;
  keyId: string;
  change: KeyTransition;
  effects?: RuledEffects<ApiKeyRecord, C>;
}

/** `updateApiKey`, raising the change's effects in its atomic. */
export function changeApiKey<C>(
  kv: Deno.Kv,
  request: ApiKeyChange<C>,
): Promise<ApiKeyRecord | null> {
  const { userId, keyId, change } = request;
  return atomically<ApiKeyRecord | null>(CONFLICT, async () => {
    const { entry, moved } = await findKeyRecord(kv, userId, keyId);
    if (!entry.value || entry.value.revokedAt !== null) return { value: null };
    const next = change(entry.value);
    // A key that stays alive (a new value, name or whitelist) is a credential write: checked
    // against the account's record, as creation is. Revocation is not, since account deletion
    // revokes every key after marking the account deleted.
    const owner = next.revokedAt === null ? await liveUserEntry(kv, userId) : null;
    if (next.revokedAt === null && !owner) throw accountGone();
    // The change marker and the key's guard are written blind (no check): concurrent changes
    // never conflict on them, and any write moves their versionstamps, which is all that cached
    // copies and requests in flight watch.
    const op = kv.atomic().check(entry);
    // A revoked key leaves the account's keys: key creation and GET /keys list live ones only.
    // An expired one already moved stays with the expired keys, with what is left of its time.
    const expireIn = moved ? expiredKeep(next) : undefined;
    if (next.revokedAt !== null) archiveRevoked(op, next, Date.parse(next.revokedAt));
    else if (moved) op.set(apiKeys.expired(userId, keyId), next, { expireIn });
    else op.set(apiKeys.record(userId, keyId), next);
    op.set(apiKeys.version(userId), crypto.randomUUID())
      .set(apiKeys.changed(), userId)
      .set(apiKeys.guard(keyId), true);
    // The key's open streams judge it again at once, wherever they are (kv/live/signal.ts).
    signalAccount(op, userId);
    moveDigestIndex(op, { before: entry.value, after: next, expireIn });
    if (owner) op.check(owner);
    if (request.effects) {
      await addEffects(kv, op, { ...applyRule(request.effects, entry.value, next), userId });
    }
    return { value: next, op };
  });
}

/** Revokes every key of an account at once (account deletion), and drops their figures. */
export async function revokeAllApiKeys(kv: Deno.Kv, userId: string, now: number) {
  for (const key of await listApiKeys(kv, userId)) {
    await updateApiKey(kv, { userId, keyId: key.id }, revokedKey(now));
    await deleteUsage(kv, key.id);
  }
}

/**
 * Records last uses (time and address); a key revoked or rewritten meanwhile is left alone
 * because the write only touches the `lastUsedAt` and `lastUsedIp` of the record as it is now.
 */
export async function recordLastUsed(
  kv: Deno.Kv,
  uses: { userId: string; keyId: string; at: string; ip: string }[],
) {
  for (const use of uses) {
    for (let attempt = 0; attempt < 5; attempt++) {
      const entry = await kv.get<ApiKeyRecord>(apiKeys.record(use.userId, use.keyId));
      if (!entry.value || (entry.value.lastUsedAt ?? "") >= use.at) break;
      const res = await commit(
        kv.atomic().check(entry)
          .set(apiKeys.record(use.userId, use.keyId), {
            ...entry.value,
            lastUsedAt: use.at,
            lastUsedIp: use.ip,
          }),
      );
      if (res.ok) break;
    }
  }
}
