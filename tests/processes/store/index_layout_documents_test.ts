/**
 * The rebuild moves a store whose list of every class (`xp_new`) holds cards (layout 16) to one
 * holding documents, and a search by words no index drives answers from it as the brute force does.
 */
import assert from "node:assert/strict";
import type { ExploreFilters } from "../../../domain/explore.ts";
import {
  checkIndexLayout,
  INDEX_LAYOUT,
  rebuildTaskIndexes,
} from "../../../kv/tasks/index_layout.ts";
import { explore, meta } from "../../../kv/keyspace.ts";
import { PACKED_ITEM_LENGTH } from "../../../kv/tasks/packed_item.ts";
import { allPages, generateTasks, reference, writeTask } from "../../explore/explore_fixtures.ts";
import { assertTaskIndexesConsistent } from "../../tasks/task_consistency.ts";

/** A card is the packed item, its location and its author; a document adds the words. */
const CARD_LENGTH = PACKED_ITEM_LENGTH + 2;

/** The lengths of the values the list of every class holds, and how many hold each. */
async function newestValueLengths(kv: Deno.Kv): Promise<Map<number, number>> {
  const lengths = new Map<number, number>();
  for await (const entry of kv.list<unknown[]>({ prefix: explore.newestPrefix() })) {
    lengths.set(entry.value.length, (lengths.get(entry.value.length) ?? 0) + 1);
  }
  return lengths;
}

/** Turns a store's list of every class into what layout 16 wrote: cards; marked 16. */
async function makeLayout16(kv: Deno.Kv) {
  await kv.set(meta.indexLayout(), 16);
  for await (const entry of kv.list<unknown[]>({ prefix: explore.newestPrefix() })) {
    await kv.set(entry.key, entry.value.slice(0, CARD_LENGTH));
  }
}

Deno.test("a layout-16 store's list of every class is rebuilt with documents", async () => {
  await using kv = await Deno.openKv(":memory:");
  const tasks = generateTasks(41, 300);
  for (const task of tasks) await writeTask(kv, null, task);
  const published = reference(tasks, { search: [] }).length;
  assert.deepEqual(await newestValueLengths(kv), new Map([[CARD_LENGTH + 1, published]]));
  await makeLayout16(kv);
  await assert.rejects(assertTaskIndexesConsistent(kv));
  assert.deepEqual(await checkIndexLayout(kv), { stored: 16, current: false });

  await rebuildTaskIndexes(kv);
  assert.deepEqual(await newestValueLengths(kv), new Map([[CARD_LENGTH + 1, published]]));
  await assertTaskIndexesConsistent(kv);
  assert.deepEqual(await checkIndexLayout(kv), { stored: INDEX_LAYOUT, current: true });

  for (const search of [["th"], ["th", "a"], []]) {
    for (const filters of [{ search }, { search, hasSpots: true }] as ExploreFilters[]) {
      const want = reference(tasks, filters);
      assert.ok(want.length > 8, `${search} ${want.length}`);
      assert.deepEqual((await allPages(kv, { filters, limit: 7 })).items, want, `${search}`);
    }
  }
});
