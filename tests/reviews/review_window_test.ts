/**
 * The review window: closed 14 days after completion, a lone review shown at the close and later
 * ones refused, the close a job written by the completion (the injected clock moved, the job runner
 * drained); and that job on a task with more hidden reviews than one run shows: it continues where
 * it stopped, shows each once, and counts each once; run again, it does nothing twice. A runner
 * whose clock is early leaves the window open and comes back at the close.
 */
import assert from "node:assert/strict";
import {
  REVIEW_WINDOW_MS,
  type ReviewRecord,
  type ReviewWindow,
} from "../../domain/reviews/review.ts";
import type { JobPayload } from "../../kv/jobs/types.ts";
import { reviews } from "../../kv/keyspace.ts";
import { orderKey } from "../../kv/order_key.ts";
import { readRating } from "../../kv/reviews/ratings.ts";
import { closeReviewWindow, WINDOW_BATCH } from "../../kv/reviews/window.ts";
import { openTestKv } from "../helpers.ts";
import { workingService } from "../webhooks/webhook_fixtures.ts";
import { completedTask, ratingOf, relogin, review, reviewsAbout, send } from "./fixtures.ts";

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

Deno.test("the window: a lone review shows when it closes, 14 days after completion; later reviews are refused", async () => {
  await using svc = await workingService();
  let clock = Date.now();
  svc.deps.now = () => clock;
  const { owner, applicants: [ann, bob], taskId } = await completedTask(svc, { applicants: 2 });
  const done = await send(svc, `/api/v1/tasks/${taskId}`, { token: owner.token });
  const closesAt = Date.parse(done.body.completedAt) + REVIEW_WINDOW_MS;
  const lone = await review(svc, owner, { taskId, revieweeId: ann.id, rating: 3 });
  assert.equal(lone.body.visible, false);

  clock = closesAt - 1;
  await svc.jobs.drain();
  const [o, a, b] = [await relogin(svc, owner), await relogin(svc, ann), await relogin(svc, bob)];
  assert.deepEqual((await reviewsAbout(svc, ann.id)).body, [], "still hidden a moment before");
  const justIn = await review(svc, b, { taskId, revieweeId: owner.id, rating: 4 });
  assert.equal(justIn.status, 201, "a review 1 ms before the close is taken");

  clock = closesAt;
  const late = await review(svc, a, { taskId, revieweeId: owner.id, rating: 1 });
  assert.equal(late.status, 409, "refused at the close, before the job has run");
  assert.equal(late.body.code, "REVIEW_WINDOW_CLOSED");

  await svc.jobs.drain();
  const aboutAnn = (await reviewsAbout(svc, ann.id)).body;
  assert.deepEqual(aboutAnn.map((r: { id: string }) => r.id), [lone.body.id], "shown alone");
  assert.deepEqual(await ratingOf(svc, a), { average: 3, count: 1 });
  assert.deepEqual(await ratingOf(svc, o), { average: 4, count: 1 }, "bob's review showed too");
  const again = await review(svc, o, { taskId, revieweeId: bob.id, rating: 5 });
  assert.equal(again.body.code, "REVIEW_WINDOW_CLOSED", "and after the job has run");
  clock = closesAt - 60_000; // an instance whose clock is a minute behind the job's
  const behind = await review(svc, o, { taskId, revieweeId: bob.id, rating: 5 });
  assert.equal(
    behind.body.code,
    "REVIEW_WINDOW_CLOSED",
    "the closed window is stored, not only timed",
  );
});

Deno.test("a task completed before reviews existed: its first review opens the window and its job", async () => {
  await using svc = await workingService();
  const { jobs, reviews } = await import("../../kv/keyspace.ts");
  const { owner, applicants: [ann], taskId } = await completedTask(svc);
  // What such a store holds: the completed task, no window, no window job.
  const op = svc.kv.atomic().delete(reviews.window(taskId));
  for await (const entry of svc.kv.list<{ payload: { kind: string } }>({ prefix: jobs.start() })) {
    if (entry.value.payload.kind === "review_window") op.delete(entry.key);
  }
  await op.commit();
  const res = await review(svc, owner, { taskId, revieweeId: ann.id, rating: 4 });
  assert.equal(res.status, 201);
  const window = await svc.kv.get<{ closesAt: number }>(reviews.window(taskId));
  const done = await send(svc, `/api/v1/tasks/${taskId}`, { token: owner.token });
  const closesAt = Date.parse(done.body.completedAt) + REVIEW_WINDOW_MS;
  assert.equal(window.value?.closesAt, closesAt);
  const due: number[] = [];
  for await (const entry of svc.kv.list<{ payload: { kind: string } }>({ prefix: jobs.start() })) {
    if (entry.value.payload.kind === "review_window") due.push(entry.key[1] as number);
  }
  assert.deepEqual(due, [closesAt]);
});

Deno.test("the window's close is a job due 14 days after completion, written by the completion", async () => {
  await using svc = await workingService();
  const { jobs } = await import("../../kv/keyspace.ts");
  const { owner, taskId } = await completedTask(svc);
  const done = await send(svc, `/api/v1/tasks/${taskId}`, { token: owner.token });
  const found: number[] = [];
  for await (
    const entry of svc.kv.list<{ payload: { kind: string; taskId?: string } }>({
      prefix: jobs.start(),
    })
  ) {
    const { payload } = entry.value;
    if (payload.kind === "review_window" && payload.taskId === taskId) {
      found.push(entry.key[1] as number);
    }
  }
  assert.deepEqual(found, [Date.parse(done.body.completedAt) + REVIEW_WINDOW_MS]);
});
