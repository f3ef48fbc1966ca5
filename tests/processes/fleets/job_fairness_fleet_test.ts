/**
 * Security review 4, finding 3, over real workers on one store: one account's many deliveries to
 * endpoints that accept and never answer hold only their share of each worker's handler slots,
 * so another account's webhook.test arrives while every one of them is still hanging.
 */
import assert from "node:assert/strict";
import { SHARES } from "../../../kv/jobs/fair_share.ts";
import { taskBody } from "../../tasks/task_fixtures.ts";
import { startReceiver } from "../../webhooks/webhook_receiver.ts";
import { call, fleetSignUp, startFleet } from "../fleet.ts";
import { startNeverAnswering } from "../never_answering_server.ts";
import { until } from "../../wait.ts";

const WORKERS = 2;
// Far past the test's own wait for the other account: no hanging attempt ends before it.
const ENV = { WEBHOOK_ALLOW_PRIVATE: "true", WEBHOOK_TIMEOUT: "120s" };

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

Deno.test("one account's endpoints that never answer do not hold back another account's webhook.test", async () => {
  await using hang = startNeverAnswering();
  await using receiver = startReceiver();
  const fleet = await startFleet(WORKERS, ENV);
  try {
    const slow = await fleetSignUp(fleet.base(0), "slow@example.com");
    for (let i = 0; i < 10; i++) {
      const res = await call(`${fleet.base(i)}/v1/webhooks`, {
        method: "POST",
        headers: bearer(slow),
        json: { url: `${hang.url}/${i}`, events: ["task.created"] },
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
    }
    // 40 tasks on both workers: 400 deliveries, far more than both workers' 64 slots.
    for (let i = 0; i < 40; i++) {
      const res = await call(`${fleet.base(i)}/v1/tasks`, {
        method: "POST",
        headers: bearer(slow),
        json: taskBody({ title: `Errand ${i}` }),
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
    }
    // Both workers hold what the slow account may hold of them, and every attempt hangs.
    await until(() => hang.accepted >= WORKERS * SHARES.endpoint, { timeoutMs: 60_000 });

    const other = await fleetSignUp(fleet.base(1), "other@example.com");
    const hook = await call(`${fleet.base(1)}/v1/webhooks`, {
      method: "POST",
      headers: bearer(other),
      json: { url: receiver.url, events: ["webhook.test"] },
    });
    assert.equal(hook.status, 201);
    receiver.secrets.push(hook.body.secret);
    const sent = await call(`${fleet.base(1)}/v1/webhooks/${hook.body.id}/test`, {
      method: "POST",
      headers: bearer(other),
    });
    assert.equal(sent.status, 202);
    await receiver.waitFor((r) => r.length === 1, 60_000);
    assert.deepEqual(receiver.received[0].verifiedWith, [hook.body.secret]);
    assert.equal(hang.closed, 0, "it arrived while every slow attempt was still hanging");
    const held = hang.accepted;
    assert.ok(
      held <= WORKERS * SHARES.account,
      `the slow account held ${held} attempts at once, over its share`,
    );
  } finally {
    await fleet.stop();
  }
});
