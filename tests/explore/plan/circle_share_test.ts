/**
 * A search by one word within a circle learns what share of its word's candidates the circle
 * keeps, by radius band and zone (`circleShareKey`): around a city the even-spread estimate runs
 * far low, and a page sized by it read hundreds of word entries and twice the documents it used.
 */
import assert from "node:assert/strict";
import type { ExploreFilters } from "../../../domain/explore.ts";
import type { Location } from "../../../domain/tasks/task.ts";
import { queryWords } from "../../../domain/validation/text.ts";
import { exploreTasks } from "../../../kv/explore/newest_page.ts";
import { circleShareKey, planMemory } from "../../../kv/explore/shared/plan_memory.ts";
import { withLatency } from "../../../kv/store/latency.ts";
import { seededRandom } from "../../../scripts/seeded_random.ts";
import { generateTasks, near, reference, writeTask } from "../explore_fixtures.ts";

Deno.test("explore learns what a circle keeps of its word's zones", async (t) => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/explore.kv`;
  await using kv = await Deno.openKv(path);
  const rnd = seededRandom(9);
  // Four tasks in six in a city, one spread over its precision-2 zone (u0: 0-11.25 E, 45-50.6
  // N), one in another city far away; one task in eight holds the word (in both cities).
  const location = (i: number): Location =>
    i % 6 === 5 ? { type: "city", name: "Rural", coordinates: [rnd() * 11, 45.2 + rnd() * 5.2] } : {
      type: "city",
      name: i % 6 < 4 ? "Town" : "Far",
      coordinates: i % 6 < 4
        ? near(rnd, { name: "Town", lon: 5, lat: 48, sigmaKm: 8 })
        : near(rnd, { name: "Far", lon: 139, lat: 35, sigmaKm: 8 }),
    };
  const tasks = generateTasks(81, 1200).map((task, i) => ({
    ...task,
    status: "published" as const,
    title: `${task.title} ${i % 8 === 0 ? "plumber" : "lesson"}`,
    location: location(i),
  }));
  for (const task of tasks) await writeTask(kv, null, task);
  const geo = { lon: 5, lat: 48, radiusKm: 40 };
  const page = async (store: Deno.Kv, search: string) => {
    const slow = withLatency(store, 0);
    const filters: ExploreFilters = { search: queryWords(search), geo };
    const { value, trips } = await slow.traced(() => exploreTasks(slow.kv, { filters, limit: 20 }));
    assert.deepEqual(value.items, reference(tasks, filters).slice(0, 20));
    return { read: value.work.entries + value.work.docs, trips: trips.sequential, value };
  };

  await t.step("rule: a full page teaches the share, and the next reads far less", async () => {
    // Two instances as warm, but only the first has run the one-word search, the other the same
    // search by two words (which teaches no share).
    for (let i = 0; i < 3; i++) await page(kv, "plumb");
    await using other = await Deno.openKv(path);
    for (let i = 0; i < 3; i++) await page(other, "plumb plumber");
    const key = circleShareKey({ search: ["plumb"], geo })!;
    const share = planMemory(kv).shares.get(key);
    assert.ok(share !== undefined && share > 0.3, `share ${share}`);
    assert.equal(planMemory(other).shares.get(key), undefined);
    const learned = await page(kv, "plumb");
    const unlearned = await page(other, "plumb");
    assert.equal(learned.value.plan, "search");
    assert.equal(unlearned.value.plan, "search");
    const what = `${unlearned.read} entries and documents, ${learned.read} with the share`;
    assert.ok(learned.read < unlearned.read * 0.75, what);
    assert.ok(learned.trips <= unlearned.trips, what);
  });

  await t.step("rule: the share is kept by radius band and zone", () => {
    const at = (lon: number, radiusKm: number) =>
      circleShareKey({ search: ["plumb"], geo: { lon, lat: 48, radiusKm } });
    assert.equal(at(5, 40), at(5.5, 45));
    assert.notEqual(at(5, 40), at(5, 100));
    assert.notEqual(at(5, 40), at(12, 40));
    assert.equal(
      circleShareKey({ search: ["plumb", "leak"], geo: { lon: 5, lat: 48, radiusKm: 40 } }),
      null,
    );
  });
  await Deno.remove(dir, { recursive: true });
});
