/**
 * What every phase of the explore benchmark measures, and how: the first page the route answers
 * for a query, the time one call takes, and the repeats run untimed before a timing.
 */
import type { ExploreFilters } from "../../domain/explore.ts";
import { exploreTasks } from "../../kv/explore/newest_page.ts";
import { exploreNearest } from "../../kv/explore/nearest/nearest_page.ts";

export const PAGE = 20;
/** Repeats of a kind's first query before the HTTP and reference timings. */
export const WARMUP_REPEATS = 10;

export async function timed<T>(f: () => Promise<T>): Promise<[T, number]> {
  const t0 = performance.now();
  const value = await f();
  return [value, performance.now() - t0];
}

/** The first page the route would answer, in the query's order, with what it read. */
export async function firstPage(kv: Deno.Kv, filters: ExploreFilters, sort?: string) {
  if (sort !== "distance") return await exploreTasks(kv, { filters, limit: PAGE });
  const page = await exploreNearest(kv, { filters, limit: PAGE });
  return {
    items: page.items,
    next: page.next,
    plan: "distance",
    work: page.work,
  };
}
