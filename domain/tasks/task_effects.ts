/** What a task write raises: its webhook event, whose data is the task as GET shows it. */
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
  return { event: { type: taskEventType(before, after), data: toTaskDetail(after, author) } };
}
