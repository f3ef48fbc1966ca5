/** A key's own hourly limit (docs/contract.md section 14): set at creation or by PATCH, 1 to the service's. */
import assert from "node:assert/strict";
import { apiKey, bearer, createKey, setup, signUp, type TestContext } from "../helpers.ts";
import { openTestKv } from "../helpers.ts";

const HALF_PAST = Date.parse("2030-03-01T12:30:00.000Z");

function me(svc: TestContext, key: string) {
  return svc.request("/v1/users/me", { headers: apiKey(key) });
}

async function postKey(svc: TestContext, token: string, json: Record<string, unknown>) {
  const res = await svc.request("/api/v1/keys", {
    method: "POST",
    headers: bearer(token),
    json: { name: "limited", scopes: ["profile:read"], expiresInDays: 30, ...json },
  });
  return { status: res.status, body: await res.json() };
}

Deno.test("a per-key limit answers 429 at its own count with its own headers", async (t) => {
  let now = HALF_PAST - 3_600_000;
  await using svc = await setup({
    settings: { RATE_LIMIT_PER_HOUR: 10 },
    deps: { now: () => now },
  });
  const user = await signUp(svc);
  const created = await postKey(svc, user.token, { rateLimitPerHour: 3 });
  now = HALF_PAST;

  await t.step("the metadata shows the key's own limit", () => {
    assert.equal(created.status, 201);
    assert.equal(created.body.rateLimitPerHour, 3);
  });

  await t.step("each answer states q=3 and counts down from it", async () => {
    for (const remaining of [2, 1, 0]) {
      const res = await me(svc, created.body.key);
      await res.body?.cancel();
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("RateLimit-Policy"), '"default";q=3;w=3600');
      assert.equal(res.headers.get("RateLimit"), `"default";r=${remaining};t=3600`);
      assert.equal(res.headers.get("X-RateLimit-Limit"), "3");
      assert.equal(res.headers.get("X-RateLimit-Remaining"), String(remaining));
    }
  });

  await t.step("the fourth request answers 429 with the key's headers", async () => {
    const res = await me(svc, created.body.key);
    assert.equal(res.status, 429);
    assert.equal((await res.json()).code, "RATE_LIMITED");
    assert.equal(res.headers.get("X-RateLimit-Limit"), "3");
    assert.equal(res.headers.get("RateLimit-Policy"), '"default";q=3;w=3600');
    assert.equal(res.headers.get("Retry-After"), "3600");
  });

  await t.step("a key without its own limit keeps the service's", async () => {
    const plain = await createKey(svc, user.token);
    const res = await me(svc, plain.value);
    await res.body?.cancel();
    assert.equal(res.headers.get("X-RateLimit-Limit"), "10");
  });

  await t.step("PATCH raises it, counting the requests already made", async () => {
    const res = await svc.request(`/api/v1/keys/${created.body.id}`, {
      method: "PATCH",
      headers: bearer(user.token),
      json: { rateLimitPerHour: 5 },
    });
    assert.equal(res.status, 200);
    assert.equal((await res.json()).rateLimitPerHour, 5);
    const next = await me(svc, created.body.key);
    await next.body?.cancel();
    assert.equal(next.status, 200);
    assert.equal(next.headers.get("X-RateLimit-Limit"), "5");
    assert.equal(next.headers.get("X-RateLimit-Remaining"), "1");
  });

  await t.step("PATCH with null returns it to the service's limit", async () => {
    const res = await svc.request(`/api/v1/keys/${created.body.id}`, {
      method: "PATCH",
      headers: bearer(user.token),
      json: { rateLimitPerHour: null },
    });
    assert.equal((await res.json()).rateLimitPerHour, null);
    const next = await me(svc, created.body.key);
    await next.body?.cancel();
    assert.equal(next.headers.get("X-RateLimit-Limit"), "10");
  });
});

Deno.test("rateLimitPerHour must be 1 to RATE_LIMIT_PER_HOUR, at creation and by PATCH", async (t) => {
  await using svc = await setup({ settings: { RATE_LIMIT_PER_HOUR: 10 } });
  const user = await signUp(svc);
  for (const value of [0, 11, 2.5, "5"]) {
    await t.step(`creation with ${JSON.stringify(value)} answers 400`, async () => {
      const res = await postKey(svc, user.token, { rateLimitPerHour: value });
      assert.equal(res.status, 400);
      assert.equal(res.body.errors[0].path, "rateLimitPerHour");
    });
  }
  await t.step("PATCH with 11 answers 400 and leaves the key alone", async () => {
    const key = await createKey(svc, user.token);
    const res = await svc.request(`/api/v1/keys/${key.id}`, {
      method: "PATCH",
      headers: bearer(user.token),
      json: { rateLimitPerHour: 11 },
    });
    assert.equal(res.status, 400);
    assert.equal((await res.json()).errors[0].path, "rateLimitPerHour");
  });
  await t.step("the bounds themselves are accepted", async () => {
    for (const value of [1, 10]) {
      assert.equal((await postKey(svc, user.token, { rateLimitPerHour: value })).status, 201);
    }
  });
});

Deno.test("a key's own limit never exceeds the service's, even after the setting is lowered", async () => {
  const kv = await openTestKv();
  let key = "";
  {
    await using svc = await setup({ kv, settings: { RATE_LIMIT_PER_HOUR: 10 } });
    const user = await signUp(svc);
    key = (await postKey(svc, user.token, { rateLimitPerHour: 8 })).body.key;
  }
  {
    await using svc = await setup({ kv, settings: { RATE_LIMIT_PER_HOUR: 5 } });
    const res = await me(svc, key);
    await res.body?.cancel();
    assert.equal(res.headers.get("X-RateLimit-Limit"), "5");
  }
  kv.close();
});
