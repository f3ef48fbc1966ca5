/** The webhook events of task writes: which type, and the task as the API shows it as data. */
import { notFound } from "../domain/errors.ts";
import { taskEventType } from "../domain/event.ts";
import type { TaskRecord } from "../domain/task.ts";
import { toTaskDetail } from "../domain/task_view.ts";
import type { TaskEffects } from "../kv/tasks.ts";
import type { Deps } from "./env.ts";

/**
 * What a write of one's own task raises: its event, whose data is the task as GET shows it. The
 * author is the caller, read before the write's atomic.
 */
export async function taskEffects(deps: Deps, userId: string): Promise<TaskEffects> {
  const author = await deps.userCache.find(userId);
  if (!author) throw notFound("User");
  return (before: TaskRecord | null, after: TaskRecord) => ({
    now: deps.now(),
    event: { type: taskEventType(before, after), data: toTaskDetail(after, author) },
  });
}
