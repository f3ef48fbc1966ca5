/** The data of `task.cancelled`: the task as GET /tasks/{id} shows it, and why it was cancelled. */
import { z } from "zod";
import { type TaskAuthor, TaskDetail, toTaskDetail } from "../tasks/task_view.ts";
import type { TaskRecord } from "../tasks/task.ts";
import { CancelReason } from "./cancel_shapes.ts";

export const TaskCancelled = z.object({
  task: TaskDetail,
  reason: CancelReason,
}).meta({ id: "TaskCancelled" });
export type TaskCancelled = z.infer<typeof TaskCancelled>;

/** The event's data for a cancelled task and its author. */
export function toTaskCancelled(task: TaskRecord, author: TaskAuthor): TaskCancelled {
  return { task: toTaskDetail(task, author), reason: task.cancellation?.reason ?? "other" };
}
