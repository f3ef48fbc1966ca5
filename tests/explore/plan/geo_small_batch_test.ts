/**
 * A circle's first lists of cells the page takes a few entries of, if any, are small: a radius
 * class's cells around a city hold few of a page's matches, and a full first batch of each was
 * most of what a city page read.
 */
import assert from "node:assert/strict";
import type { ExploreFilters } from "../../../domain/explore.ts";
import type { Location } from "../../../domain/tasks/task.ts";
import { exploreTasks } from "../../../kv/explore/newest_page.ts";
import { seededRandom } from "../../../scripts/seeded_random.ts";
import { generateTasks, near, reference, writeTask } from "../explore_fixtures.ts";

Deno.test("explore reads small first lists of a circle's sparse radius-class cells", async () => {
  await using kv = await Deno.openKv(":memory:");
  const rnd = seededRandom(17);
  // A city, and tasks of the largest radius class over 20 x 16 degrees around it.
  const location = (i: number): Location =>
    i % 4 === 0
      ? {
        type: "radius",
        name: "Wide",
        coordinates: [-5 + rnd() * 20, 40 + rnd() * 16],
        radiusKm: 300,
      }
      : {
        type: "city",
        name: "Town",
        coordinates: near(rnd, { name: "Town", lon: 5, lat: 48, sigmaKm: 5 }),
      };
  const tasks = generateTasks(93, 1200).map((task, i) => ({
    ...task,
    status: "published" as const,
    location: location(i),
  }));
  for (const task of tasks) await writeTask(kv, null, task);
  for (const radiusKm of [100, 400]) {
    const filters: ExploreFilters = { search: [], geo: { lon: 5, lat: 48, radiusKm } };
    const page = await exploreTasks(kv, { filters, limit: 20 });
    assert.deepEqual(page.items, reference(tasks, filters).slice(0, 20));
    // At 400 km the class's cells are nine lists; at 16 entries each the page read 163 entries.
    if (radiusKm === 400) assert.ok(page.work.entries <= 120, `${page.work.entries} entries`);
  }
});
