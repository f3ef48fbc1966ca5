/**
 * The rebuild moves a store whose documents hold their search words as an array (layout 14) to
 * documents holding them as one string, and its searches answer as the brute force does.
 */
import assert from "node:assert/strict";
import type { ExploreFilters } from "../../../domain/explore.ts";
import { queryWords } from "../../../domain/validation/text.ts";
import {
  checkIndexLayout,
  INDEX_LAYOUT,
  rebuildTaskIndexes,
} from "../../../kv/tasks/index_layout.ts";
import { explore, meta } from "../../../kv/keyspace.ts";
import { unpackWords } from "../../../kv/explore/index/packed_words.ts";
import { exploreNearest } from "../../../kv/explore/nearest/nearest_page.ts";
import type { NearestPage, NearestPosition } from "../../../kv/explore/nearest/page_bounds.ts";
import { allPages, generateTasks, reference, writeTask } from "../../explore/explore_fixtures.ts";
import { assertTaskIndexesConsistent } from "../../tasks/task_consistency.ts";

const CLASSES = ["Paid", "Pro-bono"] as const;

/** Turns a store's documents into what layout 14 wrote: the search words as an array; marked 14. */
async function makeLayout14(kv: Deno.Kv) {
  await kv.set(meta.indexLayout(), 14);
  for (const payment of CLASSES) {
    for await (const entry of kv.list<unknown[]>({ prefix: explore.allPrefix(payment) })) {
      const words = entry.value[entry.value.length - 1] as string;
      await kv.set(entry.key, [...entry.value.slice(0, -1), unpackWords(words)]);
    }
  }
}

/** How many documents hold their words as an array. */
async function arrayDocs(kv: Deno.Kv): Promise<number> {
  let n = 0;
  for (const payment of CLASSES) {
    for await (const entry of kv.list<unknown[]>({ prefix: explore.allPrefix(payment) })) {
      if (Array.isArray(entry.value[entry.value.length - 1])) n++;
    }
  }
  return n;
}

Deno.test("a layout-14 store's documents are rebuilt with their words as one string", async () => {
  await using kv = await Deno.openKv(":memory:");
  const tasks = generateTasks(31, 300);
  for (const task of tasks) await writeTask(kv, null, task);
  await makeLayout14(kv);
  assert.ok(await arrayDocs(kv) > 100, "the fixture's documents hold arrays");
  await assert.rejects(assertTaskIndexesConsistent(kv));
  assert.deepEqual(await checkIndexLayout(kv), { stored: 14, current: false });

  const report = await rebuildTaskIndexes(kv);
  assert.equal(report.records, tasks.length);
  assert.equal(await arrayDocs(kv), 0, "no document keeps an array of words");
  await assertTaskIndexesConsistent(kv);
  assert.deepEqual(await checkIndexLayout(kv), { stored: INDEX_LAYOUT, current: true });

  const [lon, lat] = tasks.find((task) => task.location.type === "city")!.location.coordinates;
  for (const query of ["help", "plomb", "garden", "pai"]) {
    const filters: ExploreFilters = { search: queryWords(query) };
    const want = reference(tasks, filters);
    assert.ok(want.length > 0, query);
    assert.deepEqual((await allPages(kv, { filters, limit: 7 })).items, want, query);
    const near: ExploreFilters = { ...filters, geo: { lon, lat, radiusKm: 20_000 } };
    const got: string[] = [];
    let after: NearestPosition | null = null;
    for (let page = 0; page < 100 && (page === 0 || after); page++) {
      const value: NearestPage = await exploreNearest(kv, { filters: near, limit: 9, after });
      got.push(...value.items.map((item) => item.id));
      after = value.next;
    }
    assert.deepEqual(got.sort(), reference(tasks, near).map((i) => i.id).sort(), `near ${query}`);
  }
});
