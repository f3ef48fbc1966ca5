/**
 * Cancelling a task (docs/contract.md section 20): the rule of the transition, a plain function
 * (the shapes are in cancel_shapes.ts). What a cancellation does to the task's applications is
 * `effective` in domain/application.ts.
 */
import { AppError } from "../errors.ts";
import type { TaskRecord } from "../tasks/task.ts";
import type { CancelRequest } from "./cancel_shapes.ts";

/** The task as cancelled at `at`: only a published task may be; anything else is 409. */
export function applyCancel(task: TaskRecord, request: CancelRequest, at: string): TaskRecord {
  if (task.status !== "published") {
    throw new AppError(
      "INVALID_TRANSITION",
      `Only a published task can be cancelled; this one is ${task.status}`,
    );
  }
  const cancellation = { reason: request.reason, note: request.note || null };
  return { ...task, status: "cancelled", cancelledAt: at, cancellation, updatedAt: at };
}
