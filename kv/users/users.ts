/**
 * Users in KV: the record, its unique email index, its newest-first listing index, and the
 * purge markers of deleted accounts whose content is still being removed.
 */
import { AppError } from "../../domain/errors.ts";
import { emailKey, purgedUser, type UserRecord } from "../../domain/users/user.ts";
import { readNewestFirst } from "../cursor.ts";
import { atomically, commit } from "../commit.ts";
import { users } from "../keyspace.ts";
import { GETMANY_MAX } from "../store/limits.ts";
import { orderKey } from "../order_key.ts";
import { addJob } from "../jobs/schedule.ts";
import type { SecurityDraft } from "../../domain/security_log.ts";
import { recordSecurity } from "../security_log.ts";

/** A stored user plus the ULID that orders it in listings. */
export interface StoredUser extends UserRecord {
  listKey: string;
}

/** Creates a user; the email index is checked in the same atomic, so duplicates cannot race in. */
export async function createUser(kv: Deno.Kv, user: UserRecord): Promise<StoredUser> {
  const stored: StoredUser = { ...user, listKey: orderKey(Date.parse(user.createdAt), user.id) };
  const res = await commit(
    kv.atomic()
      .check({ key: users.byEmail(emailKey(user.email)), versionstamp: null })
      .check({ key: users.record(user.id), versionstamp: null })
      .set(users.record(user.id), stored)
      .set(users.byEmail(emailKey(user.email)), user.id)
      .set(users.byTime(stored.listKey), user.id),
  );
  if (!res.ok) throw new AppError("EMAIL_TAKEN", "An account with this email already exists");
  return stored;
}

/** A live (not deleted) user by id, or null. */
export async function getUser(kv: Deno.Kv, userId: string): Promise<StoredUser | null> {
  const entry = await kv.get<StoredUser>(users.record(userId));
  return entry.value && !entry.value.deletedAt ? entry.value : null;
}

/**
 * The user's record entry when the account is live, else null: a credential write checks this
 * entry in its atomic, so it cannot land after the account's deletion (which rewrites it).
 */
export async function liveUserEntry(
  kv: Deno.Kv,
  userId: string,
): Promise<Deno.KvEntry<StoredUser> | null> {
  const entry = await kv.get<StoredUser>(users.record(userId));
  return entry.value && !entry.value.deletedAt ? entry as Deno.KvEntry<StoredUser> : null;
}

/** A live user by email (any case), or null. */
export async function findUserByEmail(kv: Deno.Kv, email: string): Promise<StoredUser | null> {
  const id = await kv.get<string>(users.byEmail(emailKey(email)));
  return id.value ? getUser(kv, id.value) : null;
}

/**
 * Applies `change` to a live user under a versionstamp check, retrying when a concurrent write
 * got there first, so no update is lost. Returns null when the user does not exist.
 */
export function updateUser(
  kv: Deno.Kv,
  request: {
    userId: string;
    /** Domain's pure transition from the stored user (`editedUser`), run again each round. */
    change: (user: StoredUser) => StoredUser;
    /** The security log entry of the change, written in its atomic. */
    security?: SecurityDraft & { now: number };
  },
): Promise<StoredUser | null> {
  const { userId, change, security } = request;
  return atomically<StoredUser | null>(
    "The user changed too often to update; try again",
    async () => {
      const entry = await kv.get<StoredUser>(users.record(userId));
      if (!entry.value || entry.value.deletedAt) return { value: null };
      const next = change(entry.value);
      // The change marker is written blind, as the key cache's is (kv/polled_cache.ts).
      const op = kv.atomic().check(entry).set(users.record(userId), next)
        .set(users.changed(), userId);
      if (security) recordSecurity(op, userId, security);
      return { value: next, op };
    },
  );
}

/** A page of live users, newest first, and the ordering key to continue after. */
export async function listUsers(
  kv: Deno.Kv,
  limit: number,
  before?: string,
): Promise<{ users: StoredUser[]; next: string | null }> {
  const page = await readNewestFirst<string>(kv, { prefix: users.byTimePrefix(), limit, before });
  const ids = page.entries.map((e) => e.value);
  const found: StoredUser[] = [];
  for (let i = 0; i < ids.length; i += GETMANY_MAX) {
    const batch = await kv.getMany<StoredUser[]>(ids.slice(i, i + GETMANY_MAX).map(users.record));
    for (const entry of batch) if (entry.value && !entry.value.deletedAt) found.push(entry.value);
  }
  return { users: found, next: page.next };
}

/**
 * Deletes an account in one atomic: the record keeps `deletedAt`, the email is freed, the user
 * leaves the listing, and a purge marker is set with the purge's job. From that commit on, readers that
 * consult `pendingPurges` hide the user's tasks until the background purge has removed them.
 * Returns null when the user does not exist.
 */
export function markUserDeleted(
  kv: Deno.Kv,
  userId: string,
  at: string,
): Promise<StoredUser | null> {
  return atomically<StoredUser | null>(
    "The user changed too often to delete; try again",
    async () => {
      const entry = await kv.get<StoredUser>(users.record(userId));
      if (!entry.value || entry.value.deletedAt) return { value: null };
      const deleted: StoredUser = { ...entry.value, deletedAt: at, updatedAt: at };
      const op = kv.atomic()
        .check(entry)
        .set(users.record(userId), deleted)
        .delete(users.byEmail(emailKey(deleted.email)))
        .delete(users.byTime(deleted.listKey))
        .set(users.purge(userId), at)
        .set(users.changed(), userId);
      addJob(op, { kind: "purge_user", userId });
      return { value: deleted, op };
    },
  );
}

/** Ids of deleted accounts whose content is still being removed; readers hide their tasks. */
export async function pendingPurges(kv: Deno.Kv): Promise<Set<string>> {
  const ids = new Set<string>();
  for await (const entry of kv.list({ prefix: users.purgePrefix() })) {
    ids.add(String(entry.key.at(-1)));
  }
  return ids;
}

/**
 * Ends a purge: the account's content is gone, so readers need not hide it any more, and the
 * record keeps no personal data (`purgedUser`), in the same atomic.
 */
export function finishPurge(kv: Deno.Kv, userId: string): Promise<void> {
  return atomically("The user changed too often to purge; try again", async () => {
    const entry = await kv.get<StoredUser>(users.record(userId));
    const op = kv.atomic().check(entry).delete(users.purge(userId));
    if (entry.value?.deletedAt) {
      op.set(entry.key, purgedUser(entry.value)).set(users.changed(), userId);
    }
    return { value: undefined, op };
  });
}
