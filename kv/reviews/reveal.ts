/**
 * Showing a hidden review: the writes that go with it in the atomic that shows it (its place in
 * the public listing, the reviewee's rating sums, the change marker of rating caches, and the
 * job that raises `review.published`), so that a rating counts each review exactly once.
 */
import type { ReviewRecord } from "../../domain/reviews/review.ts";
import { addJob } from "../jobs/schedule.ts";
import { reviews } from "../keyspace.ts";

/** The key parts a listing entry holds to find its record. */
export type ReviewRef = [taskId: string, reviewerId: string, revieweeId: string];

export function refOf(review: Pick<ReviewRecord, "taskId" | "reviewerId" | "revieweeId">) {
  return [review.taskId, review.reviewerId, review.revieweeId] as ReviewRef;
}

export function recordKey(review: Pick<ReviewRecord, "taskId" | "reviewerId" | "revieweeId">) {
  return reviews.record(review.taskId, review.reviewerId, review.revieweeId);
}

/**
 * Adds to `op` the shown records of `hidden` (each hidden as read, under the caller's check, so
 * that a review is shown, and counted, once) and what showing them writes besides: one or both
 * reviews of a pair, each key written once.
 */
export function reveal(op: Deno.AtomicOperation, hidden: ReviewRecord[], at: string) {
  for (const review of hidden) {
    op.set(recordKey(review), { ...review, visibleAt: at })
      .set(reviews.byReviewee(review.revieweeId, review.orderKey), refOf(review))
      .sum(reviews.ratingSum(review.revieweeId), BigInt(review.rating))
      .sum(reviews.ratingCount(review.revieweeId), 1n);
    addJob(op, {
      kind: "review_published",
      taskId: review.taskId,
      reviewerId: review.reviewerId,
      revieweeId: review.revieweeId,
    });
  }
  // Written blind, as the user cache's marker is (kv/polled_cache.ts).
  op.set(reviews.changed(), hidden[0].revieweeId);
}
