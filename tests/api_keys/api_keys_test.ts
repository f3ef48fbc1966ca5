import assert from "node:assert/strict";
import { apiKeys } from "../../kv/keyspace.ts";
import { apiKey, bearer, createKey, setup, signUp } from "../helpers.ts";
import { DAY, MANY, METADATA_FIELDS, postKey, statusOf } from "./api_key_fixtures.ts";

Deno.test("POST /api/v1/keys creates a key and shows its value once", async (t) => {
  const now = Date.parse("2030-03-01T12:00:00.000Z");
  await using svc = await setup({ deps: { now: () => now } });
  const user = await signUp(svc);

  await t.step("201 with exactly the metadata fields plus key", async () => {
    const res = await postKey(svc, user.token, {
      name: " laptop ",
      scopes: ["tasks:read", "profile:read", "tasks:read"],
      expiresInDays: 30,
      ipWhitelist: ["203.0.113.0/24", " 2001:db8::1 ", "::ffff:198.51.100.7"],
    });
    assert.equal(res.status, 201);
    const body = await res.json();
    assert.deepEqual(Object.keys(body).sort(), [...METADATA_FIELDS, "key"].sort());
    assert.match(body.key, /^svc_[0-9a-f]{64}$/);
    assert.match(body.id, /^[0-9a-f-]{36}$/);
    assert.equal(body.name, "laptop");
    assert.equal(body.prefix, body.key.slice(0, 8));
    assert.match(body.prefix, /^svc_[0-9a-f]{4}$/);
    assert.equal(body.last4, body.key.slice(-4));
    assert.deepEqual(body.scopes, ["tasks:read", "profile:read"], "duplicates dropped");
    assert.deepEqual(body.ipWhitelist, ["203.0.113.0/24", "2001:db8::1", "198.51.100.7"]);
    assert.equal(body.createdAt, "2030-03-01T12:00:00.000Z");
    assert.equal(body.expiresAt, "2030-03-31T12:00:00.000Z");
    assert.equal(body.lastUsedAt, null);
    assert.equal(body.status, "active");
    assert.equal(res.headers.get("Location"), `/api/v1/keys/${body.id}`);
  });

  await t.step("expiresAt instead of expiresInDays sets that expiry", async () => {
    const res = await postKey(svc, user.token, {
      name: "ci",
      scopes: ["tasks:write"],
      expiresAt: "2030-06-01T00:00:00Z",
    });
    assert.equal(res.status, 201);
    const body = await res.json();
    assert.equal(body.expiresAt, "2030-06-01T00:00:00.000Z");
    assert.deepEqual(body.ipWhitelist, []);
  });

  await t.step("the value is never shown again: GET /keys carries no key member", async () => {
    const res = await svc.request("/api/v1/keys", { headers: bearer(user.token) });
    const list = await res.json();
    assert.equal(list.length, 2);
    for (const key of list) assert.deepEqual(Object.keys(key).sort(), METADATA_FIELDS);
  });

  await t.step("the key works under both prefixes and both header forms", async () => {
    const created = await createKey(svc, user.token, { scopes: ["profile:read"] });
    for (const path of ["/api/v1/users/me", "/v1/users/me"]) {
      for (const headers of [apiKey(created.value), bearer(created.value)]) {
        const res = await svc.request(path, { headers });
        assert.equal(res.status, 200, `${path} ${JSON.stringify(Object.keys(headers))}`);
        assert.equal((await res.json()).id, user.id);
      }
    }
  });
});

Deno.test("key creation refuses bad bodies with 400 VALIDATION_ERROR naming the path", async (t) => {
  const now = Date.parse("2030-03-01T12:00:00.000Z");
  await using svc = await setup({ settings: MANY, deps: { now: () => now } });
  const user = await signUp(svc);
  const base = { name: "k", scopes: ["tasks:read"] };
  const tooMany = Array.from({ length: 51 }, (_, i) => `10.0.0.${i}`);

  const cases: [string, Record<string, unknown>, string][] = [
    ["an unknown scope", { ...base, scopes: ["tasks:admin"], expiresInDays: 1 }, "scopes.0"],
    ["no scope", { ...base, scopes: [], expiresInDays: 1 }, "scopes"],
    ["no name", { scopes: ["tasks:read"], expiresInDays: 1 }, "name"],
    ["a blank name", { ...base, name: "  ", expiresInDays: 1 }, "name"],
    ["a name of 101", { ...base, name: "x".repeat(101), expiresInDays: 1 }, "name"],
    ["expiresInDays 0", { ...base, expiresInDays: 0 }, "expiresInDays"],
    ["expiresInDays 366", { ...base, expiresInDays: 366 }, "expiresInDays"],
    ["expiresInDays 1.5", { ...base, expiresInDays: 1.5 }, "expiresInDays"],
    ["expiresAt in the past", { ...base, expiresAt: "2030-02-28T00:00:00Z" }, "expiresAt"],
    ["expiresAt now", { ...base, expiresAt: "2030-03-01T12:00:00.000Z" }, "expiresAt"],
    ["expiresAt past 365 days", {
      ...base,
      expiresAt: new Date(now + 365 * DAY + 1000).toISOString(),
    }, "expiresAt"],
    ["expiresAt not a timestamp", { ...base, expiresAt: "next week" }, "expiresAt"],
    [
      "both expiries",
      { ...base, expiresInDays: 5, expiresAt: "2030-04-01T00:00:00Z" },
      "expiresInDays",
    ],
    ["neither expiry", { ...base }, "expiresInDays"],
    ["an invalid whitelist entry", {
      ...base,
      expiresInDays: 1,
      ipWhitelist: ["10.0.0.1", "10.0.0.300"],
    }, "ipWhitelist.1"],
    ["a whitelist CIDR out of range", {
      ...base,
      expiresInDays: 1,
      ipWhitelist: ["10.0.0.0/40"],
    }, "ipWhitelist.0"],
    ["a host name in the whitelist", {
      ...base,
      expiresInDays: 1,
      ipWhitelist: ["example.com"],
    }, "ipWhitelist.0"],
    ["51 whitelist entries", { ...base, expiresInDays: 1, ipWhitelist: tooMany }, "ipWhitelist"],
  ];
  for (const [what, json, path] of cases) {
    await t.step(`${what} → errors[].path ${path}`, async () => {
      const res = await postKey(svc, user.token, json);
      assert.equal(res.status, 400);
      const body = await res.json();
      assert.equal(body.code, "VALIDATION_ERROR");
      assert.ok(
        body.errors.some((e: { path: string }) => e.path === path),
        JSON.stringify(body.errors),
      );
    });
  }

  const edges: [string, Record<string, unknown>][] = [
    ["expiresInDays 1", { ...base, expiresInDays: 1 }],
    ["expiresInDays 365", { ...base, expiresInDays: 365 }],
    ["expiresAt exactly 365 days ahead", {
      ...base,
      expiresAt: new Date(now + 365 * DAY).toISOString(),
    }],
    ["50 whitelist entries", { ...base, expiresInDays: 1, ipWhitelist: tooMany.slice(1) }],
    ["every known scope", {
      ...base,
      scopes: [
        "tasks:read",
        "tasks:write",
        "profile:read",
        "profile:write",
        "projects:read",
        "projects:write",
      ],
      expiresInDays: 1,
    }],
  ];
  for (const [what, json] of edges) {
    await t.step(`${what} is accepted`, async () => {
      assert.equal(await statusOf(await postKey(svc, user.token, json)), 201);
    });
  }
  await t.step("nothing invalid was stored", async () => {
    const res = await svc.request("/api/v1/keys", { headers: bearer(user.token) });
    assert.equal((await res.json()).length, edges.length);
  });
});

Deno.test("at most 10 active keys per account, exact under concurrency", async (t) => {
  let now = Date.parse("2030-03-01T12:00:00.000Z");
  await using svc = await setup({ settings: MANY, deps: { now: () => now } });
  const user = await signUp(svc);
  const other = await signUp(svc);

  await t.step("12 creations at once: exactly 10 answer 201, 2 answer 409", async () => {
    const responses = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        postKey(svc, user.token, {
          name: `k${i}`,
          scopes: ["tasks:read"],
          expiresInDays: 30,
        })),
    );
    const bodies = await Promise.all(responses.map((r) => r.json()));
    const statuses = responses.map((r) => r.status);
    assert.equal(statuses.filter((s) => s === 201).length, 10, JSON.stringify(statuses));
    assert.equal(statuses.filter((s) => s === 409).length, 2, JSON.stringify(statuses));
    for (const body of bodies.filter((b) => b.code)) assert.equal(body.code, "KEY_LIMIT_REACHED");
  });

  await t.step("the store holds exactly 10 keys for the account", async () => {
    let count = 0;
    for await (const _ of svc.kv.list({ prefix: apiKeys.byUserPrefix(user.id) })) count++;
    assert.equal(count, 10);
  });

  await t.step("an 11th key answers 409 KEY_LIMIT_REACHED", async () => {
    const res = await postKey(svc, user.token, {
      name: "11th",
      scopes: ["tasks:read"],
      expiresInDays: 1,
    });
    assert.equal(res.status, 409);
    assert.equal((await res.json()).code, "KEY_LIMIT_REACHED");
  });

  await t.step("another account is not affected", async () => {
    await createKey(svc, other.token);
  });

  await t.step("revoking a key frees its place", async () => {
    const list = await (await svc.request("/api/v1/keys", { headers: bearer(user.token) })).json();
    const revoked = await svc.request(`/api/v1/keys/${list[0].id}`, {
      method: "DELETE",
      headers: bearer(user.token),
    });
    assert.equal(await statusOf(revoked), 200);
    await createKey(svc, user.token, { name: "replacement" });
    const again = await postKey(svc, user.token, {
      name: "one too many",
      scopes: ["tasks:read"],
      expiresInDays: 1,
    });
    assert.equal(await statusOf(again), 409);
  });

  await t.step("an expired key no longer counts", async () => {
    // `other` holds one 30-day key: add a 1-day key and 8 more to reach 10.
    await createKey(svc, other.token, { name: "short-lived", expiresInDays: 1 });
    for (let i = 0; i < 8; i++) await createKey(svc, other.token, { name: `filler ${i}` });
    const full = { name: "full", scopes: ["tasks:read"], expiresInDays: 1 };
    assert.equal(await statusOf(await postKey(svc, other.token, full)), 409);
    now += DAY;
    await createKey(svc, other.token, { name: "after expiry" });
    assert.equal(await statusOf(await postKey(svc, other.token, full)), 409);
  });
});

Deno.test("GET /api/v1/keys lists the account's keys that are not revoked", async (t) => {
  let now = Date.parse("2030-03-01T12:00:00.000Z");
  await using svc = await setup({ settings: MANY, deps: { now: () => now } });
  const user = await signUp(svc);
  const other = await signUp(svc);
  const short = await createKey(svc, user.token, { name: "short", expiresInDays: 1 });
  now += 1000;
  const revoked = await createKey(svc, user.token, { name: "revoked" });
  now += 1000;
  const kept = await createKey(svc, user.token, { name: "kept" });
  await createKey(svc, other.token, { name: "someone else's" });
  const del = await svc.request(`/api/v1/keys/${revoked.id}`, {
    method: "DELETE",
    headers: bearer(user.token),
  });
  await del.body?.cancel();

  const list = async () =>
    await (await svc.request("/api/v1/keys", { headers: bearer(user.token) })).json();

  await t.step("revoked keys and other accounts' keys are left out, newest first", async () => {
    const keys = await list();
    assert.deepEqual(keys.map((k: { id: string }) => k.id), [kept.id, short.id]);
  });

  await t.step("an expired key is listed with status expired", async () => {
    now += DAY;
    const keys = await list();
    const expired = keys.find((k: { id: string }) => k.id === short.id);
    assert.equal(expired.status, "expired");
    assert.equal(keys.find((k: { id: string }) => k.id === kept.id).status, "active");
  });

  await t.step("an expired key answers 401 API_KEY_INVALID", async () => {
    const res = await svc.request("/v1/users/me", { headers: apiKey(short.value) });
    assert.equal(res.status, 401);
    assert.equal((await res.json()).code, "API_KEY_INVALID");
  });

  await t.step("a key is refused from the very millisecond it expires", async () => {
    const fresh = await createKey(svc, user.token, { expiresInDays: 1 });
    now += DAY - 1;
    assert.equal(
      await statusOf(await svc.request("/v1/users/me", { headers: apiKey(fresh.value) })),
      200,
    );
    now += 1;
    assert.equal(
      await statusOf(await svc.request("/v1/users/me", { headers: apiKey(fresh.value) })),
      401,
    );
  });
});
