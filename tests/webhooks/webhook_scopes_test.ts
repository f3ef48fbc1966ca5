/**
 * A webhook hears only what its creator may read: checked when its URL or
 * events are set, and again at each event, since a key can be revoked or expire.
 */
import assert from "node:assert/strict";
import type { ApiKeyRecord } from "../../domain/api_key.ts";
import type { WebhookRecord } from "../../domain/webhooks/webhook.ts";
import { apiKeys, webhooks } from "../../kv/keyspace.ts";
import { grantAllows } from "../../kv/webhooks/webhook_grants.ts";
import { apiKey, bearer, createKey, setup, signUp } from "../helpers.ts";
import { taskBody } from "../tasks/task_fixtures.ts";
import { startReceiver } from "./webhook_receiver.ts";
import { addEndpoint, deliveries, waitUntil, workingService } from "./webhook_fixtures.ts";

const PUBLIC_URL = "https://93.184.215.14/hook";

Deno.test("a webhook reads past its creator's scopes: no longer, each event type needs what reading it needs", async () => {
  await using svc = await setup();
  const user = await signUp(svc);
  const writeOnly = await createKey(svc, user.token, { scopes: ["webhooks:write"] });
  const create = (headers: HeadersInit, events: string[]) =>
    svc.request("/v1/webhooks", { method: "POST", headers, json: { url: PUBLIC_URL, events } });

  const keys = await create(apiKey(writeOnly.value), ["api_key.created"]);
  assert.equal(keys.status, 403);
  const keysProblem = await keys.json();
  assert.equal(keysProblem.code, "SESSION_REQUIRED");
  assert.equal(keysProblem.scope, "session");
  assert.match(keysProblem.detail, /api_key\.created/);
  for (
    const [type, scope] of [
      ["application.created", "applications:read"],
      ["application.declined", "applications:read"],
      ["task.completed", "tasks:read"],
    ]
  ) {
    const res = await create(apiKey(writeOnly.value), [type]);
    assert.equal(res.status, 403, type);
    const problem = await res.json();
    assert.equal(problem.code, "SCOPE_INSUFFICIENT", type);
    assert.equal(problem.scope, scope, type);
    assert.match(problem.detail, new RegExp(scope), type);
  }
  assert.equal((await create(apiKey(writeOnly.value), ["webhook.test"])).status, 201);
  assert.equal((await create(apiKey(writeOnly.value), ["*"])).status, 201, '"*": what it may read');

  const reader = await createKey(svc, user.token, {
    scopes: ["webhooks:write", "tasks:read", "applications:read"],
  });
  const made = await create(apiKey(reader.value), ["task.created", "application.created"]);
  assert.equal(made.status, 201);
  assert.deepEqual((await made.json()).grantedBy, { via: "api_key", keyId: reader.id });
  const bySession = await create(bearer(user.token), ["api_key.created"]);
  assert.equal(bySession.status, 201);
  const sessionHook = await bySession.json();
  assert.deepEqual(sessionHook.grantedBy, { via: "session", keyId: null });

  // A key may not point a session's key events elsewhere, nor select them...
  const patch = (headers: HeadersInit, json: unknown) =>
    svc.request(`/v1/webhooks/${sessionHook.id}`, { method: "PATCH", headers, json });
  const moved = await patch(apiKey(reader.value), { url: "https://93.184.215.15/mine" });
  assert.equal(moved.status, 403);
  assert.equal((await moved.json()).code, "SESSION_REQUIRED");
  // ...while one that only describes or switches it keeps its grantor.
  const described = await patch(apiKey(reader.value), { description: "ops", enabled: false });
  assert.equal(described.status, 200);
  assert.deepEqual((await described.json()).grantedBy, { via: "session", keyId: null });
  // Selecting readable events re-grants the endpoint to the key that set them.
  const narrowed = await patch(apiKey(reader.value), { events: ["task.created"] });
  assert.equal(narrowed.status, 200);
  assert.deepEqual((await narrowed.json()).grantedBy, { via: "api_key", keyId: reader.id });
});

Deno.test("a key's endpoint hears only the events the key may read, judged again at each event", async () => {
  // Every delivery must succeed: on a loaded machine the receiver may take longer than FAST's.
  await using svc = await workingService({ policy: { timeoutMs: 30_000 } });
  await using receiver = startReceiver();
  const user = await signUp(svc);
  const key = await createKey(svc, user.token, { scopes: ["webhooks:write", "tasks:read"] });
  // Created first: an event's fan-out takes the account's endpoints oldest first, so once the
  // session's endpoint (created second) has an event, the key's endpoint was judged for it.
  const res = await svc.request("/v1/webhooks", {
    method: "POST",
    headers: apiKey(key.value),
    json: { url: `${receiver.url}/key`, events: ["*"] },
  });
  assert.equal(res.status, 201);
  const byKey = await res.json();
  const bySession = await addEndpoint(svc, user.token, { url: `${receiver.url}/session` });
  const heard = async (webhookId: string) =>
    (await deliveries(svc, user.token, webhookId)).map((d: { eventType: string }) => d.eventType)
      .sort();
  const postTask = async (title: string) => {
    const created = await svc.request("/v1/tasks", {
      method: "POST",
      headers: bearer(user.token),
      json: taskBody({ title }),
    });
    assert.equal(created.status, 201);
  };

  await createKey(svc, user.token, { scopes: ["profile:read"] });
  await postTask("Paint the fence");
  await waitUntil(async () => (await heard(bySession.id)).length === 2);
  assert.deepEqual(await heard(bySession.id), ["api_key.created", "task.created"]);
  assert.deepEqual(await heard(byKey.id), ["task.created"], "no key metadata for a key");

  const revoked = await svc.request(`/v1/keys/${key.id}`, {
    method: "DELETE",
    headers: bearer(user.token),
  });
  assert.equal(revoked.status, 200);
  await postTask("Mow the lawn");
  // The revocation itself (api_key.revoked) and the task: three more for the session's endpoint.
  await waitUntil(async () => (await heard(bySession.id)).length === 4);
  assert.deepEqual(
    await heard(byKey.id),
    ["task.created"],
    "a revoked key's endpoint hears no more",
  );
  const settled = async (webhookId: string) =>
    (await deliveries(svc, user.token, webhookId)).every((d: { status: string }) =>
      d.status === "succeeded"
    );
  await waitUntil(async () => await settled(bySession.id) && await settled(byKey.id));
});

Deno.test("an endpoint's grant follows its key's current scopes, expiry, and is none without a grantor", async () => {
  await using svc = await setup();
  const user = await signUp(svc);
  const key = await createKey(svc, user.token, { scopes: ["webhooks:write", "tasks:read"] });
  const res = await svc.request("/v1/webhooks", {
    method: "POST",
    headers: apiKey(key.value),
    json: { url: PUBLIC_URL, events: ["*"] },
  });
  const { id } = await res.json();
  const hook = (await svc.kv.get<WebhookRecord>(webhooks.record(user.id, id))).value!;
  const now = svc.deps.now();
  const allows = (type: "task.created" | "application.created" | "webhook.test", at = now) =>
    grantAllows(svc.kv, { hook, type, now: at });
  assert.equal(await allows("task.created"), true);
  assert.equal(await allows("application.created"), false);

  // Scopes that shrink (no route changes them today; the rule must not depend on that).
  const keyEntry = await svc.kv.get<ApiKeyRecord>(apiKeys.record(user.id, key.id));
  await svc.kv.set(keyEntry.key, { ...keyEntry.value!, scopes: ["webhooks:write"] });
  assert.equal(await allows("task.created"), false, "a lost scope stops the events it read");
  assert.equal(await allows("webhook.test"), true, "webhook.test needs nothing more");
  await svc.kv.set(keyEntry.key, keyEntry.value!);
  assert.equal(await allows("task.created", Date.parse(key.metadata.expiresAt) + 1), false);

  const legacy: WebhookRecord = { ...hook, grantedBy: undefined };
  assert.equal(
    await grantAllows(svc.kv, { hook: legacy, type: "task.created", now }),
    false,
    "an endpoint stored before grantors were recorded hears only webhook.test",
  );
});
