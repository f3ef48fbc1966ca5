import assert from "node:assert/strict";
import type { ExploreFilters } from "../domain/explore.ts";
import { checkIndexLayout, INDEX_LAYOUT, rebuildTaskIndexes } from "../kv/index_layout.ts";
import { explore, meta } from "../kv/keys.ts";
import { facetOf } from "../kv/explore_index.ts";
import { geohashEncode } from "../domain/geohash.ts";
import { searchTerms, type TaskRecord } from "../domain/task.ts";
import { allPages, generateTasks, reference, writeTask } from "./explore_fixtures.ts";
import { bareEnv, startMain, stopMain, taskCommand, waitForListening } from "./main_process.ts";
import { assertTaskIndexesConsistent } from "./task_consistency.ts";

/**
 * Gives a store what layout 5 wrote beside today's entries: every word of every task indexed
 * twice (by word, and by word and zone), function words and numbers included, and the far
 * zone's counter; with `marked`, the store says it holds layout 5, else it never said.
 */
async function makeOlderLayout(kv: Deno.Kv, tasks: TaskRecord[], marked = false) {
  if (marked) await kv.set(meta.indexLayout(), 5);
  else await kv.delete(meta.indexLayout());
  for (const task of tasks) {
    if (task.status !== "published" || task.deletedAt !== null) continue;
    const facet = facetOf(task);
    const [lon, lat] = task.location.coordinates;
    for (const word of searchTerms(task)) {
      await kv.set([...explore.byWordRoot(), word, task.orderKey], facet);
      await kv.set([
        ...explore.byWordZoneRoot(),
        word,
        "near",
        geohashEncode(lon, lat, 2),
        task.orderKey,
      ], facet);
    }
  }
  await kv.set(explore.count("far"), new Deno.KvU64(3n));
}

async function storeWithTasks(path: string, n: number) {
  const tasks = generateTasks(31, n);
  const kv = await Deno.openKv(path);
  for (const task of tasks) await writeTask(kv, null, task);
  return { kv, tasks };
}

Deno.test("a store written in an older index layout is found out and rebuilt", async (t) => {
  await t.step("an empty store is marked with the current layout when first checked", async () => {
    await using kv = await Deno.openKv(":memory:");
    assert.deepEqual(await checkIndexLayout(kv), { stored: INDEX_LAYOUT, current: true });
    assert.equal((await kv.get(meta.indexLayout())).value, INDEX_LAYOUT);
  });

  await t.step("a store with tasks and no layout mark is of an older layout", async () => {
    const { kv } = await storeWithTasks(":memory:", 50);
    try {
      assert.deepEqual(await checkIndexLayout(kv), { stored: null, current: false });
      assert.equal((await kv.get(meta.indexLayout())).value, null, "no mark is made up");
    } finally {
      kv.close();
    }
  });

  await t.step("the rebuild rewrites every entry and counter from the records", async () => {
    const { kv, tasks } = await storeWithTasks(":memory:", 400);
    try {
      await makeOlderLayout(kv, tasks, true);
      await kv.set(explore.byCell("c", "u0", "0000-stale"), [0, 0, 1, 0, 0, "", "x"]);
      await assert.rejects(assertTaskIndexesConsistent(kv));
      const filters: ExploreFilters = {
        search: [tasks[0].title.split(/\s+/)[0].toLowerCase()],
        geo: {
          lon: tasks[0].location.coordinates[0],
          lat: tasks[0].location.coordinates[1],
          radiusKm: 100,
        },
      };

      assert.deepEqual(await checkIndexLayout(kv), { stored: 5, current: false });
      const report = await rebuildTaskIndexes(kv);
      for await (const entry of kv.list({ prefix: explore.byWordZoneRoot() })) {
        assert.fail(`layout 5's word-zone entry ${String(entry.key)} is left`);
      }
      assert.equal(report.records, tasks.length);
      assert.ok(report.removed > tasks.length, `${report.removed} removed`);
      const consistent = await assertTaskIndexesConsistent(kv);
      assert.equal(consistent.records, tasks.length);
      assert.deepEqual(await checkIndexLayout(kv), { stored: INDEX_LAYOUT, current: true });
      const got = await allPages(kv, { filters, limit: 7 });
      assert.deepEqual(got.items, reference(tasks, filters));
    } finally {
      kv.close();
    }
  });

  const cwd = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${cwd}/data`);
    const { kv, tasks } = await storeWithTasks(`${cwd}/data/marketplace.sqlite3`, 120);
    await makeOlderLayout(kv, tasks);
    kv.close();

    await t.step("main.ts on such a store says to run deno task reindex", async () => {
      const child = startMain(cwd, bareEnv({ PORT: "0" }));
      const { rest } = await waitForListening(child);
      const { status, log } = await stopMain(child, rest);
      assert.equal(status.code, 0);
      const warning = log.map((line) => JSON.parse(line)).find((r) => r.level === "error");
      assert.ok(warning, log.join("\n"));
      assert.match(warning.msg, /older layout: stop the service and run `deno task reindex`/);
      assert.equal(warning.currentLayout, INDEX_LAYOUT);
      assert.equal(warning.storedLayout, null, "never marked: no stored layout");
    });

    await t.step("deno task reindex rebuilds it, and main.ts then starts quietly", async () => {
      const out = await taskCommand("reindex", cwd, bareEnv()).output();
      const stdout = new TextDecoder().decode(out.stdout);
      assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
      assert.match(stdout, new RegExp(`rebuilt in layout ${INDEX_LAYOUT}: ${tasks.length} task`));
      {
        await using kv = await Deno.openKv(`${cwd}/data/marketplace.sqlite3`);
        await assertTaskIndexesConsistent(kv);
      }
      const child = startMain(cwd, bareEnv({ PORT: "0" }));
      const { rest } = await waitForListening(child);
      const { log } = await stopMain(child, rest);
      assert.deepEqual(log.map((line) => JSON.parse(line)).filter((r) => r.level === "error"), []);
    });
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
});
