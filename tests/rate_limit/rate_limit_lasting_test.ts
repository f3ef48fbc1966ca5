/**
 * A key used now and then does not wait for a grant on every request: far from its limit, a lease
 * lasts to the end of its minute's slot (docs/rate-limits.md, "Leases").
 */
import assert from "node:assert/strict";
import { SharedRateLimiter } from "../../kv/rate_limit/rate_limit.ts";
import { SYNC_INTERVAL_MS } from "../../kv/rate_limit/rate_limit_rules.ts";
import type { LimitPolicy } from "../../kv/rate_limit/rate_limit_rules.ts";
import { openTestKv } from "../helpers.ts";

const policy: LimitPolicy = { name: "api_key", limit: 1000, windowMs: 3_600_000 };

Deno.test("a key used every 5 s waits for a grant at most once a minute", async () => {
  const kv = await openTestKv();
  using _close = { [Symbol.dispose]: () => kv.close() };
  let now = Date.UTC(2026, 0, 1, 12, 0, 20);
  const limiter = new SharedRateLimiter(kv, () => now);
  const minutes = 10;
  let waits = 0;
  for (let request = 0; request < (minutes * 60) / 5; request++) {
    if (!limiter.inHand(policy, "k1")) waits++;
    assert.ok((await limiter.take(policy, "k1")).allowed);
    // The background's ticks until the next request, as a live instance runs them.
    for (let t = 0; t < 5_000; t += SYNC_INTERVAL_MS * 10) {
      now += SYNC_INTERVAL_MS * 10;
      await limiter.sync();
    }
  }
  assert.ok(waits <= minutes + 1, `${waits} of ${(minutes * 60) / 5} requests waited for a grant`);
});

Deno.test("near the limit, leases stay short and blocks one unit", async () => {
  const kv = await openTestKv();
  using _close = { [Symbol.dispose]: () => kv.close() };
  let now = Date.UTC(2026, 0, 1, 12, 0, 20);
  const small: LimitPolicy = { ...policy, limit: 40 };
  const limiter = new SharedRateLimiter(kv, () => now);
  assert.ok((await limiter.take(small, "k2")).allowed);
  // A second instance finds what the first holds counted, and can spend the rest.
  const other = new SharedRateLimiter(kv, () => now);
  let admitted = 1;
  while ((await other.take(small, "k2")).allowed) admitted++;
  // Its first block was one unit (40 left: a 64th is under one), spent by its own request.
  assert.equal(admitted, small.limit, "every unit the first did not spend");
  now += 1_000 + SYNC_INTERVAL_MS;
  await limiter.sync();
  assert.equal(limiter.pending(), 0, "a short lease's unspent units go back after a second");
});
