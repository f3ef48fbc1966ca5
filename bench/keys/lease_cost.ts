/**
 * `deno task bench:lease-cost [--minutes=10]`: what claiming ahead (docs/rate-limits.md,
 * "Claiming ahead") costs in KV. One key at 11.6 requests a second (1M a day) for 10 minutes
 * (`--minutes`) of an injected clock, the 100 ms
 * tick run by hand, under several hourly limits; the limiter's own reads, commits and write units
 * (kv/store/meter.ts). Compared with the same limiter claiming every block whole at its grant (no
 * records: the rule before claim marks) in the same run.
 */
import { meter } from "../../kv/store/meter.ts";
import { SharedRateLimiter } from "../../kv/rate_limit/rate_limit.ts";
import { SLICES } from "../../kv/rate_limit/rate_limit_rules.ts";
import { numberFlag } from "../lib/flags.ts";
import { markdownTable, writeResults } from "../lib/results.ts";

const PER_SECOND = 1_000_000 / 86_400;
const MINUTES = numberFlag("minutes", 10);
const LIMITS = [1_000, 20_000, 100_000, 1_000_000, 1_000_000_000];

async function run(limit: number, slices: typeof SLICES | null) {
  const dir = await Deno.makeTempDir();
  const metered = meter(await Deno.openKv(`${dir}/kv.sqlite3`));
  let now = Date.parse("2030-03-01T12:00:00.000Z");
  const limiter = new SharedRateLimiter(metered.kv, () => now, { slices });
  const policy = { name: "api_key", limit, windowMs: 3_600_000 };
  const end = now + MINUTES * 60_000;
  let admitted = 0;
  let nextRequest = now;
  let nextTick = now;
  while (now < end) {
    if (nextRequest <= nextTick) {
      now = nextRequest;
      if ((await limiter.take(policy, "key")).allowed) admitted++;
      nextRequest += 1000 / PER_SECOND;
    } else {
      now = nextTick;
      await limiter.sync();
      nextTick += 100;
    }
    // Background work started by a take (a claim raised ahead) runs before the clock moves on.
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  metered.kv.close();
  await Deno.remove(dir, { recursive: true });
  return { admitted, ...metered.usage };
}

async function main() {
  const rows: (string | number)[][] = [];
  for (const limit of LIMITS) {
    const whole = await run(limit, null);
    const marks = await run(limit, SLICES);
    const perMinute = (n: number) => (n / MINUTES).toFixed(1);
    rows.push([
      limit.toLocaleString("en"),
      marks.admitted,
      `${perMinute(whole.reads)} → ${perMinute(marks.reads)}`,
      `${perMinute(whole.commits)} → ${perMinute(marks.commits)}`,
      `${perMinute(whole.writeUnits)} → ${perMinute(marks.writeUnits)}`,
    ]);
  }
  const table = markdownTable(
    [
      "hourly limit",
      `admitted in ${MINUTES} min`,
      "reads a minute (whole → marks)",
      "commits a minute",
      "write units a minute",
    ],
    rows,
  );
  console.log(table);
  const path = await writeResults({
    name: "lease_cost",
    command: `deno task bench:lease-cost --minutes=${MINUTES}`,
    comparedWith: "the same limiter claiming every block whole at its grant (no lease records), " +
      `in the same run; one key at ${PER_SECOND.toFixed(1)} requests a second for ${MINUTES} ` +
      `minutes of an injected clock, slices of a quarter of a block and at least ${SLICES.min} units`,
    body: table,
  });
  console.log(`written to ${path}`);
}

if (import.meta.main) await main();
