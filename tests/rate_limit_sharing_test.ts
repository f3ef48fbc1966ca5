import assert from "node:assert/strict";
import { rateLimits } from "../kv/keys.ts";
import { type LimitPolicy, SharedRateLimiter } from "../kv/rate_limit.ts";
import { apiKey, createKey, sharedInstances, signUp, type TestContext } from "./helpers.ts";

const HOUR = 3_600_000;
const HALF_PAST = Date.parse("2030-03-01T12:30:00.000Z");

function instances(n: number, settings: Record<string, number>) {
  return sharedInstances(n, { settings, deps: { now: () => HALF_PAST } });
}

async function status(svc: TestContext, key: string): Promise<number> {
  const res = await svc.request("/v1/users/me", { headers: apiKey(key) });
  await res.body?.cancel();
  return res.status;
}

Deno.test("instances on one KV file share one limit", async (t) => {
  await using group = await instances(2, { RATE_LIMIT_PER_HOUR: 10 });
  const [a, b] = group.list;
  const user = await signUp(a);
  const key = await createKey(a, user.token);

  await t.step("6 requests on A, flushed: B allows only the remaining 4", async () => {
    for (let i = 0; i < 6; i++) assert.equal(await status(a, key.value), 200);
    await a.deps.rateLimiter.sync();
    for (let i = 0; i < 4; i++) assert.equal(await status(b, key.value), 200);
    assert.equal(await status(b, key.value), 429);
  });

  await t.step("once B has flushed and A refreshed, A refuses too", async () => {
    await b.deps.rateLimiter.sync();
    await a.deps.rateLimiter.sync();
    assert.equal(await status(a, key.value), 429);
  });

  await t.step("the counter in KV holds exactly the 10 admitted requests", async () => {
    const bucket = Math.floor(HALF_PAST / HOUR);
    const entry = await a.kv.get<Deno.KvU64>(rateLimits.bucket("api_key", key.id, bucket));
    assert.equal(entry.value?.value, 10n);
    assert.equal(a.deps.rateLimiter.pending() + b.deps.rateLimiter.pending(), 0);
  });
});

Deno.test("requests spread over instances that sync between them admit exactly the limit", async () => {
  await using group = await instances(3, { RATE_LIMIT_PER_HOUR: 12 });
  const user = await signUp(group.list[0]);
  const key = await createKey(group.list[0], user.token);
  let allowed = 0;
  for (let i = 0; i < 30; i++) {
    const svc = group.list[i % 3];
    if (await status(svc, key.value) === 200) allowed++;
    await svc.deps.rateLimiter.sync();
    // The next instance in turn refreshes what it uses at its own tick.
    await group.list[(i + 1) % 3].deps.rateLimiter.sync();
  }
  assert.equal(allowed, 12);
});

Deno.test("worst case: N instances that have not yet synced admit at most N × limit", async (t) => {
  const n = 3;
  const limit = 5;
  await using group = await instances(n, { RATE_LIMIT_PER_HOUR: limit });
  const user = await signUp(group.list[0]);
  const key = await createKey(group.list[0], user.token);
  // Each instance reads the (empty) shared count once, then admits from its own view.
  let allowed = 0;
  for (let round = 0; round < 2 * limit; round++) {
    for (const svc of group.list) if (await status(svc, key.value) === 200) allowed++;
  }

  await t.step("blind to each other, each admits its own limit: overshoot (N−1) × limit", () => {
    assert.equal(allowed, n * limit);
  });

  await t.step("after one sync tick, every instance refuses", async () => {
    for (const svc of group.list) await svc.deps.rateLimiter.sync();
    for (const svc of group.list) await svc.deps.rateLimiter.sync();
    for (const svc of group.list) assert.equal(await status(svc, key.value), 429);
  });
});

Deno.test("the shared limiter writes no KV per request and deletes buckets out of the window", async (t) => {
  let now = HALF_PAST;
  await using kv = await Deno.openKv(":memory:");
  const limiter = new SharedRateLimiter(kv, () => now);
  const policy: LimitPolicy = { name: "test", limit: 100, windowMs: HOUR };
  const bucket = (i: number) => rateLimits.bucket("test", "s", Math.floor(HALF_PAST / HOUR) + i);

  await t.step("admissions stay in memory until sync commits them as one sum", async () => {
    for (let i = 0; i < 7; i++) assert.ok((await limiter.take(policy, "s")).allowed);
    assert.equal((await kv.get(bucket(0))).value, null);
    assert.equal(limiter.pending(), 7);
    await limiter.sync();
    assert.equal((await kv.get<Deno.KvU64>(bucket(0))).value?.value, 7n);
    assert.equal(limiter.pending(), 0);
  });

  await t.step("after a sync the count is not counted twice", async () => {
    const decision = await limiter.take(policy, "s");
    assert.equal(decision.remaining, 100 - 8);
  });

  await t.step("the first flush into a bucket deletes the one two windows back", async () => {
    await limiter.sync();
    now += 2 * HOUR;
    assert.ok((await limiter.take(policy, "s")).allowed);
    await limiter.sync();
    assert.equal((await kv.get(bucket(0))).value, null);
    assert.equal((await kv.get<Deno.KvU64>(bucket(2))).value?.value, 1n);
  });

  await t.step("an idle subject leaves memory once flushed; its count stays in KV", async () => {
    assert.ok((await limiter.take(policy, "s")).allowed);
    await limiter.sync();
    assert.equal(limiter.size, 1, "used within the last second: kept and refreshed");
    now += 1_001;
    await limiter.sync();
    assert.equal(limiter.size, 0);
    const decision = await limiter.take(policy, "s");
    assert.equal(decision.remaining, 100 - 3, "read back from KV: 2 before, this one");
  });

  await t.step("run() syncs on its own and its stop function flushes what is left", async () => {
    const stop = limiter.run(10, (error) => {
      throw error;
    });
    assert.ok((await limiter.take(policy, "s")).allowed);
    await stop();
    assert.equal(limiter.pending(), 0);
    assert.equal((await kv.get<Deno.KvU64>(bucket(2))).value?.value, 4n);
  });
});
