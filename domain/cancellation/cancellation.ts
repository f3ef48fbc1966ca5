/**
 * Cancelling a task (docs/contract.md section 20): the request and stored shapes, and the rule of
 * the transition, as plain functions. What a cancellation does to the task's applications is
 * `effective` in domain/application.ts.
 */
import { z } from "zod";
import { AppError } from "../errors.ts";
import { userText } from "../validation/text.ts";
import type { TaskRecord } from "../tasks/task.ts";

export const CANCEL_REASONS = [
  "no_longer_needed",
  "found_someone_else",
  "helper_no_show",
  "other",
] as const;

export const CancelReason = z.enum(CANCEL_REASONS, {
  error: `must be one of ${CANCEL_REASONS.join(", ")}`,
}).meta({ id: "CancelReason" });
export type CancelReason = z.infer<typeof CancelReason>;

export const CancelRequest = z.strictObject({
  reason: CancelReason,
  note: userText(z.string().trim().max(500), true).optional()
    .describe("Optional, at most 500 characters; trimmed, and an empty one is no note (null)"),
}).meta({ id: "CancelRequest" });
export type CancelRequest = z.infer<typeof CancelRequest>;

/** Why a task was cancelled, as its creator said. */
export const Cancellation = z.object({
  reason: CancelReason,
  note: z.string().nullable(),
}).meta({ id: "Cancellation" });
export type Cancellation = z.infer<typeof Cancellation>;

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
