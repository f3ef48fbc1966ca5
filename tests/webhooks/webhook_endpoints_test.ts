/** Webhook endpoint management (docs/contract.md section 13): shapes, scopes, the limit, target rules. */
import assert from "node:assert/strict";
import { apiKey, bearer, createKey, setup, sharedInstances, signUp } from "../helpers.ts";

const PUBLIC_URL = "https://93.184.215.14/hooks/tasks";

Deno.test("an endpoint is created, read, changed and deleted under both prefixes", async () => {
  await using svc = await setup();
  const user = await signUp(svc);
  const created = await svc.request("/api/v1/webhooks", {
    method: "POST",
    headers: bearer(user.token),
    json: { url: PUBLIC_URL, events: ["task.created", "task.created"], description: "CRM" },
  });
  assert.equal(created.status, 201);
  const hook = await created.json();
  assert.equal(created.headers.get("Location"), `/api/v1/webhooks/${hook.id}`);
  assert.deepEqual(hook.events, ["task.created"]);
  assert.equal(hook.enabled, true);
  assert.match(hook.secret, /^whsec_[A-Za-z0-9+/]{32}$/);

  const read = await (await svc.request(`/v1/webhooks/${hook.id}`, {
    headers: bearer(user.token),
  })).json();
  assert.equal(read.secret, undefined, "the secret is shown at creation only");
  assert.equal(read.description, "CRM");
  const list = await (await svc.request("/v1/webhooks", { headers: bearer(user.token) })).json();
  assert.deepEqual(list.map((h: { id: string }) => h.id), [hook.id]);

  const patched = await svc.request(`/api/v1/webhooks/${hook.id}`, {
    method: "PATCH",
    headers: bearer(user.token),
    json: { events: ["*"], enabled: false },
  });
  assert.equal(patched.status, 200);
  assert.deepEqual((await patched.json()).events, ["*"]);

  const rotated = await svc.request(`/v1/webhooks/${hook.id}/rotate-secret`, {
    method: "POST",
    headers: bearer(user.token),
  });
  const withSecret = await rotated.json();
  assert.match(withSecret.secret, /^whsec_/);
  assert.notEqual(withSecret.secret, hook.secret);

  const other = await signUp(svc);
  const foreign = await svc.request(`/v1/webhooks/${hook.id}`, { headers: bearer(other.token) });
  assert.equal(foreign.status, 404, "another account's endpoint does not exist for them");

  const deleted = await svc.request(`/v1/webhooks/${hook.id}`, {
    method: "DELETE",
    headers: bearer(user.token),
  });
  assert.deepEqual(await deleted.json(), { message: "Webhook deleted" });
  const gone = await svc.request(`/v1/webhooks/${hook.id}`, { headers: bearer(user.token) });
  assert.equal(gone.status, 404);
});

Deno.test('events must be known types, or ["*"] alone', async () => {
  await using svc = await setup();
  const user = await signUp(svc);
  for (const events of [[], ["task.exploded"], ["*", "task.created"], "*"]) {
    const res = await svc.request("/v1/webhooks", {
      method: "POST",
      headers: bearer(user.token),
      json: { url: PUBLIC_URL, events },
    });
    assert.equal(res.status, 400, JSON.stringify(events));
  }
});

Deno.test("webhooks:read lists endpoints, webhooks:write is needed to change them", async () => {
  await using svc = await setup();
  const user = await signUp(svc);
  const reader = await createKey(svc, user.token, { scopes: ["webhooks:read"] });
  const writer = await createKey(svc, user.token, { scopes: ["webhooks:write"] });
  const list = await svc.request("/v1/webhooks", { headers: apiKey(reader.value) });
  assert.equal(list.status, 200);
  const refused = await svc.request("/v1/webhooks", {
    method: "POST",
    headers: apiKey(reader.value),
    json: { url: PUBLIC_URL, events: ["*"] },
  });
  assert.equal(refused.status, 403);
  assert.equal((await refused.json()).scope, "webhooks:write");
  const created = await svc.request("/v1/webhooks", {
    method: "POST",
    headers: apiKey(writer.value),
    json: { url: PUBLIC_URL, events: ["*"] },
  });
  assert.equal(created.status, 201);
});

Deno.test("http, private, loopback, link-local, CGNAT and metadata addresses are refused", async () => {
  await using svc = await setup();
  const user = await signUp(svc);
  const refused = [
    "http://93.184.215.14/hook",
    "https://127.0.0.1/hook",
    "https://10.1.2.3/hook",
    "https://192.168.1.10/hook",
    "https://172.16.0.5/hook",
    "https://169.254.169.254/latest/meta-data",
    "https://100.64.0.1/hook",
    "https://0.0.0.0/hook",
    "https://[::1]/hook",
    "https://[fd00:ec2::254]/hook",
    "https://[fe80::1]/hook",
    "https://[::ffff:127.0.0.1]/hook",
    "https://user:pass@93.184.215.14/hook",
    "ftp://93.184.215.14/hook",
  ];
  for (const url of refused) {
    const res = await svc.request("/v1/webhooks", {
      method: "POST",
      headers: bearer(user.token),
      json: { url, events: ["*"] },
    });
    assert.equal(res.status, 400, url);
    assert.equal((await res.json()).errors[0].path, "url");
  }
  const hook = await (await svc.request("/v1/webhooks", {
    method: "POST",
    headers: bearer(user.token),
    json: { url: PUBLIC_URL, events: ["*"] },
  })).json();
  const moved = await svc.request(`/v1/webhooks/${hook.id}`, {
    method: "PATCH",
    headers: bearer(user.token),
    json: { url: "https://169.254.169.254/" },
  });
  assert.equal(moved.status, 400, "a change of URL is checked too");
});

Deno.test("WEBHOOK_ALLOW_PRIVATE=true allows http and private addresses", async () => {
  await using svc = await setup({ settings: { WEBHOOK_ALLOW_PRIVATE: "true" } });
  const user = await signUp(svc);
  for (const url of ["http://127.0.0.1:9/hook", "https://10.1.2.3/hook"]) {
    const res = await svc.request("/v1/webhooks", {
      method: "POST",
      headers: bearer(user.token),
      json: { url, events: ["*"] },
    });
    assert.equal(res.status, 201, url);
  }
});

Deno.test("at most 10 endpoints per account, exactly, under concurrent creation on two instances", async () => {
  await using group = await sharedInstances(2);
  const [a, b] = group.list;
  const user = await signUp(a);
  const results = await Promise.all(
    Array.from({ length: 16 }, (_, i) =>
      (i % 2 ? a : b).request("/v1/webhooks", {
        method: "POST",
        headers: bearer(user.token),
        json: { url: `${PUBLIC_URL}/${i}`, events: ["*"] },
      })),
  );
  const statuses = results.map((r) => r.status).sort();
  const bodies = await Promise.all(results.map((r) => r.json()));
  assert.equal(statuses.filter((s) => s === 201).length, 10, JSON.stringify(statuses));
  assert.equal(statuses.filter((s) => s === 409).length, 6);
  assert.ok(bodies.filter((b) => b.code).every((b) => b.code === "WEBHOOK_LIMIT_REACHED"));
  const list = await (await b.request("/v1/webhooks", { headers: bearer(user.token) })).json();
  assert.equal(list.length, 10);
});
