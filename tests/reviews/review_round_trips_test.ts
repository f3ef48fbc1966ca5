/**
 * What a review waits for on Deno Deploy, where every KV call is a round trip (docs/round-trips.md,
 * counted by kv/latency.ts): writing one, and reading the listings and a rated profile.
 */
import assert from "node:assert/strict";
import { withLatency } from "../../kv/latency.ts";
import { setup } from "../helpers.ts";
import { completedTask, review, send } from "./fixtures.ts";

Deno.test("a review waits for four round trips with a session; a rated profile two, the public listing three", async () => {
  const kv = await Deno.openKv(":memory:");
  const slow = withLatency(kv, 0);
  const now = Date.now();
  await using svc = await setup({ kv: slow.kv, deps: { now: () => now } });
  const { owner, applicants: [ann], taskId } = await completedTask(svc);
  const trips = async (call: () => Promise<{ status: number }>) => {
    const { value, trips } = await slow.traced(call);
    assert.ok(value.status < 300, String(value.status));
    return trips.sequential;
  };
  assert.equal(
    await trips(() => review(svc, ann, { taskId, revieweeId: owner.id, rating: 4 })),
    4,
    "the session; the task, window, both reviews, both applications' markers and the reviewee " +
      "together; then the accepted application; then the commit",
  );
  assert.equal(
    await trips(() => review(svc, owner, { taskId, revieweeId: ann.id, rating: 5 })),
    4,
    "the review back that shows both costs no more",
  );
  assert.equal(
    await trips(() => send(svc, `/v1/users/${owner.id}`, { token: ann.token })),
    2,
    "the session, then the user and the rating together",
  );
  assert.equal(
    await trips(() => send(svc, `/v1/users/${owner.id}/reviews`)),
    3,
    "the index beside the user, then the records, then their reviewers",
  );
  kv.close();
});
