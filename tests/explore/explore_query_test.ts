import { deepStrictEqual as assertEquals } from "node:assert/strict";
import type { ExploreFilters } from "../../domain/explore.ts";
import { geohashEncode } from "../../domain/geo/geohash.ts";
import type { Location, TaskRecord } from "../../domain/tasks/task.ts";
import { queryWords } from "../../domain/validation/text.ts";
import { exploreIndexEntries, layerOf } from "../../kv/explore/index/entries.ts";
import { indexCovers, isIndexedWord } from "../../kv/explore/index/indexed_words.ts";
import { explore } from "../../kv/keyspace.ts";
import { exploreTasks } from "../../kv/explore/newest_page.ts";
import {
  allPages,
  generateFilters,
  generateTasks,
  near,
  PLACES,
  reference,
  writeTask,
} from "./explore_fixtures.ts";
import { assertTaskIndexesConsistent } from "../tasks/task_consistency.ts";
import { seededRandom } from "../../scripts/seeded_random.ts";
import { openTestKv } from "../helpers.ts";

const LIMITS = [1, 7, 20, 50];

function describe(filters: ExploreFilters): string {
  return JSON.stringify(filters);
}

// Fixed queries at the hard places, beside the random ones.
function edgeFilters(): ExploreFilters[] {
  const list: ExploreFilters[] = [{ search: [] }];
  for (const place of PLACES) {
    for (const radiusKm of [1, 25, 100, 500]) {
      list.push({ search: [], geo: { lon: place.lon, lat: place.lat, radiusKm } });
    }
  }
  list.push(
    { search: [], geo: { lon: 180, lat: -17, radiusKm: 200 } },
    { search: [], geo: { lon: -180, lat: -17, radiusKm: 200 } },
    { search: [], geo: { lon: 0, lat: 90, radiusKm: 300 } },
    { search: [], geo: { lon: 0, lat: -90, radiusKm: 300 } },
    { search: [], geo: { lon: -120, lat: 0, radiusKm: 50 } },
    { search: queryWords("plomb") },
    { search: queryWords("cafe") },
    { search: queryWords("strasse") },
    { search: queryWords("demenag urgent") },
    { search: queryWords("p") },
    { search: queryWords("the") },
    { search: queryWords("ther") },
    { search: queryWords("th plomb") },
    { search: queryWords("12") },
    { search: queryWords("fur avec") },
    { search: [], payment: "Pro-bono" },
    { search: [], payment: "Paid", countryCode: "FJ" },
    { search: [], cityName: "paris" },
    { search: [], regionName: "saint-etienne" },
    { search: [], cityName: "paris", regionName: "tokyo" },
    {
      search: queryWords("gard"),
      payment: "Paid",
      geo: { lon: 2.35, lat: 48.85, radiusKm: 100 },
    },
  );
  return list;
}

async function checkQueries(
  kv: Deno.Kv,
  tasks: TaskRecord[],
  run: { queries: ExploreFilters[]; budgets: (number | undefined)[]; limits?: number[] },
): Promise<number> {
  const { queries, budgets, limits = LIMITS } = run;
  let shortPages = 0;
  for (const filters of queries) {
    const expected = reference(tasks, filters);
    for (const limit of limits) {
      // Paging one by one through long results adds time, not coverage.
      if (limit === 1 && expected.length > 60) continue;
      for (const budget of budgets) {
        const got = await allPages(kv, { filters, limit, budget });
        assertEquals(
          got.items.map((r) => r.id),
          expected.map((r) => r.id),
          `${describe(filters)} limit ${limit} budget ${budget}`,
        );
        assertEquals(got.items, expected, `${describe(filters)} limit ${limit}: items differ`);
        if (budget === undefined) {
          assertEquals(got.shortPages, 0, `${describe(filters)}: short page without a budget`);
        }
        shortPages += got.shortPages;
      }
    }
  }
  return shortPages;
}

Deno.test("GET /tasks/explore index answers exactly as the brute-force reference", async (t) => {
  await using kv = await openTestKv();
  const tasks = generateTasks(7, 2500);
  for (const task of tasks) await writeTask(kv, null, task);
  const randomFilters = Array.from({ length: 120 }, (_, i) => generateFilters(1000 + i));

  await t.step("rule: the indexes hold exactly the entries of published tasks", async () => {
    await assertTaskIndexesConsistent(kv);
  });

  await t.step("rule: every filter combination, every page of every limit, in order", async () => {
    await checkQueries(kv, tasks, {
      queries: [...edgeFilters(), ...randomFilters],
      budgets: [undefined],
    });
  });

  await t.step("rule: pages cut short by the storage budget still add up exactly", async () => {
    await checkQueries(kv, tasks, {
      queries: [...edgeFilters(), ...randomFilters.slice(0, 30)],
      budgets: [150],
      limits: [
        7,
        50,
      ],
    });
  });

  await t.step(
    "rule: deleted, completed and edited tasks leave or move in the indexes",
    async () => {
      const rnd = seededRandom(99);
      for (let i = 0; i < tasks.length; i++) {
        const r = rnd();
        if (r > 0.3) continue;
        const before = tasks[i];
        let after: TaskRecord;
        if (r < 0.05) after = { ...before, deletedAt: "2031-01-01T00:00:00.000Z" };
        else if (r < 0.1) after = { ...before, status: "completed" };
        else if (r < 0.15) after = { ...before, title: `Renamed: ${before.title}` };
        else if (r < 0.2) {
          const other = tasks[(i * 7919) % tasks.length];
          after = {
            ...before,
            location: other.location,
            title: other.title,
            budget: other.budget,
          };
        } else after = { ...before, description: "Déménagement urgent, Straße" };
        await writeTask(kv, before, after);
        tasks[i] = after;
      }
      await assertTaskIndexesConsistent(kv);
      await checkQueries(kv, tasks, {
        queries: [...edgeFilters(), ...randomFilters.slice(0, 60)],
        budgets: [undefined],
      });
    },
  );

  await t.step(
    "rule: a page without search reads index entries only, no task record",
    async () => {
      const queries = [...edgeFilters(), ...randomFilters].filter((f) => f.search.length === 0);
      for (const filters of queries) {
        const page = await exploreTasks(kv, { filters, limit: 20 });
        assertEquals(page.work.docs, 0, `${describe(filters)}: plan ${page.plan}`);
      }
    },
  );

  await t.step("rule: the last page carries no next cursor", async () => {
    const page = await exploreTasks(kv, { filters: { search: [] }, limit: 50 });
    assertEquals(page.items.length, 50);
    const none = await exploreTasks(kv, {
      filters: { search: queryWords("nothingmatches") },
      limit: 20,
    });
    assertEquals(none, { ...none, items: [], next: null });
  });
});

Deno.test("explore search reads long texts from the overflow index", async (t) => {
  await using kv = await openTestKv();
  const [base] = generateTasks(3, 1);
  const long = Array.from({ length: 400 }, (_, i) => `mot${i.toString(36)}`).join(" ");
  const task: TaskRecord = { ...base, status: "published", description: long };
  await writeTask(kv, null, task);
  await t.step("rule: a word beyond the indexed ones still finds the task", async () => {
    const page = await exploreTasks(kv, { filters: { search: queryWords("mot9z") }, limit: 20 });
    assertEquals(page.items.map((r) => r.id), [task.id]);
  });
  await t.step("rule: the task's words cost no index entry each", () => {
    const entries = exploreIndexEntries(task);
    assertEquals(entries.length < 10, true);
  });
});

// Tasks of the fixtures' shape placed by hand: `count` of them at points from `at(i)`.
function placedTasks(
  seed: number,
  count: number,
  at: (i: number) => Location,
): TaskRecord[] {
  return generateTasks(seed, count).map((task, i) => ({
    ...task,
    status: "published",
    location: at(i),
  }));
}

Deno.test("explore geo reads few lists in a sparse area and few entries in a dense one", async (t) => {
  await using kv = await openTestKv();
  const rnd = seededRandom(5);
  // A sparse area: 60 tasks over 4 x 4 degrees of steppe, a third of them radius-type.
  const sparse = placedTasks(11, 60, (i) => {
    const coordinates: [number, number] = [60 + rnd() * 4, 48 + rnd() * 4];
    return i % 3 === 0
      ? { type: "radius", name: "Steppe", coordinates, radiusKm: [10, 60, 300][i % 9 / 3] }
      : { type: "city", name: "Steppe", coordinates };
  });
  // A dense city: 1500 tasks within a few km of one point.
  const dense = placedTasks(12, 1500, () => ({
    type: "city",
    name: "Dense",
    coordinates: near(rnd, { name: "Dense", lon: 10, lat: 50, sigmaKm: 3 }),
  }));
  const tasks = [...sparse, ...dense];
  for (const task of tasks) await writeTask(kv, null, task);

  await t.step(
    "rule: a sparse counter cell is read whole, in one list per layer cell",
    async () => {
      const filters: ExploreFilters = { search: [], geo: { lon: 62, lat: 50, radiusKm: 50 } };
      const page = await exploreTasks(kv, { filters, limit: 20 });
      assertEquals(page.items, reference(tasks, filters).slice(0, 20));
      // Every (layer, precision-2 cell) pair holding a sparse task, read at most once.
      const cells = new Set(sparse.map((task) => {
        const layer = layerOf(task.location.type, task.location.radiusKm)!;
        const [lon, lat] = task.location.coordinates;
        return `${layer.name}:${geohashEncode(lon, lat, 2)}`;
      }));
      assertEquals(page.work.lists <= cells.size, true, `${page.work.lists} lists`);
    },
  );

  await t.step("rule: a small circle in a dense city reads fine cells, not the city", async () => {
    const filters: ExploreFilters = { search: [], geo: { lon: 10, lat: 50, radiusKm: 1 } };
    const page = await exploreTasks(kv, { filters, limit: 20 });
    assertEquals(page.items, reference(tasks, filters).slice(0, 20));
    // About a quarter of the city lies newer than the page's frontier; reading its counter cell
    // whole would take all 1500.
    assertEquals(page.work.entries < dense.length / 2, true, `${page.work.entries} entries`);
  });

  await t.step("rule: both kinds page to the end exactly", async () => {
    for (const radiusKm of [1, 50, 300]) {
      for (const [lon, lat] of [[62, 50], [10, 50], [36, 50]]) {
        const filters: ExploreFilters = { search: [], geo: { lon, lat, radiusKm } };
        for (const limit of [7, 20]) {
          const got = await allPages(kv, { filters, limit });
          assertEquals(got.items, reference(tasks, filters), `${JSON.stringify(filters)} ${limit}`);
        }
      }
    }
  });
});

Deno.test("explore search within a circle pages exactly as the reference", async () => {
  await using kv = await openTestKv();
  const rnd = seededRandom(7);
  // Two cities an ocean apart, their tasks' titles and descriptions drawn from the same words.
  const city = (seed: number, lon: number, lat: number) =>
    placedTasks(
      seed,
      600,
      (i) =>
        i % 10 === 0 ? { type: "radius", name: "Area", coordinates: [lon, lat], radiusKm: 300 } : {
          type: "city",
          name: "Town",
          coordinates: near(rnd, { name: "Town", lon, lat, sigmaKm: 5 }),
        },
    );
  const here = city(21, 10, 50);
  const there = city(22, -75, 40);
  const tasks = [...here, ...there];
  for (const task of tasks) await writeTask(kv, null, task);
  const word = queryWords(here[0].title).find(isIndexedWord)!;
  for (const radiusKm of [5, 50, 500]) {
    for (const payment of [undefined, "Paid" as const]) {
      const filters: ExploreFilters = {
        search: [word],
        payment,
        geo: { lon: 10, lat: 50, radiusKm },
      };
      for (const limit of [7, 20]) {
        const got = await allPages(kv, { filters, limit });
        assertEquals(got.items, reference(tasks, filters), `${describe(filters)} ${limit}`);
      }
    }
  }
});

Deno.test("explore indexes only the words a search drives by", async (t) => {
  await using kv = await openTestKv();
  // The words under test in few tasks each: a word in half the tasks is cheaper found by
  // reading the documents themselves than by its entries and then the same documents.
  const texts = [
    ["The plumber is there for 2 days, please", "de 12 à 14h, deux fois"],
    ["Painter, avec pinceaux", "to paint the door"],
    ["Gardener", "hedges"],
  ];
  const tasks = placedTasks(41, 600, () => ({ type: "city", name: "Town", coordinates: [10, 50] }))
    .map((task, i) => ({
      ...task,
      title: texts[Math.min(i % 100, 2)][0],
      description: texts[Math.min(i % 100, 2)][1],
    }));
  for (const task of tasks) await writeTask(kv, null, task);

  await t.step(
    "rule: stop words, short words, numbers and prefixes have no word entries",
    async () => {
      const words = new Set<string>();
      for await (const entry of kv.list({ prefix: explore.byWordRoot() })) {
        words.add(entry.key[1] as string);
      }
      // "paint" starts "painter": a search that finds one finds the other.
      assertEquals([...words].sort(), [
        "days",
        "door",
        "fois",
        "gardener",
        "hedges",
        "painter",
        "pinceaux",
        "plumber",
      ]);
    },
  );

  await t.step("rule: a query word that could start one scans another index, exactly", async () => {
    const queries = ["the", "ther", "th", "12", "avec", "de", "the plumb", "pinc", "please"];
    queries.push("plea", "deux", "paint", "painte", "pain door", "plumber please");
    for (const query of queries) {
      const filters: ExploreFilters = { search: queryWords(query) };
      const got = await allPages(kv, { filters, limit: 7 });
      assertEquals(got.items, reference(tasks, filters), query);
      const page = await exploreTasks(kv, { filters, limit: 7 });
      const covered = queryWords(query).some(indexCovers);
      assertEquals(page.plan === "search", covered, `${query}: ${page.plan}`);
    }
  });
});
