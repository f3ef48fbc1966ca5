/**
 * A search without a circle reads a word's (word, epoch) totals and its newest epochs whole, never
 * the (word, zone) dictionary; a full page proves the next one without reading its 21st match,
 * except where an author is hidden; counters behind the index cost reads, never a match.
 */
import assert from "node:assert/strict";
import type { ExploreFilters } from "../../../domain/explore.ts";
import type { TaskRecord } from "../../../domain/tasks/task.ts";
import { queryWords } from "../../../domain/validation/text.ts";
import { orderKey } from "../../../kv/order_key.ts";
import { explore, users } from "../../../kv/keyspace.ts";
import { exploreTasks } from "../../../kv/explore/newest_page.ts";
import { allPages, generateTasks, reference, writeTask } from "../explore_fixtures.ts";
import { withLatency } from "../../../kv/store/latency.ts";

const DAY_MS = 24 * 3600 * 1000;

/** Published tasks `days` apart, newest last; `word` in the title of those `pick` chooses. */
function spaced(n: number, days: number, word: string, pick: (i: number) => boolean) {
  const start = Date.UTC(2029, 0, 1);
  return generateTasks(77, n).map((task, i): TaskRecord => {
    const t = start + Math.round(i * days * DAY_MS);
    const at = new Date(t).toISOString();
    return {
      ...task,
      title: pick(i) ? `${task.title} ${word}` : task.title,
      status: "published",
      orderKey: orderKey(t, task.id),
      createdAt: at,
      updatedAt: at,
      completedAt: null,
    };
  });
}

/** A store whose list and getMany calls are counted by the key's first part. */
function counted(kv: Deno.Kv) {
  const roots = new Map<string, number>();
  const add = (root: unknown, n = 1) => roots.set(String(root), (roots.get(String(root)) ?? 0) + n);
  const store = new Proxy(kv, {
    get(target, name) {
      const original = Reflect.get(target, name, target);
      if (name === "list") {
        return (selector: Deno.KvListSelector, options?: Deno.KvListOptions) => {
          add("prefix" in selector ? selector.prefix[0] : selector.start![0]);
          return target.list(selector, options);
        };
      }
      if (name === "getMany") {
        return (keys: Deno.KvKey[]) => {
          add(`getMany ${String(keys[0]?.[0])}`, keys.length);
          return target.getMany(keys);
        };
      }
      return typeof original === "function" ? original.bind(target) : original;
    },
  });
  return { store, roots };
}

Deno.test("a search without a circle reads the word's epochs, not its zones", async (t) => {
  await using kv = await Deno.openKv(":memory:");
  // Four years of tasks: the word in one in 36 (139 tasks, more than a whole-word read), some
  // eight a 91-day epoch, so a page reads the newest three.
  const tasks = spaced(5000, 0.3, "harpsichord", (i) => i % 36 === 0);
  for (const task of tasks) await writeTask(kv, null, task);
  const filters: ExploreFilters = { search: queryWords("harpsichord") };
  const expected = reference(tasks, filters);

  await t.step(
    "rule: no (word, zone) dictionary, its newest epochs whole, 20 documents",
    async () => {
      for (const round of ["cold", "warm"]) {
        const { store, roots } = counted(kv);
        const page = await exploreTasks(store, { filters, limit: 20 });
        assert.deepEqual(page.items, expected.slice(0, 20), round);
        assert.notEqual(page.next, null, round);
        assert.equal(roots.get("xp_words"), undefined, `${round}: ${JSON.stringify([...roots])}`);
        assert.equal(roots.get("getMany xp_tasks"), 20, `${round}: the 21st match is not read`);
        // Cold, the word's newest 128 entries are read with its totals; warm, the epochs the page
        // needs, listed with them.
        const most = round === "cold" ? 128 : 40;
        assert.ok(page.work.entries <= most, `${round}: ${page.work.entries} entries`);
      }
      const slow = withLatency(kv, 0);
      const { trips } = await slow.traced(() => exploreTasks(slow.kv, { filters, limit: 20 }));
      assert.equal(trips.sequential, 2);
    },
  );

  await t.step("rule: every page as the reference, with and without payment", async () => {
    for (const f of [filters, { ...filters, payment: "Pro-bono" as const }]) {
      for (const limit of [1, 7, 20, 50]) {
        const all = await allPages(kv, { filters: f, limit });
        assert.deepEqual(all.items, reference(tasks, f), `${JSON.stringify(f)} by ${limit}`);
      }
    }
  });

  await t.step("rule: an epoch's counter behind the index costs reads, not matches", async () => {
    // Every epoch counted one short: as if a task were written between the two reads.
    for await (const e of kv.list<Deno.KvU64>({ prefix: [...explore.wordEpochsPrefix()] })) {
      if (e.key[1] !== "harpsichord") continue;
      await kv.set(e.key, new Deno.KvU64(e.value.value - 1n));
    }
    for (const limit of [3, 20]) {
      const all = await allPages(kv, { filters, limit });
      assert.deepEqual(all.items, expected, `by ${limit}`);
    }
  });
});

Deno.test("a full page of a word proves the next page only where no author is hidden", async (t) => {
  await using kv = await Deno.openKv(":memory:");
  // 21 tasks hold the word, some forty days apart: several epochs. The oldest one's author has
  // no other task.
  const tasks = spaced(2100, 0.4, "zither", (i) => i % 100 === 0)
    .map((task, i) => i === 0 ? { ...task, userId: "00000000-0000-4000-8000-0000000000ff" } : task);
  for (const task of tasks) await writeTask(kv, null, task);
  const filters: ExploreFilters = { search: queryWords("zither") };
  const expected = reference(tasks, filters);
  assert.equal(expected.length, 21);

  await t.step("rule: 21 matches by 21 is the last page; by 20, another follows", async () => {
    const whole = await exploreTasks(kv, { filters, limit: 21 });
    assert.equal(whole.plan, "search");
    assert.deepEqual(whole.items, expected);
    assert.equal(whole.next, null);
    const first = await exploreTasks(kv, { filters, limit: 20 });
    assert.deepEqual(first.items, expected.slice(0, 20));
    assert.notEqual(first.next, null);
  });

  await t.step("rule: the oldest match's author hidden, 20 is the last page", async () => {
    const oldest = tasks.find((task) => task.id === expected[20].id)!;
    await kv.set(users.purge(oldest.userId), new Date().toISOString());
    const visible = expected.slice(0, 20);
    for (const round of ["cold", "warm"]) {
      const page = await exploreTasks(kv, { filters, limit: visible.length });
      assert.deepEqual(page.items, visible, round);
      assert.equal(page.next, null, round);
    }
  });
});
