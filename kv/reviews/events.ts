/**
 * `review.published`: a job written by the atomic that shows a review raises the event for both
 * its parties through the webhook event machinery (kv/effects.ts), once: the record keeps a mark
 * set in the same atomic as the events.
 */
import { type ReviewRecord, toReview } from "../../domain/reviews/review.ts";
import { atomically } from "../commit.ts";
import { addEffects } from "../effects.ts";
import type { JobContext, JobOutcome, JobPayload } from "../jobs/types.ts";
import { recordKey } from "./reveal.ts";

const CONFLICT = "The review changed too often to publish it; try again";

/** Job handler of `review_published`; idempotent through the record's `published` mark. */
export async function publishReview(
  ctx: Pick<JobContext, "kv" | "now">,
  message: Extract<JobPayload, { kind: "review_published" }>,
): Promise<JobOutcome> {
  const { kv, now } = ctx;
  await atomically(CONFLICT, async () => {
    const entry = await kv.get<ReviewRecord>(recordKey(message));
    const review = entry.value;
    if (!review || review.visibleAt === null || review.published) return { value: null };
    const op = kv.atomic().check(entry).set(entry.key, { ...review, published: true });
    const event = { type: "review.published" as const, data: toReview(review) };
    for (const userId of [review.reviewerId, review.revieweeId]) {
      await addEffects(kv, op, { userId, now: now(), event });
    }
    return { value: null, op };
  });
}
