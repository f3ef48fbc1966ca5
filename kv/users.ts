/** Users in KV: the record, its unique email index and its newest-first listing index. */
import { monotonicFactory } from "ulid";
import { AppError } from "../domain/errors.ts";
import { emailKey, type UserRecord } from "../domain/user.ts";
import { users } from "./keys.ts";

const newUlid = monotonicFactory();

/** A stored user plus the ULID that orders it in listings. */
export interface StoredUser extends UserRecord {
  listKey: string;
}

/** Creates a user; the email index is checked in the same atomic, so duplicates cannot race in. */
export async function createUser(kv: Deno.Kv, user: UserRecord): Promise<StoredUser> {
  const stored: StoredUser = { ...user, listKey: newUlid(Date.parse(user.createdAt)) };
  const res = await kv.atomic()
    .check({ key: users.byEmail(emailKey(user.email)), versionstamp: null })
    .check({ key: users.record(user.id), versionstamp: null })
    .set(users.record(user.id), stored)
    .set(users.byEmail(emailKey(user.email)), user.id)
    .set(users.byTime(stored.listKey), user.id)
    .commit();
  if (!res.ok) throw new AppError("EMAIL_TAKEN", "An account with this email already exists");
  return stored;
}

/** A live (not deleted) user by id, or null. */
export async function getUser(kv: Deno.Kv, userId: string): Promise<StoredUser | null> {
  const entry = await kv.get<StoredUser>(users.record(userId));
  return entry.value && !entry.value.deletedAt ? entry.value : null;
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
export async function updateUser(
  kv: Deno.Kv,
  userId: string,
  change: (user: StoredUser) => StoredUser,
): Promise<StoredUser | null> {
  for (let attempt = 0; attempt < 10; attempt++) {
    const entry = await kv.get<StoredUser>(users.record(userId));
    if (!entry.value || entry.value.deletedAt) return null;
    const next = change(entry.value);
    const res = await kv.atomic().check(entry).set(users.record(userId), next).commit();
    if (res.ok) return next;
  }
  throw new AppError("CONFLICT", "The user changed too often to update; try again");
}
