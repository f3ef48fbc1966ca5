/**
 * Reviews as docs/contract.md section 16 states them once written: double-blind until the
 * counterpart reviews back, deletions and purges, scopes, the listings and ratings. Who may review
 * whom is in `review_rules_test.ts`, the 14-day window in `review_window_test.ts`.
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
