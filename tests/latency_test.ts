/** The deploy bench's latency wrapper counts what a request waits for in sequence, as Deploy would. */
import assert, { deepStrictEqual as assertEquals } from "node:assert/strict";
import { listBatchSize, withLatency } from "../kv/latency.ts";

async function store() {
  const kv = await Deno.openKv(":memory:");
  for (let i = 0; i < 250; i++) await kv.set(["n", i], i);
  return kv;
}

Deno.test("calls awaited one after another add up; calls that overlap count once", async () => {
  using kv = await store();
  const slow = withLatency(kv, 0);
  slow.begin();
  await slow.kv.get(["n", 1]);
  await slow.kv.getMany([["n", 2], ["n", 3]]);
  assertEquals(slow.trace(), { sequential: 2, calls: 2 });

  slow.begin();
  await Promise.all([slow.kv.get(["n", 1]), slow.kv.get(["n", 2]), slow.kv.getMany([["n", 3]])]);
  await slow.kv.atomic().set(["m"], 1).commit();
  assertEquals(slow.trace(), { sequential: 2, calls: 4 });
});

Deno.test("a list waits once per batch Deno fetches, and once more past a full last batch", async () => {
  using kv = await store();
  const slow = withLatency(kv, 0);
  const cases: [Deno.KvListOptions, number][] = [
    [{}, 3], // 100 + 100 + 50
    [{ limit: 20 }, 1],
    [{ limit: 250 }, 1],
    [{ batchSize: 125 }, 3], // 125 + 125 + the empty fetch that finds the end
    [{ limit: 50, batchSize: 25 }, 2],
  ];
  for (const [options, fetches] of cases) {
    slow.begin();
    const entries = await Array.fromAsync(slow.kv.list({ prefix: ["n"] }, options));
    assertEquals(entries.length, Math.min(options.limit ?? 250, 250));
    assertEquals(slow.trace().sequential, fetches, JSON.stringify(options));
  }
  assertEquals(listBatchSize({ limit: 1000 }), 500);
});

Deno.test("each call takes at least the delay; a new trace forgets calls still in flight", async () => {
  using kv = await store();
  const slow = withLatency(kv, 30);
  const started = performance.now();
  const pending = slow.kv.get(["n", 1]);
  slow.begin();
  assertEquals((await pending).value, 1);
  assert(performance.now() - started >= 29, "the call returned before its delay");
  assertEquals(slow.trace(), { sequential: 0, calls: 0 });

  const watch = slow.kv.watch([["n", 1]]).getReader();
  assertEquals((await watch.read()).value?.[0].value, 1);
  await watch.cancel();
  assertEquals(slow.trace().sequential, 1);
});
