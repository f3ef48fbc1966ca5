import assert from "node:assert/strict";
import { Background } from "../domain/background.ts";
import { slotIndex } from "../domain/rate_window.ts";
import { rateLimits } from "../kv/keys.ts";
import { type LimitPolicy, SharedRateLimiter } from "../kv/rate_limit.ts";
import { apiKey, createKey, sharedInstances, signUp, type TestContext } from "./helpers.ts";
import { openTestKv } from "./helpers.ts";

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
    const slot = slotIndex(HALF_PAST, HOUR);
    const entry = await a.kv.get<Deno.KvU64>(rateLimits.slot("api_key", key.id, slot));
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

Deno.test("the shared limiter writes no KV per request and sweeps slots out of the window", async (t) => {
  let now = HALF_PAST;
  await using kv = await openTestKv();
  const limiter = new SharedRateLimiter(kv, () => now);
  const policy: LimitPolicy = { name: "test", limit: 100, windowMs: HOUR };
  const slot = (at: number) => rateLimits.slot("test", "s", slotIndex(at, HOUR));
  const count = async (at: number) => (await kv.get<Deno.KvU64>(slot(at))).value?.value;

  await t.step("admissions stay in memory until sync commits them as one sum", async () => {
    for (let i = 0; i < 7; i++) assert.ok((await limiter.take(policy, "s")).allowed);
    assert.equal(await count(HALF_PAST), undefined);
    assert.equal(limiter.pending(), 7);
    await limiter.sync();
    assert.equal(await count(HALF_PAST), 7n);
    assert.equal(limiter.pending(), 0);
  });

  await t.step("after a sync the count is not counted twice", async () => {
    const decision = await limiter.take(policy, "s");
    assert.equal(decision.remaining, 100 - 8);
  });

  await t.step("admissions of later minutes go to their own slots", async () => {
    now = HALF_PAST + 60_000;
    assert.equal((await limiter.take(policy, "s")).remaining, 100 - 9);
    await limiter.sync();
    assert.equal(await count(HALF_PAST), 8n);
    assert.equal(await count(now), 1n);
  });

  await t.step("a slot that has left the window is swept with its marker", async () => {
    now = HALF_PAST + HOUR;
    await limiter.sync();
    assert.equal(await count(HALF_PAST), undefined, "12:30 left at 13:30");
    assert.equal(await count(HALF_PAST + 60_000), 1n, "12:31 is still in");
    const markers = await Array.fromAsync(kv.list({ prefix: ["rate_slots_due"] }));
    assert.equal(markers.length, 1);
    assert.equal((await limiter.take(policy, "s")).remaining, 100 - 2);
  });

  await t.step("an idle subject leaves memory once flushed; its count stays in KV", async () => {
    await limiter.sync();
    assert.equal(limiter.size, 1, "used within the last second: kept and refreshed");
    now += 1_001;
    await limiter.sync();
    assert.equal(limiter.size, 0);
    const decision = await limiter.take(policy, "s");
    assert.equal(decision.remaining, 100 - 3, "read back from KV: 2 before, this one");
  });

  await t.step(
    "as a background job it syncs on its own, and stopping flushes what is left",
    async () => {
      const background = new Background({
        idleAfterMs: Infinity,
        now: () => now,
        onError: (_, error) => {
          throw error;
        },
      }).add({ name: "sync", everyMs: 10, run: () => limiter.sync(), flushes: true });
      background.start();
      assert.ok((await limiter.take(policy, "s")).allowed);
      await background.stop();
      assert.equal(limiter.pending(), 0);
      assert.equal(await count(now), 3n);
    },
  );
});

Deno.test("over any span of w − w/60 the shared limiter admits at most the limit, and refuses only a full window", async (t) => {
  const limit = 20;
  const windowMs = HOUR;
  const slotMs = windowMs / 60;
  let now = HALF_PAST;
  await using kv = await openTestKv();
  const limiter = new SharedRateLimiter(kv, () => now);
  const policy: LimitPolicy = { name: "span", limit, windowMs };
  // A deterministic mix of bursts and trickles over five hours, synced every simulated 100 ms.
  let seed = 7;
  const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
  const admitted: number[] = [];
  const refused: number[] = [];
  let syncedAt = now;
  while (now < HALF_PAST + 5 * HOUR) {
    now += Math.floor(random() < 0.2 ? random() * 15 * 60_000 : random() * 30_000);
    const burst = random() < 0.1 ? 1 + Math.floor(random() * 2 * limit) : 1;
    for (let i = 0; i < burst; i++) {
      ((await limiter.take(policy, "s")).allowed ? admitted : refused).push(now);
    }
    if (now - syncedAt >= 100) {
      await limiter.sync();
      syncedAt = now;
    }
  }
  const inRange = (from: number, to: number) => admitted.filter((a) => a >= from && a <= to).length;

  await t.step("the traffic both filled the window and was refused", () => {
    assert.ok(admitted.length > 3 * limit && refused.length > limit, `${admitted.length}`);
  });
  await t.step("any closed span of 59 minutes holds at most the limit", () => {
    for (const from of admitted) assert.ok(inRange(from, from + windowMs - slotMs) <= limit);
  });
  await t.step("any 60-minute span holds at most the limit plus one minute's slot", () => {
    for (const from of admitted) {
      const slotEnd = (Math.floor(from / slotMs) + 1) * slotMs;
      const edge = inRange(from, slotEnd - 1);
      assert.ok(inRange(from, from + windowMs) <= limit + edge);
    }
  });
  await t.step("each refusal came with the limit already admitted in its window", () => {
    for (const at of refused) {
      const first = (Math.floor(at / slotMs) - 59) * slotMs;
      assert.equal(inRange(first, at), limit);
    }
  });
});

Deno.test("a refresh re-reads the two newest slots each tick and the whole window within 10 s", async (t) => {
  let now = HALF_PAST + 30_000;
  await using kv = await openTestKv();
  const limiter = new SharedRateLimiter(kv, () => now);
  const policy: LimitPolicy = { name: "fresh", limit: 100, windowMs: HOUR };
  const add = (at: number, n: bigint) =>
    kv.atomic().sum(rateLimits.slot("fresh", "s", slotIndex(at, HOUR)), n).commit();
  assert.equal((await limiter.take(policy, "s")).remaining, 99);

  await t.step(
    "another instance's count in this minute or the last is seen at the next tick",
    async () => {
      await add(now, 5n);
      await add(now - 60_000, 7n);
      now += 100;
      await limiter.sync();
      assert.equal((await limiter.take(policy, "s")).remaining, 100 - 14);
    },
  );

  await t.step(
    "a late count in an older minute is seen once the window is listed again",
    async () => {
      await add(now - 10 * 60_000, 3n);
      now += 100;
      await limiter.sync();
      assert.equal((await limiter.take(policy, "s")).remaining, 100 - 15, "not yet");
      now += 10_000;
      await limiter.sync();
      assert.equal((await limiter.take(policy, "s")).remaining, 100 - 19);
    },
  );
});
