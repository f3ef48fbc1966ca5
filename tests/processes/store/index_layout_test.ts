/**
 * A store of an older index layout is found out at start and rebuilt by `deno task reindex`,
 * whichever layouts it mixes, with nothing of them left.
 */
import assert from "node:assert/strict";
import type { ExploreFilters } from "../../../domain/explore.ts";
import {
  checkIndexLayout,
  INDEX_LAYOUT,
  rebuildTaskIndexes,
} from "../../../kv/tasks/index_layout.ts";
import { explore, meta } from "../../../kv/keyspace.ts";
import { isIndexedWord } from "../../../kv/explore/index/indexed_words.ts";
import { searchTerms, type TaskRecord } from "../../../domain/tasks/task.ts";
import { allPages, generateTasks, reference, writeTask } from "../../explore/explore_fixtures.ts";
import {
  bareEnv,
  denoCommand,
  startMain,
  stopMain,
  taskCommand,
  waitForListening,
} from "../main_process.ts";
import { assertTaskIndexesConsistent } from "../../tasks/task_consistency.ts";
import { taskRunArgs } from "../../../scripts/task_line.ts";
import {
  makeLayout12,
  makeLayout13,
  makeLayout6,
  makeLayout7,
  makeLayout8,
  makeLayout9,
  makeOlderLayout,
} from "./older_layouts.ts";
import {
  assertNoLayout12,
  assertNoLayout13,
  assertNoLayout6,
  assertNoLayout7,
  assertNoLayout9,
} from "./older_layout_checks.ts";

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

  await t.step("a layout-6 store is rebuilt in the current layout", async () => {
    const { kv, tasks } = await storeWithTasks(":memory:", 300);
    try {
      await makeLayout6(kv, tasks);
      await assertRebuilt(kv, tasks, {
        stored: 6,
        leftOver: assertNoLayout6,
        words: (placed) => {
          const word = searchTerms(placed).find(isIndexedWord)!;
          return { word, inCircle: word, paid: "pai" };
        },
      });
    } finally {
      kv.close();
    }
  });

  await t.step("a layout-7 store is rebuilt in the current layout", async () => {
    const { kv, tasks } = await storeWithTasks(":memory:", 300);
    try {
      await makeLayout7(kv, tasks);
      await assertRebuilt(kv, tasks, { stored: 7, leftOver: assertNoLayout7 });
    } finally {
      kv.close();
    }
  });

  await t.step("a layout-8 store is rebuilt in the current layout", async () => {
    const { kv, tasks } = await storeWithTasks(":memory:", 300);
    try {
      await makeLayout8(kv);
      await assertRebuilt(kv, tasks, { stored: 8, leftOver: assertNoLayout6 });
    } finally {
      kv.close();
    }
  });

  await t.step("a layout-9 store is rebuilt in the current layout", async () => {
    const { kv, tasks } = await storeWithTasks(":memory:", 300);
    try {
      const radius = tasks.filter((task) => (task.location.radiusKm ?? 0) > 25);
      assert.ok(radius.length > 10, `${radius.length} tasks of the 100 and 500 km classes`);
      await makeLayout9(kv, tasks);
      await assertRebuilt(kv, tasks, { stored: 9, leftOver: assertNoLayout9 });
    } finally {
      kv.close();
    }
  });

  await t.step("a layout-12 store is rebuilt in the current layout", async () => {
    const { kv, tasks } = await storeWithTasks(":memory:", 300);
    try {
      await makeLayout12(kv);
      await assertRebuilt(kv, tasks, { stored: 12, leftOver: assertNoLayout12(tasks) });
    } finally {
      kv.close();
    }
  });

  await t.step("a layout-13 store is rebuilt in the current layout", async () => {
    const { kv, tasks } = await storeWithTasks(":memory:", 300);
    try {
      await makeLayout13(kv);
      await assertRebuilt(kv, tasks, { stored: 13, leftOver: assertNoLayout13(tasks) });
    } finally {
      kv.close();
    }
  });

  const cwd = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${cwd}/data`);
    const { kv, tasks } = await storeWithTasks(`${cwd}/data/marketplace.sqlite3`, 120);
    // Layout 6's words, dictionary and owner listing, layout 5's word-zone copy, the words of
    // layout 7 that layout 8 leaves out, layout 12's point entries and no list of cards besides.
    await makeLayout6(kv, tasks);
    await makeOlderLayout(kv, tasks);
    await makeLayout7(kv, tasks);
    await makeLayout8(kv);
    await makeLayout12(kv);
    await makeLayout13(kv);
    await kv.delete(meta.indexLayout());
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
      const decoder = new TextDecoder();
      const check = () => denoCommand([...taskRunArgs("reindex"), "--check"], cwd, bareEnv());
      const before = await check().output();
      assert.equal(before.code, 1, "the older layouts' entries are found out");
      assert.match(decoder.decode(before.stdout), /Task indexes inconsistent: \d+ problems/);
      const out = await taskCommand("reindex", cwd, bareEnv()).output();
      const stdout = new TextDecoder().decode(out.stdout);
      assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
      assert.match(stdout, new RegExp(`rebuilt in layout ${INDEX_LAYOUT}: ${tasks.length} task`));
      {
        await using kv = await Deno.openKv(`${cwd}/data/marketplace.sqlite3`);
        await assertTaskIndexesConsistent(kv);
        await assertNoLayout6(kv);
        await assertNoLayout7(kv);
        await assertNoLayout12(tasks)(kv);
        await assertNoLayout13(tasks)(kv);
      }
      const after = await check().output();
      assert.equal(after.code, 0, decoder.decode(after.stderr));
      assert.match(decoder.decode(after.stdout), /Task indexes consistent: 120 task records/);
      const child = startMain(cwd, bareEnv({ PORT: "0" }));
      const { rest } = await waitForListening(child);
      const { log } = await stopMain(child, rest);
      assert.deepEqual(log.map((line) => JSON.parse(line)).filter((r) => r.level === "error"), []);
    });
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
});

/**
 * A store marked `stored` is found stale, rebuilt in the current layout with nothing of the old
 * one left (`leftOver` fails on any), and answers searches by word, in a circle around a city
 * task and by payment as the brute force does (`words`: the three searches' words, by default
 * everyday words of the generated tasks).
 */
async function assertRebuilt(
  kv: Deno.Kv,
  tasks: TaskRecord[],
  old: {
    stored: number;
    leftOver: (kv: Deno.Kv) => Promise<void>;
    words?: (placed: TaskRecord) => { word: string; inCircle: string; paid: string };
  },
) {
  await assert.rejects(assertTaskIndexesConsistent(kv));
  assert.deepEqual(await checkIndexLayout(kv), { stored: old.stored, current: false });
  const report = await rebuildTaskIndexes(kv);
  assert.equal(report.records, tasks.length);
  await old.leftOver(kv);
  await assertTaskIndexesConsistent(kv);
  assert.deepEqual(await checkIndexLayout(kv), { stored: INDEX_LAYOUT, current: true });
  const placed = tasks.find((task) => task.location.type === "city")!;
  const [lon, lat] = placed.location.coordinates;
  const { word, inCircle, paid } = old.words?.(placed) ??
    { word: "help", inCircle: "plomb", paid: "garden" };
  for (
    const filters of [
      { search: [word] },
      { search: [inCircle], geo: { lon, lat, radiusKm: 100 } },
      { search: [paid], payment: "Paid" },
    ] satisfies ExploreFilters[]
  ) {
    const got = await allPages(kv, { filters, limit: 7 });
    assert.deepEqual(got.items, reference(tasks, filters), JSON.stringify(filters));
  }
}
