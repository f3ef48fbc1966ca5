/**
 * Nearest first reads a cell's tasks of every class in one list: a town whose tasks are of all
 * four classes costs a page the point lists a town of city tasks alone costs, and the pages still
 * answer as the brute force does.
 */
import assert from "node:assert/strict";
import type { ExploreFilters } from "../../../domain/explore.ts";
import type { Location, TaskRecord } from "../../../domain/tasks/task.ts";
import { exploreNearest } from "../../../kv/explore/nearest/nearest_page.ts";
import type { NearestPosition } from "../../../kv/explore/nearest/page_bounds.ts";
import { seededRandom } from "../../../scripts/seeded_random.ts";
import {
  countingPointLists,
  generateTasks,
  near,
  reference,
  writeTask,
} from "../explore_fixtures.ts";

/** 400 tasks around one town, of the city class alone or of the four classes in turn. */
function town(mixed: boolean): TaskRecord[] {
  const rnd = seededRandom(57);
  const radii = [0, 10, 60, 300];
  return generateTasks(58, 400).map((task, i) => {
    const coordinates = near(rnd, { name: "Town", lon: 5, lat: 48, sigmaKm: 3 });
    const radiusKm = mixed ? radii[i % radii.length] : 0;
    const location: Location = radiusKm === 0
      ? { type: "city", name: "Town", coordinates }
      : { type: "radius", name: "Town", coordinates, radiusKm };
    return { ...task, status: "published" as const, location };
  });
}

/** The point lists of the first page, and every page's distances against the brute force's. */
async function walk(tasks: TaskRecord[]): Promise<number> {
  await using kv = await Deno.openKv(":memory:");
  for (const task of tasks) await writeTask(kv, null, task);
  const filters: ExploreFilters = { search: [], geo: { lon: 5.002, lat: 48.001, radiusKm: 10 } };
  const want = reference(tasks, filters).sort((a, b) => a.distanceKm! - b.distanceKm!);
  const counting = countingPointLists(kv);
  // The first page warms the instance's probe memory, as a map's pages do.
  await exploreNearest(kv, { filters, limit: 20, splitAbove: 8 });
  await exploreNearest(counting.kv, { filters, limit: 20, splitAbove: 8 });
  const first = counting.lists();
  const got: number[] = [];
  let after: NearestPosition | null = null;
  for (let page = 0; page < 40 && (page === 0 || after); page++) {
    const value = await exploreNearest(kv, { filters, limit: 20, after, splitAbove: 8 });
    got.push(...value.items.map((i) => i.distanceKm!));
    after = value.next;
  }
  assert.deepEqual(got, want.map((i) => i.distanceKm));
  return first;
}

Deno.test("a nearest page lists a cell's tasks of every class at once", async () => {
  const cityOnly = await walk(town(false));
  const mixed = await walk(town(true));
  assert.ok(cityOnly > 0, "the walk lists point cells");
  assert.ok(mixed <= cityOnly, `${mixed} point lists for four classes, ${cityOnly} for one`);
});
