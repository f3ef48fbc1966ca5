/**
 * A page without filters, or searching by words no index drives, lists every class's documents in
 * one newest-first list: one list beside the purges, no other document read, whatever the
 * instance knows of the classes.
 */
import assert from "node:assert/strict";
import type { ExploreFilters } from "../../../domain/explore.ts";
import { exploreTasks } from "../../../kv/explore/newest_page.ts";
import { withLatency } from "../../../kv/store/latency.ts";
import { allPages, generateTasks, reference, writeTask } from "../explore_fixtures.ts";

Deno.test("a page without filters reads one list of documents with the purges", async (t) => {
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

Deno.test("a search by undriven words reads one list of documents with the purges", async (t) => {
  await using kv = await Deno.openKv(":memory:");
  const tasks = generateTasks(11, 300);
  for (const task of tasks) await writeTask(kv, null, task);
  const slow = withLatency(kv, 0);
  // "th" starts stop words, so no word index drives it: the documents do, every class's.
  const filters: ExploreFilters = { search: ["th"] };
  const want = reference(tasks, filters);
  assert.ok(want.length > 40, `${want.length} matches`);

  await t.step("rule: every first page, cold and warm, is the purges and one list", async () => {
    for (let i = 0; i < 3; i++) {
      const { value, trips } = await slow.traced(() =>
        exploreTasks(slow.kv, { filters, after: null, limit: 20 })
      );
      assert.deepEqual(value.items, want.slice(0, 20));
      // The classes' documents were a list each, each read past its share of the page.
      assert.equal(trips.calls, 2);
      assert.equal(value.work.lists, 1);
      assert.equal(value.work.docs, 0);
    }
  });

  await t.step("rule: every page answers as the brute force does, with payment too", async () => {
    assert.deepEqual((await allPages(kv, { filters, limit: 7 })).items, want);
    const paid: ExploreFilters = { ...filters, payment: "Paid" };
    assert.deepEqual(
      (await allPages(kv, { filters: paid, limit: 7 })).items,
      reference(tasks, paid),
    );
  });
});
