/**
 * Reviews after a completed task (docs/contract.md section 16): the request and response shapes,
 * the stored record, the rating aggregate, and who may review whom, as plain functions.
 */
import { z } from "zod";
import { userText } from "../validation/text.ts";
import { AppError, notFound } from "../errors.ts";
import type { TaskRecord } from "../tasks/task.ts";

/** How long after a task's completion its parties may review each other. */
export const REVIEW_WINDOW_MS = 14 * 24 * 60 * 60 * 1000;

export const ReviewCreate = z.strictObject({
  revieweeId: z.uuid().describe(
    "The counterpart reviewed: an accepted applicant (for the task's creator), or the creator",
  ),
  rating: z.number().int().min(1).max(5).describe("1 (worst) to 5 (best)"),
  comment: userText({ max: 2_000, multiline: true }).optional()
    .describe("Optional; trimmed, and an empty one is no comment (null)"),
}).meta({ id: "ReviewCreate" });
export type ReviewCreate = z.infer<typeof ReviewCreate>;

/** A review as its author sees it: hidden ones included, with `visible`. */
export const Review = z.object({
  id: z.uuid(),
  taskId: z.uuid(),
  reviewerId: z.uuid(),
  revieweeId: z.uuid(),
  rating: z.number().int(),
  comment: z.string().nullable(),
  createdAt: z.string(),
  visible: z.boolean().describe(
    "False until the counterpart has reviewed back on the same task or the 14-day window closed",
  ),
}).meta({ id: "Review" });
export type Review = z.infer<typeof Review>;

/** A visible review in the public listing about a user. */
export const ReviewAbout = z.object({
  id: z.uuid(),
  taskId: z.uuid(),
  taskTitle: z.string(),
  reviewerId: z.uuid().nullable().describe("null once the reviewer's account was deleted"),
  reviewerFirstName: z.string().nullable().describe(
    "null once the reviewer's account was deleted",
  ),
  rating: z.number().int(),
  comment: z.string().nullable(),
  createdAt: z.string(),
}).meta({ id: "ReviewAbout" });
export type ReviewAbout = z.infer<typeof ReviewAbout>;

export const Rating = z.object({
  average: z.number().nullable().describe("Two decimals; null when count is 0"),
  count: z.number().int().describe("Visible reviews about the user"),
}).meta({ id: "Rating", description: "The average of the visible reviews about a user" });
export type Rating = z.infer<typeof Rating>;

/** A stored review, keyed by its task and pair (one per pair and direction). */
export interface ReviewRecord {
  id: string;
  taskId: string;
  /** The task's title at completion (a completed task is not edited any more). */
  taskTitle: string;
  reviewerId: string;
  revieweeId: string;
  rating: number;
  comment: string | null;
  createdAt: string;
  /** When it became visible; null while hidden. */
  visibleAt: string | null;
  /** Orders the review in its newest-first indexes (its creation). */
  orderKey: string;
  /** Set once `review.published` was raised for both parties. */
  published?: boolean;
}

/** The window's state: written at completion, closed by its job. */
export interface ReviewWindow {
  closesAt: number;
  closed: boolean;
}

/** The stored sum and count of a user's visible ratings as the API shows them. */
export function toRating(sum: number, count: number): Rating {
  return { average: count === 0 ? null : Math.round((sum / count) * 100) / 100, count };
}

export const NO_RATING: Rating = { average: null, count: 0 };

export function toReview(review: ReviewRecord): Review {
  return {
    id: review.id,
    taskId: review.taskId,
    reviewerId: review.reviewerId,
    revieweeId: review.revieweeId,
    rating: review.rating,
    comment: review.comment,
    createdAt: review.createdAt,
    visible: review.visibleAt !== null,
  };
}

/** The public listing's item; `reviewer` is null once the reviewer's account is gone. */
export function toReviewAbout(
  review: ReviewRecord,
  reviewer: { id: string; firstName: string } | null,
): ReviewAbout {
  return {
    id: review.id,
    taskId: review.taskId,
    taskTitle: review.taskTitle,
    reviewerId: reviewer?.id ?? null,
    reviewerFirstName: reviewer?.firstName ?? null,
    rating: review.rating,
    comment: review.comment,
    createdAt: review.createdAt,
  };
}

/** When the task's review window closes; null while the task is not completed. */
export function windowClosesAt(task: TaskRecord): number | null {
  if (task.status !== "completed" || !task.completedAt) return null;
  return Date.parse(task.completedAt) + REVIEW_WINDOW_MS;
}

/** What the review rules need to know of a task and the two people. */
export interface ReviewParties {
  task: TaskRecord | null;
  reviewerId: string;
  revieweeId: string;
  /**
   * Whether each of them holds an accepted application to the task (as it stands); for the
   * reviewer, also one cancelled with its task (a party still, whom a review is refused with 409).
   */
  reviewerAccepted: boolean;
  revieweeAccepted: boolean;
  /** The reviewee's account was deleted (an unknown id is simply not a counterpart). */
  revieweeDeleted: boolean;
}

/**
 * The rules of writing a review, in the order their errors answer: a caller who is not a party
 * (the creator, or an accepted applicant) gets 404 as if the task did not exist; then the task
 * must be completed (409); then the reviewee must be the caller's counterpart (403): the creator
 * reviews an accepted applicant, an accepted applicant the creator. A deleted account takes no
 * review (404, before the counterpart rule: a purged applicant's application is settled).
 * Returns the task.
 */
export function assertMayReview(parties: ReviewParties): TaskRecord {
  const { task, reviewerId, revieweeId } = parties;
  if (!task) throw notFound("Task");
  const isCreator = task.userId === reviewerId;
  // A task deleted before its completion is gone; one deleted after keeps its window, so that
  // deleting a task (or the creator's account) does not take away the other side's review.
  if (task.deletedAt !== null && task.status !== "completed") throw notFound("Task");
  if (!isCreator && !parties.reviewerAccepted) throw notFound("Task");
  if (task.status !== "completed") {
    throw new AppError("TASK_NOT_COMPLETED", "Reviews open once the task is completed");
  }
  if (parties.revieweeDeleted) throw notFound("User");
  const counterpart = isCreator
    ? revieweeId !== reviewerId && parties.revieweeAccepted
    : revieweeId === task.userId;
  if (!counterpart) {
    throw new AppError(
      "NOT_A_PARTY",
      isCreator
        ? "The reviewee is not an accepted applicant of this task"
        : "An applicant reviews the task's creator only",
    );
  }
  return task;
}

/** Refuses a review from the window's close on. */
export function assertWindowOpen(window: ReviewWindow, now: number) {
  if (window.closed || now >= window.closesAt) {
    throw new AppError(
      "REVIEW_WINDOW_CLOSED",
      "Reviews of this task closed 14 days after its completion",
    );
  }
}
