/**
 * Who a task ever accepted, for what they may read of it: every acceptance marks its applicant in
 * its own atomic, and the mark stays. Acceptances made before the marks existed are found through
 * the applicant's active marker, which they still hold (or held until the cancellation's settle
 * job, which marks them as it ends them).
 */
import { type ApplicationRecord, effective } from "../../domain/application.ts";
import { canSee, type TaskRecord } from "../../domain/tasks/task.ts";
import { applications, taskHistory } from "../keyspace.ts";

/** Adds to `op` the mark of `app`'s applicant as accepted on its task. */
export function markHelper(op: Deno.AtomicOperation, app: ApplicationRecord) {
  op.set(taskHistory.helper(app.taskId, app.applicantId), app.id);
}

/** The applications of `userId` to `task` that its marks name, as they stand. */
async function markedApplications(
  kv: Deno.Kv,
  task: TaskRecord,
  userId: string,
): Promise<{ marked: boolean; apps: ApplicationRecord[] }> {
  const [helper, active] = await kv.getMany<[string, string]>([
    taskHistory.helper(task.id, userId),
    applications.active(userId, task.id),
  ]);
  const ids = [...new Set([helper.value, active.value].filter((id): id is string => !!id))];
  if (ids.length === 0) return { marked: false, apps: [] };
  const records = await kv.getMany<ApplicationRecord[]>(ids.map((id) => applications.record(id)));
  const apps = records.flatMap((r) => r.value ? [effective(r.value, task)] : []);
  return { marked: helper.value !== null, apps };
}

/** True when `userId` is `task`'s creator or was ever accepted on it: they may read its history. */
export async function wasEverAccepted(
  kv: Deno.Kv,
  task: TaskRecord,
  userId: string,
): Promise<boolean> {
  if (task.userId === userId) return true;
  const { marked, apps } = await markedApplications(kv, task, userId);
  return marked || apps.some((a) => a.status === "accepted" || a.status === "cancelled");
}

/** True when `userId` was an accepted helper of `task` when it was cancelled: they may see it. */
export async function isCancelledHelper(
  kv: Deno.Kv,
  task: TaskRecord,
  userId: string,
): Promise<boolean> {
  if (task.status !== "cancelled" || task.deletedAt !== null) return false;
  const { apps } = await markedApplications(kv, task, userId);
  return apps.some((a) => a.status === "cancelled");
}

/**
 * Whether `viewerId` (null: anonymous) may see `task`: as `canSee` says, or as a helper of the
 * task when it was cancelled (one more read, only for a cancelled task seen by someone else).
 */
export async function maySee(
  kv: Deno.Kv,
  task: TaskRecord,
  viewerId: string | null,
): Promise<boolean> {
  if (canSee(task, viewerId)) return true;
  return viewerId !== null && await isCancelledHelper(kv, task, viewerId);
}
