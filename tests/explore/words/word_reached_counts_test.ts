/**
 * A search within a circle on an instance that remembers the query word's expansion reads the
 * reached zones' (word, zone) counters by key, not the word's whole dictionary: a word or a zone
 * new since then must still be found.
 */
import assert from "node:assert/strict";
import type { ExploreFilters } from "../../../domain/explore.ts";
import type { TaskRecord } from "../../../domain/tasks/task.ts";
import { queryWords } from "../../../domain/validation/text.ts";
import { exploreTasks } from "../../../kv/explore/newest_page.ts";
import { explore } from "../../../kv/keyspace.ts";
import {
  allPages,
  generateTasks,
  reference,
  watchingLists,
  writeTask,
} from "../explore_fixtures.ts";

const PARIS = { lon: 2.3522, lat: 48.8566 };

/** The handle, and the number of lists of the (word, zone) dictionary made through it. */
function countingDictionaryLists(kv: Deno.Kv): { kv: Deno.Kv; lists: () => number } {
  let lists = 0;
  const root = explore.wordsPrefix()[0];
  const counted = watchingLists(kv, (first) => {
    if (first?.[0] === root) lists++;
  });
  return { kv: counted, lists: () => lists };
}

/** Published tasks, one in `every` holding `word` near Paris (the others anywhere). */
function tasksWith(seed: number, n: number, word: string, every: number): TaskRecord[] {
  return generateTasks(seed, n).map((task, i) => {
    const published = { ...task, status: "published" as const };
    if (i % every !== 0) return published;
    const coordinates: [number, number] = [PARIS.lon + (i % 7) * 0.05, PARIS.lat - (i % 5) * 0.05];
    const location = { type: "city" as const, name: "Paris", coordinates };
    return { ...published, title: `${task.title} ${word}`, location };
  });
}

Deno.test("a remembered word within a circle still finds a new word and a new zone", async () => {
  await using store = await Deno.openKv(":memory:");
  const { kv, lists } = countingDictionaryLists(store);
  const tasks = tasksWith(71, 3000, "plumbing", 100);
  for (const task of tasks) await writeTask(kv, null, task);
  const filters: ExploreFilters = {
    search: queryWords("plumb"),
    geo: { ...PARIS, radiusKm: 100 },
  };
  const first = await exploreTasks(kv, { filters, limit: 5, after: null });
  assert.equal(first.plan, "search");
  assert.deepEqual(first.items, reference(tasks, filters).slice(0, 5));
  assert.equal(lists(), 1);

  // Since: the word in a zone it had no task in (a radius task centred some 190 km west of
  // Paris, whose circle reaches the search's), read by key.
  const west = {
    ...generateTasks(73, 1)[0],
    status: "published" as const,
    title: "plumbing west",
    location: {
      type: "radius" as const,
      name: "West",
      coordinates: [PARIS.lon - 2.6, PARIS.lat] as [number, number],
      radiusKm: 100,
    },
  };
  await writeTask(kv, null, west);
  const withWest = [...tasks, west];
  assert.ok(reference(withWest, filters).some((item) => item.id === west.id));
  assert.deepEqual((await allPages(kv, { filters, limit: 7 })).items, reference(withWest, filters));
  assert.equal(lists(), 1);

  // Then a word the expansion did not hold: the totals name it, and its zones are listed once.
  const added = tasksWith(72, 300, "plumber", 30);
  for (const task of added) await writeTask(kv, null, task);
  const all = [...withWest, ...added];
  const wanted = reference(all, filters);
  assert.ok(wanted.some((item) => item.title.includes("plumber")));
  const pages = await allPages(kv, { filters, limit: 7 });
  assert.deepEqual(pages.items, wanted);
  assert.equal(lists(), 2);
  const again = await exploreTasks(kv, { filters, limit: 20, after: null });
  assert.deepEqual(again.items, wanted.slice(0, 20));
  assert.equal(lists(), 2);
});
