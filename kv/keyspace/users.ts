/** Account keys: users, their sessions, recent login networks and security log. */

export const users = {
  record: (userId: string): Deno.KvKey => ["users", userId],
  byEmail: (email: string): Deno.KvKey => ["users_by_email", email],
  /** Newest-first listing: ids are ULID-ordered per creation. */
  byTime: (ulid: string): Deno.KvKey => ["users_by_time", ulid],
  byTimePrefix: (): Deno.KvKey => ["users_by_time"],
  /** Present while a deleted account's content is being removed: readers hide its tasks. */
  purge: (userId: string): Deno.KvKey => ["user_purges", userId],
  purgePrefix: (): Deno.KvKey => ["user_purges"],
  /** Rewritten by every change to a profile or an account's deletion; instances poll it. */
  changed: (): Deno.KvKey => ["users_changed"],
};

export const sessions = {
  record: (sessionId: string): Deno.KvKey => ["sessions", sessionId],
  byUser: (userId: string, id: string): Deno.KvKey => ["sessions_by_user", userId, id],
  byUserPrefix: (userId: string): Deno.KvKey => ["sessions_by_user", userId],
};

export const loginNetworks = {
  /** Present (expiring) while an account has recently logged in from a client network. */
  record: (userId: string, network: string): Deno.KvKey => ["login_networks", userId, network],
};

export const securityLog = {
  /** One security event of an account, newest first by ULID; expires after 90 days. */
  entry: (userId: string, ulid: string): Deno.KvKey => ["security_log", userId, ulid],
  prefix: (userId: string): Deno.KvKey => ["security_log", userId],
};
