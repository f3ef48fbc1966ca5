/**
 * `deno task reindex` moves a layout-10 store to layout 11: the 500 km class's tasks gain their
 * precision-3 disc cells (or, past that precision's cap, go to the class's centre layer).
 */
import assert from "node:assert/strict";
import type { ExploreFilters } from "../../../domain/explore.ts";
import type { Location, TaskRecord } from "../../../domain/tasks/task.ts";
import { coverCircle } from "../../../domain/geo/geohash_cover.ts";
import { checkIndexLayout, INDEX_LAYOUT } from "../../../kv/tasks/index_layout.ts";
import { explore, meta } from "../../../kv/keyspace.ts";
import { COUNT_PRECISION, MAX_DISC_CELLS } from "../../../kv/explore/index/entries.ts";
import { seededRandom } from "../../../scripts/seeded_random.ts";
import { allPages, generateTasks, reference, writeTask } from "../../explore/explore_fixtures.ts";
import { bareEnv, taskCommand } from "../main_process.ts";
import { assertTaskIndexesConsistent } from "../../tasks/task_consistency.ts";

/** What layout 10 wrote for the 500 km class: its precision-2 disc cells only (`r500d`). */
async function makeLayout10(kv: Deno.Kv, tasks: TaskRecord[]) {
  await kv.set(meta.indexLayout(), 10);
  const bump = async (key: Deno.KvKey, by: bigint) => {
    const now = (await kv.get<Deno.KvU64>(key)).value?.value ?? 0n;
    if (now + by === 0n) await kv.delete(key);
    else await kv.set(key, new Deno.KvU64(now + by));
  };
  for (const task of tasks) {
    const radiusKm = task.location.radiusKm ?? 0;
    if (task.location.type !== "radius" || radiusKm <= 100) continue;
    const [lon, lat] = task.location.coordinates;
    const coarse = coverCircle({ lon, lat, radiusKm }, { maxCells: 16, precisions: [2] }).cells;
    assert.ok(coarse.length <= MAX_DISC_CELLS, "the fixture's discs stay in r500d at layout 10");
    let card: unknown = null;
    for await (const entry of kv.list({ prefix: explore.byCellRoot() })) {
      if (entry.key[3] !== task.orderKey) continue;
      card = entry.value;
      if (String(entry.key[2]).length > 2 || entry.key[1] === "r500x") await kv.delete(entry.key);
    }
    if (card === null) continue;
    const [centred] = coverCircle({ lon, lat, radiusKm: 0 }, { precisions: [1] }).cells;
    for await (const entry of kv.list({ prefix: explore.byCellPrefix("r500x", centred) })) {
      if (entry.key[3] === task.orderKey) await kv.delete(entry.key);
    }
    const moved = (await kv.get(explore.byCell("r500d", coarse[0], task.orderKey))).value === null;
    for (const cell of coarse) await kv.set(explore.byCell("r500d", cell, task.orderKey), card);
    if (moved) {
      await bump(explore.count("cell", "r500x", centred), -1n);
      for (const cell of coarse) {
        assert.equal(cell.length, COUNT_PRECISION);
        await bump(explore.count("cell", "r500d", cell), 1n);
      }
    }
  }
}

Deno.test("deno task reindex moves a layout-10 store to the 500 km class's fine cells", async () => {
  const cwd = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${cwd}/data`);
    const path = `${cwd}/data/marketplace.sqlite3`;
    const rnd = seededRandom(23);
    // The 500 km class at mid latitudes, and one disc at 76° N that layout 10 kept in its
    // precision-2 cells and that touches too many precision-3 cells for layout 11.
    const location = (i: number): Location =>
      i === 0
        ? { type: "radius", name: "North", coordinates: [20, 76], radiusKm: 480 }
        : i % 3 === 0
        ? { type: "city", name: "Town", coordinates: [5 + rnd() * 10, 44 + rnd() * 8] }
        : {
          type: "radius",
          name: "Wide",
          coordinates: [5 + rnd() * 10, 44 + rnd() * 8],
          radiusKm: 101 + Math.floor(rnd() * 400),
        };
    const tasks = generateTasks(71, 90).map((task, i) => ({
      ...task,
      status: "published" as const,
      location: location(i),
    }));
    {
      await using kv = await Deno.openKv(path);
      for (const task of tasks) await writeTask(kv, null, task);
      const north: string[] = [];
      for await (const entry of kv.list({ prefix: explore.byCellRoot() })) {
        if (entry.key[3] === tasks[0].orderKey) north.push(String(entry.key[1]));
      }
      assert.deepEqual(north, ["r500x"], "past the precision-3 cap: by its centre");
      await makeLayout10(kv, tasks);
      await assert.rejects(assertTaskIndexesConsistent(kv));
      assert.deepEqual(await checkIndexLayout(kv), { stored: 10, current: false });
    }
    const out = await taskCommand("reindex", cwd, bareEnv()).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    assert.match(
      new TextDecoder().decode(out.stdout),
      new RegExp(`rebuilt in layout ${INDEX_LAYOUT}: ${tasks.length} task`),
    );
    await using kv = await Deno.openKv(path);
    await assertTaskIndexesConsistent(kv);
    assert.deepEqual(await checkIndexLayout(kv), { stored: INDEX_LAYOUT, current: true });
    let fine = 0;
    for await (const entry of kv.list({ prefix: explore.byCellRoot() })) {
      if (entry.key[1] === "r500d" && String(entry.key[2]).length === 3) fine++;
    }
    assert.ok(fine > 100, `${fine} precision-3 entries of the 500 km class`);
    for (const radiusKm of [10, 60, 300]) {
      for (const [lon, lat] of [[9, 48], [12.5, 45], [20, 74]]) {
        const filters: ExploreFilters = { search: [], geo: { lon, lat, radiusKm } };
        const got = await allPages(kv, { filters, limit: 9 });
        assert.deepEqual(got.items, reference(tasks, filters), JSON.stringify(filters));
      }
    }
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
});
