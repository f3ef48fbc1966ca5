/**
 * The shared limiter in-process (`SharedRateLimiter`, :memory: KV): 1,000 decisions for a key in
 * steady use, 1,000 across 1,000 subjects in steady use, 1,000 first decisions of subjects new to
 * the instance (each one a read of its window, and with leases a checked commit), and one sync
 * tick. Compared against the same file run on the commit before leases (a view synced every
 * 100 ms): see docs/rate-limits.md.
 */
import { SharedRateLimiter } from "../../kv/rate_limit/rate_limit.ts";
import type { LimitPolicy } from "../../kv/rate_limit/rate_limit_rules.ts";

const HOUR = 3_600_000;
const policy: LimitPolicy = { name: "bench", limit: 1_000_000_000, windowMs: HOUR };
const start = Date.parse("2030-03-01T12:00:00.000Z");

/** A limiter whose subjects were used every minute of the last hour, synced each minute. */
async function warmed(subjects: number) {
  const kv = await Deno.openKv(":memory:");
  let now = start;
  const limiter = new SharedRateLimiter(kv, () => now);
  for (let minute = 0; minute < 60; minute++) {
    now = start + minute * 60_000 + 30_000;
    for (let s = 0; s < subjects; s++) await limiter.take(policy, `s${s}`);
    await limiter.sync();
  }
  // In steady use: a subject in use holds what it spends (with leases: blocks grown to its pace).
  for (let i = 0; i < 64; i++) {
    for (let s = 0; s < subjects; s++) await limiter.take(policy, `s${s}`);
  }
  // The clock stays here: every view is fresh, so a take never reads KV.
  return { limiter, kv };
}

// 1,000 decisions per iteration: a single one is too short for the timer on a busy machine.
const one = await warmed(1);
Deno.bench("1,000 takes: one key in steady use (60 slots)", { group: "take" }, async () => {
  for (let i = 0; i < 1_000; i++) await one.limiter.take(policy, "s0");
});

const many = await warmed(1_000);
const names = Array.from({ length: 1_000 }, (_, s) => `s${s}`);
Deno.bench("1,000 takes: 1,000 subjects in turn", { group: "take" }, async () => {
  for (const name of names) await many.limiter.take(policy, name);
});

const fresh = await warmed(0);
let round = 0;
Deno.bench("1,000 takes: 1,000 subjects new to the instance", { group: "first" }, async () => {
  round++;
  for (const name of names) await fresh.limiter.take(policy, `${round}:${name}`);
});

const ticking = await warmed(100);
Deno.bench("sync tick: 100 subjects used, 10 takes each", { group: "sync" }, async () => {
  for (let s = 0; s < 100; s++) {
    for (let i = 0; i < 10; i++) await ticking.limiter.take(policy, `s${s}`);
  }
  await ticking.limiter.sync();
});
