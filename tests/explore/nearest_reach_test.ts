/**
 * A nearest-first page in a city reads the cells within the density's reach of the point, not out
 * to the page's last match among the probes' tasks (the first in key order of cells up to 39 km
 * wide), and still answers nearest first exactly; and splits a cell expected to hold a few dozen
 * tasks when only a corner of it lies within the page's reach.
 */
import assert from "node:assert/strict";
import type { ExploreFilters } from "../../domain/explore.ts";
import { exploreByDistance } from "../../kv/explore/nearest/explore_distance.ts";
import { withLatency } from "../../kv/store/latency.ts";
import { seededRandom } from "../../scripts/seeded_random.ts";
import type { TaskRecord } from "../../domain/tasks/task.ts";
import { generateTasks, reference, writeTask } from "./explore_fixtures.ts";

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
  const { value, trips } = await slow.traced(() =>
    exploreByDistance(slow.kv, { filters, limit: 20 })
  );
  const want = reference(tasks, filters)
    .sort((a, b) => a.distanceKm! - b.distanceKm!)
    .slice(0, 20);
  assert.deepEqual(value.items.map((i) => i.distanceKm), want.map((i) => i.distanceKm));
  const what =
    `${value.work.entries} entries, ${value.work.lists} lists, ${trips.sequential} round trips`;
  assert.ok(trips.sequential <= 2, what);
  return { entries: value.work.entries, lists: value.work.lists };
}

Deno.test("explore nearest first on a plain reads by the probes' density, not its counter cell's town", async () => {
  await using kv = await Deno.openKv(":memory:");
  const rnd = seededRandom(71);
  // A town of 1,200 tasks some 550 km off, in the point's precision-2 cell (geohash s8): its
  // even spread over that cell is five times the plain's.
  const town = generateTasks(71, 1200).map((task) =>
    placed(task, { type: "city", name: "Town", coordinates: [23 + rnd() * 0.05, 5 + rnd() * 0.05] })
  );
  const { trips, lists } = await plainPage(kv, [...town, ...plainTasks(rnd)]);
  // Sized by the town's spread, the batches reached out ring after ring: 3 round trips.
  assert.ok(trips <= 2, `${trips} round trips, ${lists} lists`);
});

Deno.test("explore nearest first on a plain reads its small counter cells whole only within its first batch's reach", async () => {
  await using kv = await Deno.openKv(":memory:");
  const rnd = seededRandom(73);
  // Wide-radius tasks 310-500 km north and south of the point, in counter cells of their own
  // (geohash precision 2) small enough to be read whole: they match, but after the plain's.
  const wide = generateTasks(73, 120).map((task, i) =>
    placed(task, {
      type: "radius",
      name: "Savanna",
      coordinates: [26 + rnd() * 4, i % 2 === 0 ? 6 + rnd() * 1.5 : -0.3 - rnd() * 1.5],
      radiusKm: 480,
    })
  );
  const plain = plainTasks(rnd);
  const { trips, entries } = await plainPage(kv, [...wide, ...plain]);
  assert.ok(trips <= 2, `${trips} round trips`);
  // Read whole in the first batch however far, the wide cells added their 120 entries.
  assert.ok(entries <= plain.length + 20, `${entries} entries`);
});

function placed(task: TaskRecord, location: TaskRecord["location"]): TaskRecord {
  return { ...task, status: "published", location };
}

/** 60 city tasks 40-250 km around (28, 2.8), none nearer. */
function plainTasks(rnd: () => number): TaskRecord[] {
  return generateTasks(72, 60).map((task) => {
    const km = 40 + rnd() * 210;
    const angle = rnd() * 2 * Math.PI;
    const coordinates: [number, number] = [
      28 + km * Math.cos(angle) / 111.2,
      2.8 + km * Math.sin(angle) / 111.2,
    ];
    return placed(task, { type: "city", name: "Plain", coordinates });
  });
}

/** The first nearest-first page 300 km around (28, 2.8), checked against the reference. */
async function plainPage(kv: Deno.Kv, tasks: TaskRecord[]) {
  for (const task of tasks) await writeTask(kv, null, task);
  const counted = withLatency(kv, 0);
  const filters: ExploreFilters = { search: [], geo: { lon: 28, lat: 2.8, radiusKm: 300 } };
  const { value, trips } = await counted.traced(() =>
    exploreByDistance(counted.kv, { filters, limit: 20 })
  );
  const want = reference(tasks, filters).sort((a, b) => a.distanceKm! - b.distanceKm!).slice(0, 20);
  assert.deepEqual(value.items.map((i) => i.distanceKm), want.map((i) => i.distanceKm));
  return { trips: trips.sequential, lists: value.work.lists, entries: value.work.entries };
}
