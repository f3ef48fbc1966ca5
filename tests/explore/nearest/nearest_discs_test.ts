/**
 * A sparse nearest-first page reads the 100 km class by its disc cells over the circle, not by
 * its centres' counter cells around the point read whole, and still answers nearest first
 * exactly, page after page; a disc layer's adjacent cells are one list, and with every disc class
 * by its discs no counter cell is read whole for tasks past the centre-keyed classes' reach.
 */
import assert from "node:assert/strict";
import type { ExploreFilters } from "../../../domain/explore.ts";
import type { TaskRecord } from "../../../domain/tasks/task.ts";
import { exploreNearest } from "../../../kv/explore/nearest/nearest_page.ts";
import type { NearestPosition } from "../../../kv/explore/nearest/page_bounds.ts";
import { withLatency } from "../../../kv/store/latency.ts";
import { seededRandom } from "../../../scripts/seeded_random.ts";
import { COUNT_PRECISION } from "../../../kv/explore/index/entries.ts";
import { explore } from "../../../kv/keyspace.ts";
import { generateTasks, reference, watchingLists, writeTask } from "../explore_fixtures.ts";

const KM_PER_DEGREE = 111.2;

type Point = { lon: number; lat: number };

/** Points `minKm` to `maxKm` from `point`, in every direction. */
function ringAround(rnd: () => number, point: Point) {
  return (minKm: number, maxKm: number): [number, number] => {
    const km = minKm + rnd() * (maxKm - minKm);
    const angle = rnd() * 2 * Math.PI;
    return [
      point.lon + km * Math.cos(angle) / KM_PER_DEGREE,
      point.lat + km * Math.sin(angle) / KM_PER_DEGREE,
    ];
  };
}

/** `n` published city tasks named "Plain", the i-th at `at(i)`. */
function cityTasks(seed: number, n: number, at: (i: number) => [number, number]): TaskRecord[] {
  return generateTasks(seed, n).map((task, i) => ({
    ...task,
    status: "published" as const,
    location: { type: "city" as const, name: "Plain", coordinates: at(i) },
  }));
}

/** `n` published radius tasks named "Around", the i-th at `at(i)` reaching `radiusKm(i)`. */
function radiusTasks(
  seed: number,
  n: number,
  { at, radiusKm }: { at: (i: number) => [number, number]; radiusKm: (i: number) => number },
): TaskRecord[] {
  return generateTasks(seed, n).map((task, i) => ({
    ...task,
    status: "published" as const,
    location: {
      type: "radius" as const,
      name: "Around",
      coordinates: at(i),
      radiusKm: radiusKm(i),
    },
  }));
}

/** The reference's matches of a circle, nearest first (ties by id, as the index breaks them). */
function nearestReference(all: TaskRecord[], filters: ExploreFilters): number[] {
  return reference(all, filters).sort((a, b) =>
    a.distanceKm! - b.distanceKm! || (a.id < b.id ? -1 : 1)
  ).map((i) => i.distanceKm!);
}

Deno.test("explore nearest first in a sparse area reads the 100 km class by its discs", async () => {
  await using kv = await Deno.openKv(":memory:");
  const rnd = seededRandom(83);
  const around = ringAround(rnd, { lon: 28, lat: 2.8 });
  // A plain of 40 city tasks 20-250 km around the point (the page reaches far), and 120 tasks of
  // the 100 km class (30-60 km) 150-500 km off: most cannot reach a 50 km circle, yet their
  // counter cells are small enough to be read whole.
  const plain = cityTasks(84, 40, () => around(20, 250));
  const wide = radiusTasks(85, 120, {
    at: () => around(150, 500),
    radiusKm: () => 30 + rnd() * 30,
  });
  const all = [...plain, ...wide];
  for (const task of all) await writeTask(kv, null, task);
  const counted = withLatency(kv, 0);
  const filters: ExploreFilters = { search: [], geo: { lon: 28, lat: 2.8, radiusKm: 50 } };
  const got: number[] = [];
  let after: NearestPosition | null = null;
  let first = { entries: 0, trips: 0 };
  for (let page = 0; page < 10; page++) {
    const { value, trips } = await counted.traced(() =>
      exploreNearest(counted.kv, { filters, limit: 7, after })
    );
    if (page === 0) first = { entries: value.work.entries, trips: trips.sequential };
    got.push(...value.items.map((i) => i.distanceKm!));
    after = value.next;
    if (!after) break;
  }
  assert.deepEqual(got, nearestReference(all, filters));
  // Its centres' counter cells read whole, the first page read 129 entries here (69 by the discs).
  assert.ok(first.entries <= 90, `${first.entries} entries`);
  assert.ok(first.trips <= 2, `${first.trips} round trips`);
});

Deno.test("explore nearest first by discs keeps the tasks past the disc cells' cap", async () => {
  await using kv = await Deno.openKv(":memory:");
  const rnd = seededRandom(91);
  const at = (lon: number, lat: number, km: number): [number, number] => [
    lon + (rnd() - 0.5) * 2 * km / (KM_PER_DEGREE * Math.cos(lat * Math.PI / 180)),
    lat + (rnd() - 0.5) * 2 * km / KM_PER_DEGREE,
  ];
  // Near the pole a 100 km disc touches more cells than the cap and is keyed by its centre in
  // the class's fallback layer; the others around it by their discs.
  const city = cityTasks(92, 30, () => at(20, 78, 300));
  const wide = radiusTasks(93, 60, {
    at: (i) => i % 2 === 0 ? at(20, 80.5, 150) : at(20, 77, 300),
    radiusKm: (i) => i % 2 === 0 ? 95 : 30 + rnd() * 30,
  });
  const all = [...city, ...wide];
  for (const task of all) await writeTask(kv, null, task);
  const filters: ExploreFilters = { search: [], geo: { lon: 20, lat: 79, radiusKm: 40 } };
  const want = nearestReference(all, filters);
  assert.ok(want.length > 10, `${want.length} matches`);
  const got: number[] = [];
  let after: NearestPosition | null = null;
  for (let page = 0; page < 20 && (page === 0 || after); page++) {
    const value = await exploreNearest(kv, { filters, limit: 5, after });
    got.push(...value.items.map((i) => i.distanceKm!));
    after = value.next;
  }
  assert.deepEqual(got, want);
});

Deno.test("explore nearest first lists a disc layer's adjacent cells as one range", async () => {
  await using kv = await Deno.openKv(":memory:");
  const rnd = seededRandom(97);
  // The circle straddles two precision-3 cells next to one another in key order (one counter
  // cell): lon 29.53125 is the edge between the 148th and 149th of 256 columns.
  const point = { lon: 29.53125, lat: 2.1 };
  const around = ringAround(rnd, point);
  const plain = cityTasks(98, 30, () => around(20, 250));
  const wide = radiusTasks(99, 8, { at: () => around(60, 140), radiusKm: () => 60 + rnd() * 35 });
  const all = [...plain, ...wide];
  for (const task of all) await writeTask(kv, null, task);
  const filters: ExploreFilters = { search: [], geo: { ...point, radiusKm: 50 } };
  const want = nearestReference(all, filters);
  const discLists: string[] = [];
  const counted = watchingLists(kv, (key) => {
    if (key?.[1] === "r100d") discLists.push(String(key[2]));
  });
  const got: number[] = [];
  let after: NearestPosition | null = null;
  for (let page = 0; page < 10 && (page === 0 || after); page++) {
    const value = await exploreNearest(counted, { filters, limit: 4, after });
    if (page === 0) assert.deepEqual(discLists.length, 1, `disc lists ${discLists}`);
    got.push(...value.items.map((i) => i.distanceKm!));
    after = value.next;
  }
  assert.ok(want.length > 4, `${want.length} matches`);
  assert.deepEqual(got, want);
});

Deno.test("explore nearest first by discs reads no counter cell whole for the tasks beyond", async () => {
  await using kv = await Deno.openKv(":memory:");
  const rnd = seededRandom(101);
  const point = { lon: 28, lat: 2.8 };
  const around = ringAround(rnd, point);
  // With both disc classes read by their discs, the point cells are walked 25 km past the circle;
  // the city tasks 100-400 km off, in counter cells small enough to be read whole, are not needed.
  const far = cityTasks(102, 90, (i) => i < 6 ? around(5, 45) : around(100, 400));
  const wide = radiusTasks(103, 8, {
    at: () => around(60, 140),
    radiusKm: (i) => i % 2 ? 60 + rnd() * 35 : 200 + rnd() * 250,
  });
  const all = [...far, ...wide];
  for (const task of all) await writeTask(kv, null, task);
  const filters: ExploreFilters = { search: [], geo: { ...point, radiusKm: 50 } };
  const want = nearestReference(all, filters);
  const whole: string[] = [];
  const pointsRoot = explore.byPointRange("").start[0];
  const counted = watchingLists(kv, (key) => {
    const cell = key?.[0] === pointsRoot ? String(key[1]) : "";
    if (cell.length === COUNT_PRECISION) whole.push(cell);
  });
  const got: number[] = [];
  let after: NearestPosition | null = null;
  for (let page = 0; page < 10 && (page === 0 || after); page++) {
    const value = await exploreNearest(counted, { filters, limit: 4, after });
    if (page === 0) assert.deepEqual(whole, [], "counter cells read whole");
    got.push(...value.items.map((i) => i.distanceKm!));
    after = value.next;
  }
  assert.ok(want.length > 4, `${want.length} matches`);
  assert.deepEqual(got, want);
});
