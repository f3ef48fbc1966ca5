/**
 * The window's job on a task with more hidden reviews than one run shows (kv/reviews/window.ts):
 * it continues where it stopped, shows each once, and counts each once; run again, it does
 * nothing twice. A runner whose clock is early leaves the window open and comes back at the close.
 */
import assert from "node:assert/strict";
import type { ReviewRecord, ReviewWindow } from "../../domain/reviews/review.ts";
import type { JobPayload } from "../../kv/jobs/types.ts";
import { reviews } from "../../kv/keyspace.ts";
import { orderKey } from "../../kv/order_key.ts";
import { readRating } from "../../kv/reviews/ratings.ts";
import { closeReviewWindow, WINDOW_BATCH } from "../../kv/reviews/window.ts";
import { openTestKv } from "../helpers.ts";

Deno.test("the window's job shows every hidden review once, in batches, and counts each once", async () => {
  await using kv = await openTestKv();
  const taskId = crypto.randomUUID();
  const owner = crypto.randomUUID();
  const closesAt = Date.now();
  await kv.set(reviews.window(taskId), { closesAt, closed: false } satisfies ReviewWindow);
  const count = WINDOW_BATCH * 2 + 7;
  for (let i = 0; i < count; i++) {
    const id = crypto.randomUUID();
    const record: ReviewRecord = {
      id,
      taskId,
      taskTitle: "Move a piano",
      reviewerId: crypto.randomUUID(),
      revieweeId: owner,
      rating: 1 + (i % 5),
      comment: null,
      createdAt: new Date(closesAt - 1000).toISOString(),
      visibleAt: null,
      orderKey: orderKey(closesAt - 1000, id),
    };
    await kv.set(reviews.record(taskId, record.reviewerId, owner), record);
  }
  const early = await closeReviewWindow({ kv, now: () => closesAt - 5 }, {
    kind: "review_window",
    taskId,
  });
  assert.deepEqual(early, { again: { at: closesAt } }, "too early: again at the close");
  assert.equal((await kv.get<ReviewWindow>(reviews.window(taskId))).value?.closed, false);

  let payload: Extract<JobPayload, { kind: "review_window" }> = { kind: "review_window", taskId };
  let runs = 0;
  for (;;) {
    runs++;
    const outcome = await closeReviewWindow({ kv, now: () => closesAt }, payload);
    if (!outcome) break;
    payload = outcome.again.payload as typeof payload;
  }
  assert.equal(runs, 3, "three runs of at most WINDOW_BATCH");
  assert.equal((await kv.get<ReviewWindow>(reviews.window(taskId))).value?.closed, true);
  const sum = Array.from({ length: count }, (_, i) => 1 + (i % 5)).reduce((a, b) => a + b, 0);
  const expected = { average: Math.round((sum / count) * 100) / 100, count };
  assert.deepEqual(await readRating(kv, owner), expected);
  await closeReviewWindow({ kv, now: () => closesAt }, { kind: "review_window", taskId });
  assert.deepEqual(await readRating(kv, owner), expected, "run again: nothing counted twice");
  let indexed = 0;
  for await (const _ of kv.list({ prefix: reviews.byRevieweePrefix(owner) })) indexed++;
  assert.equal(indexed, count);
});
