/**
 * Explore's pages wait for few KV calls in sequence (on Deno Deploy each is a network round trip):
 * counted exactly by kv/store/latency.ts, at the query function, over tasks of the explore fixtures.
 */
import assert from "node:assert/strict";
import type { ExploreFilters } from "../../domain/explore.ts";
import type { TaskRecord } from "../../domain/tasks/task.ts";
import { queryWords } from "../../domain/validation/text.ts";
import { exploreNearest } from "../../kv/explore/nearest/nearest_page.ts";
import { exploreTasks } from "../../kv/explore/newest_page.ts";
import { withLatency } from "../../kv/store/latency.ts";
import { allPages, generateTasks, near, PLACES, reference, writeTask } from "./explore_fixtures.ts";
import { seededRandom } from "../../scripts/seeded_random.ts";

Deno.test("explore's first pages wait for at most two round trips, three with a search and a place on a cold instance", async (t) => {
  await using kv = await Deno.openKv(":memory:");
  const tasks = generateTasks(51, 400).map((task, i) => ({
    ...task,
    status: "published" as const,
    title: `${task.title} ${i % 3 === 0 ? "harpsichord" : "lesson"}`,
  }));
  for (const task of tasks) await writeTask(kv, null, task);
  const slow = withLatency(kv, 0);
  const page = async (filters: ExploreFilters) => {
    const { value, trips } = await slow.traced(() => exploreTasks(slow.kv, { filters, limit: 20 }));
    assert.deepEqual(value.items, reference(tasks, filters).slice(0, 20), JSON.stringify(filters));
    return trips.sequential;
  };

  await t.step("rule: a page without filters reads its first lists with the purges", async () => {
    assert.equal(await page({ search: [] }), 1);
  });

  await t.step(
    "rule: a country, region or city page alone lists its index with the purges",
    async () => {
      // Its index holds only its matches: no counter can pick another, nor size its first list.
      assert.equal(await page({ search: [], countryCode: "FR" }), 1);
      assert.equal(await page({ search: [], cityName: "paris" }), 1);
      assert.equal(await page({ search: [], regionName: "paris" }), 1);
      assert.equal(await page({ search: [], cityName: "paris", hasSpots: true }), 1);
      // With payment the counters weigh the class against the name: read first.
      assert.ok(await page({ search: [], cityName: "paris", payment: "Paid" }) <= 2);
    },
  );

  await t.step(
    "rule: a whole-word search reads its first entries with the dictionary",
    async () => {
      assert.ok(await page({ search: queryWords("harpsichord") }) <= 2);
    },
  );

  await t.step(
    "rule: a search within a circle or a country reads deep in one list, then the documents",
    async () => {
      // The word drives (every third task holds it), the circle or country passes a few of its
      // entries: doubling batches took a round trip each on the way down.
      const paris = { lon: 2.3522, lat: 48.8566, radiusKm: 30 };
      const search = queryWords("harpsichord");
      assert.ok(await page({ search, geo: paris, payment: "Pro-bono" }) <= 3);
      assert.ok(await page({ search, countryCode: "JP", payment: "Paid" }) <= 3);
      assert.ok(await page({ search, geo: { ...paris, radiusKm: 3 } }) <= 3);
    },
  );

  await t.step(
    "rule: a common word's page reads as deep as its share asks, and its documents in one batch",
    async () => {
      // One task in eight holds the word, spread over every zone: too many entries to read
      // whole, too many zones to merge, so the documents drive. Sized at the word's share alone
      // (and refilled at the rate of entries passing their own check, which every document
      // does), the page fell a few matches short and refilled in small lists: 3 to 5 round trips.
      await using common = await Deno.openKv(":memory:");
      const many = generateTasks(53, 1600).map((task, i) => ({
        ...task,
        status: "published" as const,
        title: `${task.title} ${i % 8 === 0 ? "clavichord" : "lesson"}`,
      }));
      for (const task of many) await writeTask(common, null, task);
      const counted = withLatency(common, 0);
      const read = async (filters: ExploreFilters) => {
        const { value, trips } = await counted.traced(() =>
          exploreTasks(counted.kv, { filters, limit: 20 })
        );
        assert.deepEqual(value.items, reference(many, filters).slice(0, 20));
        const what = `${JSON.stringify(filters)}: ${trips.sequential} round trips, ` +
          `${value.work.entries} entries, ${value.work.docs} documents`;
        return { trips: trips.sequential, entries: value.work.entries + value.work.docs, what };
      };
      for (const search of ["clavichord", "the"]) {
        // "the" is indexed nowhere: no counter helps, the documents are listed with the purges.
        const { trips, entries, what } = await read({ search: queryWords(search) });
        assert.ok(trips <= 2, what);
        assert.ok(entries <= 500, what);
      }
      // Within a circle the word drives; its documents are read in one batch, not chunk by chunk
      // of the page's remaining matches as each came back short.
      const paris = { lon: 2.3522, lat: 48.8566, radiusKm: 100 };
      for (const payment of ["Paid", "Pro-bono"] as const) {
        const filters = { search: queryWords("clavichord"), geo: paris, payment };
        const { trips, entries, what } = await read(filters);
        assert.ok(trips <= 3, what);
        assert.ok(entries <= 500, what);
      }
    },
  );

  await t.step(
    "rule: a warm instance sends a search's word lists with its dictionary read, exactly",
    async () => {
      // The word's entries (one task in eight) are too many to read whole beside the dictionary:
      // the dictionary names the word's zones, then their lists, then the documents, 3 round
      // trips. An instance that planned the word before lists the zones it remembers with the
      // dictionary read; the memory only chooses what to read early, never the answer.
      await using store = await Deno.openKv(":memory:");
      const word = (i: number) => (i % 8 === 0 ? "clavichord" : "lesson");
      const many = generateTasks(54, 1600).map((task, i) => ({
        ...task,
        status: "published" as const,
        title: `${task.title} ${word(i)}`,
      }));
      for (const task of many) await writeTask(store, null, task);
      const instance = withLatency(store, 0);
      const read = async (filters: ExploreFilters, after: string | null = null) => {
        const { value, trips } = await instance.traced(() =>
          exploreTasks(instance.kv, { filters, after, limit: 20 })
        );
        const what = `${JSON.stringify(filters)}: ${trips.sequential} round trips, ` +
          `${value.work.entries} entries, ${value.work.docs} documents`;
        return { value, trips: trips.sequential, read: value.work.entries + value.work.docs, what };
      };
      const paris = { lon: 2.3522, lat: 48.8566, radiusKm: 100 };
      const queries: ExploreFilters[] = [
        { search: queryWords("clavichord"), geo: paris, payment: "Paid" },
        { search: queryWords("clavic"), geo: { ...paris, radiusKm: 60 }, payment: "Pro-bono" },
        { search: queryWords("clavichord"), countryCode: "JP", payment: "Paid" },
      ];
      for (const filters of queries) {
        const cold = await read(filters);
        assert.deepEqual(cold.value.items, reference(many, filters).slice(0, 20));
        assert.ok(cold.trips <= 3, cold.what);
        const warm = await read(filters);
        assert.deepEqual(warm.value.items, reference(many, filters).slice(0, 20));
        assert.ok(warm.trips <= 2, warm.what);
        assert.ok(warm.read <= 500, warm.what);
      }
      // The store moves on: tasks of the word in a zone the memory never saw, others completed.
      // The early lists are a guess; every page is the store's.
      const rnd = seededRandom(55);
      const moved = generateTasks(56, 120).map((task) => ({
        ...task,
        status: "published" as const,
        title: `${task.title} clavichord`,
        location: { ...task.location, type: "city" as const, coordinates: near(rnd, PLACES[2]) },
      }));
      for (const task of moved) await writeTask(store, null, task);
      const now: TaskRecord[] = [...moved];
      for (const [i, task] of many.entries()) {
        if (i < 1400 || word(i) !== "clavichord") {
          now.push(task);
          continue;
        }
        const done = { ...task, status: "completed" as const };
        await writeTask(store, task, done);
        now.push(done);
      }
      for (const filters of queries) {
        const want = reference(now, filters);
        const { items } = await allPages(instance.kv, { filters, limit: 20 });
        assert.deepEqual(items, want, JSON.stringify(filters));
      }
    },
  );

  await t.step(
    "rule: a small circle or viewport in a city reads as deep as the page needs in its first lists",
    async () => {
      // Sized by an even spread over precision-2 cells, a city's first lists were far too
      // shallow: the page waited for two refills one after another. (A 3 km circle here holds a
      // dozen tasks among 600: its page reads past one list's largest first batch, 3 round trips.)
      await using dense = await Deno.openKv(":memory:");
      const rnd = seededRandom(52);
      const city = generateTasks(52, 600).map((task) => ({
        ...task,
        status: "published" as const,
        location: { ...task.location, type: "city" as const, coordinates: near(rnd, PLACES[0]) },
      }));
      for (const task of city) await writeTask(dense, null, task);
      const counted = withLatency(dense, 0);
      for (const radiusKm of [10, 20]) {
        const filters = { search: [], geo: { lon: 2.3522, lat: 48.8566, radiusKm } };
        const { value, trips } = await counted.traced(() =>
          exploreTasks(counted.kv, { filters, limit: 20 })
        );
        assert.deepEqual(value.items, reference(city, filters).slice(0, 20));
        assert.ok(trips.sequential <= 2, `${radiusKm} km: ${trips.sequential} round trips`);
      }
      // A city viewport: its first lists sized by the same density read what the page needs,
      // not each stream whole.
      const bbox = { minLon: 2.25, minLat: 48.8, maxLon: 2.45, maxLat: 48.92 };
      const { value, trips } = await counted.traced(() =>
        exploreTasks(counted.kv, { filters: { search: [], bbox }, limit: 20 })
      );
      assert.deepEqual(value.items, reference(city, { search: [], bbox }).slice(0, 20));
      assert.ok(trips.sequential <= 2, `viewport: ${trips.sequential} round trips`);
      // Sized by an even spread, its streams were read whole: 291 entries here.
      assert.ok(value.work.entries <= 260, `viewport: ${value.work.entries} entries`);
    },
  );

  await t.step(
    "rule: a nearest-first page reads its counters and the point's cells, then the cells that hold it",
    async () => {
      // Read cell after cell, a page waited for one list per cell and per finer level: 8 to 22
      // round trips. The whole page's cells, sized by the density the probes find, go in one batch.
      const nearest = async (geo: { lon: number; lat: number; radiusKm: number }) => {
        const filters: ExploreFilters = { search: [], geo };
        const { value, trips } = await slow.traced(() =>
          exploreNearest(slow.kv, { filters, limit: 20 })
        );
        const want = reference(tasks, filters).length;
        assert.equal(value.items.length, Math.min(20, want), JSON.stringify(geo));
        return trips.sequential;
      };
      const paris = { lon: 2.3522, lat: 48.8566 };
      assert.ok(await nearest({ ...paris, radiusKm: 10 }) <= 2);
      assert.ok(await nearest({ ...paris, radiusKm: 100 }) <= 2);
      assert.ok(await nearest({ lon: 139.6917, lat: 35.6895, radiusKm: 500 }) <= 2);
      // A sparse area: the counters' even spread sizes the batch.
      assert.ok(await nearest({ lon: 30, lat: 0, radiusKm: 2000 }) <= 2);
    },
  );

  await t.step(
    "rule: a sparse nearest-first page reads its small counter cells whole in its first batch",
    async () => {
      // A thin spread of city tasks over the point's counter cell (geohash s8), and tasks of a
      // wide radius 100 to 600 km from the point: most of the page's matches lie far out. The
      // wide tasks' counter cell, split and read ring after ring (each twice as far as the one
      // before, at the density the city tasks give), took a batch a ring: 3 round trips.
      await using sparse = await Deno.openKv(":memory:");
      const rnd = seededRandom(57);
      const wide = generateTasks(57, 80).map((task) => {
        const km = 100 + rnd() * 500;
        const angle = rnd() * 2 * Math.PI;
        const coordinates: [number, number] = [
          30 + (km * Math.cos(angle)) / 111.2,
          (km * Math.sin(angle)) / 111.2,
        ];
        return {
          ...task,
          status: "published" as const,
          location: { type: "radius" as const, name: "Savanna", coordinates, radiusKm: 480 },
        };
      });
      const towns = generateTasks(58, 600).map((task) => {
        const coordinates: [number, number] = [22.5 + rnd() * 11.25, rnd() * 5.6];
        return {
          ...task,
          status: "published" as const,
          location: { type: "city" as const, name: "Town", coordinates },
        };
      });
      const all = [...wide, ...towns];
      for (const task of all) await writeTask(sparse, null, task);
      const counted = withLatency(sparse, 0);
      const filters: ExploreFilters = { search: [], geo: { lon: 30, lat: 0, radiusKm: 50 } };
      const { value, trips } = await counted.traced(() =>
        exploreNearest(counted.kv, { filters, limit: 20 })
      );
      const want = reference(all, filters)
        .sort((a, b) => a.distanceKm! - b.distanceKm!)
        .slice(0, 20);
      assert.deepEqual(value.items.map((i) => i.distanceKm), want.map((i) => i.distanceKm));
      assert.ok(trips.sequential <= 2, `${trips.sequential} round trips, ${value.work.entries}`);
      assert.ok(value.work.entries <= 300, `${value.work.entries} entries`);
    },
  );
});
