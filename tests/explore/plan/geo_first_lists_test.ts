/**
 * First lists sized to what a page takes: a small circle's radius-class cells by the density
 * around its centre, not by an even spread that counts every radius task as reaching its class's
 * largest radius; a large box's busy counter cells read whole where their finer cells would each
 * be a list of a first batch for the few entries the page takes of them.
 */
import assert from "node:assert/strict";
import type { ExploreFilters } from "../../../domain/explore.ts";
import type { Location } from "../../../domain/tasks/task.ts";
import { exploreTasks } from "../../../kv/explore/newest_page.ts";
import { seededRandom } from "../../../scripts/seeded_random.ts";
import { allPages, generateTasks, near, reference, writeTask } from "../explore_fixtures.ts";

/** A dense town, and radius tasks of the 100 and 500 km classes over 12 x 8 degrees around it. */
function townAndRegion(seed: number, n: number) {
  const rnd = seededRandom(seed);
  const location = (i: number): Location => {
    if (i % 5 === 0 || i % 5 === 1) {
      return {
        type: "radius",
        name: "Wide",
        coordinates: [-1 + rnd() * 12, 44 + rnd() * 8],
        radiusKm: i % 5 === 0 ? 300 : 60,
      };
    }
    return {
      type: "city",
      name: "Town",
      coordinates: near(rnd, { name: "Town", lon: 5, lat: 48, sigmaKm: 4 }),
    };
  };
  return generateTasks(seed, n).map((task, i) => ({
    ...task,
    status: "published" as const,
    location: location(i),
  }));
}

Deno.test("explore sizes a small circle's radius-class lists by its centre's density", async () => {
  await using kv = await Deno.openKv(":memory:");
  const tasks = townAndRegion(31, 1500);
  for (const task of tasks) await writeTask(kv, null, task);
  const filters: ExploreFilters = { search: [], geo: { lon: 5.02, lat: 48.01, radiusKm: 8 } };
  const page = await exploreTasks(kv, { filters, limit: 20 });
  assert.deepEqual(page.items, reference(tasks, filters).slice(0, 20));
  // Sized by the even spread, the radius classes' first lists made the page read 192 entries.
  assert.ok(page.work.entries <= 140, `${page.work.entries} entries`);
  const all = await allPages(kv, { filters, limit: 20 });
  assert.deepEqual(all.items, reference(tasks, filters));
});

Deno.test("explore reads a large box's busy counter cells whole, not cell by finer cell", async () => {
  await using kv = await Deno.openKv(":memory:");
  const tasks = townAndRegion(37, 1500);
  for (const task of tasks) await writeTask(kv, null, task);
  const filters: ExploreFilters = {
    search: [],
    bbox: { minLon: 3, minLat: 46.8, maxLon: 7, maxLat: 49.2 },
  };
  const page = await exploreTasks(kv, { filters, limit: 20 });
  assert.deepEqual(page.items, reference(tasks, filters).slice(0, 20));
  // Every busy counter cell through its finer cells in the box: 14 lists.
  assert.ok(page.work.lists <= 10, `${page.work.lists} lists`);
  const all = await allPages(kv, { filters, limit: 20 });
  assert.deepEqual(all.items, reference(tasks, filters));
});
