/**
 * The rebuild moves a store whose documents (layout 14) or owner listings (layout 15) hold their
 * search words as an array to entries holding them as one string, and its searches answer as the
 * brute force does.
 */
import assert from "node:assert/strict";
import type { ExploreFilters } from "../../../domain/explore.ts";
import { queryWords } from "../../../domain/validation/text.ts";
import {
  checkIndexLayout,
  INDEX_LAYOUT,
  rebuildTaskIndexes,
} from "../../../kv/tasks/index_layout.ts";
import { explore, meta, tasks as taskKeys } from "../../../kv/keyspace.ts";
import { listUserTasks } from "../../../kv/tasks/task_listings.ts";
import { PACKED_ITEM_LENGTH } from "../../../kv/tasks/packed_item.ts";
import { matchesPayment, matchesTerms, searchTerms } from "../../../domain/tasks/task.ts";
import type { TaskRecord } from "../../../domain/tasks/task.ts";
import { taskFilter } from "../../../domain/tasks/task_filter.ts";
import { unpackWords } from "../../../kv/tasks/packed_words.ts";
import { exploreNearest } from "../../../kv/explore/nearest/nearest_page.ts";
import type { NearestPage, NearestPosition } from "../../../kv/explore/nearest/page_bounds.ts";
import { allPages, generateTasks, reference, writeTask } from "../../explore/explore_fixtures.ts";
import { assertTaskIndexesConsistent } from "../../tasks/task_consistency.ts";

const CLASSES = ["Paid", "Pro-bono"] as const;

/** Turns a store's documents into what layout 14 wrote: the search words as an array; marked 14. */
async function makeLayout14(kv: Deno.Kv) {
  await kv.set(meta.indexLayout(), 14);
  for (const payment of CLASSES) {
    for await (const entry of kv.list<unknown[]>({ prefix: explore.allPrefix(payment) })) {
      const words = entry.value[entry.value.length - 1] as string;
      await kv.set(entry.key, [...entry.value.slice(0, -1), unpackWords(words)]);
    }
  }
}

/** How many documents hold their words as an array. */
async function arrayDocs(kv: Deno.Kv): Promise<number> {
  let n = 0;
  for (const payment of CLASSES) {
    for await (const entry of kv.list<unknown[]>({ prefix: explore.allPrefix(payment) })) {
      if (Array.isArray(entry.value[entry.value.length - 1])) n++;
    }
  }
  return n;
}

Deno.test("a layout-14 store's documents are rebuilt with their words as one string", async () => {
  await using kv = await Deno.openKv(":memory:");
  const tasks = generateTasks(31, 300);
  for (const task of tasks) await writeTask(kv, null, task);
  await makeLayout14(kv);
  assert.ok(await arrayDocs(kv) > 100, "the fixture's documents hold arrays");
  await assert.rejects(assertTaskIndexesConsistent(kv));
  assert.deepEqual(await checkIndexLayout(kv), { stored: 14, current: false });

  const report = await rebuildTaskIndexes(kv);
  assert.equal(report.records, tasks.length);
  assert.equal(await arrayDocs(kv), 0, "no document keeps an array of words");
  await assertTaskIndexesConsistent(kv);
  assert.deepEqual(await checkIndexLayout(kv), { stored: INDEX_LAYOUT, current: true });

  const [lon, lat] = tasks.find((task) => task.location.type === "city")!.location.coordinates;
  for (const query of ["help", "plomb", "garden", "pai"]) {
    const filters: ExploreFilters = { search: queryWords(query) };
    const want = reference(tasks, filters);
    assert.ok(want.length > 0, query);
    assert.deepEqual((await allPages(kv, { filters, limit: 7 })).items, want, query);
    const near: ExploreFilters = { ...filters, geo: { lon, lat, radiusKm: 20_000 } };
    const got: string[] = [];
    let after: NearestPosition | null = null;
    for (let page = 0; page < 100 && (page === 0 || after); page++) {
      const value: NearestPage = await exploreNearest(kv, { filters: near, limit: 9, after });
      got.push(...value.items.map((item) => item.id));
      after = value.next;
    }
    assert.deepEqual(got.sort(), reference(tasks, near).map((i) => i.id).sort(), `near ${query}`);
  }
});

/** The owner listing entries (`tasks_by_user`) of a store's users, each with its value. */
async function ownerEntries(kv: Deno.Kv, users: string[]): Promise<Deno.KvEntry<unknown[]>[]> {
  const all: Deno.KvEntry<unknown[]>[] = [];
  for (const user of users) {
    for await (const entry of kv.list<unknown[]>({ prefix: taskKeys.byUserPrefix(user) })) {
      all.push(entry);
    }
  }
  return all;
}

/** Turns a store's owner listings into what layout 15 wrote: the words as an array; marked 15. */
async function makeLayout15(kv: Deno.Kv, users: string[]) {
  await kv.set(meta.indexLayout(), 15);
  for (const entry of await ownerEntries(kv, users)) {
    const words = entry.value[PACKED_ITEM_LENGTH] as string;
    await kv.set(entry.key, [...entry.value.slice(0, PACKED_ITEM_LENGTH), unpackWords(words)]);
  }
}

/** Every page of an owner's search, the ids newest first. */
async function ownerSearch(kv: Deno.Kv, userId: string, query: { search: string; paid: boolean }) {
  const filter = taskFilter({ search: query.search, payment: query.paid ? "Paid" : undefined });
  const ids: string[] = [];
  let after: string | null = null;
  for (let page = 0; page < 100 && (page === 0 || after); page++) {
    const value = await listUserTasks(kv, { userId, filter, limit: 3, after });
    ids.push(...value.items.map((item) => item.id));
    after = value.nextAfter;
  }
  return ids;
}

/** The brute force of an owner's search: the owner's tasks holding every word, newest first. */
function ownerReference(
  all: TaskRecord[],
  userId: string,
  query: { search: string; paid: boolean },
) {
  const { search } = taskFilter({ search: query.search });
  return all.filter((task) =>
    task.userId === userId && matchesTerms(search, searchTerms(task)) &&
    (!query.paid || matchesPayment(task.budget, "Paid"))
  ).sort((a, b) => a.orderKey < b.orderKey ? 1 : -1).map((task) => task.id);
}

Deno.test("a layout-15 store's owner listings are rebuilt with their words as one string", async () => {
  await using kv = await Deno.openKv(":memory:");
  const users = ["owner-a", "owner-b"];
  const tasks = generateTasks(37, 120).map((task, i) => ({ ...task, userId: users[i % 2] }));
  for (const task of tasks) await writeTask(kv, null, task);
  const before = await ownerEntries(kv, users);
  assert.equal(before.length, tasks.length);
  assert.ok(
    before.every((entry) => typeof entry.value[PACKED_ITEM_LENGTH] === "string"),
    "a task written now keeps its owner listing's words as one string",
  );
  await makeLayout15(kv, users);
  await assert.rejects(assertTaskIndexesConsistent(kv));
  assert.deepEqual(await checkIndexLayout(kv), { stored: 15, current: false });

  await rebuildTaskIndexes(kv);
  const after = await ownerEntries(kv, users);
  assert.ok(after.every((entry) => typeof entry.value[PACKED_ITEM_LENGTH] === "string"));
  await assertTaskIndexesConsistent(kv);
  assert.deepEqual(await checkIndexLayout(kv), { stored: INDEX_LAYOUT, current: true });

  for (const search of ["help", "plomb", "garden", "pai", "the garden"]) {
    for (const paid of [false, true]) {
      const query = { search, paid };
      const want = ownerReference(tasks, "owner-a", query);
      assert.deepEqual(await ownerSearch(kv, "owner-a", query), want, `${search} ${paid}`);
    }
  }
  assert.ok(ownerReference(tasks, "owner-a", { search: "help", paid: false }).length > 3);
});
