/** Review keys: records, listings by reviewee and reviewer, windows and rating sums. */

/**
 * Reviews (kv/reviews/): the record is keyed by its task and pair, so that one key is both the
 * review and the once-per-pair marker, and a task's reviews list under one prefix.
 */
export const reviews = {
  record: (taskId: string, reviewerId: string, revieweeId: string): Deno.KvKey => [
    "reviews",
    taskId,
    reviewerId,
    revieweeId,
  ],
  byTaskPrefix: (taskId: string): Deno.KvKey => ["reviews", taskId],
  /** Visible reviews about a user, newest first by order key; value: the record's key parts. */
  byReviewee: (userId: string, orderKey: string): Deno.KvKey => [
    "reviews_by_reviewee",
    userId,
    orderKey,
  ],
  byRevieweePrefix: (userId: string): Deno.KvKey => ["reviews_by_reviewee", userId],
  /** Every review a user wrote, hidden ones included; value: the record's key parts. */
  byReviewer: (userId: string, orderKey: string): Deno.KvKey => [
    "reviews_by_reviewer",
    userId,
    orderKey,
  ],
  byReviewerPrefix: (userId: string): Deno.KvKey => ["reviews_by_reviewer", userId],
  /** A completed task's review window ({closesAt, closed}); closed by its job. */
  window: (taskId: string): Deno.KvKey => ["review_windows", taskId],
  /** Deno.KvU64 sum and count of the visible ratings about a user. */
  ratingSum: (userId: string): Deno.KvKey => ["review_ratings", userId, "sum"],
  ratingCount: (userId: string): Deno.KvKey => ["review_ratings", userId, "count"],
  /** Rewritten by every reveal; instances poll it (the authors' rating cache). */
  changed: (): Deno.KvKey => ["reviews_changed"],
};
