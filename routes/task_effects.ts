/** The webhook events of task writes: which type, and the task as the API shows it as data. */
import { notFound } from "../domain/errors.ts";
import { taskEventType } from "../domain/webhooks/event.ts";
import type { TaskRecord } from "../domain/tasks/task.ts";
import { toTaskDetail } from "../domain/tasks/task_view.ts";
import { toTaskCancelled } from "../domain/cancellation/cancelled_event.ts";
import type { TaskEffects } from "../kv/tasks/tasks.ts";
import type { Deps } from "./env.ts";
import { authorOf } from "./reviews/author.ts";

/**
 * What a write of one's own task raises: its event, whose data is the task as GET shows it (with
 * the reason, for a cancellation). The author is the caller, read before the write's atomic.
 */
export async function taskEffects(deps: Deps, userId: string): Promise<TaskEffects> {
  const author = await authorOf(deps, userId);
  if (!author) throw notFound("User");
  return (before: TaskRecord | null, after: TaskRecord) => {
    const type = taskEventType(before, after);
    // A cancellation's event says why, to the creator as to each helper (kv/cancellation/).
    const data = type === "task.cancelled"
      ? toTaskCancelled(after, author)
      : toTaskDetail(after, author);
    return { now: deps.now(), event: { type, data } };
  };
}
