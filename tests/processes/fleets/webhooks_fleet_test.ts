/**
 * Webhook delivery across real main.ts processes on one store, without the KV queue API (as on
 * Deno Deploy): a delivery survives the process that was making it (kill -9), and is then made
 * by the process that starts after it, once the dead one's lease on its job ends.
 */
import assert from "node:assert/strict";
import { call, fleetSignUp, startFleet } from "../fleet.ts";
import { LEASE_MS, POLL_MS } from "../../../kv/jobs/runner.ts";
import { taskBody } from "../../tasks/task_fixtures.ts";
import { startReceiver } from "../../webhooks/webhook_receiver.ts";

const ENV = {
  WEBHOOK_ALLOW_PRIVATE: "true",
  WEBHOOK_RETRY_SCHEDULE: "1s,1s,1s,1s",
  WEBHOOK_TIMEOUT: "60s",
};

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

async function endpointFor(base: string, token: string, url: string) {
  const res = await call(`${base}/v1/webhooks`, {
    method: "POST",
    headers: bearer(token),
    json: { url, events: ["task.created"] },
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body as { id: string; secret: string };
}

Deno.test("a process killed (kill -9) in the middle of a delivery: it is made after restart", async () => {
  await using receiver = startReceiver();
  let release = () => {};
  // The first request is held open: its process dies while waiting for the answer.
  receiver.answer = (_, i) =>
    i === 0
      ? new Promise((resolve) => release = () => resolve(new Response("late")))
      : new Response("ok");
  const fleet = await startFleet(1, ENV);
  try {
    const token = await fleetSignUp(fleet.base(0), "killed@example.com");
    const hook = await endpointFor(fleet.base(0), token, receiver.url);
    receiver.secrets.push(hook.secret);
    const task = await call(`${fleet.base(0)}/v1/tasks`, {
      method: "POST",
      headers: bearer(token),
      json: taskBody(),
    });
    assert.equal(task.status, 201);
    await receiver.waitFor((r) => r.length >= 1);
    await fleet.kill(0);
    // Restarted at once: the dead process's lease on the job ends within LEASE_MS of its last
    // renewal, and the new process's poll finds the job due then.
    const restarted = await startFleet(1, ENV, fleet.cwd);
    try {
      // Within the lease, the next poll, and a margin for a loaded machine.
      await receiver.waitFor((r) => r.length >= 2, LEASE_MS + POLL_MS + 20_000);
      const [first, second] = receiver.received;
      assert.equal(second.id, first.id, "the same webhook-id");
      assert.deepEqual(second.verifiedWith, [hook.secret]);
      assert.equal(second.event.data.id, task.body.id);
    } finally {
      await restarted.stop();
    }
  } finally {
    release();
    await fleet.stop();
  }
});

Deno.test("a retry scheduled before a kill -9 is delivered by the process started after it", async () => {
  await using receiver = startReceiver();
  receiver.answer = (_, i) =>
    new Response(i === 0 ? "down" : "ok", { status: i === 0 ? 500 : 200 });
  const fleet = await startFleet(1, { ...ENV, WEBHOOK_RETRY_SCHEDULE: "3s" });
  try {
    const token = await fleetSignUp(fleet.base(0), "retried@example.com");
    const hook = await endpointFor(fleet.base(0), token, receiver.url);
    receiver.secrets.push(hook.secret);
    await call(`${fleet.base(0)}/v1/tasks`, {
      method: "POST",
      headers: bearer(token),
      json: taskBody(),
    });
    // Killed once the first attempt's outcome is recorded, with the retry's job beside it.
    const started = Date.now();
    while (true) {
      const list = await call(`${fleet.base(0)}/v1/webhooks/${hook.id}/deliveries`, {
        headers: bearer(token),
      });
      if (list.body[0]?.attempts === 1) break;
      if (Date.now() - started > 10_000) throw new Error("the first attempt was not recorded");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await fleet.kill(0);

    const restarted = await startFleet(1, ENV, fleet.cwd);
    try {
      // Within the lease, the next poll, and a margin for a loaded machine.
      await receiver.waitFor((r) => r.length >= 2, LEASE_MS + POLL_MS + 20_000);
      assert.equal(receiver.received[1].id, receiver.received[0].id);
      assert.deepEqual(receiver.received[1].verifiedWith, [hook.secret]);
    } finally {
      await restarted.stop();
    }
  } finally {
    await fleet.stop();
  }
});

Deno.test("two processes on one store: every event delivered, each failure retried once, no duplicates", async () => {
  await using receiver = startReceiver();
  // Every first attempt fails, so that retries too are spread over both processes.
  const attempted = new Set<string>();
  receiver.answer = (request) => {
    const id = request.headers.get("webhook-id")!;
    const first = !attempted.has(id);
    attempted.add(id);
    return new Response(null, { status: first ? 503 : 200 });
  };
  const fleet = await startFleet(2, ENV);
  try {
    const token = await fleetSignUp(fleet.base(0), "pair@example.com");
    const hook = await endpointFor(fleet.base(1), token, receiver.url);
    receiver.secrets.push(hook.secret);
    const created = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        call(`${fleet.base(i)}/v1/tasks`, {
          method: "POST",
          headers: bearer(token),
          json: taskBody({ title: `Shared ${i}` }),
        })),
    );
    assert.deepEqual(created.map((r) => r.status), Array(12).fill(201));
    const ids = new Set(created.map((r) => r.body.id));
    const seen = () => new Set(receiver.received.map((d) => d.event.data.id));
    await receiver.waitFor(() => [...ids].every((id) => seen().has(id)), 30_000);
    const started = Date.now();
    while (true) {
      const list = await call(`${fleet.base(0)}/v1/webhooks/${hook.id}/deliveries?limit=50`, {
        headers: bearer(token),
      });
      const done = list.body.filter((d: { status: string }) => d.status === "succeeded");
      if (done.length === 12) break;
      if (Date.now() - started > 30_000) throw new Error(JSON.stringify(list.body));
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.ok(receiver.received.every((r) => r.verifiedWith.length === 1));
    const perEvent = new Map<string, number>();
    for (const r of receiver.received) perEvent.set(r.id, (perEvent.get(r.id) ?? 0) + 1);
    assert.equal(perEvent.size, 12, "one webhook-id per event");
    assert.deepEqual([...perEvent.values()], Array(12).fill(2), "one failure, one retry, no more");
  } finally {
    await fleet.stop();
  }
});

Deno.test("two processes: at most 10 endpoints per account, exactly, under concurrent creation", async () => {
  const fleet = await startFleet(2, ENV);
  try {
    const token = await fleetSignUp(fleet.base(0), "limit@example.com");
    const results = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        call(`${fleet.base(i)}/v1/webhooks`, {
          method: "POST",
          headers: bearer(token),
          json: { url: `https://93.184.215.14/hook/${i}`, events: ["*"] },
        })),
    );
    const statuses = results.map((r) => r.status);
    assert.equal(statuses.filter((s) => s === 201).length, 10, JSON.stringify(statuses));
    assert.ok(
      results.filter((r) => r.status !== 201)
        .every((r) => r.status === 409 && r.body.code === "WEBHOOK_LIMIT_REACHED"),
    );
    const list = await call(`${fleet.base(1)}/v1/webhooks`, { headers: bearer(token) });
    assert.equal(list.body.length, 10);
  } finally {
    await fleet.stop();
  }
});
