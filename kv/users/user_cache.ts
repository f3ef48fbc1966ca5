/**
 * Live user records cached in memory for the single-task path, which shows its author: without
 * it, every GET /tasks/:id paid a second KV read. Profile updates and account deletions rewrite
 * `users.changed()`, which every instance polls (kv/polled_cache.ts).
 */
import { users } from "../keyspace.ts";
import { PolledCache } from "../polled_cache.ts";
import { getUser, type StoredUser } from "./users.ts";

/** A live (not deleted) user by id; deleted and unknown users are never cached. */
export type UserCache = PolledCache<StoredUser>;

export function newUserCache(kv: Deno.Kv, now: () => number): UserCache {
  return new PolledCache(kv, now, users.changed(), (userId) => getUser(kv, userId));
}
