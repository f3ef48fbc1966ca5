/**
 * What the conversation requests wait for in sequence where every KV call is a network round trip
 * (docs/round-trips.md), counted exactly by kv/store/latency.ts on a frozen clock: a message 2 (3
 * on an instance that has not seen the conversation), a thread page and the conversations page 1,
 * the read marker 2.
 */
import assert from "node:assert/strict";
import { withLatency } from "../../kv/store/latency.ts";
import { apiKey, createKey, setup, signUp } from "../helpers.ts";
import { taskBody } from "../tasks/task_fixtures.ts";

Deno.test("conversation requests: a message 2 round trips, a thread page and the conversations page 1", async () => {
  const kv = await Deno.openKv(":memory:");
  // Disposed after the service, which flushes through the store.
  using _closed = { [Symbol.dispose]: () => kv.close() };
  const slow = withLatency(kv, 0);
  const now = Date.now();
  await using svc = await setup({
    kv: slow.kv,
    deps: { now: () => now },
    settings: { MESSAGES_PER_MINUTE: 1000 },
  });
  const scopes = ["tasks:write", "applications:write", "messages:read", "messages:write"] as const;
  const owner = await signUp(svc);
  const applicant = await signUp(svc);
  const ownerKey = apiKey((await createKey(svc, owner.token, { scopes: [...scopes] })).value);
  const applicantKey = apiKey(
    (await createKey(svc, applicant.token, { scopes: [...scopes] })).value,
  );
  const send = async (path: string, init: Parameters<typeof svc.request>[1]) => {
    const res = await svc.request(path, init);
    assert.ok(res.status < 300, `${path}: ${res.status} ${await res.clone().text()}`);
    return await res.json();
  };
  const task = await send("/api/v1/tasks", { method: "POST", headers: ownerKey, json: taskBody() });
  const application = await send(`/api/v1/tasks/${task.id}/applications`, {
    method: "POST",
    headers: applicantKey,
    json: { message: "Me" },
  });
  const messages = `/api/v1/applications/${application.id}/messages`;
  const trips = async (path: string, init: Parameters<typeof svc.request>[1] = {}) => {
    const { value, trips } = await slow.traced(async () => {
      const res = await svc.request(path, init);
      const text = await res.text();
      assert.ok(res.status < 300, `${path}: ${res.status} ${text}`);
      return JSON.parse(text);
    });
    return { body: value, trips: trips.sequential };
  };
  const post = (headers: HeadersInit) => ({ method: "POST", headers, json: { body: "hello" } });

  assert.equal((await trips(messages, post(applicantKey))).trips, 3, "first: parties unknown");
  const second = await trips(messages, post(ownerKey));
  assert.equal(second.trips, 2, "then its reads at once, and the commit");
  assert.equal((await trips(messages, { headers: applicantKey })).trips, 1, "a thread page");
  assert.equal((await trips("/api/v1/conversations", { headers: ownerKey })).trips, 1);
  assert.equal((await trips("/api/v1/conversations", { headers: applicantKey })).trips, 1);
  const read = await trips(`/api/v1/applications/${application.id}/read`, {
    method: "PUT",
    headers: applicantKey,
    json: { upTo: second.body.id },
  });
  assert.equal(read.trips, 2, "the read marker: its reads together, then the commit");
});
