/**
 * Security review 4, finding 1: a narrow key that re-aims a session's endpoint takes none of its
 * stored or pending deliveries with it. Every attempt, retry and resend judges the endpoint as it
 * is now (its events, its grantor); a skipped delivery says why, in its listing and in the log.
 */
import assert from "node:assert/strict";
import { apiKey, bearer, createKey, signUp } from "../helpers.ts";
import { taskBody } from "../tasks/task_fixtures.ts";
import { startReceiver } from "./webhook_receiver.ts";
import { addEndpoint, deliveries, waitUntil, workingService } from "./webhook_fixtures.ts";

interface Delivery {
  id: string;
  eventType: string;
  status: string;
  attempts: number;
  history: { category: string | null }[];
}

Deno.test("a narrow key re-aims a session's endpoints: pending retries and resends of what it may not read are skipped", async () => {
  // One retry a minute after the first failure: the test moves the clock past it.
  await using svc = await workingService({
    policy: { retrySchedule: [60_000, 60_000], timeoutMs: 30_000 },
  });
  let offset = 0;
  svc.deps.now = () => Date.now() + offset;
  await using owners = startReceiver();
  await using attacker = startReceiver();
  owners.answer = () => new Response("down", { status: 503 });
  const user = await signUp(svc);
  const unselected = await addEndpoint(svc, user.token, { url: `${owners.url}/a` });
  const unreadable = await addEndpoint(svc, user.token, { url: `${owners.url}/b` });
  attacker.secrets.push(unselected.secret, unreadable.secret);

  // Events the session's endpoints hear and a webhooks-only key may not read: key metadata (the
  // narrow key's own creation), a task.
  const narrow = await createKey(svc, user.token, { scopes: ["webhooks:write", "webhooks:read"] });
  const task = await svc.request("/v1/tasks", {
    method: "POST",
    headers: bearer(user.token),
    json: taskBody({ title: "A private errand" }),
  });
  assert.equal(task.status, 201);
  const listed = async (webhookId: string): Promise<Delivery[]> =>
    await deliveries(svc, user.token, webhookId);
  const firstFailed = async (webhookId: string) => {
    const all = await listed(webhookId);
    return all.length === 2 && all.every((d) => d.status === "pending" && d.attempts === 1);
  };
  await waitUntil(async () => await firstFailed(unselected.id) && await firstFailed(unreadable.id));

  const reaim = async (webhookId: string, events: string[]) => {
    const res = await svc.request(`/v1/webhooks/${webhookId}`, {
      method: "PATCH",
      headers: apiKey(narrow.value),
      json: { url: attacker.url, events },
    });
    assert.equal(res.status, 200, await res.clone().text());
    await res.body?.cancel();
  };
  // webhook.test needs no scope, and "*" means what the key may read: both are allowed.
  await reaim(unselected.id, ["webhook.test"]);
  await reaim(unreadable.id, ["*"]);

  // The key resends what it can list on one endpoint; the other's retries are left to come due.
  for (const d of await listed(unselected.id)) {
    const res = await svc.request(`/v1/webhooks/${unselected.id}/deliveries/${d.id}/resend`, {
      method: "POST",
      headers: apiKey(narrow.value),
    });
    assert.equal(res.status, 202);
    await res.body?.cancel();
  }
  offset = 5 * 60_000;
  await svc.jobs.drain();

  // What the key may hear still arrives, signed: the attempts were made, and refused only these.
  for (const hook of [unselected, unreadable]) {
    const res = await svc.request(`/v1/webhooks/${hook.id}/test`, {
      method: "POST",
      headers: apiKey(narrow.value),
    });
    assert.equal(res.status, 202);
    await res.body?.cancel();
  }
  await attacker.waitFor((got) => got.filter((r) => r.event?.type === "webhook.test").length === 2);
  await svc.jobs.drain();
  assert.deepEqual(
    attacker.received.map((r) => r.event?.type),
    ["webhook.test", "webhook.test"],
    "nothing stored or pending reached the re-aimed URL",
  );
  assert.ok(attacker.received.every((r) => r.verifiedWith.length === 1));

  const settled = async (webhookId: string, category: string) => {
    const all = (await listed(webhookId)).filter((d) => d.eventType !== "webhook.test");
    assert.deepEqual(all.map((d) => d.eventType).sort(), ["api_key.created", "task.created"]);
    for (const d of all) {
      assert.equal(d.status, "skipped", `${d.eventType} on ${webhookId}`);
      assert.equal(d.history.at(-1)?.category, category);
    }
  };
  await settled(unselected.id, "event_not_selected");
  await settled(unreadable.id, "grantor_may_not_read");

  const log = await svc.request("/v1/security-log", { headers: bearer(user.token) });
  assert.equal(log.status, 200);
  const skips = (await log.json()).filter((e: { type: string }) =>
    e.type === "webhook.delivery_skipped"
  );
  assert.deepEqual(
    skips.map((e: { webhookId: string; reason: string }) => `${e.webhookId} ${e.reason}`).sort(),
    [
      `${unreadable.id} grantor_may_not_read`,
      `${unreadable.id} grantor_may_not_read`,
      `${unselected.id} event_not_selected`,
      `${unselected.id} event_not_selected`,
    ].sort(),
  );
  assert.ok(skips.every((e: { keyId?: string }) => e.keyId === narrow.id), "names the grantor");
});
