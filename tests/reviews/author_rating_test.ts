/**
 * `authorRating` on the single task shape (docs/contract.md section 16): the author's rating as
 * the profile shows it, on the instance that showed the reviews at once, and on another instance
 * of the same store once it has polled the change marker (within a second).
 */
import assert from "node:assert/strict";
import { POLL_INTERVAL_MS } from "../../kv/polled_cache.ts";
import { sharedInstances } from "../helpers.ts";
import { postTask } from "../tasks/task_fixtures.ts";
import { completedTask, review, send } from "./fixtures.ts";

Deno.test("a task shows its author's rating; another instance sees a new one after its poll", async () => {
  let clock = Date.now();
  await using fleet = await sharedInstances(2, { deps: { now: () => clock } });
  const [a, b] = fleet.list;
  const { owner, applicants: [ann], taskId } = await completedTask(a);
  const next = await postTask(a, owner.token);
  const before = await send(b, `/api/v1/tasks/${next.id}`);
  assert.deepEqual(before.body.authorRating, { average: null, count: 0 }, "b caches no rating");

  await review(a, ann, { taskId, revieweeId: owner.id, rating: 4 });
  assert.deepEqual((await send(a, `/api/v1/tasks/${next.id}`)).body.authorRating, {
    average: null,
    count: 0,
  }, "hidden: not counted");
  await review(a, owner, { taskId, revieweeId: ann.id, rating: 5 });
  const onA = await send(a, `/api/v1/tasks/${next.id}`);
  assert.deepEqual(onA.body.authorRating, { average: 4, count: 1 }, "at once where it was shown");
  const profile = await send(a, `/v1/users/${owner.id}`, { token: ann.token });
  assert.deepEqual(profile.body.rating, onA.body.authorRating, "as the profile shows it");

  clock += 1_000 + POLL_INTERVAL_MS; // b's next lookup polls the marker first
  const onB = await send(b, `/api/v1/tasks/${next.id}`);
  assert.deepEqual(onB.body.authorRating, { average: 4, count: 1 });
  const patched = await send(a, `/api/v1/tasks/${next.id}`, {
    method: "PATCH",
    token: owner.token,
    json: { title: "Fix the bathroom sink" },
  });
  assert.deepEqual(patched.body.authorRating, { average: 4, count: 1 }, "PATCH answers it too");
});
