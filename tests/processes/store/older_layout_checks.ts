/**
 * Checks that a rebuilt store keeps nothing of an older index layout, and answers as the brute
 * force does where that layout's entries would have answered otherwise.
 */
import assert from "node:assert/strict";
import type { ExploreFilters, ExploreItem } from "../../../domain/explore.ts";
import { explore } from "../../../kv/keyspace.ts";
import { isIndexedWord } from "../../../kv/explore/index/indexed_words.ts";
import { exploreNearest } from "../../../kv/explore/nearest/nearest_page.ts";
import type { NearestPage, NearestPosition } from "../../../kv/explore/nearest/page_bounds.ts";
import type { TaskRecord } from "../../../domain/tasks/task.ts";
import { allPages, reference } from "../../explore/explore_fixtures.ts";

/** Fails unless a page without filters finds every published task in the list of cards. */
export function assertNoLayout13(tasks: TaskRecord[]) {
  return async (kv: Deno.Kv) => {
    const filters: ExploreFilters = { search: [] };
    const want = reference(tasks, filters);
    let listed = 0;
    for await (const _ of kv.list({ prefix: explore.newestPrefix() })) listed++;
    assert.equal(listed, want.length);
    assert.deepEqual((await allPages(kv, { filters, limit: 9 })).items, want);
  };
}

/** Fails on a point entry of layout 12, or a nearest-first walk that answers otherwise. */
export function assertNoLayout12(tasks: TaskRecord[]) {
  return async (kv: Deno.Kv) => {
    for await (const entry of kv.list({ prefix: explore.byPointOldRoot() })) {
      assert.fail(`layout 12's point entry ${String(entry.key)} is left`);
    }
    const [lon, lat] = tasks.find((task) => task.location.type === "city")!.location.coordinates;
    const filters: ExploreFilters = { search: [], geo: { lon, lat, radiusKm: 2000 } };
    // Distances are compared as shown (rounded), the tasks as a set: ties by rounding aside.
    const want = reference(tasks, filters).sort((a, b) => a.distanceKm! - b.distanceKm!);
    assert.ok(want.length > 10, `${want.length} matches`);
    const got: ExploreItem[] = [];
    let after: NearestPosition | null = null;
    for (let page = 0; page < 50 && (page === 0 || after); page++) {
      const value: NearestPage = await exploreNearest(kv, { filters, limit: 9, after });
      got.push(...value.items);
      after = value.next;
    }
    assert.deepEqual(got.map((i) => i.distanceKm), want.map((i) => i.distanceKm));
    assert.deepEqual(got.map((i) => i.id).sort(), want.map((i) => i.id).sort());
  };
}

/** Fails on a cell entry of a layout-9 layer, or when no word entry carries a position. */
export async function assertNoLayout9(kv: Deno.Kv) {
  for await (const entry of kv.list({ prefix: explore.byCellRoot() })) {
    assert.ok(!/^r(100|500)$/.test(String(entry.key[1])), `layout 9's ${String(entry.key)}`);
  }
  let placed = 0;
  for await (const entry of kv.list({ prefix: explore.byWordRoot() })) {
    if (Array.isArray(entry.value)) placed++;
  }
  assert.ok(placed > 0, "no word entry carries a position");
}

/** Fails on a word entry or dictionary count of a word layout 8 leaves out of every task. */
export async function assertNoLayout7(kv: Deno.Kv) {
  for (const root of [explore.byWordRoot(), explore.wordsPrefix()]) {
    for await (const entry of kv.list({ prefix: root })) {
      const word = entry.key[1] as string;
      assert.ok(isIndexedWord(word), `layout 7's ${String(entry.key)} is left`);
    }
  }
}

/** Fails on any entry of a layout-6 shape: a word or dictionary key without a zone, owner words. */
export async function assertNoLayout6(kv: Deno.Kv) {
  for await (const entry of kv.list({ prefix: explore.byWordRoot() })) {
    assert.equal(entry.key.length, 5, `word entry ${String(entry.key)} has no epoch or zone`);
    const paid = Array.isArray(entry.value) ? entry.value[0] : entry.value;
    assert.equal(typeof paid, "boolean");
  }
  for await (const entry of kv.list({ prefix: explore.wordsPrefix() })) {
    assert.equal(entry.key.length, 3, `layout 6's dictionary entry ${String(entry.key)} is left`);
  }
  for await (const entry of kv.list({ prefix: explore.byWordOldRoot() })) {
    assert.fail(`layout 6's word entry ${String(entry.key)} is left`);
  }
  for await (const entry of kv.list({ prefix: ["tasks_by_user_payment"] })) {
    assert.ok(Array.isArray(entry.value), "the owner's payment listing keeps packed items");
    assert.equal(entry.value.length, 8, "the owner's payment listing keeps no words");
  }
  for (const root of ["tasks_by_user", "xp_tasks", "xp_by_cell", "xp_by_name"]) {
    for await (const entry of kv.list({ prefix: [root] })) {
      assert.ok(Array.isArray(entry.value), `${root} keeps tuples`);
    }
  }
}
