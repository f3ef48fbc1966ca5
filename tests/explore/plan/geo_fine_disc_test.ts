/**
 * Layout 11's 500 km class in its precision-3 disc cells: a small circle reads the class's tasks
 * whose disc reaches near it, not every task whose disc touches its precision-2 cell.
 */
import assert from "node:assert/strict";
import type { ExploreFilters } from "../../../domain/explore.ts";
import type { Location, TaskRecord } from "../../../domain/tasks/task.ts";
import { geohashBounds, geohashEncode } from "../../../domain/geo/geohash.ts";
import { exploreTasks } from "../../../kv/explore/newest_page.ts";
import { explore } from "../../../kv/keyspace.ts";
import { discCells, layerOf } from "../../../kv/explore/index/entries.ts";
import { seededRandom } from "../../../scripts/seeded_random.ts";
import { allPages, generateTasks, near, reference, writeTask } from "../explore_fixtures.ts";

const KM_PER_DEGREE_LAT = 111.2;

Deno.test("a small circle reads the 500 km class's fine cells, not the far discs of its coarse cell", async (t) => {
  await using kv = await Deno.openKv(":memory:");
  const rnd = seededRandom(17);
  // The circle: 15 km around the middle of a precision-3 cell, inside its precision-2 cell.
  const box = geohashBounds(geohashEncode(9.2, 50, 3));
  const lon = (box.minLon + box.maxLon) / 2;
  const lat = (box.minLat + box.maxLat) / 2;
  // 300 tasks of the 500 km class reaching 110 km from a cluster 330 km south of it, in the
  // same precision-2 cell (whose disc cells those are), and one reaching the circle from 200 km.
  const cluster = { name: "Cluster", lon, lat: lat - 330 / KM_PER_DEGREE_LAT, sigmaKm: 5 };
  const reaching: Location = {
    type: "radius",
    name: "Far",
    coordinates: [lon, lat + 200 / KM_PER_DEGREE_LAT],
    radiusKm: 210,
  };
  const tasks: TaskRecord[] = generateTasks(61, 301).map((task, i) => ({
    ...task,
    status: "published",
    location: i === 150 ? reaching : {
      type: "radius",
      name: "Cluster",
      coordinates: near(rnd, cluster),
      radiusKm: 110,
    },
  }));
  for (const task of tasks) await writeTask(kv, null, task);
  const parent = geohashEncode(lon, lat, 2);
  assert.equal(geohashEncode(cluster.lon, cluster.lat, 2), parent, "the cluster's cell");

  await t.step(
    "rule: the class's tasks are in the precision-3 cells their disc touches",
    async () => {
      const layer = layerOf("radius", 110)!;
      for (const task of [tasks[0], tasks[150]]) {
        const [x, y] = task.location.coordinates;
        const cells = discCells(layer, { lon: x, lat: y, radiusKm: task.location.radiusKm! })!;
        assert.ok(cells[1].length > 0 && cells[1].every((c) => c.length === 3));
        for (const cell of cells[1]) {
          const entry = await kv.get(explore.byCell("r500d", cell, task.orderKey));
          assert.ok(entry.versionstamp !== null, `${cell} of ${task.location.name}`);
        }
      }
    },
  );

  await t.step("rule: the circle's page reads the fine cell, not the cluster's 300", async () => {
    const filters: ExploreFilters = { search: [], geo: { lon, lat, radiusKm: 15 } };
    const expected = reference(tasks, filters);
    assert.deepEqual(expected.map((item) => item.id), [tasks[150].id], "the fixture's one match");
    const page = await exploreTasks(kv, { filters, limit: 20 });
    assert.deepEqual(page.items, expected);
    // Its precision-2 cell holds the cluster's 300 discs: read whole, they were 300 entries.
    assert.ok(page.work.entries < 100, `${page.work.entries} entries`);
  });

  await t.step("rule: circles across the cells answer as the reference", async () => {
    for (const radiusKm of [15, 80, 250, 600]) {
      for (const [x, y] of [[lon, lat], [lon, cluster.lat], [lon + 2, lat - 1.5]]) {
        const filters: ExploreFilters = { search: [], geo: { lon: x, lat: y, radiusKm } };
        const got = await allPages(kv, { filters, limit: 20 });
        assert.deepEqual(got.items, reference(tasks, filters), JSON.stringify(filters));
      }
    }
  });
});
