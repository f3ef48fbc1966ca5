/**
 * What a task write raises: its webhook event, whose data is the task as GET shows it (with the
 * reason given, for a cancellation).
 */
import { toTaskCancelled } from "../cancellation/cancelled_event.ts";
import type { Effects } from "../effects.ts";
import { taskEventType } from "../webhooks/event.ts";
import type { TaskRecord } from "./task.ts";
import { type TaskAuthor, toTaskDetail } from "./task_view.ts";

/** The event of a write moving a task from `before` (null: created) to `after`. */
export function taskWriteEffects(
  before: TaskRecord | null,
  after: TaskRecord,
  author: TaskAuthor,
): Effects {
  const type = taskEventType(before, after);
  // The creator hears a cancellation as each helper does (kv/cancellation/cancelled_helpers.ts).
  const data = type === "task.cancelled"
    ? toTaskCancelled(after, author)
    : toTaskDetail(after, author);
  return { event: { type, data } };
}
