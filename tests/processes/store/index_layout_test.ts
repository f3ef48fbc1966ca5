import assert from "node:assert/strict";
import type { ExploreFilters, ExploreItem } from "../../../domain/explore.ts";
import {
  checkIndexLayout,
  INDEX_LAYOUT,
  rebuildTaskIndexes,
} from "../../../kv/tasks/index_layout.ts";
import { explore, meta, tasks as tasksKeys } from "../../../kv/keyspace.ts";
import { indexedWords, isIndexedWord } from "../../../kv/explore/index/indexed_words.ts";
import { toTaskListItem } from "../../../domain/tasks/task_view.ts";
import { layerOf, wordZone } from "../../../kv/explore/index/entries.ts";
import { facetOf } from "../../../kv/explore/index/facet.ts";
import {
  type PackedCard,
  type PackedDoc,
  unpackCard,
  unpackDoc,
} from "../../../kv/explore/index/card.ts";
import { exploreNearest } from "../../../kv/explore/nearest/nearest_page.ts";
import type { NearestPage, NearestPosition } from "../../../kv/explore/nearest/page_bounds.ts";
import { geohashEncode } from "../../../domain/geo/geohash.ts";
import { paymentOf, searchTerms, type TaskRecord } from "../../../domain/tasks/task.ts";
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
      await kv.set([...explore.byWordOldRoot(), word, task.orderKey], facet);
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

/**
 * Turns a store's entries into what layout 6 wrote: words by word alone (no zone), each with the
 * task's whole facet, a dictionary counting by word, and the owner's payment listing carrying
 * the search words; marked 6.
 */
async function makeLayout6(kv: Deno.Kv, tasks: TaskRecord[]) {
  await kv.set(meta.indexLayout(), 6);
  for (const root of [explore.byWordRoot(), explore.wordsPrefix(), explore.wordEpochsPrefix()]) {
    for await (const entry of kv.list({ prefix: root })) await kv.delete(entry.key);
  }
  // Cards and documents as objects.
  for (const root of ["xp_tasks", "xp_by_cell", "xp_by_point", "xp_by_country", "xp_by_name"]) {
    for await (const entry of kv.list<PackedDoc>({ prefix: [root] })) {
      const unpacked = entry.value.length === 11 ? unpackDoc(entry.value) : unpackCard(entry.value);
      await kv.set(entry.key, unpacked);
    }
  }
  const counts = new Map<string, bigint>();
  for (const task of tasks) {
    if (task.deletedAt !== null) continue;
    const terms = searchTerms(task);
    const item = toTaskListItem(task);
    await kv.set(tasksKeys.byUser(task.userId, task.orderKey), { item, terms });
    await kv.set(tasksKeys.byUserStatus(task.userId, task.status, task.orderKey), item);
    await kv.set(
      tasksKeys.byUserPayment(task.userId, paymentOf(task.budget), task.orderKey),
      { item, terms },
    );
    if (task.status !== "published") continue;
    for (const word of indexedWords(terms)) {
      await kv.set([...explore.byWordOldRoot(), word, task.orderKey], facetOf(task));
      counts.set(word, (counts.get(word) ?? 0n) + 1n);
    }
  }
  for (const [word, n] of counts) {
    await kv.set([...explore.wordsPrefix(), word], new Deno.KvU64(n));
  }
}

/**
 * Gives a store the word entries and dictionary counts layout 7 wrote and layout 8 does not: a
 * word of three letters or more that layout 8 leaves out (a stop word of its longer list, a
 * spelled-out number, a word that starts another of the task); marked 7.
 */
async function makeLayout7(kv: Deno.Kv, tasks: TaskRecord[]) {
  await kv.set(meta.indexLayout(), 7);
  for (const task of tasks) {
    if (task.status !== "published" || task.deletedAt !== null) continue;
    const terms = searchTerms(task);
    const indexed = new Set(indexedWords(terms));
    const zone = wordZone(task.location);
    for (const word of terms) {
      if (word.length < 3 || /^\p{N}/u.test(word) || indexed.has(word)) continue;
      await kv.set([...explore.byWordRoot(), word, zone, task.orderKey], task.budget > 0);
      await kv.atomic().sum(explore.word(word, zone), 1n).commit();
    }
  }
}

/**
 * Turns a store's word entries into what layout 8 wrote: by word and zone, without the epoch,
 * and no counts by epoch; marked 8.
 */
async function makeLayout8(kv: Deno.Kv) {
  await kv.set(meta.indexLayout(), 8);
  for await (const entry of kv.list({ prefix: explore.wordEpochsPrefix() })) {
    await kv.delete(entry.key);
  }
  for await (const entry of kv.list<boolean>({ prefix: explore.byWordRoot() })) {
    if (entry.key.length !== 5) continue;
    const [root, word, , zone, orderKey] = entry.key;
    await kv.delete(entry.key);
    await kv.set([root, word, zone, orderKey], entry.value);
  }
}

/**
 * Turns a store's entries into what layout 9 wrote: the 100 and 500 km classes' cell entries by
 * their centre, in the class's own layer, without counters of the layer's own, and word entries
 * carrying the payment class alone; marked 9.
 */
async function makeLayout9(kv: Deno.Kv, tasks: TaskRecord[]) {
  await kv.set(meta.indexLayout(), 9);
  const cards = new Map<string, unknown>();
  for await (const entry of kv.list({ prefix: explore.byCellRoot() })) {
    if (!/^r(100|500)[dx]$/.test(String(entry.key[1]))) continue;
    cards.set(String(entry.key[3]), entry.value);
    await kv.delete(entry.key);
  }
  for await (const entry of kv.list({ prefix: explore.count("cell") })) {
    if (/^r(100|500)[dx]$/.test(String(entry.key[2]))) await kv.delete(entry.key);
  }
  for (const task of tasks) {
    const card = cards.get(task.orderKey);
    if (card === undefined) continue;
    const layer = layerOf(task.location.type, task.location.radiusKm)!;
    const [lon, lat] = task.location.coordinates;
    for (const p of layer.precisions) {
      await kv.set(explore.byCell(layer.name, geohashEncode(lon, lat, p), task.orderKey), card);
    }
  }
  for await (const entry of kv.list<unknown>({ prefix: explore.byWordRoot() })) {
    if (Array.isArray(entry.value)) await kv.set(entry.key, entry.value[0]);
  }
}

/**
 * Turns a store's point entries into what layout 12 wrote: keyed by class first
 * (`["xp_by_point", class, geohash8, orderKey]`); marked 12.
 */
async function makeLayout12(kv: Deno.Kv) {
  await kv.set(meta.indexLayout(), 12);
  const root = explore.byPointRange("").start.slice(0, 1);
  for await (const entry of kv.list<PackedCard>({ prefix: root })) {
    const [, hash, orderKey] = entry.key;
    const { item } = unpackCard(entry.value);
    const layer = layerOf(item.location.type, item.location.radiusKm)!;
    await kv.delete(entry.key);
    await kv.set([...explore.byPointOldRoot(), layer.name, hash, orderKey], entry.value);
  }
}

/** Turns a store into what layout 13 wrote: no list of every class's cards; marked 13. */
async function makeLayout13(kv: Deno.Kv) {
  await kv.set(meta.indexLayout(), 13);
  for await (const entry of kv.list({ prefix: explore.newestPrefix() })) await kv.delete(entry.key);
}

/** Fails unless a page without filters finds every published task in the list of cards. */
function assertNoLayout13(tasks: TaskRecord[]) {
  return async (kv: Deno.Kv) => {
    const filters: ExploreFilters = { search: [] };
    const want = reference(tasks, filters);
    let listed = 0;
    for await (const _ of kv.list({ prefix: explore.newestPrefix() })) listed++;
    assert.equal(listed, want.length);
    assert.deepEqual((await allPages(kv, { filters, limit: 9 })).items, want);
  };
}

/** Fails on a point entry of layout 12, or a nearest-first walk that answers otherwise. */
function assertNoLayout12(tasks: TaskRecord[]) {
  return async (kv: Deno.Kv) => {
    for await (const entry of kv.list({ prefix: explore.byPointOldRoot() })) {
      assert.fail(`layout 12's point entry ${String(entry.key)} is left`);
    }
    const [lon, lat] = tasks.find((task) => task.location.type === "city")!.location.coordinates;
    const filters: ExploreFilters = { search: [], geo: { lon, lat, radiusKm: 2000 } };
    // Distances are compared as shown (rounded), the tasks as a set: ties by rounding aside.
    const want = reference(tasks, filters).sort((a, b) => a.distanceKm! - b.distanceKm!);
    assert.ok(want.length > 10, `${want.length} matches`);
    const got: ExploreItem[] = [];
    let after: NearestPosition | null = null;
    for (let page = 0; page < 50 && (page === 0 || after); page++) {
      const value: NearestPage = await exploreNearest(kv, { filters, limit: 9, after });
      got.push(...value.items);
      after = value.next;
    }
    assert.deepEqual(got.map((i) => i.distanceKm), want.map((i) => i.distanceKm));
    assert.deepEqual(got.map((i) => i.id).sort(), want.map((i) => i.id).sort());
  };
}

/** Fails on a cell entry of a layout-9 layer, or when no word entry carries a position. */
async function assertNoLayout9(kv: Deno.Kv) {
  for await (const entry of kv.list({ prefix: explore.byCellRoot() })) {
    assert.ok(!/^r(100|500)$/.test(String(entry.key[1])), `layout 9's ${String(entry.key)}`);
  }
  let placed = 0;
  for await (const entry of kv.list({ prefix: explore.byWordRoot() })) {
    if (Array.isArray(entry.value)) placed++;
  }
  assert.ok(placed > 0, "no word entry carries a position");
}

/** Fails on a word entry or dictionary count of a word layout 8 leaves out of every task. */
async function assertNoLayout7(kv: Deno.Kv) {
  for (const root of [explore.byWordRoot(), explore.wordsPrefix()]) {
    for await (const entry of kv.list({ prefix: root })) {
      const word = entry.key[1] as string;
      assert.ok(isIndexedWord(word), `layout 7's ${String(entry.key)} is left`);
    }
  }
}

/** Fails on any entry of a layout-6 shape: a word or dictionary key without a zone, owner words. */
async function assertNoLayout6(kv: Deno.Kv) {
  for await (const entry of kv.list({ prefix: explore.byWordRoot() })) {
    assert.equal(entry.key.length, 5, `word entry ${String(entry.key)} has no epoch or zone`);
    const paid = Array.isArray(entry.value) ? entry.value[0] : entry.value;
    assert.equal(typeof paid, "boolean");
  }
  for await (const entry of kv.list({ prefix: explore.wordsPrefix() })) {
    assert.equal(entry.key.length, 3, `layout 6's dictionary entry ${String(entry.key)} is left`);
  }
  for await (const entry of kv.list({ prefix: explore.byWordOldRoot() })) {
    assert.fail(`layout 6's word entry ${String(entry.key)} is left`);
  }
  for await (const entry of kv.list({ prefix: ["tasks_by_user_payment"] })) {
    assert.ok(Array.isArray(entry.value), "the owner's payment listing keeps packed items");
    assert.equal(entry.value.length, 8, "the owner's payment listing keeps no words");
  }
  for (const root of ["tasks_by_user", "xp_tasks", "xp_by_cell", "xp_by_name"]) {
    for await (const entry of kv.list({ prefix: [root] })) {
      assert.ok(Array.isArray(entry.value), `${root} keeps tuples`);
    }
  }
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
