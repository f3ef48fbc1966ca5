/**
 * A page without filters lists every class's cards in one newest-first list: one list of the
 * page's depth beside the purges, no document, whatever the instance knows of the classes.
 */
import assert from "node:assert/strict";
import type { ExploreFilters } from "../../../domain/explore.ts";
import { exploreTasks } from "../../../kv/explore/newest_page.ts";
import { withLatency } from "../../../kv/store/latency.ts";
import { allPages, generateTasks, reference, writeTask } from "../explore_fixtures.ts";

Deno.test("a page without filters reads one list of cards with the purges", async (t) => {
  await using kv = await Deno.openKv(":memory:");
  const tasks = generateTasks(47, 400);
  for (const task of tasks) await writeTask(kv, null, task);
  const slow = withLatency(kv, 0);
  const filters: ExploreFilters = { search: [] };
  const want = reference(tasks, filters);
  assert.ok(want.length > 60, `${want.length} matches`);
  const page = async (after: string | null) => {
    const { value, trips } = await slow.traced(() =>
      exploreTasks(slow.kv, { filters, after, limit: 20 })
    );
    return { ...value, calls: trips.calls };
  };

  await t.step("rule: the first page, on a cold instance and again, is two calls", async () => {
    for (let i = 0; i < 2; i++) {
      const first = await page(null);
      assert.deepEqual(first.items, want.slice(0, 20));
      // The purges and one list: the classes' documents were a list each, read past the page.
      assert.equal(first.calls, 2);
      assert.equal(first.work.lists, 1);
      assert.equal(first.work.entries, 21);
      assert.equal(first.work.docs, 0);
    }
  });

  await t.step("rule: a later page lists below its cursor the same way", async () => {
    const first = await page(null);
    const second = await page(first.next);
    assert.deepEqual(second.items, want.slice(20, 40));
    assert.equal(second.calls, 2);
    assert.equal(second.work.entries, 21);
  });

  await t.step("rule: every page answers as the brute force does", async () => {
    assert.deepEqual((await allPages(kv, { filters, limit: 7 })).items, want);
    const spots: ExploreFilters = { search: [], hasSpots: true };
    assert.deepEqual(
      (await allPages(kv, { filters: spots, limit: 7 })).items,
      reference(tasks, spots),
    );
  });
});
