/**
 * The background half of account deletion: revokes what may have slipped past the request
 * (a key created concurrently), removes the account's projects and tasks, then lifts the purge
 * marker.
 * Every step is idempotent, so a redelivered message does no harm.
 */
import { revokeAllApiKeys } from "./api_keys.ts";
import { deleteOwnerProjects } from "./projects.ts";
import type { QueueContext } from "./queue.ts";
import { deleteUserSessions } from "./sessions.ts";
import { deleteUserTasks } from "./tasks.ts";
import { finishPurge } from "./users.ts";

/** Removes a deleted account's credentials and content, then ends its purge. */
export async function purgeUser(ctx: QueueContext, message: { userId: string }) {
  const { kv, now } = ctx;
  const at = new Date(now()).toISOString();
  await revokeAllApiKeys(kv, message.userId, now());
  await deleteUserSessions(kv, message.userId);
  await deleteOwnerProjects(kv, message.userId, at);
  await deleteUserTasks(kv, message.userId, at);
  await finishPurge(kv, message.userId);
}
