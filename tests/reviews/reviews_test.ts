/**
 * Reviews as docs/contract.md section 16 states them: who may review whom, once; double-blind
 * until the counterpart reviews back; every error code; the listings and ratings. The 14-day
 * window is in `review_window_test.ts`.
 */
import assert from "node:assert/strict";
import { createKey, signUp } from "../helpers.ts";
import { postTask } from "../tasks/task_fixtures.ts";
import { workingService } from "../webhooks/webhook_fixtures.ts";
import {
  acceptApplicant,
  complete,
  completedTask,
  ratingOf,
  review,
  reviewsAbout,
  send,
} from "./fixtures.ts";

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

Deno.test("double-blind: hidden until the counterpart reviews back, then both at once", async () => {
  await using svc = await workingService();
  const { owner, applicants: [ann], taskId } = await completedTask(svc);
  const first = await review(svc, ann, {
    taskId,
    revieweeId: owner.id,
    rating: 2,
    comment: "Late",
  });
  assert.equal(first.body.visible, false);

  assert.deepEqual((await reviewsAbout(svc, owner.id)).body, [], "not in the public listing");
  assert.deepEqual(await ratingOf(svc, owner), { average: null, count: 0 });
  const annMine = await send(svc, "/api/v1/reviews/me", { token: ann.token });
  assert.deepEqual(annMine.body, [first.body], "its author sees it, hidden");
  const ownerMine = await send(svc, "/api/v1/reviews/me", { token: owner.token });
  assert.deepEqual(ownerMine.body, [], "the reviewee does not see it");

  const back = await review(svc, owner, { taskId, revieweeId: ann.id, rating: 5 });
  assert.equal(back.status, 201);
  assert.equal(back.body.visible, true, "the review back shows at once");
  const aboutOwner = (await reviewsAbout(svc, owner.id)).body;
  assert.deepEqual(aboutOwner, [{
    id: first.body.id,
    taskId,
    taskTitle: "Fix the kitchen sink",
    reviewerId: ann.id,
    reviewerFirstName: "Ann0",
    rating: 2,
    comment: "Late",
    createdAt: first.body.createdAt,
  }]);
  assert.equal((await reviewsAbout(svc, ann.id)).body[0].id, back.body.id);
  assert.deepEqual(await ratingOf(svc, owner), { average: 2, count: 1 });
  assert.deepEqual(await ratingOf(svc, ann), { average: 5, count: 1 });
  const me = await send(svc, "/v1/users/me", { token: ann.token });
  assert.deepEqual(me.body.rating, { average: 5, count: 1 }, "/users/me carries it too");
  const annNow = await send(svc, "/api/v1/reviews/me", { token: ann.token });
  assert.equal(annNow.body[0].visible, true, "the first review is visible to its author now");
});

Deno.test("a completed task deleted afterwards keeps its window; a deleted account takes no review", async () => {
  await using svc = await workingService();
  const { owner, applicants: [ann, bob], taskId } = await completedTask(svc, { applicants: 2 });
  const deleted = await send(svc, `/api/v1/tasks/${taskId}`, {
    method: "DELETE",
    token: owner.token,
  });
  assert.equal(deleted.status, 200);
  const res = await review(svc, ann, { taskId, revieweeId: owner.id, rating: 4 });
  assert.equal(res.status, 201, "deleting the task does not take the review away");

  const gone = await send(svc, `/v1/users/${bob.id}`, { method: "DELETE", token: bob.token });
  assert.equal(gone.status, 200);
  const ofGone = await review(svc, owner, { taskId, revieweeId: bob.id, rating: 1 });
  assert.equal(ofGone.status, 404);
  assert.equal(ofGone.body.code, "NOT_FOUND");
});

Deno.test("an account's purge keeps its reviews, shown without a profile link, and every rating", async () => {
  await using svc = await workingService();
  const { owner, applicants: [ann], taskId } = await completedTask(svc);
  await review(svc, owner, { taskId, revieweeId: ann.id, rating: 2, comment: "Slow" });
  await review(svc, ann, { taskId, revieweeId: owner.id, rating: 5 });
  const gone = await send(svc, `/v1/users/${owner.id}`, { method: "DELETE", token: owner.token });
  assert.equal(gone.status, 200);
  await svc.jobs.drain(); // the purge has run to its end
  const about = (await reviewsAbout(svc, ann.id)).body;
  assert.equal(about.length, 1);
  assert.equal(about[0].reviewerId, null, "no link to the deleted profile");
  assert.equal(about[0].reviewerFirstName, null);
  assert.equal(about[0].comment, "Slow", "the review itself stays");
  assert.deepEqual(await ratingOf(svc, ann), { average: 2, count: 1 });
  const mine = await send(svc, "/api/v1/reviews/me", { token: ann.token });
  assert.equal(mine.body[0].revieweeId, owner.id, "the author's own copy names whom it was about");
  assert.equal((await send(svc, `/v1/users/${owner.id}/reviews`)).status, 404);
});

Deno.test("scopes: reviews:write to write, reviews:read for one's own; the public listing needs none", async () => {
  await using svc = await workingService();
  const { owner, applicants: [ann], taskId } = await completedTask(svc);
  const readOnly = await createKey(svc, owner.token, { scopes: ["reviews:read"] });
  const writeOnly = await createKey(svc, owner.token, { scopes: ["reviews:write"] });
  const refused = await send(svc, `/api/v1/tasks/${taskId}/reviews`, {
    method: "POST",
    headers: { "X-API-Key": readOnly.value },
    json: { revieweeId: ann.id, rating: 5 },
  });
  assert.equal(refused.status, 403);
  assert.equal(refused.body.code, "SCOPE_INSUFFICIENT");
  assert.equal(refused.body.scope, "reviews:write");
  const written = await send(svc, `/api/v1/tasks/${taskId}/reviews`, {
    method: "POST",
    headers: { "X-API-Key": writeOnly.value },
    json: { revieweeId: ann.id, rating: 5 },
  });
  assert.equal(written.status, 201);
  const noRead = await send(svc, "/api/v1/reviews/me", {
    headers: { "X-API-Key": writeOnly.value },
  });
  assert.equal(noRead.status, 403);
  assert.equal(noRead.body.scope, "reviews:read");
  const mine = await send(svc, "/api/v1/reviews/me", { headers: { "X-API-Key": readOnly.value } });
  assert.equal(mine.status, 200);
  assert.equal(mine.body.length, 1);
  assert.equal((await send(svc, "/api/v1/reviews/me")).status, 401, "no credential");
  assert.equal((await send(svc, `/api/v1/users/${ann.id}/reviews`)).status, 200);
  const unknown = await send(svc, `/api/v1/users/${crypto.randomUUID()}/reviews`);
  assert.equal(unknown.status, 404);
});

Deno.test("the listings page newest first with cursors bound to their query", async () => {
  await using svc = await workingService();
  let clock = Date.now();
  svc.deps.now = () => clock++;
  const ann = await signUp(svc, { firstName: "Ann" });
  const written: string[] = [];
  for (let i = 0; i < 5; i++) {
    const owner = await signUp(svc);
    const task = await postTask(svc, owner.token, { maxPeople: 1 });
    await acceptApplicant(svc, { owner, applicant: ann, taskId: task.id });
    await complete(svc, owner, task.id);
    await review(svc, ann, { taskId: task.id, revieweeId: owner.id, rating: 4 });
    const back = await review(svc, owner, { taskId: task.id, revieweeId: ann.id, rating: i + 1 });
    written.unshift(back.body.id);
  }
  const seen: string[] = [];
  let query = "?limit=2";
  for (;;) {
    const page = await reviewsAbout(svc, ann.id, query);
    seen.push(...page.body.map((r: { id: string }) => r.id));
    const next = page.headers.get("X-Next-Cursor");
    if (!next) break;
    query = `?limit=2&cursor=${next}`;
  }
  assert.deepEqual(seen, written, "every review once, newest first");
  assert.deepEqual(await ratingOf(svc, ann), { average: 3, count: 5 });
  const first = await reviewsAbout(svc, ann.id, "?limit=2");
  const cursor = first.headers.get("X-Next-Cursor");
  const other = await send(svc, `/api/v1/reviews/me?cursor=${cursor}`, { token: ann.token });
  assert.equal(other.status, 400);
  assert.equal(other.body.code, "INVALID_CURSOR");
  const mine = await send(svc, "/api/v1/reviews/me?limit=50", { token: ann.token });
  assert.equal(mine.body.length, 5);
});
