/**
 * A cancellation closes its task's conversations (docs/contract.md sections 18 and 20): from its
 * commit, a message from either party of any of its applications is 409 CONVERSATION_CLOSED; the
 * threads stay readable, and the listings show the applications' new statuses once the jobs ran.
 */
import assert from "node:assert/strict";
import { post, say, thread } from "../conversations/fixtures.ts";
import { workingService } from "../webhooks/webhook_fixtures.ts";
import { cancel, send, staffedTask, users } from "./fixtures.ts";

Deno.test("cancelling a task closes every conversation of its applications, accepted and pending", async () => {
  await using svc = await workingService();
  const [ada, bob, cid] = await users(svc, 3);
  const { task, acceptedIds, pendingIds } = await staffedTask(svc, {
    owner: ada,
    accepted: [bob],
    pending: [cid],
  });
  const talks: [typeof bob, string][] = [[bob, acceptedIds[0]], [cid, pendingIds[0]]];
  for (const [helper, id] of talks) await say(svc, helper, id, "See you Monday");
  assert.equal((await cancel(svc, ada, task.id)).status, 200);
  for (const [helper, id] of talks) {
    for (const user of [ada, helper]) {
      const res = await post(svc, user, id, { body: "Still on?" });
      assert.equal(res.status, 409, JSON.stringify(res.body));
      assert.equal(res.body.code, "CONVERSATION_CLOSED");
      assert.match(res.body.detail, /cancelled/);
    }
    assert.equal((await thread(svc, helper, id)).length, 1, "still readable");
  }
  await svc.jobs.drain();
  const listed = await send(svc, "/api/v1/conversations", { token: ada.token });
  const status = Object.fromEntries(
    listed.body.map((c: { applicationId: string; applicationStatus: string }) => [
      c.applicationId,
      c.applicationStatus,
    ]),
  );
  assert.deepEqual(status, { [acceptedIds[0]]: "cancelled", [pendingIds[0]]: "declined" });
});
