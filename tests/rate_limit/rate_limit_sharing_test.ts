import assert from "node:assert/strict";
import { Timers } from "../../io/timers.ts";
import { slotIndex } from "../../domain/rate_limit/rate_window.ts";
import { rateLimits } from "../../kv/keyspace.ts";
import { SharedRateLimiter } from "../../kv/rate_limit/rate_limit.ts";
import { LEASE_MS } from "../../kv/rate_limit/rate_limit_rules.ts";
import type { LimitPolicy } from "../../kv/rate_limit/rate_limit_rules.ts";
import { apiKey, createKey, sharedInstances, signUp, type TestContext } from "../helpers.ts";
import { openTestKv } from "../helpers.ts";

const HOUR = 3_600_000;
const HALF_PAST = Date.parse("2030-03-01T12:30:00.000Z");

function instances(n: number, settings: Record<string, number>, now: () => number) {
  return sharedInstances(n, { settings, deps: { now } });
}

async function status(svc: TestContext, key: string): Promise<number> {
  const res = await svc.request("/v1/users/me", { headers: apiKey(key) });
  await res.body?.cancel();
  return res.status;
}

Deno.test("instances on one KV file share one limit, exactly", async (t) => {
  let now = HALF_PAST;
  await using group = await instances(2, { RATE_LIMIT_PER_HOUR: 10 }, () => now);
  const [a, b] = group.list;
  const user = await signUp(a);
  const key = await createKey(a, user.token);

  await t.step("6 requests on A; its lease ends and goes back: B allows the other 4", async () => {
    for (let i = 0; i < 6; i++) assert.equal(await status(a, key.value), 200);
    assert.ok(a.deps.rateLimiter.pending() > 0, "A holds units it has not spent");
    now += LEASE_MS;
    await a.deps.rateLimiter.sync();
    // The key's lease (near its limit of 10, so short); the sign-up's budgets, far from theirs,
    // hold their blocks to the end of the slot.
    assert.equal(a.deps.rateLimiter.pending("api_key"), 0);
    for (let i = 0; i < 4; i++) assert.equal(await status(b, key.value), 200);
    assert.equal(await status(b, key.value), 429);
  });

  await t.step("A refuses too, with nothing to wait for", async () => {
    assert.equal(await status(a, key.value), 429);
  });

  await t.step("the counter in KV holds exactly the 10 admitted requests", async () => {
    now += LEASE_MS;
    await a.deps.rateLimiter.sync();
    await b.deps.rateLimiter.sync();
    const slot = slotIndex(HALF_PAST, HOUR);
    const entry = await a.kv.get<Deno.KvU64>(rateLimits.slot("api_key", key.id, slot));
    assert.equal(entry.value?.value, 10n);
    assert.equal(a.deps.rateLimiter.pending("api_key") + b.deps.rateLimiter.pending("api_key"), 0);
  });
});

Deno.test("requests spread over instances that never sync admit exactly the limit", async (t) => {
  const limit = 12;
  await using group = await instances(3, { RATE_LIMIT_PER_HOUR: limit }, () => HALF_PAST);
  const user = await signUp(group.list[0]);
  const key = await createKey(group.list[0], user.token);
  let allowed = 0;
  for (let i = 0; i < 3 * limit; i++) {
    if (await status(group.list[i % 3], key.value) === 200) allowed++;
  }

  await t.step("blind to each other's memory, they admit the limit and not one more", () => {
    assert.equal(allowed, limit);
  });

  await t.step("every instance refuses from then on", async () => {
    for (const svc of group.list) assert.equal(await status(svc, key.value), 429);
  });
});

Deno.test("the shared limiter writes once per block, gives back what is left and sweeps old slots", async (t) => {
  let now = HALF_PAST;
  await using kv = await openTestKv();
  const limiter = new SharedRateLimiter(kv, () => now);
  const policy: LimitPolicy = { name: "test", limit: 100, windowMs: HOUR };
  const slot = (at: number) => rateLimits.slot("test", "s", slotIndex(at, HOUR));
  const count = async (at: number) => (await kv.get<Deno.KvU64>(slot(at))).value?.value;
  const versionOf = async () => (await kv.get(rateLimits.version("test", "s"))).value;

  await t.step(
    "7 requests take 3 blocks (1, 2, 4): each counted in KV before it is spent",
    async () => {
      for (let i = 0; i < 7; i++) assert.ok((await limiter.take(policy, "s")).allowed);
      assert.equal(await count(HALF_PAST), 7n);
      assert.deepEqual(await versionOf(), new Deno.KvU64(3n), "one checked grant per block");
      assert.equal(limiter.pending(), 0, "all spent");
    },
  );

  await t.step(
    "the next block doubles; its unspent units go back once the lease ends",
    async () => {
      const decision = await limiter.take(policy, "s");
      assert.equal(decision.remaining, 100 - 8);
      assert.equal(await count(HALF_PAST), 15n, "a block of 8");
      assert.equal(limiter.pending(), 7);
      await limiter.sync();
      assert.equal(limiter.pending(), 7, "the lease has not ended: kept");
      now += LEASE_MS;
      await limiter.sync();
      assert.equal(limiter.pending(), 0);
      assert.equal(await count(HALF_PAST), 8n);
    },
  );

  await t.step("blocks of later minutes go to their own slots", async () => {
    now = HALF_PAST + 60_000;
    assert.equal((await limiter.take(policy, "s")).remaining, 100 - 9);
    now += LEASE_MS;
    await limiter.sync();
    assert.equal(await count(HALF_PAST), 8n);
    assert.equal(await count(HALF_PAST + 60_000), 1n);
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

  await t.step(
    "an idle subject leaves memory once its lease is back; its count stays in KV",
    async () => {
      now += LEASE_MS;
      await limiter.sync();
      assert.equal(limiter.size, 1, "used within the last second: kept");
      now += 1_001;
      await limiter.sync();
      assert.equal(limiter.size, 0);
      const decision = await limiter.take(policy, "s");
      assert.equal(decision.remaining, 100 - 3, "read back from KV: 2 before, this one");
    },
  );

  await t.step(
    "as a background job it syncs on its own, and stopping gives every lease back",
    async () => {
      const background = new Timers({
        idleAfterMs: Infinity,
        now: () => now,
        onError: (_, error) => {
          throw error;
        },
      });
      background.add({
        name: "sync",
        everyMs: 10,
        run: () => limiter.sync(background.idle),
        flushes: true,
      });
      background.start();
      for (let i = 0; i < 5; i++) assert.ok((await limiter.take(policy, "s")).allowed);
      assert.ok(limiter.pending() > 0);
      await background.stop();
      assert.equal(limiter.pending(), 0);
      assert.equal(await count(now), 7n, "the 2 before and these 5, nothing held");
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

Deno.test("a refusal is answered from memory until the next tick, which reads the window again", async (t) => {
  let now = HALF_PAST + 30_000;
  await using kv = await openTestKv();
  const limiter = new SharedRateLimiter(kv, () => now);
  const policy: LimitPolicy = { name: "full", limit: 3, windowMs: HOUR };
  const key = rateLimits.slot("full", "s", slotIndex(now, HOUR));
  const reads = () => {
    let count = 0;
    const list = kv.list.bind(kv);
    kv.list = ((...args: Parameters<Deno.Kv["list"]>) => {
      count++;
      return list(...args);
    }) as Deno.Kv["list"];
    return () => count;
  };
  // Another instance holds two units and has spent one.
  await kv.atomic().sum(key, 2n).commit();
  assert.ok((await limiter.take(policy, "s")).allowed);
  await limiter.sync(); // its sweep of old slots (a list too) is not due again for seconds
  const counted = reads();

  await t.step("the window is full: refused, and refused again without a read", async () => {
    const first = await limiter.take(policy, "s");
    assert.equal(first.allowed, false);
    assert.equal(counted(), 1);
    for (let i = 0; i < 5; i++) assert.equal((await limiter.take(policy, "s")).allowed, false);
    assert.equal(counted(), 1);
  });

  await t.step(
    "the other instance gives back its unspent unit; after a tick it is admitted",
    async () => {
      await kv.atomic().sum(key, (1n << 64n) - 1n).commit();
      now += 100;
      await limiter.sync();
      const decision = await limiter.take(policy, "s");
      assert.equal(decision.allowed, true);
      assert.equal(decision.remaining, 0);
      assert.equal(counted(), 2);
    },
  );
});
