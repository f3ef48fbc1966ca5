/**
 * The background half of account deletion: revokes what may have slipped past the request
 * (a key created concurrently), deletes its webhook endpoints and task alerts, soft-deletes the account's projects,
 * withdraws its applications, soft-deletes its tasks (which declines their pending applications,
 * see domain `effective`), redacts the messages it sent (its conversations are closed by then),
 * then lifts the purge marker. Applications and tasks go in batches,
 * each batch a run of the job of its own, so an account of any size never holds one handler for
 * long. Every step is idempotent: a job run again does no harm.
 */
import { deleteUserAlerts } from "../alerts/alerts.ts";
import { redactUserConversations } from "../conversations/purge.ts";
import { revokeAllApiKeys } from "../api_keys/api_keys.ts";
import { withdrawUserApplications } from "../applications.ts";
import { deleteOwnerProjects } from "../projects.ts";
import type { JobContext, JobOutcome } from "../jobs/types.ts";
import { deleteUserSessions } from "./sessions.ts";
import { deleteUserTasks } from "../tasks/tasks.ts";
import { finishPurge } from "./users.ts";
import { deleteAllWebhooks } from "../webhooks/webhooks.ts";

/** Tasks soft-deleted, or applications withdrawn, per run of the job. */
export const PURGE_BATCH = 200;

/** Removes a deleted account's credentials and content, then ends its purge. */
export async function purgeUser(
  ctx: Pick<JobContext, "kv" | "now">,
  message: { userId: string },
): Promise<JobOutcome> {
  const { kv, now } = ctx;
  const { userId } = message;
  const at = new Date(now()).toISOString();
  await revokeAllApiKeys(kv, userId, now());
  await deleteUserSessions(kv, userId);
  await deleteAllWebhooks(kv, userId, now());
  await deleteUserAlerts(kv, userId);
  await deleteOwnerProjects(kv, userId, at);
  // Maybe more: the job runs again at once for the rest.
  const again = { again: { at: 0 } };
  if (await withdrawUserApplications(kv, { userId, at, limit: PURGE_BATCH }) === PURGE_BATCH) {
    return again;
  }
  const deleted = await deleteUserTasks(kv, { userId, at, limit: PURGE_BATCH });
  // The marker keeps the rest hidden meanwhile.
  if (deleted === PURGE_BATCH) return again;
  // Last: its applications withdrawn and its tasks deleted, its conversations take no messages.
  if (await redactUserConversations(kv, { userId, limit: PURGE_BATCH }) === PURGE_BATCH) {
    return again;
  }
  await finishPurge(kv, userId);
}
