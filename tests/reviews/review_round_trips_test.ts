/**
 * What a review waits for on Deno Deploy, where every KV call is a round trip (docs/round-trips.md,
 * counted by kv/store/latency.ts on a frozen clock), on a live instance whose API keys are cached.
 */
import assert from "node:assert/strict";
import { withLatency } from "../../kv/store/latency.ts";
import { createKey, setup } from "../helpers.ts";
import { completedTask, send } from "./fixtures.ts";

Deno.test("a review waits for three round trips; a rated profile one; the public listing three", async () => {
  const kv = await Deno.openKv(":memory:");
  const slow = withLatency(kv, 0);
  const now = Date.now();
  const svc = await setup({ kv: slow.kv, deps: { now: () => now } });
  await using _ = {
    [Symbol.asyncDispose]: () => svc[Symbol.asyncDispose]().then(() => kv.close()),
  };
  const { owner, applicants: [ann], taskId } = await completedTask(svc);
  const keyOf = async (token: string) => {
    const key = await createKey(svc, token, { scopes: ["reviews:write", "profile:read"] });
    const headers = { "X-API-Key": key.value };
    await send(svc, "/v1/users/me", { headers }); // the key and its budget are in memory now
    return headers;
  };
  const [ownerKey, annKey] = [await keyOf(owner.token), await keyOf(ann.token)];
  const trips = async (call: () => Promise<{ status: number }>) => {
    const { value, trips } = await slow.traced(call);
    assert.ok(value.status < 300, String(value.status));
    return trips.sequential;
  };
  const post = (headers: Record<string, string>, revieweeId: string) => () =>
    send(svc, `/api/v1/tasks/${taskId}/reviews`, {
      method: "POST",
      headers,
      json: { revieweeId, rating: 4 },
    });
  assert.equal(
    await trips(post(annKey, owner.id)),
    3,
    "the task, window, both reviews, both people's application markers and the reviewee " +
      "together; then the accepted application; then the atomic",
  );
  assert.equal(await trips(post(ownerKey, ann.id)), 3, "a review back that shows both: the same");
  assert.equal(
    await trips(() => send(svc, `/v1/users/${owner.id}`, { headers: annKey })),
    1,
    "the user and the rating together",
  );
  assert.equal(
    await trips(() => send(svc, `/v1/users/${owner.id}/reviews`)),
    3,
    "the index beside the user, then the records, then their reviewers",
  );
});
