/**
 * A circle's first pages teach the instance how deep they read against the even-spread estimate
 * (`kv/explore/plan/geo/depth.ts`): the next circle of that radius band reads its first
 * lists that much deeper, and waits for fewer refills, with answers exactly as the reference; a
 * refill reads what the page still needs at once.
 */
import assert from "node:assert/strict";
import type { ExploreFilters } from "../../../domain/explore.ts";
import type { Location } from "../../../domain/tasks/task.ts";
import { queryWords } from "../../../domain/validation/text.ts";
import { exploreTasks } from "../../../kv/explore/newest_page.ts";
import { planMemory } from "../../../kv/explore/shared/plan_memory.ts";
import { PrefixStream } from "../../../kv/explore/scan/stream.ts";
import { Work } from "../../../kv/explore/scan/work.ts";
import { UnionStream } from "../../../kv/explore/scan/union.ts";
import { withLatency } from "../../../kv/store/latency.ts";
import { seededRandom } from "../../../scripts/seeded_random.ts";
import { generateTasks, reference, writeTask } from "../explore_fixtures.ts";

Deno.test("explore learns how deep a circle's pages read", async (t) => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/explore.kv`;
  await using kv = await Deno.openKv(path);
  const rnd = seededRandom(7);
  // Radius tasks of the 25 km class with radii of 1-2 km, spread evenly over two counter cells:
  // the even spread counts each as reaching 25 km beyond the circle, when it reaches 2. (The
  // larger classes are read by the cells their discs touch, which the even spread counts near
  // enough.)
  const location = (): Location => {
    const coordinates: [number, number] = [rnd() * 22.5, 45 + rnd() * 5.625];
    return { type: "radius", name: "Plain", coordinates, radiusKm: 1 + rnd() };
  };
  const tasks = generateTasks(71, 2400).map((task) => ({
    ...task,
    status: "published" as const,
    location: location(),
  }));
  for (const task of tasks) await writeTask(kv, null, task);
  const circles = Array.from({ length: 12 }, (_, i) => ({ lon: 1 + i * 1.5, lat: 47.5 }));
  // Round trips of each circle's first page on a handle of its own (`fresh`: a cold instance,
  // which has learned nothing) or all on `kv`, which learns from each page.
  const pages = async (fresh: boolean) => {
    let trips = 0;
    for (const c of circles) {
      await using own = fresh ? await Deno.openKv(path) : null;
      const slow = withLatency(own ?? kv, 0);
      const filters: ExploreFilters = { search: [], geo: { ...c, radiusKm: 60 } };
      const { value, trips: waited } = await slow.traced(() =>
        exploreTasks(slow.kv, { filters, limit: 20 })
      );
      assert.deepEqual(value.items, reference(tasks, filters).slice(0, 20));
      trips += waited.sequential;
    }
    return trips;
  };

  await t.step("rule: a circle alone's full first pages teach the depth of its band", async () => {
    const cold = await pages(true);
    await pages(false);
    const depth = planMemory(kv).depths.get("geo 6");
    assert.ok(depth !== undefined && depth > 1.5, `depth ${depth}`);
    const warm = await pages(false);
    // Without the depth, most of these pages refilled their densest streams a round trip later.
    assert.ok(warm <= cold - circles.length / 2, `${cold} round trips cold, ${warm} warm`);
  });

  await t.step("rule: a circle with other filters, or a probed one, teaches nothing", async () => {
    const memory = planMemory(kv);
    const geo = { lon: 5, lat: 47.5, radiusKm: 5 };
    for (
      const filters of [
        { search: [], geo },
        { search: queryWords("lesson"), geo: { ...geo, radiusKm: 200 } },
        { search: [], geo: { ...geo, radiusKm: 200 }, payment: "Paid" as const },
      ]
    ) {
      await exploreTasks(kv, { filters, limit: 20 });
    }
    assert.equal(memory.depths.get("geo 2"), undefined);
    assert.equal(memory.depths.get("geo 8"), undefined);
  });
  await Deno.remove(dir, { recursive: true });
});

Deno.test("a refill reads what the page still needs of a stream, past double its last batch", async () => {
  await using kv = await Deno.openKv(":memory:");
  const prefix = ["xp_by_cell", "c", "u0"];
  for (let i = 0; i < 300; i += 100) {
    const op = kv.atomic();
    for (let k = i; k < i + 100; k++) op.set([...prefix, `k${String(k).padStart(3, "0")}`], true);
    await op.commit();
  }
  const work = new Work();
  const union = new UnionStream([new PrefixStream(kv, { prefix, before: null, work, batch: 16 })]);
  for (let i = 0; i < 16; i++) await union.next();
  assert.equal(work.lists, 1);
  // The page's rates say 200 more entries: one list of 200, not 32, then 64, then 128.
  await union.next(200);
  for (let i = 1; i < 200; i++) assert.ok(union.take());
  assert.equal(work.lists, 2);
});
