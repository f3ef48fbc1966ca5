/**
 * A search by one word within a circle proves its next page from a word entry whose position is
 * surely inside the circle, without that task's document; the pages' answers stay the reference's.
 */
import assert from "node:assert/strict";
import type { ExploreFilters } from "../../../domain/explore.ts";
import { queryWords } from "../../../domain/validation/text.ts";
import { exploreTasks } from "../../../kv/explore/newest_page.ts";
import { allPages, generateTasks, reference, writeTask } from "../explore_fixtures.ts";

Deno.test("a word's page within a circle reads no document for the match beyond its last item", async (t) => {
  await using kv = await Deno.openKv(":memory:");
  const tasks = generateTasks(56, 1200).map((task, i) => ({
    ...task,
    status: "published" as const,
    title: `${task.title} ${i % 3 === 0 ? "harpsichord" : "lesson"}`,
  }));
  for (const task of tasks) await writeTask(kv, null, task);
  const paris = { lon: 2.3522, lat: 48.8566 };

  await t.step("rule: a full first page reads the documents of its items only", async () => {
    for (const radiusKm of [30, 100, 500]) {
      for (const payment of [undefined, "Paid", "Pro-bono"] as const) {
        const filters: ExploreFilters = {
          search: queryWords("harpsichord"),
          geo: { ...paris, radiusKm },
          ...(payment ? { payment } : {}),
        };
        const expected = reference(tasks, filters);
        if (expected.length <= 20) continue;
        // Twice: the second page is planned from the instance's memory.
        for (let pass = 0; pass < 2; pass++) {
          const page = await exploreTasks(kv, { filters, limit: 20 });
          assert.deepEqual(page.items, expected.slice(0, 20), JSON.stringify(filters));
          assert.notEqual(page.next, null);
          assert.equal(
            page.work.docs,
            20,
            `${JSON.stringify(filters)}: ${page.work.docs} documents`,
          );
        }
      }
    }
  });

  await t.step(
    "rule: every page's answer is the reference's, the last without a cursor",
    async () => {
      for (const radiusKm of [1, 10, 30, 100, 250, 500]) {
        for (const payment of [undefined, "Paid", "Pro-bono"] as const) {
          const filters: ExploreFilters = {
            search: queryWords("harpsi"),
            geo: { ...paris, radiusKm },
            ...(payment ? { payment } : {}),
          };
          for (const limit of [1, 7, 20]) {
            const { items } = await allPages(kv, { filters, limit });
            assert.deepEqual(items, reference(tasks, filters), JSON.stringify({ filters, limit }));
          }
        }
      }
    },
  );
});
