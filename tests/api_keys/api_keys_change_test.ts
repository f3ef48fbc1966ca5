/** API keys after creation: edits, regeneration, revocation, session-only management, last use. */
import assert from "node:assert/strict";
import { apiKeys } from "../../kv/keyspace.ts";
import { apiKey, bearer, createKey, setup, signUp } from "../helpers.ts";
import { METADATA_FIELDS, statusOf } from "./api_key_fixtures.ts";

Deno.test("PATCH /api/v1/keys/:id changes name, ipWhitelist and rateLimitPerHour only", async (t) => {
  await using svc = await setup();
  const user = await signUp(svc);
  const other = await signUp(svc);
  const key = await createKey(svc, user.token, {
    name: "before",
    scopes: ["profile:read"],
    ipWhitelist: ["10.0.0.0/8"],
  });
  const patch = (id: string, json: unknown, token = user.token) =>
    svc.request(`/api/v1/keys/${id}`, { method: "PATCH", headers: bearer(token), json });

  await t.step("renaming answers 200 with the metadata, whitelist kept", async () => {
    const res = await patch(key.id, { name: "after" });
    assert.equal(res.status, 200);
    const body = await res.json();
    assert.deepEqual(Object.keys(body).sort(), METADATA_FIELDS);
    assert.equal(body.name, "after");
    assert.deepEqual(body.ipWhitelist, ["10.0.0.0/8"]);
    assert.equal(body.prefix, key.metadata.prefix);
    assert.equal(body.expiresAt, key.metadata.expiresAt);
  });

  await t.step("a new whitelist takes effect at once", async () => {
    const before = await svc.request("/v1/users/me", { headers: apiKey(key.value), ip: "8.8.8.8" });
    assert.equal((await before.json()).code, "IP_NOT_ALLOWED");
    const res = await patch(key.id, { ipWhitelist: ["8.8.8.0/24"] });
    assert.deepEqual((await res.json()).ipWhitelist, ["8.8.8.0/24"]);
    const after = await svc.request("/v1/users/me", { headers: apiKey(key.value), ip: "8.8.8.8" });
    assert.equal(await statusOf(after), 200);
  });

  await t.step("an empty whitelist lifts the restriction", async () => {
    const res = await patch(key.id, { ipWhitelist: [] });
    assert.deepEqual((await res.json()).ipWhitelist, []);
    const any = await svc.request("/v1/users/me", { headers: apiKey(key.value), ip: "1.1.1.1" });
    assert.equal(await statusOf(any), 200);
  });

  await t.step(
    "scopes and expiry cannot be changed: 400 UNKNOWN_PARAMETER names each",
    async () => {
      const res = await patch(key.id, { scopes: ["tasks:write"], expiresInDays: 365 });
      assert.equal(res.status, 400);
      const body = await res.json();
      assert.equal(body.code, "UNKNOWN_PARAMETER");
      assert.deepEqual(body.errors.map((e: { path: string }) => e.path), [
        "scopes",
        "expiresInDays",
      ]);
      const listed = await (await svc.request("/api/v1/keys", { headers: bearer(user.token) }))
        .json();
      const kept = listed.find((k: { id: string }) => k.id === key.id);
      assert.deepEqual(kept.scopes, ["profile:read"]);
      assert.equal(kept.expiresAt, key.metadata.expiresAt);
    },
  );

  await t.step("an invalid entry answers 400 VALIDATION_ERROR", async () => {
    const res = await patch(key.id, { ipWhitelist: ["300.1.1.1"] });
    assert.equal(res.status, 400);
    const body = await res.json();
    assert.equal(body.code, "VALIDATION_ERROR");
    assert.equal(body.errors[0].path, "ipWhitelist.0");
  });

  await t.step("a blank name answers 400 VALIDATION_ERROR", async () => {
    assert.equal(await statusOf(await patch(key.id, { name: " " })), 400);
  });

  await t.step("another account's key answers 404", async () => {
    const res = await patch(key.id, { name: "stolen" }, other.token);
    assert.equal(res.status, 404);
    assert.equal((await res.json()).code, "NOT_FOUND");
  });

  await t.step("an unknown id, or one that is not a UUID, answers 404", async () => {
    assert.equal(await statusOf(await patch(crypto.randomUUID(), { name: "x" })), 404);
    assert.equal(await statusOf(await patch("not-a-uuid", { name: "x" })), 404);
  });
});

Deno.test("POST /api/v1/keys/:id/regenerate rotates the value", async (t) => {
  await using svc = await setup();
  const user = await signUp(svc);
  const other = await signUp(svc);
  const key = await createKey(svc, user.token, {
    name: "rotating",
    scopes: ["profile:read"],
    ipWhitelist: ["203.0.113.0/24"],
  });
  const res = await svc.request(`/api/v1/keys/${key.id}/regenerate`, {
    method: "POST",
    headers: bearer(user.token),
  });
  const body = await res.json();

  await t.step("200 with the same id and settings and a new value, shown once", () => {
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(body).sort(), [...METADATA_FIELDS, "key"].sort());
    assert.equal(body.id, key.id);
    assert.equal(body.name, "rotating");
    assert.deepEqual(body.scopes, ["profile:read"]);
    assert.deepEqual(body.ipWhitelist, ["203.0.113.0/24"]);
    assert.equal(body.expiresAt, key.metadata.expiresAt);
    assert.equal(body.createdAt, key.metadata.createdAt);
    assert.match(body.key, /^svc_[0-9a-f]{64}$/);
    assert.notEqual(body.key, key.value);
    assert.equal(body.prefix, body.key.slice(0, 8));
    assert.equal(body.last4, body.key.slice(-4));
  });

  await t.step("the old value fails at once with 401 API_KEY_INVALID", async () => {
    const old = await svc.request("/v1/users/me", { headers: apiKey(key.value) });
    assert.equal(old.status, 401);
    assert.equal((await old.json()).code, "API_KEY_INVALID");
  });

  await t.step("the new value works", async () => {
    const fresh = await svc.request("/v1/users/me", { headers: apiKey(body.key) });
    assert.equal(fresh.status, 200);
    assert.equal((await fresh.json()).id, user.id);
  });

  await t.step("the list still shows one key under that id", async () => {
    const list = await (await svc.request("/api/v1/keys", { headers: bearer(user.token) }))
      .json();
    assert.deepEqual(list.map((k: { id: string }) => k.id), [key.id]);
    assert.equal(list[0].last4, body.last4);
  });

  await t.step("another account's key, or an unknown id, answers 404", async () => {
    for (const [id, token] of [[key.id, other.token], [crypto.randomUUID(), user.token]]) {
      const res = await svc.request(`/api/v1/keys/${id}/regenerate`, {
        method: "POST",
        headers: bearer(token),
      });
      assert.equal(res.status, 404);
      assert.equal((await res.json()).code, "NOT_FOUND");
    }
  });
});

Deno.test("DELETE /api/v1/keys/:id revokes the key at once", async (t) => {
  await using svc = await setup();
  const user = await signUp(svc);
  const other = await signUp(svc);
  const key = await createKey(svc, user.token);
  const del = (id: string, token = user.token) =>
    svc.request(`/api/v1/keys/${id}`, { method: "DELETE", headers: bearer(token) });

  await t.step("it works before", async () => {
    assert.equal(
      await statusOf(await svc.request("/v1/users/me", { headers: apiKey(key.value) })),
      200,
    );
  });

  await t.step("another account cannot revoke it: 404", async () => {
    assert.equal(await statusOf(await del(key.id, other.token)), 404);
  });

  await t.step("200 {message: API key revoked}", async () => {
    const res = await del(key.id);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { message: "API key revoked" });
  });

  await t.step("the key answers 401 API_KEY_INVALID immediately", async () => {
    const res = await svc.request("/v1/users/me", { headers: apiKey(key.value) });
    assert.equal(res.status, 401);
    assert.equal((await res.json()).code, "API_KEY_INVALID");
  });

  await t.step("revoking, renaming or regenerating it again answers 404", async () => {
    assert.equal(await statusOf(await del(key.id)), 404);
    const patch = await svc.request(`/api/v1/keys/${key.id}`, {
      method: "PATCH",
      headers: bearer(user.token),
      json: { name: "zombie" },
    });
    assert.equal(await statusOf(patch), 404);
    const regen = await svc.request(`/api/v1/keys/${key.id}/regenerate`, {
      method: "POST",
      headers: bearer(user.token),
    });
    assert.equal(await statusOf(regen), 404);
  });
});

Deno.test("key management takes a session only: an API key gets 403 SESSION_REQUIRED", async (t) => {
  await using svc = await setup();
  const user = await signUp(svc);
  const key = await createKey(svc, user.token, {
    scopes: ["tasks:read", "tasks:write", "profile:read", "profile:write"],
  });
  const calls: [string, string, unknown?][] = [
    ["POST", "/api/v1/keys", { name: "x", scopes: ["tasks:read"], expiresInDays: 1 }],
    ["GET", "/api/v1/keys"],
    ["PATCH", `/api/v1/keys/${key.id}`, { name: "y" }],
    ["POST", `/api/v1/keys/${key.id}/regenerate`],
    ["DELETE", `/api/v1/keys/${key.id}`],
    ["GET", "/v1/keys"],
  ];
  for (const [method, path, json] of calls) {
    for (const headers of [apiKey(key.value), bearer(key.value)]) {
      await t.step(`${method} ${path} with ${Object.keys(headers)[0]}`, async () => {
        const res = await svc.request(path, { method, headers, json });
        assert.equal(res.status, 403);
        assert.equal((await res.json()).code, "SESSION_REQUIRED");
      });
    }
    await t.step(`${method} ${path} with no credential: 401 TOKEN_MISSING`, async () => {
      const res = await svc.request(path, { method, json });
      assert.equal(res.status, 401);
      assert.equal((await res.json()).code, "TOKEN_MISSING");
    });
  }
  await t.step("the key survived all of it", async () => {
    const res = await svc.request("/v1/users/me", { headers: apiKey(key.value) });
    assert.equal(await statusOf(res), 200);
  });
});

Deno.test("lastUsedAt is null until used, then kept within a minute without a write per request", async (t) => {
  let now = Date.parse("2030-03-01T12:00:00.000Z");
  await using svc = await setup({ deps: { now: () => now } });
  const user = await signUp(svc);
  const key = await createKey(svc, user.token, { scopes: ["profile:read"] });
  const use = async () =>
    await statusOf(await svc.request("/v1/users/me", { headers: apiKey(key.value) }));
  const listed = async () => {
    const list = await (await svc.request("/api/v1/keys", { headers: bearer(user.token) }))
      .json();
    return list[0].lastUsedAt as string | null;
  };
  const record = () => svc.kv.get(apiKeys.record(user.id, key.id));

  await t.step("a new key has lastUsedAt null", async () => {
    assert.equal(await listed(), null);
  });

  await t.step("after a use and a flush, lastUsedAt is the time of the use", async () => {
    assert.equal(await use(), 200);
    await svc.deps.lastUsed.flush();
    assert.equal(await listed(), "2030-03-01T12:00:00.000Z");
  });

  await t.step("further uses within the minute write nothing", async () => {
    const before = (await record()).versionstamp;
    for (let i = 0; i < 20; i++) {
      now += 1000;
      assert.equal(await use(), 200);
    }
    await svc.deps.lastUsed.flush();
    assert.equal((await record()).versionstamp, before);
    assert.equal(await listed(), "2030-03-01T12:00:00.000Z");
  });

  await t.step("once the stored time is a minute behind, the next use is written", async () => {
    now = Date.parse("2030-03-01T12:01:00.000Z");
    assert.equal(await use(), 200);
    await svc.deps.lastUsed.flush();
    const stored = await listed();
    assert.ok(stored !== null);
    assert.ok(now - Date.parse(stored) < 60_000, `stored ${stored}`);
  });

  await t.step("a failed request (wrong scope) still counts as a use of the key", async () => {
    const narrow = await createKey(svc, user.token, { scopes: ["tasks:read"] });
    const res = await svc.request("/v1/users/me", { headers: apiKey(narrow.value) });
    assert.equal(await statusOf(res), 403);
    await svc.deps.lastUsed.flush();
    const entry = await svc.kv.get<{ lastUsedAt: string | null }>(
      apiKeys.record(user.id, narrow.id),
    );
    assert.equal(entry.value?.lastUsedAt, new Date(now).toISOString());
  });
});
