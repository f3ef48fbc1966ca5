/**
 * A box across a counter cell's edge lists each finer cell once: the part of the box in one
 * counter cell ends on that cell's edge, which also meets the next cell's finer cells.
 */
import assert from "node:assert/strict";
import type { ExploreFilters } from "../../../domain/explore.ts";
import { exploreTasks } from "../../../kv/explore/newest_page.ts";
import { seededRandom } from "../../../scripts/seeded_random.ts";
import { allPages, generateTasks, reference, writeTask } from "../explore_fixtures.ts";

Deno.test("explore lists a box's finer cells once across a counter cell's edge", async () => {
  await using kv = await Deno.openKv(":memory:");
  const rnd = seededRandom(19);
  // Either side of 11.25 E, the edge between the precision-2 cells u0 and u1.
  const tasks = generateTasks(97, 600).map((task) => ({
    ...task,
    status: "published" as const,
    location: {
      type: "city" as const,
      name: "Edge",
      coordinates: [9 + rnd() * 4.5, 46 + rnd() * 4] as [number, number],
    },
  }));
  for (const task of tasks) await writeTask(kv, null, task);
  const filters: ExploreFilters = {
    search: [],
    bbox: { minLon: 9.5, minLat: 46.5, maxLon: 13, maxLat: 49.5 },
  };
  const page = await exploreTasks(kv, { filters, limit: 20 });
  assert.deepEqual(page.items, reference(tasks, filters).slice(0, 20));
  // Counters, probes and one list per finer cell: listing u1's finer cells on the edge for u0
  // too took 15.
  assert.ok(page.work.lists <= 12, `${page.work.lists} lists`);
  const all = await allPages(kv, { filters, limit: 20 });
  assert.deepEqual(all.items, reference(tasks, filters));
});
