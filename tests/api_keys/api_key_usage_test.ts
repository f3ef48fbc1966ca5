/**
 * Per-key usage (docs/contract.md section 14): requests by hour and by day, split by outcome, counted in
 * memory and written with the rate limiter's flushes (held up to 10 s), never a write per request.
 */
import assert from "node:assert/strict";
import { apiKeyUsage } from "../../kv/keyspace.ts";
import { HOLD_MS } from "../../kv/api_keys/usage_counter.ts";
import { instanceTimers } from "../../routes/router/deps.ts";
import {
  apiKey,
  bearer,
  createKey,
  setup,
  sharedInstances,
  signUp,
  type TestContext,
} from "../helpers.ts";
import { keyStatus } from "./api_key_fixtures.ts";

const HOUR = 3_600_000;
const DAY = 86_400_000;
/** 10:20 UTC: hour buckets start at 10:00, day buckets at midnight. */
const T = Date.parse("2030-03-01T10:20:00.000Z");
const LONG = { SESSION_TTL_HOURS: 24 * 200, KEY_CREATION_PER_MINUTE: 1000 };

async function usage(svc: TestContext, token: string, id: string, range?: string) {
  const res = await svc.request(`/api/v1/keys/${id}/usage${range ? `?range=${range}` : ""}`, {
    headers: bearer(token),
  });
  return { status: res.status, body: await res.json() };
}

// deno-lint-ignore no-explicit-any
function nonZero(series: any[]) {
  return series.filter((p) => p.ok + p.clientError + p.rateLimited + p.serverError > 0);
}

Deno.test("usage figures equal the requests made, by outcome, across two instances", async (t) => {
  const now = T;
  await using group = await sharedInstances(2, {
    settings: { ...LONG, RATE_LIMIT_PER_HOUR: 100 },
    deps: { now: () => now },
  });
  const [a, b] = group.list;
  const user = await signUp(a);
  const created = await a.request("/api/v1/keys", {
    method: "POST",
    headers: bearer(user.token),
    json: { name: "counted", scopes: ["profile:read"], expiresInDays: 30, rateLimitPerHour: 12 },
  });
  const key = await created.json();
  const made = { ok: 0, clientError: 0, rateLimited: 0, serverError: 0 };

  await t.step("requests through both instances, of every outcome but 5xx", async () => {
    const plan: [TestContext, string][] = [];
    for (let i = 0; i < 5; i++) plan.push([i % 2 ? a : b, "/v1/users/me"]); // 200
    for (let i = 0; i < 4; i++) plan.push([i % 2 ? b : a, "/v1/tasks/me/created"]); // 403
    for (let i = 0; i < 3; i++) plan.push([i % 2 ? a : b, `/v1/users/${crypto.randomUUID()}`]); // 404
    for (let i = 0; i < 6; i++) plan.push([i % 2 ? b : a, "/v1/users/me"]); // past 12: 429
    for (const [svc, path] of plan) {
      const status = await keyStatus(svc, key.key, { path });
      // The serving instance flushes, then both re-read: the next decision sees every admission.
      svc.deps.usage.release();
      await svc.deps.rateLimiter.sync();
      await a.deps.rateLimiter.sync();
      await b.deps.rateLimiter.sync();
      if (status === 429) made.rateLimited++;
      else if (status >= 400) made.clientError++;
      else made.ok++;
    }
    // 4xx answers draw from the budget too: 5 + 4 + 3 spend the 12, the last 6 are refused.
    assert.deepEqual(made, { ok: 5, clientError: 7, rateLimited: 6, serverError: 0 });
  });

  await t.step(
    "GET usage?range=24h answers 24 hourly buckets, the current one holding them",
    async () => {
      const res = await usage(b, user.token, key.id, "24h");
      assert.equal(res.status, 200);
      assert.equal(res.body.range, "24h");
      assert.equal(res.body.bucket, "hour");
      assert.equal(res.body.series.length, 24);
      assert.equal(res.body.series.at(-1).start, "2030-03-01T10:00:00.000Z");
      assert.equal(res.body.series[0].start, "2030-02-28T11:00:00.000Z");
      assert.deepEqual(nonZero(res.body.series), [{ start: "2030-03-01T10:00:00.000Z", ...made }]);
    },
  );

  await t.step("the range defaults to 24h; 7d answers 168 hours, 90d 90 days", async () => {
    assert.equal((await usage(a, user.token, key.id)).body.range, "24h");
    const week = await usage(a, user.token, key.id, "7d");
    assert.equal(week.body.series.length, 168);
    assert.deepEqual(nonZero(week.body.series), [{ start: "2030-03-01T10:00:00.000Z", ...made }]);
    const quarter = await usage(a, user.token, key.id, "90d");
    assert.equal(quarter.body.bucket, "day");
    assert.equal(quarter.body.series.length, 90);
    assert.deepEqual(nonZero(quarter.body.series), [
      { start: "2030-03-01T00:00:00.000Z", ...made },
    ]);
  });
});

Deno.test("usage costs no KV write of its own: counts ride on a limiter flush within 10 s", async (t) => {
  let now = T;
  await using svc = await setup({ deps: { now: () => now } });
  const user = await signUp(svc);
  const key = await createKey(svc, user.token);
  const stored = () => Array.fromAsync(svc.kv.list({ prefix: apiKeyUsage.prefix(key.id) }));

  await t.step("requests write nothing; the limiter's flushes carry nothing for 10 s", async () => {
    for (let i = 0; i < 20; i++) assert.equal(await keyStatus(svc, key.value), 200);
    assert.equal((await stored()).length, 0, "nothing written by the requests themselves");
    now += HOLD_MS - 1;
    await svc.deps.rateLimiter.sync();
    assert.equal((await stored()).length, 0, "held while the oldest count is younger than 10 s");
    assert.equal(svc.deps.usage.pending, 20);
  });

  await t.step(
    "the first flush after 10 s carries them: one hour and one day counter",
    async () => {
      now += 1;
      await svc.deps.rateLimiter.sync();
      const after = await stored();
      assert.deepEqual(after.map((e) => [e.key[2], Number((e.value as Deno.KvU64).value)]), [
        ["day", 20],
        ["hour", 20],
      ]);
      assert.equal(svc.deps.usage.pending, 0);
    },
  );

  await t.step(
    "a release (what a pause or shutdown does) sends them with the next flush",
    async () => {
      assert.equal(await keyStatus(svc, key.value), 200);
      svc.deps.usage.release();
      await svc.deps.rateLimiter.sync();
      assert.equal(svc.deps.usage.pending, 0);
    },
  );
});

Deno.test("stopping the background jobs flushes the usage counts they hold", async () => {
  await using svc = await setup();
  const background = instanceTimers(svc.deps);
  background.start();
  const user = await signUp(svc);
  const key = await createKey(svc, user.token);
  for (let i = 0; i < 3; i++) assert.equal(await keyStatus(svc, key.value), 200);
  await background.stop();
  const quarter = await usage(svc, user.token, key.id, "90d");
  assert.equal(quarter.body.series.at(-1).ok, 3);
});

Deno.test("hours are kept for 7 days and days for 90, in UTC buckets", async (t) => {
  let now = T - 100 * DAY;
  await using svc = await setup({ settings: LONG, deps: { now: () => now } });
  const user = await signUp(svc);
  const key = await createKey(svc, user.token, { expiresInDays: 365 });
  const at = async (when: number, count: number) => {
    now = when;
    for (let i = 0; i < count; i++) await keyStatus(svc, key.value);
    svc.deps.usage.release();
    await svc.deps.rateLimiter.sync();
    await svc.deps.usage.pruned();
  };
  await at(T - 95 * DAY, 1); // older than every range
  await at(T - 10 * DAY, 2); // in 90d only
  await at(T - 2 * DAY - 3 * HOUR, 3); // in 7d and 90d
  await at(T - 2 * HOUR, 4); // in every range
  await at(T, 5);

  await t.step("24h shows the last two", async () => {
    const res = await usage(svc, user.token, key.id, "24h");
    assert.deepEqual(nonZero(res.body.series).map((p) => [p.start, p.ok]), [
      ["2030-03-01T08:00:00.000Z", 4],
      ["2030-03-01T10:00:00.000Z", 5],
    ]);
  });

  await t.step("7d shows the last three by hour", async () => {
    const res = await usage(svc, user.token, key.id, "7d");
    assert.deepEqual(nonZero(res.body.series).map((p) => [p.start, p.ok]), [
      ["2030-02-27T07:00:00.000Z", 3],
      ["2030-03-01T08:00:00.000Z", 4],
      ["2030-03-01T10:00:00.000Z", 5],
    ]);
  });

  await t.step("90d shows the last four by day", async () => {
    const res = await usage(svc, user.token, key.id, "90d");
    assert.deepEqual(nonZero(res.body.series).map((p) => [p.start, p.ok]), [
      ["2030-02-19T00:00:00.000Z", 2],
      ["2030-02-27T00:00:00.000Z", 3],
      ["2030-03-01T00:00:00.000Z", 9],
    ]);
  });

  await t.step("buckets no range shows are pruned once the key is used on a new day", async () => {
    const stored = await Array.fromAsync(
      svc.kv.list<Deno.KvU64>({ prefix: apiKeyUsage.prefix(key.id) }),
    );
    const oldest = Math.min(...stored.map((e) => e.key[3] as number));
    assert.ok(oldest >= T - 91 * DAY, "the day of 95 days ago is gone");
    const hours = stored.filter((e) => e.key[2] === "hour").map((e) => e.key[3] as number);
    assert.ok(Math.min(...hours) >= T - 8 * DAY, "hours of 10 days ago are gone");
  });
});

Deno.test("GET usage answers 400 for an unknown range and 404 for another account's key", async (t) => {
  await using svc = await setup();
  const user = await signUp(svc);
  const other = await signUp(svc);
  const key = await createKey(svc, user.token);
  await t.step("range=1y answers 400 naming range", async () => {
    const res = await usage(svc, user.token, key.id, "1y");
    assert.equal(res.status, 400);
    assert.equal(res.body.errors[0].path, "range");
  });
  await t.step("another account's key answers 404", async () => {
    assert.equal((await usage(svc, other.token, key.id)).status, 404);
  });
  await t.step("an API key answers 403 SESSION_REQUIRED", async () => {
    const res = await svc.request(`/api/v1/keys/${key.id}/usage`, { headers: apiKey(key.value) });
    assert.equal(res.status, 403);
    assert.equal((await res.json()).code, "SESSION_REQUIRED");
  });
  await t.step("a revoked key's figures are gone, and its usage answers 404", async () => {
    await keyStatus(svc, key.value);
    svc.deps.usage.release();
    await svc.deps.rateLimiter.sync();
    const res = await svc.request(`/api/v1/keys/${key.id}`, {
      method: "DELETE",
      headers: bearer(user.token),
    });
    await res.body?.cancel();
    assert.equal((await usage(svc, user.token, key.id)).status, 404);
    const left = await Array.fromAsync(svc.kv.list({ prefix: apiKeyUsage.prefix(key.id) }));
    assert.equal(left.length, 0);
  });
});

Deno.test("lastUsedIp is the address the key was last used from", async () => {
  let now = T;
  await using svc = await setup({ deps: { now: () => now } });
  const user = await signUp(svc);
  const key = await createKey(svc, user.token);
  const list = async () =>
    (await (await svc.request("/api/v1/keys", { headers: bearer(user.token) })).json())[0];
  assert.equal((await list()).lastUsedIp, null);
  await (await svc.request("/v1/users/me", { headers: apiKey(key.value), ip: "198.51.100.4" }))
    .body?.cancel();
  await svc.deps.lastUsed.flush();
  assert.equal((await list()).lastUsedIp, "198.51.100.4");
  now += 61_000;
  await (await svc.request("/v1/users/me", { headers: apiKey(key.value), ip: "2001:db8::9" }))
    .body?.cancel();
  await svc.deps.lastUsed.flush();
  const after = await list();
  assert.equal(after.lastUsedIp, "2001:db8::9");
  assert.equal(after.lastUsedAt, new Date(now).toISOString());
});
