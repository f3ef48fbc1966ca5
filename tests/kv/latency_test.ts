/** The deploy bench's latency wrapper counts what a request waits for in sequence, as Deploy would. */
import assert, { deepStrictEqual as assertEquals } from "node:assert/strict";
import { listBatchSize, withLatency } from "../../kv/store/latency.ts";

async function store() {
  const kv = await Deno.openKv(":memory:");
  for (let i = 0; i < 250; i++) await kv.set(["n", i], i);
  return kv;
}

Deno.test("calls awaited one after another add up; calls that overlap count once", async () => {
  using kv = await store();
  const slow = withLatency(kv, 0);
  const one = await slow.traced(async () => {
    await slow.kv.get(["n", 1]);
    return (await slow.kv.getMany([["n", 2], ["n", 3]])).length;
  });
  assertEquals(one, { value: 2, trips: { sequential: 2, calls: 2 } });

  const two = await slow.traced(async () => {
    await Promise.all([slow.kv.get(["n", 1]), slow.kv.get(["n", 2]), slow.kv.getMany([["n", 3]])]);
    await slow.kv.atomic().set(["m"], 1).commit();
  });
  assertEquals(two.trips, { sequential: 2, calls: 4 });
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
    const { value, trips } = await slow.traced(() =>
      Array.fromAsync(slow.kv.list({ prefix: ["n"] }, options))
    );
    assertEquals(value.length, Math.min(options.limit ?? 250, 250));
    assertEquals(trips.sequential, fetches, JSON.stringify(options));
  }
  assertEquals(listBatchSize({ limit: 1000 }), 500);
});

Deno.test("each call takes at least the delay; calls outside the traced work do not count", async () => {
  using kv = await store();
  const slow = withLatency(kv, 30);
  const started = performance.now();
  const elsewhere = slow.kv.get(["n", 1]); // as a background job's read
  const { trips } = await slow.traced(async () => {
    const reader = slow.kv.watch([["n", 1]]).getReader();
    assertEquals((await reader.read()).value?.[0].value, 1);
    await reader.cancel();
  });
  assertEquals((await elsewhere).value, 1);
  assert(performance.now() - started >= 29, "the call returned before its delay");
  assertEquals(trips, { sequential: 1, calls: 1 });
});

Deno.test("a call the traced work leaves running when it settles does not count", async () => {
  using kv = await store();
  const slow = withLatency(kv, 20);
  let left: Promise<unknown> = Promise.resolve();
  const { trips } = await slow.traced(async () => {
    await slow.kv.get(["n", 1]);
    left = slow.kv.get(["n", 2]).then(() => slow.kv.get(["n", 3]));
  });
  await left;
  assertEquals(trips, { sequential: 1, calls: 2 });
});
