/**
 * Explore for map clients (docs/contract.md section 15): sort=distance and bbox against a brute-force
 * reference over generated tasks (poles, antimeridian, every location type), and the GeoJSON
 * answer validated against the RFC 7946 schema.
 */
import assert from "node:assert/strict";
import { Ajv } from "ajv";
import featureCollectionSchema from "geojson-schema/FeatureCollection.json" with { type: "json" };
import type { BoundingBox } from "../../../domain/geo/bbox.ts";
import { type ExploreFilters, type ExploreItem, matchExplore } from "../../../domain/explore.ts";
import { searchTerms, type TaskRecord } from "../../../domain/tasks/task.ts";
import { toTaskListItem } from "../../../domain/tasks/task_view.ts";
import { exploreNearest } from "../../../kv/explore/nearest/nearest_page.ts";
import type { NearestOptions, NearestPosition } from "../../../kv/explore/nearest/page_bounds.ts";
import {
  allPages,
  generateFilters,
  generateTasks,
  near,
  PLACES,
  reference,
  writeTask,
} from "../explore_fixtures.ts";
import { setup, signUp } from "../../helpers.ts";
import { seededRandom } from "../../../scripts/seeded_random.ts";
import { postTask } from "../../tasks/task_fixtures.ts";

/** The reference order of sort=distance: exact distance, then newest first. */
function distanceReference(tasks: TaskRecord[], filters: ExploreFilters): ExploreItem[] {
  return tasks
    .map((task) => ({ task, match: matchExplore(task, searchTerms(task), filters) }))
    .filter((x) => x.match !== null)
    .sort((a, b) =>
      a.match!.distanceKm! - b.match!.distanceKm! ||
      (a.task.orderKey < b.task.orderKey ? 1 : -1)
    )
    .map(({ task, match }) => ({
      ...toTaskListItem(task),
      location: task.location,
      distanceKm: Math.round(match!.distanceKm! * 10) / 10,
    }));
}

async function allNearestPages(
  kv: Deno.Kv,
  filters: ExploreFilters,
  limit: number,
  options: NearestOptions = {},
) {
  const items: ExploreItem[] = [];
  let after: NearestPosition | null = null;
  for (let pages = 0; pages < 10_000; pages++) {
    const page = await exploreNearest(kv, { filters, after, limit, ...options });
    assert.ok(page.items.length <= limit);
    items.push(...page.items);
    if (!page.next) return items;
    // A page may be short (its storage budget spent) and still have a next one.
    if (after) assert.ok(page.next.d >= after.d, "the cursor moves on");
    after = page.next;
  }
  throw new Error("too many pages");
}

/** Boxes where geometry is hard: around places, across the antimeridian, over a pole, huge. */
function generateBox(rnd: () => number): BoundingBox {
  const kind = rnd();
  if (kind < 0.15) return { minLon: 170 + rnd() * 9, minLat: -30, maxLon: -175, maxLat: 70 };
  if (kind < 0.25) return { minLon: -180, minLat: 80 + rnd() * 9, maxLon: 180, maxLat: 90 };
  if (kind < 0.3) return { minLon: -180, minLat: -90, maxLon: 180, maxLat: 90 };
  if (kind < 0.35) return { minLon: -170, minLat: -90, maxLon: 170, maxLat: -85 };
  const [lon, lat] = near(rnd, PLACES[Math.floor(rnd() * PLACES.length)]);
  const w = [0.05, 0.5, 3, 20][Math.floor(rnd() * 4)];
  const h = Math.min(w, 10);
  const wrap = (x: number) => ((((x + 180) % 360) + 360) % 360) - 180;
  return {
    minLon: wrap(lon - w),
    maxLon: wrap(lon + w),
    minLat: Math.max(-90, lat - h),
    maxLat: Math.min(90, lat + h),
  };
}

Deno.test("explore sort=distance and bbox agree with the brute-force reference", async (t) => {
  await using svc = await setup();
  const tasks = generateTasks(18, 1500);
  for (const task of tasks) await writeTask(svc.kv, null, task);

  await t.step("rule: sort=distance pages nearest first, ties newest first, exactly", async () => {
    const rnd = seededRandom(181);
    let nonEmpty = 0;
    for (let i = 0; i < 120; i++) {
      const filters = generateFilters(1000 + i);
      if (!filters.geo) {
        const [lon, lat] = near(rnd, PLACES[i % PLACES.length]);
        filters.geo = { lon, lat, radiusKm: [5, 50, 300, 500][i % 4] };
      }
      const want = distanceReference(tasks, filters);
      if (want.length > 0) nonEmpty++;
      const got = await allNearestPages(svc.kv, filters, [1, 3, 20][i % 3]);
      assert.deepEqual(got, want, JSON.stringify(filters));
      // Pages cut short by a small storage budget resume exactly.
      if (i % 4 === 1) {
        const short = await allNearestPages(svc.kv, filters, 5, { budget: 200 });
        assert.deepEqual(short, want, JSON.stringify(filters));
      }
      // Through much finer cells, as a dense store would be read.
      if (i % 4 === 0) {
        const fine = await allNearestPages(svc.kv, filters, [1, 3, 20][i % 3], { splitAbove: 2 });
        assert.deepEqual(fine, want, JSON.stringify(filters));
      }
    }
    assert.ok(nonEmpty > 60, `only ${nonEmpty} queries matched anything`);
  });

  await t.step("rule: bbox selects city and radius tasks by their coordinates", async () => {
    const rnd = seededRandom(182);
    let nonEmpty = 0;
    for (let i = 0; i < 80; i++) {
      const filters = i % 2 === 0 ? generateFilters(2000 + i) : { search: [] };
      filters.bbox = generateBox(rnd);
      const want = reference(tasks, filters);
      if (want.length > 0) nonEmpty++;
      const got = await allPages(svc.kv, { filters, limit: [2, 20][i % 2] });
      assert.deepEqual(got.items, want, JSON.stringify(filters));
    }
    assert.ok(nonEmpty > 30, `only ${nonEmpty} boxes held anything`);
  });

  await t.step("rule: bbox and sort=distance combine", async () => {
    const rnd = seededRandom(183);
    for (let i = 0; i < 30; i++) {
      const place = PLACES[i % PLACES.length];
      const filters: ExploreFilters = {
        search: [],
        geo: { lon: place.lon, lat: place.lat, radiusKm: 500 },
        bbox: generateBox(rnd),
      };
      const want = distanceReference(tasks, filters);
      assert.deepEqual(await allNearestPages(svc.kv, filters, 7), want);
    }
  });

  await t.step("rule: a distance cursor stays exact while tasks come and go", async () => {
    const filters: ExploreFilters = { search: [], geo: { lon: 2.35, lat: 48.85, radiusKm: 100 } };
    const before = distanceReference(tasks, filters);
    const first = await exploreNearest(svc.kv, { filters, limit: 10 });
    assert.ok(first.next);
    // A new task nearer than the cursor and one farther; one listed task leaves.
    const extra = generateTasks(99, 2).map((task, i): TaskRecord => ({
      ...task,
      status: "published",
      acceptedCount: 0,
      location: {
        type: "city",
        name: "Paris",
        coordinates: i === 0 ? [2.35, 48.85] : [2.9, 48.9],
      },
    }));
    for (const task of extra) await writeTask(svc.kv, null, task);
    const gone = tasks.find((task) => task.id === before[20].id)!;
    await writeTask(svc.kv, gone, { ...gone, deletedAt: "2031-01-01T00:00:00.000Z" });
    const rest: ExploreItem[] = [];
    let after: NearestPosition | null = first.next;
    while (after) {
      const page = await exploreNearest(svc.kv, { filters, after, limit: 10 });
      rest.push(...page.items);
      after = page.next;
    }
    const seen = [...first.items, ...rest].map((item) => item.id);
    assert.equal(new Set(seen).size, seen.length, "no task twice");
    const expected = before.map((i) => i.id).filter((id) => id !== gone.id);
    assert.deepEqual(seen.filter((id) => id !== extra[1].id), expected);
    assert.ok(seen.includes(extra[1].id), "a task created beyond the cursor is listed");
    await writeTask(svc.kv, { ...gone, deletedAt: "2031-01-01T00:00:00.000Z" }, gone);
    for (const task of extra) {
      await writeTask(svc.kv, task, { ...task, deletedAt: "2031-01-01T00:00:00.000Z" });
    }
  });
});

Deno.test("explore for map clients over HTTP", async (t) => {
  await using svc = await setup();
  const ada = await signUp(svc);
  const spots: [number, number][] = [[2.3522, 48.8566], [2.36, 48.86], [2.5, 48.9], [179.9, -16.8]];
  for (const [i, coordinates] of spots.entries()) {
    await postTask(svc, ada.token, {
      title: `Task ${i}`,
      location: { type: "city", name: "Somewhere", coordinates },
    });
  }
  await postTask(svc, ada.token, {
    title: "Wide",
    location: { type: "radius", name: "Île-de-France", coordinates: [2.6, 48.7], radiusKm: 50 },
  });

  await t.step(
    "rule: Accept: application/geo+json answers a valid RFC 7946 FeatureCollection",
    async () => {
      const res = await svc.request(
        "/api/v1/tasks/explore?latitude=48.8566&longitude=2.3522&radiusKm=100&sort=distance&limit=2",
        { headers: { Accept: "application/geo+json" } },
      );
      assert.equal(res.status, 200);
      assert.match(res.headers.get("Content-Type")!, /^application\/geo\+json/);
      assert.ok(res.headers.get("X-Next-Cursor"), "paging headers stay");
      const body: {
        type: string;
        features: { id: string; geometry: unknown; properties: Record<string, unknown> }[];
      } = await res.json();
      const ajv = new Ajv({ strict: false, allErrors: true });
      const validate = ajv.compile(featureCollectionSchema);
      assert.ok(validate(body), JSON.stringify(validate.errors));
      assert.equal(body.type, "FeatureCollection");
      assert.equal(body.features.length, 2);
      const [feature] = body.features;
      assert.deepEqual(feature.geometry, { type: "Point", coordinates: [2.3522, 48.8566] });
      assert.equal(feature.properties.title, "Task 0");
      assert.equal(feature.properties.distanceKm, 0);
      assert.equal(feature.id, feature.properties.id);
    },
  );

  await t.step("rule: plain JSON stays the default answer", async () => {
    const res = await svc.request("/v1/tasks/explore");
    assert.match(res.headers.get("Content-Type")!, /^application\/json/);
    assert.ok(Array.isArray(await res.json()));
  });

  await t.step("rule: sort=distance orders nearest first across pages", async () => {
    const titles: string[] = [];
    let url: string | null =
      "/v1/tasks/explore?latitude=48.8566&longitude=2.3522&radiusKm=100&sort=distance&limit=1";
    while (url) {
      const res: Response = await svc.request(url);
      titles.push(...(await res.json()).map((i: { title: string }) => i.title));
      const cursor = res.headers.get("X-Next-Cursor");
      url = cursor
        ? `/v1/tasks/explore?latitude=48.8566&longitude=2.3522&radiusKm=100&sort=distance&limit=1&cursor=${cursor}`
        : null;
    }
    assert.deepEqual(titles, ["Task 0", "Task 1", "Task 2", "Wide"]);
  });

  await t.step("rule: bbox crosses the antimeridian when minLon > maxLon", async () => {
    const res = await svc.request("/v1/tasks/explore?bbox=170,-20,-170,-10");
    assert.deepEqual((await res.json()).map((i: { title: string }) => i.title), ["Task 3"]);
  });

  await t.step("rule: sort=distance without a geo query is 400", async () => {
    const res = await svc.request("/v1/tasks/explore?sort=distance");
    assert.equal(res.status, 400);
    assert.equal((await res.json()).errors[0].path, "sort");
  });

  await t.step("rule: a malformed bbox is 400", async () => {
    for (const bbox of ["1,2,3", "a,b,c,d", "0,10,1,5", "0,0,181,1", "1e1,0,2,1"]) {
      const res = await svc.request(`/v1/tasks/explore?bbox=${bbox}`);
      assert.equal(res.status, 400, bbox);
      assert.equal((await res.json()).errors[0].path, "bbox");
    }
  });

  await t.step("rule: a newest-first cursor is refused by sort=distance", async () => {
    const first = await svc.request(
      "/v1/tasks/explore?latitude=48.8566&longitude=2.3522&radiusKm=100&limit=1",
    );
    await first.body?.cancel();
    const cursor = first.headers.get("X-Next-Cursor");
    const res = await svc.request(
      `/v1/tasks/explore?latitude=48.8566&longitude=2.3522&radiusKm=100&limit=1&sort=distance&cursor=${cursor}`,
    );
    assert.equal(res.status, 400);
    assert.equal((await res.json()).code, "INVALID_CURSOR");
  });
});
