/**
 * A cancellation's request and stored shapes (docs/contract.md section 20), apart from the
 * transition's rule so that the task's own shape can name them without an import circle.
 */
import { z } from "zod";
import { userText } from "../validation/text.ts";

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
  note: userText({ max: 500, multiline: true }).optional()
    .describe("Optional, at most 500 characters; trimmed, and an empty one is no note (null)"),
}).meta({ id: "CancelRequest" });
export type CancelRequest = z.infer<typeof CancelRequest>;

/** Why a task was cancelled, as its creator said. */
export const Cancellation = z.object({
  reason: CancelReason,
  note: z.string().nullable(),
}).meta({ id: "Cancellation" });
export type Cancellation = z.infer<typeof Cancellation>;
