/**
 * A small circle or box probes the city cells around its centre with its counters; the finer
 * probe is only read where the coarser one last overflowed (the plan never uses it otherwise),
 * the counts size the next few pages of the place without a probe, and the answers stay the
 * brute force's.
 */
import assert from "node:assert/strict";
import type { ExploreFilters } from "../../../domain/explore.ts";
import type { Location } from "../../../domain/tasks/task.ts";
import { exploreTasks } from "../../../kv/explore/newest_page.ts";
import { exploreNearest } from "../../../kv/explore/nearest/nearest_page.ts";
import { geohashEncode } from "../../../domain/geo/geohash.ts";
import { PROBE_REUSE } from "../../../kv/explore/shared/probes.ts";
import { seededRandom } from "../../../scripts/seeded_random.ts";
import {
  countingPointLists,
  generateTasks,
  near,
  reference,
  writeTask,
} from "../explore_fixtures.ts";

async function townOf(kv: Deno.Kv, sigmaKm: number, n: number) {
  const rnd = seededRandom(29);
  const location = (): Location => ({
    type: "city",
    name: "Town",
    coordinates: near(rnd, { name: "Town", lon: 5, lat: 48, sigmaKm }),
  });
  const tasks = generateTasks(41, n).map((task) => ({
    ...task,
    status: "published" as const,
    location: location(),
  }));
  for (const task of tasks) await writeTask(kv, null, task);
  return tasks;
}

const circle: ExploreFilters = { search: [], geo: { lon: 5.001, lat: 48.001, radiusKm: 10 } };
const box: ExploreFilters = {
  search: [],
  bbox: { minLon: 4.9, minLat: 47.94, maxLon: 5.1, maxLat: 48.06 },
};

/** The same filters, their centre moved `dLon` degrees east. */
function shifted(filters: ExploreFilters, dLon: number): ExploreFilters {
  const { geo, bbox } = filters;
  const moved: ExploreFilters = {
    ...filters,
    geo: geo && { ...geo, lon: geo.lon + dLon },
    bbox: bbox && { ...bbox, minLon: bbox.minLon + dLon, maxLon: bbox.maxLon + dLon },
  };
  const centre = (f: ExploreFilters) =>
    f.geo
      ? [f.geo.lon, f.geo.lat]
      : [(f.bbox!.minLon + f.bbox!.maxLon) / 2, (f.bbox!.minLat + f.bbox!.maxLat) / 2];
  const [a, b] = [centre(filters), centre(moved)];
  assert.equal(geohashEncode(a[0], a[1], 5), geohashEncode(b[0], b[1], 5));
  assert.notEqual(geohashEncode(a[0], a[1], 6), geohashEncode(b[0], b[1], 6));
  return moved;
}

Deno.test("a small circle or box in a sparse town probes its finer cell only with the coarser", async () => {
  for (const filters of [circle, box]) {
    // A store each: the instance's memory is kept on the handle, and both probe one cell.
    await using kv = await Deno.openKv(":memory:");
    // Spread over some 60 km: the 4.9 km cell around the centre holds a few tasks.
    const tasks = await townOf(kv, 30, 300);
    const reads = countingPointLists(kv);
    const probes: number[] = [];
    for (let i = 0; i < PROBE_REUSE + 2; i++) {
      const page = await exploreTasks(reads.kv, { filters, limit: 20 });
      assert.deepEqual(page.items, reference(tasks, filters).slice(0, 20));
      probes.push(reads.lists());
    }
    // Two probes on the first page; its counts size the next PROBE_REUSE pages; then the coarser
    // one alone, since it was whole with room to spare.
    assert.equal(probes[PROBE_REUSE], 2, JSON.stringify(filters));
    assert.equal(probes[PROBE_REUSE + 1], 3, JSON.stringify(filters));
  }
});

Deno.test("a small circle or box in a dense town probes again after a few pages, the finer cell alone", async () => {
  for (const filters of [circle, box]) {
    await using kv = await Deno.openKv(":memory:");
    // Packed within a few km: the 4.9 km cell around the centre holds more than a probe reads.
    const tasks = await townOf(kv, 1.5, 300);
    const reads = countingPointLists(kv);
    const probes: number[] = [];
    // Every other page 300 m west, in the same 4.9 km cell but another 1.2 km one.
    const moved = shifted(filters, -0.004);
    for (let i = 0; i < PROBE_REUSE + 2; i++) {
      const asked = i % 2 === 0 ? filters : moved;
      const page = await exploreTasks(reads.kv, { filters: asked, limit: 20 });
      assert.deepEqual(page.items, reference(tasks, asked).slice(0, 20));
      probes.push(reads.lists());
    }
    assert.equal(probes[PROBE_REUSE], 2, JSON.stringify(filters));
    // Then the finer probe alone: the coarser one overflowed, and is left out for a while.
    assert.equal(probes[PROBE_REUSE + 1], 3, JSON.stringify(filters));
  }
});

Deno.test("a nearest-first page in a dense town leaves out the probes that overflowed, for a while", async () => {
  await using kv = await Deno.openKv(":memory:");
  const tasks = await townOf(kv, 1.5, 300);
  const reads = countingPointLists(kv);
  const filters = circle;
  const want = reference(tasks, filters).sort((a, b) => a.distanceKm! - b.distanceKm!)
    .slice(0, 20);
  const probes: number[] = [];
  for (let i = 0; i < PROBE_REUSE + 2; i++) {
    const page = await exploreNearest(reads.kv, { filters, limit: 20 });
    assert.deepEqual(page.items.map((i) => i.distanceKm), want.map((i) => i.distanceKm));
    probes.push(reads.lists());
  }
  // Point lists a page (probes and the walk's own): the first page probes three cells, the two
  // coarser ones overflowing (39 and 4.9 km); the next PROBE_REUSE pages the finest alone; then
  // all three again.
  const perPage = probes.map((n, i) => n - (probes[i - 1] ?? 0));
  assert.deepEqual(
    perPage,
    [perPage[0], ...Array(PROBE_REUSE).fill(perPage[0] - 2), perPage[0]],
    `${perPage}`,
  );
});

Deno.test("a nearest-first page reads a finer probe only where the coarser one overflowed", async () => {
  await using kv = await Deno.openKv(":memory:");
  const tasks = await townOf(kv, 30, 300);
  const filters = circle;
  const want = reference(tasks, filters).sort((a, b) => a.distanceKm! - b.distanceKm!)
    .slice(0, 20);
  const lists: number[] = [];
  for (let i = 0; i < 3; i++) {
    const page = await exploreNearest(kv, { filters, limit: 20 });
    assert.deepEqual(page.items.map((i) => i.distanceKm), want.map((i) => i.distanceKm));
    lists.push(page.work.lists);
  }
  // The 4.9 km cell around the point holds a few tasks: its 1.2 km cell is not probed again.
  assert.ok(lists[1] < lists[0] && lists[2] === lists[1], `lists a page: ${lists}`);
});
