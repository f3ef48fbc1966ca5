/**
 * A nearest-first page in a city reads the cells within the density's reach of the point, not out
 * to the page's last match among the probes' tasks (the first in key order of cells up to 39 km
 * wide), and still answers nearest first exactly; and splits a cell expected to hold a few dozen
 * tasks when only a corner of it lies within the page's reach.
 */
import assert from "node:assert/strict";
import type { ExploreFilters } from "../../../domain/explore.ts";
import { exploreNearest } from "../../../kv/explore/nearest/nearest_page.ts";
import { withLatency } from "../../../kv/store/latency.ts";
import { seededRandom } from "../../../scripts/seeded_random.ts";
import type { TaskRecord } from "../../../domain/tasks/task.ts";
import { generateTasks, reference, writeTask } from "../explore_fixtures.ts";

Deno.test("explore nearest first in a city reads within the density's reach", async () => {
  await using kv = await Deno.openKv(":memory:");
  const rnd = seededRandom(13);
  const tasks = generateTasks(91, 2000).map((task) => ({
    ...task,
    status: "published" as const,
    location: {
      type: "city" as const,
      name: "Town",
      // Evenly over about 10 x 10 km.
      coordinates: [4.93 + rnd() * 0.14, 47.955 + rnd() * 0.09] as [number, number],
    },
  }));
  for (const task of tasks) await writeTask(kv, null, task);
  for (const point of [[5, 48], [5.02, 48.01], [4.97, 47.99]] as const) {
    const { entries } = await nearestPage(kv, tasks, point);
    // Out to the 21st nearest of the probes' tasks, the first batch read 263-282 entries here.
    assert.ok(entries <= 200, `${entries} entries`);
  }
});

Deno.test("explore nearest first reads a radius layer's finer cells within reach", async () => {
  await using kv = await Deno.openKv(":memory:");
  const rnd = seededRandom(29);
  // Evenly over about 10 x 10 km: city tasks, and one radius task (5-20 km) for 20 of them, as
  // dense as the everyday tasks' mix makes the 25 km class in a city.
  const at = () => [4.93 + rnd() * 0.14, 47.955 + rnd() * 0.09] as [number, number];
  const tasks: TaskRecord[] = generateTasks(47, 4100).map((task, i) => ({
    ...task,
    status: "published" as const,
    location: i % 21 === 0
      ? { type: "radius" as const, name: "Around", coordinates: at(), radiusKm: 5 + rnd() * 15 }
      : { type: "city" as const, name: "Town", coordinates: at() },
  }));
  for (const task of tasks) await writeTask(kv, null, task);
  let entries = 0;
  let lists = 0;
  for (const point of [[5, 48], [5.02, 48.01], [4.97, 47.99], [4.99, 47.97]] as const) {
    const page = await nearestPage(kv, tasks, point);
    entries += page.entries;
    lists += page.lists;
  }
  // Each such cell read whole, these four pages read 813 entries in 29 lists here.
  assert.ok(entries <= 750, `${entries} entries`);
  assert.ok(lists <= 29 + 4, `${lists} lists, ${entries} entries`);
});

/**
 * The first nearest-first page 10 km around `point`: its distances are the reference's, in at
 * most 2 round trips; what it read.
 */
async function nearestPage(
  kv: Deno.Kv,
  tasks: TaskRecord[],
  [lon, lat]: readonly [number, number],
): Promise<{ entries: number; lists: number }> {
  const slow = withLatency(kv, 0);
  const filters: ExploreFilters = { search: [], geo: { lon, lat, radiusKm: 10 } };
  const { value, trips } = await slow.traced(() => exploreNearest(slow.kv, { filters, limit: 20 }));
  const want = reference(tasks, filters)
    .sort((a, b) => a.distanceKm! - b.distanceKm!)
    .slice(0, 20);
  assert.deepEqual(value.items.map((i) => i.distanceKm), want.map((i) => i.distanceKm));
  const what =
    `${value.work.entries} entries, ${value.work.lists} lists, ${trips.sequential} round trips`;
  assert.ok(trips.sequential <= 2, what);
  return { entries: value.work.entries, lists: value.work.lists };
}

Deno.test("explore nearest first on a plain reads past a city's margin, its density a rough estimate", async () => {
  await using kv = await Deno.openKv(":memory:");
  const rnd = seededRandom(71);
  const city = (name: string, coordinates: [number, number]) => ({
    type: "city" as const,
    name,
    coordinates,
  });
  // A town of 1,200 tasks some 550 km off, in the point's precision-2 cell (geohash s8): its
  // even spread over that cell, five times the plain's 60 tasks 40-250 km around the point, sizes
  // the page's density (the probes around the point find none).
  const town = generateTasks(71, 1200).map((task) => ({
    ...task,
    status: "published" as const,
    location: city("Town", [23 + rnd() * 0.05, 5 + rnd() * 0.05]),
  }));
  const plain = generateTasks(72, 60).map((task) => {
    const km = 40 + rnd() * 210;
    const angle = rnd() * 2 * Math.PI;
    return {
      ...task,
      status: "published" as const,
      location: city("Plain", [
        28 + km * Math.cos(angle) / 111.2,
        2.8 + km * Math.sin(angle) / 111.2,
      ]),
    };
  });
  const all = [...town, ...plain];
  for (const task of all) await writeTask(kv, null, task);
  const counted = withLatency(kv, 0);
  const filters: ExploreFilters = { search: [], geo: { lon: 28, lat: 2.8, radiusKm: 300 } };
  const { value, trips } = await counted.traced(() =>
    exploreNearest(counted.kv, { filters, limit: 20 })
  );
  const want = reference(all, filters).sort((a, b) => a.distanceKm! - b.distanceKm!).slice(0, 20);
  assert.deepEqual(value.items.map((i) => i.distanceKm), want.map((i) => i.distanceKm));
  // With the margin of a city page, the batches reached out ring after ring: 3 round trips.
  const what = `${trips.sequential} round trips, ${value.work.lists} lists`;
  assert.ok(trips.sequential <= 2, what);
});
