/**
 * @module
 * Explore's front door: one page of everyone's published tasks for a query, newest first (the
 * planner picks an index, the scan reads it: `newest_page.ts`) or nearest first (the walk over
 * cells: `nearest/`), with the opaque cursor that resumes it. Layers above explore call this
 * module only; so do the task writes, for the index entries a task state adds.
 */
import type { ExploreFilters, ExploreItem } from "../../domain/explore.ts";
import { cursorPosition, decodeCursor, encodeCursor } from "../cursor.ts";
import { exploreTasks } from "./newest_page.ts";
import { exploreNearest } from "./nearest/nearest_page.ts";
import { cursorScope, decodeNearest, encodeNearest } from "./page_cursor.ts";

export {
  EXPLORE_COUNTER_ROOTS,
  EXPLORE_INDEX_ROOTS,
  exploreCounterKeys,
  exploreIndexEntries,
} from "./index/entries.ts";

/** One page's request: the filters, the order, the cursor a previous page gave, the page size. */
export interface ExplorePageQuery {
  filters: ExploreFilters;
  sort: "newest" | "distance";
  /** Absent or empty for the first page. */
  cursor?: string;
  limit: number;
}

/** One page: its items, and the cursor of the next page (null: this page is the last). */
export interface ExplorePageResult {
  items: ExploreItem[];
  nextCursor: string | null;
}

/**
 * One page of explore: nearest first by the walk (`sort=distance`, which needs a geo query),
 * newest first by the planner otherwise. A cursor made for other filters or another order, or
 * holding no position of this order, is INVALID_CURSOR.
 */
export async function explorePage(
  kv: Deno.Kv,
  query: ExplorePageQuery,
): Promise<ExplorePageResult> {
  const { filters, limit } = query;
  const scope = cursorScope(filters, query.sort);
  let items: ExploreItem[];
  let next: string | null;
  if (query.sort === "distance") {
    const after = query.cursor
      ? decodeNearest(await decodeCursor(query.cursor, scope, (p) => decodeNearest(p) !== null))
      : null;
    const page = await exploreNearest(kv, { filters, after, limit });
    items = page.items;
    next = page.next ? encodeNearest(page.next) : null;
  } else {
    const after = await cursorPosition(query.cursor, scope);
    const page = await exploreTasks(kv, { filters, after, limit });
    items = page.items;
    next = page.next;
  }
  return { items, nextCursor: next ? await encodeCursor(next, scope) : null };
}
