/**
 * Tasks at a pole stand at one point whatever longitude they were given, so a nearest-first page
 * ties them and shows them newest first, as the contract orders ties (found by the PostGIS oracle,
 * tests/processes/postgis_oracle_test.ts: the longitude's float noise in the distance ordered them).
 */
import assert from "node:assert/strict";
import { explorePage } from "../../../kv/explore/mod.ts";
import { haversineKm } from "../../../domain/geo/geo.ts";
import type { TaskRecord } from "../../../domain/tasks/task.ts";
import { generateTasks, writeTask } from "../explore_fixtures.ts";

for (const lat of [90, -90]) {
  Deno.test(`explore nearest first ties the tasks at latitude ${lat}, newest first`, async () => {
    await using kv = await Deno.openKv(":memory:");
    const tasks: TaskRecord[] = generateTasks(5, 36).map((task, i) => ({
      ...task,
      status: "published" as const,
      location: { type: "city" as const, name: "Pole", coordinates: [i * 10 - 175, lat] },
    }));
    for (const task of tasks) await writeTask(kv, null, task);
    const geo = { lon: 11.2133, lat: lat * 0.9976, radiusKm: 100 };
    const page = await explorePage(kv, {
      filters: { search: [], geo },
      sort: "distance",
      limit: 50,
    });
    const newest = [...tasks].sort((a, b) => (a.orderKey < b.orderKey ? 1 : -1)).map((t) => t.id);
    assert.deepEqual(page.items.map((i) => i.id), newest);
    const distances = tasks.map((t) => haversineKm(geo, { lon: t.location.coordinates[0], lat }));
    assert.equal(new Set(distances).size, 1, "one point, one distance");
  });
}
