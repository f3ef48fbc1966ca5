/**
 * Layout 10's disc layers and word positions against the brute-force reference: a task of the
 * 100 or 500 km class is found in the cells its disc touches (a circle reads its own cover, not
 * one widened by the class's largest radius), one whose disc touches too many cells by its centre
 * (read widened, as before), and a search within a circle rejects a word entry on its position.
 */
import assert from "node:assert/strict";
import type { ExploreFilters } from "../../../domain/explore.ts";
import type { Location, TaskRecord } from "../../../domain/tasks/task.ts";
import { exploreTasks } from "../../../kv/explore/newest_page.ts";
import { explore } from "../../../kv/keyspace.ts";
import { discCells, layerOf, MAX_INDEXED_WORDS } from "../../../kv/explore/index/entries.ts";
import { limitGuard } from "../../../kv/store/limits.ts";
import { seededRandom } from "../../../scripts/seeded_random.ts";
import { allPages, generateTasks, near, reference, writeTask } from "../explore_fixtures.ts";

function placed(tasks: TaskRecord[], location: (i: number) => Location): TaskRecord[] {
  return tasks.map((task, i) => ({ ...task, status: "published", location: location(i) }));
}

Deno.test("a circle finds a radius task by its disc, without reading its centre's cells", async () => {
  await using kv = await Deno.openKv(":memory:");
  const rnd = seededRandom(5);
  // The circle: 5 km around (9.2, 50). The task: 90 km around a centre 85 km east, in another
  // precision-3 cell, among 300 tasks of its class clustered 100 km east that reach 27 km.
  const reaching: Location = {
    type: "radius",
    name: "Far",
    coordinates: [9.2 + 85 / 71.6, 50],
    radiusKm: 90,
  };
  const tasks = placed(generateTasks(41, 301), (i) =>
    i === 150 ? reaching : {
      type: "radius",
      name: "Cluster",
      coordinates: near(rnd, { name: "Cluster", lon: 10.6, lat: 50, sigmaKm: 5 }),
      radiusKm: 26 + rnd(),
    });
  for (const task of tasks) await writeTask(kv, null, task);
  const filters: ExploreFilters = { search: [], geo: { lon: 9.2, lat: 50, radiusKm: 5 } };
  const expected = reference(tasks, filters);
  assert.deepEqual(expected.map((item) => item.id), [tasks[150].id], "the fixture's one match");
  const page = await exploreTasks(kv, { filters, limit: 20 });
  assert.deepEqual(page.items, expected);
  // Widened by 100 km, the circle read the cluster's cell: its 300 entries.
  assert.ok(page.work.entries < 50, `${page.work.entries} entries`);
});

Deno.test("a disc touching too many cells is indexed by its centre and still found", async (t) => {
  await using kv = await Deno.openKv(":memory:");
  const rnd = seededRandom(9);
  // Near the pole a disc spans many meridians: 100 km at 88.5° N touches some fifty precision-3
  // cells, 450 km at 85° N some twenty precision-2 ones. Beside them, discs of both classes
  // that stay under the cap, and city tasks.
  const location = (i: number): Location => {
    const lon = rnd() * 360 - 180;
    switch (i % 5) {
      case 0:
        return { type: "radius", name: "Pole", coordinates: [lon, 88.5], radiusKm: 100 };
      case 1:
        return { type: "radius", name: "Cap", coordinates: [lon, 85], radiusKm: 450 };
      case 2:
        return { type: "radius", name: "Low", coordinates: [lon, 60 + rnd() * 10], radiusKm: 30 };
      case 3:
        return { type: "radius", name: "Wide", coordinates: [lon, 50 + rnd() * 10], radiusKm: 300 };
      default:
        return { type: "city", name: "Town", coordinates: [lon, 70 + rnd() * 19] };
    }
  };
  const tasks = placed(generateTasks(43, 250), location);
  for (const task of tasks) await writeTask(kv, null, task);

  await t.step(
    "rule: past the cap, a task's cells are its centre's, in the class's own layer",
    async () => {
      const layers = new Map<string, Set<string>>();
      for await (const entry of kv.list({ prefix: explore.byCellRoot() })) {
        const name = String(entry.key[1]);
        const owner = String(entry.key[3]);
        if (!layers.has(owner)) layers.set(owner, new Set());
        layers.get(owner)!.add(name);
      }
      for (const [i, task] of tasks.entries()) {
        if (task.status !== "published") continue;
        const want = [["r100x"], ["r500x"], ["r100d"], ["r500d"], ["c"]][i % 5];
        assert.deepEqual([...layers.get(task.orderKey)!], want, `task ${i}`);
      }
    },
  );

  await t.step("rule: circles near the pole and far from it answer as the reference", async () => {
    for (const lat of [89.9, 88, 86, 82, 75, 62]) {
      for (const radiusKm of [10, 100, 400]) {
        const lon = rnd() * 360 - 180;
        const filters: ExploreFilters = { search: [], geo: { lon, lat, radiusKm } };
        const got = await allPages(kv, { filters, limit: 20 });
        assert.deepEqual(got.items, reference(tasks, filters), JSON.stringify(filters));
      }
    }
  });
});

Deno.test("a search within a circle rejects word entries on their position, not their documents", async () => {
  await using kv = await Deno.openKv(":memory:");
  const rnd = seededRandom(13);
  // 200 plumbing tasks over some 30 km around a city, 1500 others in it within 3 km of the circle.
  const tasks = placed(generateTasks(47, 1700), (i) => ({
    type: "city",
    name: "Town",
    coordinates: near(rnd, { name: "Town", lon: 2, lat: 45, sigmaKm: i < 200 ? 15 : 2 }),
  })).map((task, i) => ({
    ...task,
    title: i < 200 ? "Fix the plumbing" : "Mow the garden",
    description: "-",
  }));
  for (const task of tasks) await writeTask(kv, null, task);
  const filters: ExploreFilters = {
    search: ["plumb"],
    geo: { lon: 2, lat: 45, radiusKm: 5 },
  };
  const expected = reference(tasks, filters);
  assert.ok(expected.length > 0 && expected.length < 20, `${expected.length} matches`);
  const page = await exploreTasks(kv, { filters, limit: 20 });
  assert.deepEqual(page.items, expected);
  assert.ok(page.work.placed > 100, `${page.work.placed} rejected on their position`);
  // Each of the other plumbing tasks cost a document read to learn where it is.
  assert.ok(page.work.docs <= expected.length + 10, `${page.work.docs} documents`);
  const all = await allPages(kv, { filters, limit: 3 });
  assert.deepEqual(all.items, expected);
});

Deno.test("a task's edit between its largest index states stays within an atomic's limits", async () => {
  await using kv = limitGuard(await Deno.openKv(":memory:"));
  // As many distinct words as are indexed, and the largest disc under the cap of each disc class
  // (the largest radius nearest the pole that stays under it), moved from one to the other.
  const words = (tag: string) =>
    Array.from({ length: MAX_INDEXED_WORDS }, (_, i) => `${tag}${i.toString(36)}word`).join(" ");
  const largest = (radiusKm: number): Location => {
    const layer = layerOf("radius", radiusKm)!;
    for (let lat = 89.9; lat > 0; lat -= 0.1) {
      if (discCells(layer, { lon: 7, lat, radiusKm })) {
        return { type: "radius", name: "Edge", coordinates: [7, lat], radiusKm };
      }
    }
    throw new Error("no disc under the cap");
  };
  const [task] = generateTasks(53, 1);
  const before: TaskRecord = {
    ...task,
    status: "published",
    title: "First",
    description: words("a"),
    location: largest(100),
  };
  const after: TaskRecord = { ...before, description: words("b"), location: largest(500) };
  await writeTask(kv, null, before);
  await writeTask(kv, before, after);
  await writeTask(kv, after, before);
});
