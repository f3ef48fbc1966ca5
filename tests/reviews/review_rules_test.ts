/**
 * Who may review whom as docs/contract.md section 16 states it, each error in its order, and the
 * review body's rules. Visibility and listings are in `reviews_test.ts`.
 */
import assert from "node:assert/strict";
import { signUp } from "../helpers.ts";
import { postTask } from "../tasks/task_fixtures.ts";
import { workingService } from "../webhooks/webhook_fixtures.ts";
import { acceptApplicant, complete, completedTask, review, send } from "./fixtures.ts";

Deno.test("who may review whom: each error of section 16 in its order", async (t) => {
  await using svc = await workingService();
  const { owner, applicants: [ann, bob], taskId } = await completedTask(svc, { applicants: 2 });
  const stranger = await signUp(svc);

  await t.step("before completion: 409 TASK_NOT_COMPLETED, for both sides", async () => {
    const open = await completedTask(svc, { completed: false });
    const byOwner = await review(svc, open.owner, {
      taskId: open.taskId,
      revieweeId: open.applicants[0].id,
      rating: 5,
    });
    assert.equal(byOwner.status, 409);
    assert.equal(byOwner.body.code, "TASK_NOT_COMPLETED");
    const byApplicant = await review(svc, open.applicants[0], {
      taskId: open.taskId,
      revieweeId: open.owner.id,
      rating: 5,
    });
    assert.equal(byApplicant.body.code, "TASK_NOT_COMPLETED");
  });

  await t.step("a caller who is not a party: 404, even naming a real party", async () => {
    for (const revieweeId of [owner.id, ann.id]) {
      const res = await review(svc, stranger, { taskId, revieweeId, rating: 1 });
      assert.equal(res.status, 404);
      assert.equal(res.body.code, "NOT_FOUND");
    }
    const unknown = await review(svc, owner, {
      taskId: crypto.randomUUID(),
      revieweeId: ann.id,
      rating: 1,
    });
    assert.equal(unknown.status, 404);
  });

  await t.step("a declined or pending applicant is no party: 404", async () => {
    const task = await postTask(svc, owner.token, { maxPeople: 2 });
    const accepted = await signUp(svc);
    await acceptApplicant(svc, { owner, applicant: accepted, taskId: task.id });
    const pending = await signUp(svc);
    const applied = await send(svc, `/api/v1/tasks/${task.id}/applications`, {
      method: "POST",
      token: pending.token,
      json: { message: "me" },
    });
    assert.equal(applied.status, 201);
    await complete(svc, owner, task.id); // the pending application is declined by it
    const res = await review(svc, pending, { taskId: task.id, revieweeId: owner.id, rating: 2 });
    assert.equal(res.status, 404);
    const ofPending = await review(svc, owner, {
      taskId: task.id,
      revieweeId: pending.id,
      rating: 2,
    });
    assert.equal(ofPending.status, 403, "the creator may not review a declined applicant");
    assert.equal(ofPending.body.code, "NOT_A_PARTY");
  });

  await t.step("a reviewee who is not the caller's counterpart: 403 NOT_A_PARTY", async () => {
    const cases = [
      [owner, owner.id, "the creator themself"],
      [owner, stranger.id, "a stranger"],
      [owner, crypto.randomUUID(), "an unknown id"],
      [ann, bob.id, "another accepted applicant"],
      [ann, ann.id, "oneself"],
      [ann, stranger.id, "a stranger, by an applicant"],
    ] as const;
    for (const [reviewer, revieweeId, what] of cases) {
      const res = await review(svc, reviewer, { taskId, revieweeId, rating: 3 });
      assert.equal(res.status, 403, what);
      assert.equal(res.body.code, "NOT_A_PARTY", what);
    }
  });

  await t.step(
    "201 with the review, hidden; the same pair again: 409 ALREADY_REVIEWED",
    async () => {
      const first = await review(svc, owner, {
        taskId,
        revieweeId: ann.id,
        rating: 4,
        comment: "  Tidy and on time.\nWould hire again.  ",
      });
      assert.equal(first.status, 201, JSON.stringify(first.body));
      assert.deepEqual(Object.keys(first.body).sort(), [
        "comment",
        "createdAt",
        "id",
        "rating",
        "revieweeId",
        "reviewerId",
        "taskId",
        "visible",
      ]);
      assert.equal(first.body.visible, false);
      assert.equal(first.body.comment, "Tidy and on time.\nWould hire again.");
      assert.equal(first.body.reviewerId, owner.id);
      const again = await review(svc, owner, { taskId, revieweeId: ann.id, rating: 1 });
      assert.equal(again.status, 409);
      assert.equal(again.body.code, "ALREADY_REVIEWED");
      const other = await review(svc, owner, { taskId, revieweeId: bob.id, rating: 2 });
      assert.equal(other.status, 201, "the creator reviews each accepted applicant once");
      assert.equal(other.body.comment, null, "no comment is null");
    },
  );
});

Deno.test("the body's rules: rating 1-5 integer, comment up to 2,000 characters of text", async () => {
  await using svc = await workingService();
  const { owner, applicants: [ann], taskId } = await completedTask(svc);
  const bad = [
    { revieweeId: ann.id, rating: 0 },
    { revieweeId: ann.id, rating: 6 },
    { revieweeId: ann.id, rating: 4.5 },
    { revieweeId: ann.id, rating: "5" },
    { revieweeId: ann.id },
    { rating: 5 },
    { revieweeId: "not-a-uuid", rating: 5 },
    { revieweeId: ann.id, rating: 5, comment: "x".repeat(2_001) },
    { revieweeId: ann.id, rating: 5, comment: "bell \u0007 inside" },
    { revieweeId: ann.id, rating: 5, comment: "bidi \u202e override" },
    { revieweeId: ann.id, rating: 5, comment: "\u200b\u200b" },
  ];
  for (const json of bad) {
    const res = await send(svc, `/api/v1/tasks/${taskId}/reviews`, {
      method: "POST",
      token: owner.token,
      json,
    });
    assert.equal(res.status, 400, JSON.stringify(json));
    assert.equal(res.body.code, "VALIDATION_ERROR", JSON.stringify(json));
  }
  const unknown = await send(svc, `/api/v1/tasks/${taskId}/reviews`, {
    method: "POST",
    token: owner.token,
    json: { revieweeId: ann.id, rating: 5, stars: 5 },
  });
  assert.equal(unknown.status, 400);
  assert.equal(unknown.body.code, "UNKNOWN_PARAMETER");
  const longest = await review(svc, owner, {
    taskId,
    revieweeId: ann.id,
    rating: 5,
    comment: "y".repeat(2_000),
  });
  assert.equal(longest.status, 201, "2,000 characters are allowed");
});
