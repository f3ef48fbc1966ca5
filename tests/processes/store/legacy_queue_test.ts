/**
 * A store written by the previous version, which queued its background work in KV queues: its
 * pending messages become jobs, once, where the queue API still exists (a local file). Real
 * processes: the message is enqueued as the previous version did, then the service started on
 * the store delivers it to a receiver that verifies it with `standardwebhooks`.
 */
import assert from "node:assert/strict";
import { call, fleetSignUp, startFleet } from "../fleet.ts";
import { startReceiver } from "../../webhooks/webhook_receiver.ts";

const ENV = { WEBHOOK_ALLOW_PRIVATE: "true", WEBHOOK_RETRY_SCHEDULE: "1s" };

/** Runs `code` in a process with the KV queue API, on the store of `cwd`. */
async function withQueues(cwd: string, code: string) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--unstable-kv", code],
    cwd,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
}

Deno.test("a webhook event an older version left in the KV queue is delivered", async () => {
  await using receiver = startReceiver();
  const first = await startFleet(1, ENV, undefined, { queues: true });
  let userId: string;
  try {
    const token = await fleetSignUp(first.base(0), "legacy@example.com");
    const me = await call(`${first.base(0)}/v1/users/me`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    userId = me.body.id;
    const hook = await call(`${first.base(0)}/v1/webhooks`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}` },
      json: { url: receiver.url, events: ["task.created"] },
    });
    assert.equal(hook.status, 201);
    receiver.secrets.push(hook.body.secret);
  } finally {
    await first.stop();
  }
  // As the previous version queued a fan-out: the whole event in the message.
  const event = {
    id: "evt_01JD3YQ5G7N9J7M2X4W8T6V0KC",
    type: "task.created",
    createdAt: new Date().toISOString(),
    data: { id: "from-the-old-queue" },
  };
  await withQueues(
    first.cwd,
    `const kv = await Deno.openKv("./data/marketplace.sqlite3");
     await kv.enqueue(${JSON.stringify({ kind: "webhook_event", userId, event })});
     kv.close();`,
  );
  const restarted = await startFleet(1, ENV, first.cwd, { queues: true });
  try {
    await receiver.waitFor((r) => r.length >= 1, 30_000);
    const [got] = receiver.received;
    assert.equal(got.id, event.id, "its webhook-id is the old event's id");
    assert.deepEqual(got.event, event);
    assert.deepEqual(got.verifiedWith, receiver.secrets);
  } finally {
    await restarted.stop();
  }
});
