/**
 * The background half of account deletion: revokes what may have slipped past the request
 * (a key created concurrently), deletes its webhook endpoints, soft-deletes the account's projects,
 * withdraws its applications, soft-deletes its tasks (which declines their pending applications,
 * see domain `effective`), then lifts the purge marker. Applications and tasks go in batches,
 * each batch a queue message of its own, so an account of
 * any size never holds one handler for long. Every step is idempotent: a redelivered message
 * does no harm.
 */
import { revokeAllApiKeys } from "./api_keys.ts";
import { withdrawUserApplications } from "./applications.ts";
import { deleteOwnerProjects } from "./projects.ts";
import type { QueueContext, QueueMessage } from "./queue.ts";
import { deleteUserSessions } from "./sessions.ts";
import { deleteUserTasks } from "./tasks.ts";
import { finishPurge } from "./users.ts";
import { commit } from "./commit.ts";
import { deleteAllWebhooks } from "./webhooks.ts";

/** Tasks soft-deleted, or applications withdrawn, per queue message. */
export const PURGE_BATCH = 200;

/** Removes a deleted account's credentials and content, then ends its purge. */
export async function purgeUser(
  ctx: Pick<QueueContext, "kv" | "now">,
  message: { userId: string },
) {
  const { kv, now } = ctx;
  const { userId } = message;
  const at = new Date(now()).toISOString();
  await revokeAllApiKeys(kv, userId, now());
  await deleteUserSessions(kv, userId);
  await deleteAllWebhooks(kv, userId, now());
  await deleteOwnerProjects(kv, userId, at);
  const next: QueueMessage = { kind: "purge_user", userId };
  if (await withdrawUserApplications(kv, { userId, at, limit: PURGE_BATCH }) === PURGE_BATCH) {
    // Maybe more: the rest in a message of its own.
    await commit(kv.atomic().enqueue(next));
    return;
  }
  const deleted = await deleteUserTasks(kv, { userId, at, limit: PURGE_BATCH });
  if (deleted === PURGE_BATCH) {
    // Maybe more: the rest in a message of its own; the marker keeps them hidden meanwhile.
    await commit(kv.atomic().enqueue(next));
    return;
  }
  await finishPurge(kv, userId);
}
