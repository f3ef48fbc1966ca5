/** The webhook events of task writes: which type, and the task as the API shows it as data. */
import { notFound } from "../../domain/errors.ts";
import { taskEventType } from "../../domain/webhooks/event.ts";
import type { TaskRecord } from "../../domain/tasks/task.ts";
import { toTaskDetail } from "../../domain/tasks/task_view.ts";
import type { TaskEffects } from "../../kv/tasks/tasks.ts";
import type { Deps } from "../router/env.ts";
import { authorOf } from "../reviews/author.ts";

/**
 * What a write of one's own task raises: its event, whose data is the task as GET shows it. The
 * author is the caller, read before the write's atomic.
 */
export async function taskEffects(deps: Deps, userId: string): Promise<TaskEffects> {
  const author = await authorOf(deps, userId);
  if (!author) throw notFound("User");
  return (before: TaskRecord | null, after: TaskRecord) => ({
    now: deps.now(),
    event: { type: taskEventType(before, after), data: toTaskDetail(after, author) },
  });
}
