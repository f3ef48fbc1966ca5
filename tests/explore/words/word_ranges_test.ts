/**
 * A word's zones read as ranges: a word over many zones reads them in a few lists and still
 * pages exactly as the reference; a range cut short by counters behind the index leaves the
 * zones it did not finish to their own lists.
 */
import assert from "node:assert/strict";
import type { ExploreFilters } from "../../../domain/explore.ts";
import { queryWords } from "../../../domain/validation/text.ts";
import { exploreTasks } from "../../../kv/explore/newest_page.ts";
import { RangeRead } from "../../../kv/explore/scan/range.ts";
import { PrefixStream } from "../../../kv/explore/scan/stream.ts";
import { Work } from "../../../kv/explore/scan/work.ts";
import { UnionStream } from "../../../kv/explore/scan/union.ts";
import { explore } from "../../../kv/keyspace.ts";
import { withLatency } from "../../../kv/store/latency.ts";
import { allPages, generateTasks, reference, writeTask } from "../explore_fixtures.ts";

Deno.test("explore reads a word's zones in few lists", async (t) => {
  await using kv = await Deno.openKv(":memory:");
  // One task in forty holds the word (rare enough that its entries beat the documents), each in
  // a city of its own around the world: the word is in some seventy zones, most of them with one
  // of its tasks, too many entries to read whole with the dictionary.
  const tasks = generateTasks(61, 5600).map((task, i) => {
    const published = { ...task, status: "published" as const };
    if (i % 40 !== 0) return { ...published, title: `${task.title} lesson` };
    const k = i / 40;
    const coordinates: [number, number] = [-170 + (k * 37) % 340, -60 + (k * 13) % 120];
    const location = { type: "city" as const, name: "Grid", coordinates };
    return { ...published, title: `${task.title} harpsichord`, location };
  });
  for (const task of tasks) await writeTask(kv, null, task);
  const zones = new Set<string>();
  for await (const e of kv.list({ prefix: [...explore.wordsPrefix(), "harpsichord"] })) {
    zones.add(e.key[2] as string);
  }

  await t.step("rule: a word in many zones reads them in few lists, exactly", async () => {
    // A circle over the whole earth: a search without one reads the word's epochs, not its zones.
    const filters: ExploreFilters = {
      search: queryWords("harpsichord"),
      geo: { lon: 0, lat: 0, radiusKm: 20000 },
    };
    const page = await exploreTasks(kv, { filters, limit: 20, after: null });
    assert.equal(page.plan, "search");
    assert.deepEqual(page.items, reference(tasks, filters).slice(0, 20));
    // The dictionary, the purges and a list for the word's zones: far fewer than a list a zone.
    assert.ok(zones.size >= 50, `${zones.size} zones`);
    assert.ok(page.work.lists <= 8, `${page.work.lists} lists for ${zones.size} zones`);
    const all = await allPages(kv, { filters, limit: 7 });
    assert.deepEqual(all.items, reference(tasks, filters));
  });

  await t.step("rule: within a circle or by payment, every page as the reference", async () => {
    const paris = { lon: 2.3522, lat: 48.8566, radiusKm: 400 };
    for (
      const filters of [
        { search: queryWords("harpsichord"), geo: { lon: 10, lat: 20, radiusKm: 3000 } },
        { search: queryWords("harpsichord"), geo: paris },
        { search: queryWords("harpsichord"), payment: "Pro-bono" as const },
        { search: queryWords("harps lesson") },
      ]
    ) {
      const all = await allPages(kv, { filters, limit: 5 });
      assert.deepEqual(all.items, reference(tasks, filters), JSON.stringify(filters));
    }
  });
});

Deno.test("a range cut short by counters behind the index gives its unfinished zones back", async () => {
  await using kv = await Deno.openKv(":memory:");
  const prefixes = ["a", "b", "c"].map((zone) => explore.byWordCellPrefix("harp", "000", zone));
  // Order keys distinct over the zones, newest in the first zone.
  const keys = (prefix: Deno.KvKey, zone: number) =>
    Array.from({ length: 3 }, (_, i) => [...prefix, `k${9 - zone}${i}`]);
  const op = kv.atomic();
  // Three entries in each zone, where the counters said two in all: the list stops in "b".
  prefixes.forEach((prefix, zone) => keys(prefix, zone).forEach((key) => op.set(key, true)));
  await op.commit();
  const work = new Work();
  const read = new RangeRead(kv, {
    start: prefixes[0],
    end: explore.byWordCellPrefix("harp", "000", "c\u0000"),
    members: prefixes,
    size: 3,
    work,
  });
  assert.equal((await read.part(0))?.length, 3);
  assert.equal(await read.part(1), null);
  assert.equal(await read.part(2), null);
  assert.equal(work.lists, 1);
  // Their streams list the zones it did not finish, alone: all nine entries, newest first.
  const streams = prefixes.map((prefix, index) =>
    new PrefixStream(kv, { prefix, before: null, work, range: { read, index } })
  );
  const union = new UnionStream(streams);
  const taken: string[] = [];
  for (let c = await union.next(); c; c = await union.next()) taken.push(c.key);
  assert.equal(taken.length, 9);
  assert.deepEqual(taken, [...taken].sort().reverse());
  assert.equal(work.lists, 3);
});

Deno.test("a word in a tenth of the tasks is found through the documents, in one round trip", async () => {
  await using kv = await Deno.openKv(":memory:");
  const tasks = generateTasks(63, 1000).map((task, i) => ({
    ...task,
    status: "published" as const,
    title: `${task.title} ${i % 10 === 0 ? "harpsichord" : "lesson"}`,
  }));
  for (const task of tasks) await writeTask(kv, null, task);
  const slow = withLatency(kv, 0);
  const filters: ExploreFilters = { search: queryWords("harpsichord") };
  let trips = 0;
  for (let i = 0; i < 2; i++) {
    const { value, trips: waited } = await slow.traced(() =>
      exploreTasks(slow.kv, { filters, limit: 20, after: null })
    );
    assert.deepEqual(value.items, reference(tasks, filters).slice(0, 20));
    trips = waited.sequential;
  }
  // Read through its zones, its documents wait for its entries: a round trip more, for a few
  // dozen entries fewer.
  assert.equal(trips, 1);
});
