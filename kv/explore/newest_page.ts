/**
 * One page of GET /tasks/explore: the planner (`plan/planner.ts`) picks the most selective index,
 * the scan (`scan/scan.ts`) reads it newest first within a fixed storage budget.
 */
import type { ExploreFilters } from "../../domain/explore.ts";
import type { ExplorePage } from "./scan/page.ts";
import { planScan } from "./plan/planner.ts";
import { entriesSure, entriesSureWithin } from "./plan/driver.ts";
import { scanPage } from "./scan/scan.ts";
import { Work } from "./scan/work.ts";
import { UnionStream } from "./scan/union.ts";
import { pendingPurges } from "../users/users.ts";

export type { ExplorePage } from "./scan/page.ts";

export interface ExploreOptions {
  /** Storage work (see `Work`) after which a page stops early, resumable by its cursor. */
  budget?: number;
}

/** One page's request: the filters, where to resume and how many items. */
export interface ExploreQuery extends ExploreOptions {
  filters: ExploreFilters;
  /** The order key to resume below; null or absent for the first page. */
  after?: string | null;
  limit: number;
}

/** A page's storage budget, in `Work` units (a listed entry each; calls priced in entries). */
export const DEFAULT_BUDGET = 7000;

/** A page of explore results strictly older than `query.after` (an order key), newest first. */
export async function exploreTasks(kv: Deno.Kv, query: ExploreQuery): Promise<ExplorePage> {
  const work = new Work();
  const { filters, limit } = query;
  const after = query.after ?? null;
  if (
    filters.cityName !== undefined && filters.regionName !== undefined &&
    filters.cityName !== filters.regionName
  ) {
    return { items: [], next: null, plan: "none", work };
  }
  const hidden = pendingPurges(kv);
  // Read with whatever comes first (the plan's counters, else the first lists); a failed read
  // fails the page when the scan waits for it.
  hidden.catch(() => {});
  const driver = await planScan(kv, { filters, after, limit, work });
  const streams = driver.streams();
  const stream = new UnionStream(streams);
  const budget = query.budget ?? DEFAULT_BUDGET;
  const page = await scanPage(kv, stream, {
    filters,
    after,
    limit,
    budget,
    hidden,
    sure: driver.bare === true && (entriesSure(filters) || entriesSureWithin(filters)),
    finalShare: driver.finalShare ?? 1,
    learnShare: driver.learnShare,
    work,
  });
  if (driver.learnDepth && after === null && page.items.length === limit) {
    driver.learnDepth(streams);
  }
  return { ...page, plan: driver.name, work };
}
