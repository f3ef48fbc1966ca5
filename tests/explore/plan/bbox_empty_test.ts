/**
 * A box spanning many counter cells reads first how many tasks are centred in each of them, all
 * classes together: an empty box is proved so by one getMany, and only cells holding a centre
 * have their layers' counters read.
 */
import assert from "node:assert/strict";
import type { ExploreFilters } from "../../../domain/explore.ts";
import type { TaskRecord } from "../../../domain/tasks/task.ts";
import { exploreTasks } from "../../../kv/explore/newest_page.ts";
import { orderKey } from "../../../kv/order_key.ts";
import { withLatency } from "../../../kv/store/latency.ts";
import { allPages, generateTasks, reference, writeTask } from "../explore_fixtures.ts";

// Across the antimeridian, in the north Pacific: four counter cells high on each side.
const bbox = { minLon: 170, minLat: 20, maxLon: -170, maxLat: 35 };
const filters: ExploreFilters = { search: [], bbox };

/** The fixtures' tasks, none within 1,500 km of the box. */
function elsewhere(seed: number, n: number): TaskRecord[] {
  return generateTasks(seed, n).filter((task) => {
    const [lon, lat] = task.location.coordinates;
    return Math.abs(lon) < 120 || lat < -15 || lat > 60;
  });
}

/** A city task in the box at `lon`, newer than every fixture task. */
function inBox(template: TaskRecord, lon: number, at: number): TaskRecord {
  const id = crypto.randomUUID();
  return {
    ...template,
    id,
    orderKey: orderKey(at, id),
    status: "published",
    location: { type: "city", name: "Midway", coordinates: [lon, 28.2] },
  };
}

Deno.test("explore proves a box empty by its cells' centre counts, read fresh every page", async (t) => {
  await using kv = await Deno.openKv(":memory:");
  const known = elsewhere(83, 500);
  for (const task of known) await writeTask(kv, null, task);
  const slow = withLatency(kv, 0);
  const page = async () => {
    const { value, trips } = await slow.traced(() => exploreTasks(slow.kv, { filters, limit: 20 }));
    assert.deepEqual(value.items, reference(known, filters).slice(0, 20));
    assert.deepEqual((await allPages(kv, { filters, limit: 1 })).items, reference(known, filters));
    return trips.calls;
  };
  const later = Date.UTC(2031, 0, 1);
  const west = inBox(known[0], -177.4, later);
  // A disc across the antimeridian, indexed by the cells it touches on both sides.
  const east = {
    ...inBox(known[1], 179.9, later + 1),
    location: {
      type: "radius" as const,
      name: "Midway",
      coordinates: [179.9, 28.2] as [number, number],
      radiusKm: 250,
    },
  };

  await t.step("rule: an empty box reads the purges and one getMany", async () => {
    assert.deepEqual(reference(known, filters), []);
    // Every layer's counters of its cells on both sides took four getMany calls.
    assert.equal(await page(), 2);
  });

  await t.step(
    "rule: a task written since is found, the cells without a centre unread",
    async () => {
      await writeTask(kv, null, west);
      known.push(west);
      // The purges, the centre counts, the layers' counters of the one cell holding a centre
      // and its list: both sides' counters took four getMany calls.
      assert.equal(await page(), 4);
    },
  );

  await t.step("rule: both sides counted, both read", async () => {
    await writeTask(kv, null, east);
    known.push(east);
    await page();
  });

  await t.step("rule: both gone, the box is empty again", async () => {
    for (const task of [west, east]) {
      await writeTask(kv, task, { ...task, status: "completed", completedAt: task.createdAt });
    }
    known.splice(-2, 2);
    await page();
  });
});
