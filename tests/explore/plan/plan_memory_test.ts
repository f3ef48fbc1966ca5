/**
 * The explore planner's instance memory stays bounded however many counters and query words it
 * sees, and keeps the most recently used ones.
 */
import assert from "node:assert/strict";
import { PlanMemory, planMemory, undrivenKey } from "../../../kv/explore/shared/plan_memory.ts";
import { indexCovers } from "../../../kv/explore/index/indexed_words.ts";
import type { ExploreFilters } from "../../../domain/explore.ts";
import { allPages, generateTasks, PLACES, reference, writeTask } from "../explore_fixtures.ts";
import { CLASS_COUNTS_REFRESH } from "../../../kv/explore/plan/counters.ts";
import { KeyGuard } from "../../../kv/api_keys/key_guard.ts";
import { commitsAfter } from "../../../kv/api_keys/guarded_store.ts";
import { exploreTasks } from "../../../kv/explore/newest_page.ts";
import { explore } from "../../../kv/keyspace.ts";
import { keyId } from "../../../kv/key_id.ts";

Deno.test("explore's plan memory is bounded and keeps what was used last", async (t) => {
  await t.step("rule: counters past the bound forget the least recently used", () => {
    const memory = new PlanMemory();
    for (let i = 0; i < 20_000; i++) {
      memory.counters.set(`c${i}`, i);
      // One key read again and again stays.
      if (i % 100 === 0) assert.equal(memory.counters.get("c0"), 0);
    }
    assert.ok(memory.counters.size <= 8192, `${memory.counters.size} counters`);
    assert.equal(memory.counters.get("c0"), 0);
    assert.equal(memory.counters.get("c1"), undefined);
    assert.equal(memory.counters.get("c19999"), 19999);
  });

  await t.step(
    "rule: expansions are bounded by their counts, not only by words",
    () => {
      const memory = new PlanMemory();
      const counts = (word: string) => [{
        word,
        zones: Array.from({ length: 880 }, (_, i): [string, number] => [`z${i}`, 1]),
        epochs: Array.from({ length: 20 }, (_, i): [string, number] => [`e${i}`, 44]),
      }];
      for (let i = 0; i < 100; i++) memory.expansions.set(`w${i}`, counts(`w${i}`));
      assert.ok(memory.expansions.weight <= 32768, `${memory.expansions.weight} counts`);
      assert.ok(memory.expansions.size < 100);
      assert.ok(memory.expansions.size > 30, "zones and epochs are kept, not their product");
      assert.equal(memory.expansions.get("w0"), undefined);
      assert.equal(memory.expansions.get("w99")?.[0].zones.length, 880);
      // A query word too broad to drive a scan is remembered as such.
      memory.expansions.set("a", null);
      assert.equal(memory.expansions.get("a"), null);
    },
  );

  await t.step("rule: one memory per store handle", async () => {
    await using a = await Deno.openKv(":memory:");
    await using b = await Deno.openKv(":memory:");
    assert.equal(planMemory(a), planMemory(a));
    assert.notEqual(planMemory(a), planMemory(b));
  });
});

Deno.test("every request of an instance shares its plan memory, through the views of its store", async () => {
  // A keyed request reads through the key guard's view, a cold anonymous one through a view whose
  // commits wait for its grant: a memory per view would be a memory per request.
  const kv = await Deno.openKv(":memory:");
  try {
    const memory = planMemory(kv);
    const guard = new KeyGuard(kv, {
      userId: "u",
      keyId: "k",
      versionstamp: "00000000000000010000",
      fresh: true,
      rejudge: () => Promise.resolve(),
    });
    assert.equal(planMemory(guard.kv), memory, "the key guard's view");
    assert.equal(planMemory(commitsAfter(kv, Promise.resolve())), memory, "a view after a grant");
    const other = await Deno.openKv(":memory:");
    assert.notEqual(planMemory(other), memory, "another store has its own");
    other.close();
  } finally {
    kv.close();
  }
});

Deno.test("a search by undriven words alone teaches the memory its share, and pages stay exact", async () => {
  await using kv = await Deno.openKv(":memory:");
  const tasks = generateTasks(7, 300);
  for (const task of tasks) await writeTask(kv, null, task);
  // `th` could start an unindexed word (`the`): no index drives it, the documents are read.
  const filters: ExploreFilters = { search: ["th"] };
  assert.equal(indexCovers("th"), false);
  const memory = planMemory(kv);
  const key = undrivenKey(filters.search, filters.hasSpots);
  assert.equal(memory.shares.get(key), undefined);
  const expected = reference(tasks, filters).map((i) => i.id);
  const first = await allPages(kv, { filters, limit: 7 });
  assert.deepEqual(first.items.map((i) => i.id), expected);
  const share = memory.shares.get(key);
  assert.ok(share !== undefined && share > 0 && share <= 1, `share ${share}`);
  // Sized by the learned share, the pages still answer exactly.
  const again = await allPages(kv, { filters, limit: 7 });
  assert.deepEqual(again.items.map((i) => i.id), expected);
});

/** A store handle that counts the keys of each `getMany` read through it, by key id. */
function countingKeys(kv: Deno.Kv): { kv: Deno.Kv; reads: (key: Deno.KvKey) => number } {
  const reads = new Map<string, number>();
  const counted = new Proxy(kv, {
    get(target, name) {
      const original = Reflect.get(target, name, target);
      if (typeof original !== "function") return original;
      if (name !== "getMany") return original.bind(target);
      return (keys: Deno.KvKey[], options?: { consistency?: Deno.KvConsistencyLevel }) => {
        for (const key of keys) reads.set(keyId(key), (reads.get(keyId(key)) ?? 0) + 1);
        return (original as Deno.Kv["getMany"]).call(target, keys, options);
      };
    },
  });
  return { kv: counted, reads: (key) => reads.get(keyId(key)) ?? 0 };
}

Deno.test("a circle's plan reads the class counts fresh once in CLASS_COUNTS_REFRESH plans, and pages stay exact", async () => {
  await using kv = await Deno.openKv(":memory:");
  const [newer, ...tasks] = generateTasks(13, 301);
  for (const task of tasks) await writeTask(kv, null, task);
  const counting = countingKeys(kv);
  const paid = explore.countByPayment("Paid");
  const filters: ExploreFilters = {
    search: [],
    geo: { lon: PLACES[0].lon, lat: PLACES[0].lat, radiusKm: 60 },
  };
  const expected = reference(tasks, filters).map((i) => i.id);
  const page = async () => {
    const { items } = await exploreTasks(counting.kv, { filters, limit: 20 });
    assert.deepEqual(items.map((i) => i.id), expected.slice(0, 20));
  };

  await page();
  assert.equal(counting.reads(paid), 1, "the first plan reads them");
  // Its cell counters it reads every plan: they say which cells are empty.
  const cells = counting.reads(explore.count("cell", "c", "u0"));
  assert.ok(cells > 0);
  for (let i = 1; i < CLASS_COUNTS_REFRESH; i++) await page();
  assert.equal(counting.reads(paid), 1, "remembered for the plans after it");
  assert.equal(counting.reads(explore.count("cell", "c", "u0")), cells * CLASS_COUNTS_REFRESH);

  // A task more: the next fresh read counts it.
  await writeTask(kv, null, newer);
  const memory = planMemory(kv);
  const before = memory.counters.get(keyId(paid))! + memory.counters.get(
    keyId(explore.countByPayment("Pro-bono")),
  )!;
  const { items } = await exploreTasks(counting.kv, { filters, limit: 20 });
  assert.equal(counting.reads(paid), 2, "read fresh again");
  const after = memory.counters.get(keyId(paid))! + memory.counters.get(
    keyId(explore.countByPayment("Pro-bono")),
  )!;
  assert.equal(after, before + 1);
  const all = reference([...tasks, newer], filters).map((i) => i.id);
  assert.deepEqual(items.map((i) => i.id), all.slice(0, 20));
});
