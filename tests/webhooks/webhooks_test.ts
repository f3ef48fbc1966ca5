/**
 * Webhook delivery end to end (docs/contract.md section 13): a real receiver verifies every request with
 * the reference `standardwebhooks` package.
 */
import assert from "node:assert/strict";
import { bearer, signUp } from "../helpers.ts";
import { postTask, taskBody } from "../tasks/task_fixtures.ts";
import { startReceiver } from "./webhook_receiver.ts";
import {
  addEndpoint,
  deliveries,
  failedDelivery,
  sendTestEvent,
  waitUntil,
  workingService,
} from "./webhook_fixtures.ts";
import { createTask, getTask } from "../../kv/tasks/tasks.ts";

Deno.test("task, key and test events arrive signed and verifiable by the reference library", async () => {
  await using svc = await workingService();
  await using receiver = startReceiver();
  const user = await signUp(svc);
  const hook = await addEndpoint(svc, user.token, { url: receiver.url });
  receiver.secrets.push(hook.secret);
  assert.match(hook.secret, /^whsec_[A-Za-z0-9+/]{32}$/);

  const created = await svc.request("/v1/tasks", {
    method: "POST",
    headers: bearer(user.token),
    json: taskBody({ title: "Paint the fence" }),
  });
  const task = await created.json();
  const url = `/v1/tasks/${task.id}`;
  await svc.request(url, { method: "PATCH", headers: bearer(user.token), json: { budget: 99 } });
  await svc.request(url, {
    method: "PATCH",
    headers: bearer(user.token),
    json: { status: "completed" },
  });
  await svc.request(url, { method: "DELETE", headers: bearer(user.token) });
  const key = await (await svc.request("/v1/keys", {
    method: "POST",
    headers: bearer(user.token),
    json: { name: "ci", scopes: ["tasks:read"], expiresInDays: 30 },
  })).json();
  await svc.request(`/v1/keys/${key.id}/regenerate`, {
    method: "POST",
    headers: bearer(user.token),
  });
  await svc.request(`/v1/keys/${key.id}`, { method: "DELETE", headers: bearer(user.token) });
  const test = await svc.request(`/v1/webhooks/${hook.id}/test`, {
    method: "POST",
    headers: bearer(user.token),
  });
  assert.equal(test.status, 202);

  const expected = [
    "task.created",
    "task.updated",
    "task.completed",
    "task.deleted",
    "api_key.created",
    "api_key.regenerated",
    "api_key.revoked",
    "webhook.test",
  ];
  await receiver.waitFor((r) => r.length >= expected.length);
  assert.deepEqual(receiver.received.map((r) => r.event.type).sort(), [...expected].sort());
  for (const r of receiver.received) {
    assert.deepEqual(r.verifiedWith, [hook.secret], `${r.event.type} verifies with the secret`);
    assert.equal(r.id, r.event.id, "webhook-id is the event id");
    assert.match(r.event.id, /^evt_[0-9A-HJKMNP-TV-Z]{26}$/);
    assert.match(r.signature, /^v1,[A-Za-z0-9+/=]+$/);
  }
  const byType = new Map(receiver.received.map((r) => [r.event.type, r.event]));
  assert.equal(byType.get("task.created").data.id, task.id);
  assert.equal(byType.get("task.created").data.authorFirstName, "Test");
  assert.equal(byType.get("task.updated").data.budget, 99);
  assert.equal(byType.get("task.completed").data.status, "completed");
  assert.equal(byType.get("api_key.created").data.id, key.id);
  assert.equal(byType.get("api_key.created").data.key, undefined, "never the key's value");
  assert.equal(byType.get("webhook.test").data.id, hook.id);
});

Deno.test("an endpoint gets only the event types it selects", async () => {
  await using svc = await workingService();
  await using receiver = startReceiver();
  const user = await signUp(svc);
  const hook = await addEndpoint(svc, user.token, { url: receiver.url, events: ["task.deleted"] });
  receiver.secrets.push(hook.secret);
  const task = await postTask(svc, user.token);
  await svc.request(`/v1/tasks/${task.id}`, { method: "DELETE", headers: bearer(user.token) });
  await receiver.waitFor((r) => r.length >= 1);
  await svc.jobs.drain(); // every job due has run: nothing else is on its way
  assert.deepEqual(receiver.received.map((r) => r.event.type), ["task.deleted"]);
});

Deno.test("a receiver answering 500 gets retries with the same webhook-id until it succeeds", async () => {
  await using svc = await workingService();
  await using receiver = startReceiver();
  receiver.answer = (_, i) => new Response(i < 2 ? "down" : null, { status: i < 2 ? 500 : 204 });
  const user = await signUp(svc);
  const hook = await addEndpoint(svc, user.token, { url: receiver.url });
  receiver.secrets.push(hook.secret);
  await sendTestEvent(svc, user.token, hook.id);
  await receiver.waitFor((r) => r.length >= 3);
  const ids = new Set(receiver.received.map((r) => r.id));
  assert.equal(ids.size, 1, "one webhook-id on every attempt");
  assert.ok(receiver.received.every((r) => r.verifiedWith.length === 1));
  await waitUntil(async () =>
    (await deliveries(svc, user.token, hook.id))[0]?.status === "succeeded"
  );
  const [delivery] = await deliveries(svc, user.token, hook.id);
  assert.equal(delivery.attempts, 3);
  assert.deepEqual(delivery.history.map((a: { statusCode: number }) => a.statusCode), [
    500,
    500,
    204,
  ]);
  assert.equal(delivery.nextRetryAt, null);
  assert.equal(delivery.eventId, receiver.received[0].id);
});

Deno.test("a receiver that does not answer in time gets retries, then the delivery fails", async () => {
  await using svc = await workingService({ policy: { timeoutMs: 200, retrySchedule: [50, 50] } });
  await using receiver = startReceiver();
  receiver.answer = () =>
    new Promise((resolve) => setTimeout(() => resolve(new Response("late")), 600));
  const user = await signUp(svc);
  const hook = await addEndpoint(svc, user.token, { url: receiver.url });
  await sendTestEvent(svc, user.token, hook.id);
  const delivery = await failedDelivery(svc, user.token, hook.id);
  assert.equal(delivery.attempts, 3, "the first attempt and the two of the schedule");
  assert.ok(
    delivery.history.every((a: { statusCode: number | null; category: string }) =>
      a.statusCode === null && a.category === "timeout"
    ),
  );
  assert.equal(new Set(receiver.received.map((r) => r.id)).size, 1);
  const endpoint = await (await svc.request(`/v1/webhooks/${hook.id}`, {
    headers: bearer(user.token),
  })).json();
  assert.ok(endpoint.failingSince, "the endpoint's failure run has started");
});

Deno.test("a resent delivery goes out again with the same webhook-id", async () => {
  await using svc = await workingService({ policy: { retrySchedule: [] } });
  await using receiver = startReceiver();
  receiver.answer = (_, i) => new Response(null, { status: i === 0 ? 503 : 200 });
  const user = await signUp(svc);
  const hook = await addEndpoint(svc, user.token, { url: receiver.url });
  await sendTestEvent(svc, user.token, hook.id);
  await waitUntil(async () => (await deliveries(svc, user.token, hook.id))[0]?.status === "failed");
  const [failed] = await deliveries(svc, user.token, hook.id);
  const resent = await svc.request(`/v1/webhooks/${hook.id}/deliveries/${failed.id}/resend`, {
    method: "POST",
    headers: bearer(user.token),
  });
  assert.equal(resent.status, 202);
  await waitUntil(async () =>
    (await deliveries(svc, user.token, hook.id))[0]?.status === "succeeded"
  );
  assert.equal(receiver.received.length, 2);
  assert.equal(receiver.received[0].id, receiver.received[1].id);
});

Deno.test("redirects are not followed: a 3xx is a failed attempt", async () => {
  await using svc = await workingService({ policy: { retrySchedule: [] } });
  await using receiver = startReceiver();
  await using elsewhere = startReceiver();
  receiver.answer = () => new Response(null, { status: 307, headers: { Location: elsewhere.url } });
  const user = await signUp(svc);
  const hook = await addEndpoint(svc, user.token, { url: receiver.url });
  await sendTestEvent(svc, user.token, hook.id);
  const delivery = await failedDelivery(svc, user.token, hook.id);
  assert.equal(delivery.lastStatusCode, 307);
  assert.equal(elsewhere.received.length, 0);
});

Deno.test("nothing is sent for a write whose atomic failed", async () => {
  await using svc = await workingService();
  await using receiver = startReceiver();
  const user = await signUp(svc);
  const hook = await addEndpoint(svc, user.token, { url: receiver.url, events: ["task.created"] });
  receiver.secrets.push(hook.secret);
  const task = await postTask(svc, user.token);
  // The same task created again: its atomic's check (no record yet) fails, so its event,
  // queued in that atomic, never exists.
  const record = (await getTask(svc.kv, task.id))!;
  await assert.rejects(
    createTask(svc.kv, record, {
      now: Date.now(),
      event: { type: "task.created", data: { phantom: true } },
    }),
    /changed too often/,
  );
  await receiver.waitFor((r) => r.length >= 1);
  await svc.jobs.drain(); // every job due has run: nothing else is on its way
  assert.equal(receiver.received.length, 1);
  assert.equal(receiver.received[0].event.data.id, task.id);
});
