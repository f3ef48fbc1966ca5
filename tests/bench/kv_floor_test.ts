/**
 * The peer bench's KV floor lists real explore entries: on a country's prefix its page is explore's
 * own page of that country, item for item, with a circle's distances and a full page's cursor.
 */
import assert from "node:assert/strict";
import { exploreFilters } from "../../domain/explore.ts";
import { explorePage } from "../../kv/explore/mod.ts";
import { generateTask } from "../../bench/datasets/explore_data.ts";
import { CITIES } from "../../bench/datasets/explore_data_places.ts";
import { loadTasks } from "../../bench/explore/explore_load.ts";
import { floorPage, floorPool } from "../../bench/peers/kv_floor.ts";

const N = 400;
const PAGE = 20;

Deno.test("the KV floor lists a country's newest cards, as explore's page of that country", async () => {
  await using kv = await Deno.openKv(":memory:");
  await loadTasks(kv, N, (i) => generateTask(i, N));
  const pool = await floorPool(kv, { countries: CITIES.map((c) => c.cc), page: PAGE });
  assert.ok(pool.prefixes.length > 0);
  const cc = pool.prefixes[0][1] as string;

  const filters = exploreFilters({ countryCode: cc.toLowerCase() });
  const want = await explorePage(kv, { filters, sort: "newest", limit: PAGE });
  const page = await floorPage(kv, pool, {
    filters,
    sort: "newest",
    limit: PAGE,
    items: 20,
    turn: 0,
  });
  assert.deepEqual(page.items, want.items);
  assert.ok(page.nextCursor);

  const circle = exploreFilters({ longitude: 0, latitude: 0, radiusKm: 10 });
  const few = await floorPage(kv, pool, {
    filters: circle,
    sort: "distance",
    limit: PAGE,
    items: 7,
    turn: pool.prefixes.length,
  });
  assert.deepEqual(few.items.map((i) => i.id), want.items.slice(0, 7).map((i) => i.id));
  assert.ok(few.items.every((i) => typeof i.distanceKm === "number" && i.distanceKm > 0));
  assert.equal(few.nextCursor, null);

  const none = await floorPage(kv, pool, {
    filters,
    sort: "newest",
    limit: PAGE,
    items: 0,
    turn: 0,
  });
  assert.deepEqual(none, { items: [], nextCursor: null });
});
