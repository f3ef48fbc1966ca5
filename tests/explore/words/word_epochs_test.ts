/**
 * Word entries by epoch: a store whose tasks span several years (so a word's entries fall in many
 * epochs) pages every search exactly as the reference, cursors included, and an edit moves none
 * of a task's word entries to another epoch.
 */
import assert from "node:assert/strict";
import type { ExploreFilters } from "../../../domain/explore.ts";
import type { TaskRecord } from "../../../domain/tasks/task.ts";
import { queryWords } from "../../../domain/validation/text.ts";
import { orderKey } from "../../../kv/order_key.ts";
import { explore } from "../../../kv/keyspace.ts";
import { exploreTasks } from "../../../kv/explore/newest_page.ts";
import {
  allPages,
  generateFilters,
  generateTasks,
  reference,
  writeTask,
} from "../explore_fixtures.ts";
import { seededRandom } from "../../../scripts/seeded_random.ts";

const DAY_MS = 24 * 3600 * 1000;

/**
 * `n` tasks created half a day apart on average, a few in the same ms; one in forty holds
 * "harpsichord".
 */
function spreadTasks(n: number): TaskRecord[] {
  const rnd = seededRandom(91);
  let t = Date.UTC(2029, 4, 17);
  return generateTasks(91, n).map((task, i) => {
    t += rnd() < 0.1 ? 0 : Math.floor(rnd() * DAY_MS);
    const at = new Date(t).toISOString();
    const title = i % 40 === 0 ? `${task.title} harpsichord` : task.title;
    return {
      ...task,
      title,
      orderKey: orderKey(t, task.id),
      createdAt: at,
      updatedAt: at,
      completedAt: task.completedAt === null ? null : at,
    };
  });
}

Deno.test("a word over many epochs pages exactly as the reference", async (t) => {
  await using kv = await Deno.openKv(":memory:");
  const tasks = spreadTasks(6000);
  for (const task of tasks) await writeTask(kv, null, task);
  const epochs = new Set<string>();
  for await (const e of kv.list({ prefix: explore.byWordPrefix("harpsichord") })) {
    epochs.add(e.key[2] as string);
  }
  assert.ok(epochs.size >= 30, `${epochs.size} epochs`);

  await t.step("rule: a page reads the word's newest epochs only", async () => {
    const filters: ExploreFilters = { search: queryWords("harpsichord") };
    const expected = reference(tasks, filters);
    const first = await exploreTasks(kv, { filters, limit: 20, after: null });
    assert.equal(first.plan, "search");
    assert.deepEqual(first.items, expected.slice(0, 20));
    const second = await exploreTasks(kv, { filters, limit: 20, after: first.next });
    assert.deepEqual(second.items, expected.slice(20, 40));
    // Below the cursor the word holds some hundred entries in a few dozen epochs; the page reads
    // the newest few of them.
    assert.ok(expected.length > 120, `${expected.length} matches`);
    assert.ok(second.work.entries < 60, `${second.work.entries} entries`);
  });

  await t.step("rule: searches with and without a circle, every page", async () => {
    const paris = { lon: 2.3522, lat: 48.8566, radiusKm: 300 };
    const fixed: ExploreFilters[] = [
      { search: queryWords("harpsichord") },
      { search: queryWords("harps") },
      { search: queryWords("harpsichord"), geo: paris },
      { search: queryWords("harpsichord"), geo: { lon: 10, lat: 20, radiusKm: 3000 } },
      { search: queryWords("harpsichord"), payment: "Pro-bono" },
      { search: queryWords("plomb") },
      { search: queryWords("plomb"), geo: paris },
      { search: queryWords("gard"), payment: "Paid" },
    ];
    const random = Array.from({ length: 30 }, (_, i) => generateFilters(9100 + i))
      .filter((f) => f.search.length > 0);
    for (const filters of [...fixed, ...random]) {
      const expected = reference(tasks, filters);
      for (const limit of [7, 20]) {
        const all = await allPages(kv, { filters, limit });
        assert.deepEqual(all.items, expected, `${JSON.stringify(filters)} by ${limit}`);
      }
    }
  });

  await t.step("rule: an edit keeps a task's word entries in its creation's epoch", async () => {
    const task = tasks.find((x) => x.status === "published" && x.title.includes("harpsichord"))!;
    const before: Deno.KvKey[] = [];
    for await (const e of kv.list({ prefix: explore.byWordPrefix("harpsichord") })) {
      if (e.key[4] === task.orderKey) before.push(e.key);
    }
    const edited = {
      ...task,
      title: `${task.title} again`,
      updatedAt: new Date(Date.parse(task.updatedAt) + 400 * DAY_MS).toISOString(),
    };
    await writeTask(kv, task, edited);
    const after: Deno.KvKey[] = [];
    for await (const e of kv.list({ prefix: explore.byWordPrefix("harpsichord") })) {
      if (e.key[4] === task.orderKey) after.push(e.key);
    }
    assert.equal(before.length, 1);
    assert.deepEqual(after, before);
  });
});
